"""`satori-ci demo`: the bundled bookshop example, v1 -> v2, against a local staging API with bugs."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from satori_ci.demo_staging import BOOKS, Bookshop, Canned, Received

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "bookshop"


def example_specs() -> tuple[Path, Path]:
    """The example spec before and after the pull request (a source checkout is needed)."""
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
