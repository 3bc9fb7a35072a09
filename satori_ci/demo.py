"""`satori-ci demo`: the bundled bookshop example, v1 -> v2, against a local staging API with bugs."""

from __future__ import annotations

import argparse
import contextlib
import copy
import threading
from pathlib import Path
from typing import Any

from satori_ci.demo_staging import BOOKS, Bookshop, Canned, Received, StagingServer

EXAMPLES = Path(__file__).resolve().parent / "examples" / "bookshop"


def example_specs() -> tuple[Path, Path]:
    """The example spec before and after the pull request (package data: installed with satori-ci)."""
    return EXAMPLES / "openapi.v1.yaml", EXAMPLES / "openapi.v2.yaml"


def _wrong_v2_fields(book: dict[str, Any], index: int) -> dict[str, Any]:
    """The staging API gets some of the fields v2 adds wrong."""
    if index == 1:
        book["language"] = "eng"  # ISO 639-1 codes have 2 letters
        book["store"]["latitude"] = 123.4  # no such latitude
    if index == 2:
        book["store"]["updated_at"] = "yesterday"  # not a date-time
    return book


class DemoBookshop(Bookshop):
    """The bookshop example with the v2 fields answered wrongly for two of its books."""

    def _list(self, received: Received, params: dict[str, str]) -> Canned:
        books = [_wrong_v2_fields(copy.deepcopy(b), i) for i, b in enumerate(BOOKS)]
        return Canned({"total": len(books), "books": books})

    def _one(self, received: Received, params: dict[str, str]) -> Canned:
        for index, book in enumerate(BOOKS):
            if book["isbn"] == params.get("isbn"):
                return Canned(_wrong_v2_fields(copy.deepcopy(book), index))
        return Canned({"error": "no such book"}, status=404)


def serve(host: str, port: int) -> None:
    """Serve the demo's staging API until interrupted (the action's selftest runs it in the background)."""
    with StagingServer(host, port) as server:
        DemoBookshop(server)
        print(f"example staging API at {server.base_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":  # python -m satori_ci.demo --host 0.0.0.0 --port 8080
    parser = argparse.ArgumentParser(description="Serve the example staging API with its planted bug.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    options = parser.parse_args()
    serve(options.host, options.port)
