"""`python -m satori_ci.demo --host 0.0.0.0 --port 8080`: the demo's staging API, served until interrupted."""

from __future__ import annotations

import argparse
import contextlib
import threading

from .bookshop import DemoBookshop
from .staging import StagingServer


def serve(host: str, port: int) -> None:
    """Serve the demo's staging API until interrupted (the action's selftest runs it in the background)."""
    with StagingServer(host, port) as server:
        DemoBookshop(server)
        print(f"example staging API at {server.base_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the example staging API with its planted bug.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    options = parser.parse_args()
    serve(options.host, options.port)


if __name__ == "__main__":  # python -m satori_ci.demo --host 0.0.0.0 --port 8080
    main()
