"""What every local test server shares: a ThreadingHTTPServer on 127.0.0.1, a free port, a context manager."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self


class LoopbackServer:
    """Subclasses give `handler_class()`; `start()`/`stop()` or `with` run it on a free loopback port."""

    name = "test-server"
    quiet_errors = False
    """Drop handler tracebacks (servers that hang up on purpose)."""

    def __init__(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler_class())
        httpd.daemon_threads = True
        httpd.block_on_close = False
        if self.quiet_errors:
            httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=self.name,
                         daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"
