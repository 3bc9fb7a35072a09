"""A staging server on 127.0.0.1 with controllable responses: the bookshop example API, or any spec's paths.

Used by the tests (the real Newman binary runs against it), the benchmarks (replayed responses) and
`satori-ci demo`. Each route (method and path template) answers from its queue of canned responses first,
then from its default. The bookshop example API on it is `satori_ci.demo.bookshop`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from satori_ci.spec.routes import parse_template


@dataclass(frozen=True)
class Canned:
    """One response: a JSON body (or raw bytes), a status, headers, and an optional delay before answering."""

    body: Any = None
    status: int = 200
    raw: bytes | None = None
    content_type: str = "application/json"
    delay_s: float = 0.0

    def payload(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class Received:
    """A request as the server saw it."""

    method: str
    target: str
    """The raw request target: path and query, as sent (still percent-encoded)."""
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> list[tuple[str, str]]:
        return parse_qsl(urlsplit(self.target).query, keep_blank_values=True)


Responder = Callable[[Received, dict[str, str]], Canned]
"""Computes a response from the request and the path parameters (decoded)."""
Matcher = Callable[[Received], bool]


@dataclass
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    default: Responder | None
    when: Matcher | None = None
    name: str | None = None
    queue: deque[Canned] = field(default_factory=deque)


def _params(template: str, path: str) -> dict[str, str]:
    """The values a matched path gives the template's parameters (percent-decoded)."""
    segments = [unquote(s) for s in path.strip("/").split("/")] if path.strip("/") else []
    return dict(parse_template(template).bind(segments) or ())


class StagingServer:
    """A ThreadingHTTPServer on 127.0.0.1 (port 0: the OS picks one) answering from routes."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.address = (host, port)
        self._routes: list[_Route] = []
        self._lock = threading.Lock()
        self.received: list[Received] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- routes ----------------------------------------------------------------------------------

    def route(self, method: str, template: str, default: Responder | None = None, when: Matcher | None = None,
              name: str | None = None) -> None:
        """Answer `method template` (e.g. `GET /books/{isbn}`); without a default, an empty queue gives 404.

        `when` narrows the route to some requests (two APIs served side by side on `GET /`); such a route
        is named, and `enqueue` finds it by that name.
        """
        with self._lock:
            pattern = parse_template(template).pattern()
            self._routes.append(_Route(method.upper(), template, pattern, default, when, name))
            # narrowed routes first, then literal templates, so that /books/new wins over /books/{isbn}
            self._routes.sort(key=lambda r: (r.when is None, r.template.count("{"), -len(r.template)))

    def _find(self, method: str, template: str, name: str | None) -> _Route:
        for r in self._routes:
            if r.method == method.upper() and r.template == template and r.name == name:
                return r
        raise KeyError(f"no route {method} {template}" + (f" named {name!r}" if name else ""))

    def enqueue(self, method: str, template: str, responses: Iterable[Canned], name: str | None = None) -> None:
        """Answer the next requests of a route with these responses, in order, then with its default."""
        with self._lock:
            self._find(method, template, name).queue.extend(responses)

    def set_default(self, method: str, template: str, default: Responder | None, name: str | None = None) -> None:
        with self._lock:
            self._find(method, template, name).default = default

    def clear(self) -> None:
        """Empty every queue and forget the requests received."""
        with self._lock:
            for r in self._routes:
                r.queue.clear()
            self.received.clear()

    def pending(self) -> int:
        with self._lock:
            return sum(len(r.queue) for r in self._routes)

    def answer(self, received: Received) -> Canned:
        path = urlsplit(received.target).path
        with self._lock:
            self.received.append(received)
            for r in self._routes:
                if r.method != received.method:
                    continue
                match = r.pattern.match(path)
                if match is None or (r.when is not None and not r.when(received)):
                    continue
                if r.queue:
                    return r.queue.popleft()
                if r.default is None:
                    return Canned({"error": f"nothing queued for {r.method} {r.template}"}, status=404)
                default = r.default
                params = _params(r.template, path)
                break
            else:
                return Canned({"error": f"no route for {received.method} {path}"}, status=404)
        return default(received, params)

    # -- serving ---------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the staging server is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> StagingServer:
        handler = _handler_for(self)
        self._server = ThreadingHTTPServer(self.address, handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="satori-staging", daemon=True)  # stops within 50 ms, not 500
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StagingServer:
        return self.start() if self._server is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler_for(server: StagingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in separate writes: no 40 ms delayed-ACK stall

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            received = Received(self.command, self.path, {k: v for k, v in self.headers.items()}, body)
            canned = server.answer(received)
            if canned.delay_s:
                time.sleep(canned.delay_s)
            payload = canned.payload()
            try:
                self.send_response(canned.status)
                self.send_header("Content-Type", canned.content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler

