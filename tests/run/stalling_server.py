"""A staging server that stalls on purpose, on raw sockets (127.0.0.1, a free port).

`stall(path)` says what the request for a path gets:
- `headers`: the status line, then the header block one byte a second (a per-read timeout never trips);
- `body`: complete headers with a Content-Length, then the body one byte a second;
- `silent`: the connection is accepted, the request read, and nothing is ever answered;
- `slow`: the complete JSON answer, after `SLOW_S` (a slow staging that answers every request);
- anything else: `ok`, a complete JSON answer `{"items": [{"ok": true, "n": 1}]}`.

Every stall ends by itself after `STALL_FOR_S` (then the answer is completed, or the connection closed), and
all of them end when the server stops, so a client that waits for the server is slow but never stuck.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Self

STALL_FOR_S = 45.0
"""How long a stall lasts at most: a run that ends well before this was cut by its own deadline."""
BYTE_EVERY_S = 1.0
SLOW_S = 1.0
OK_BODY = json.dumps({"items": [{"ok": True, "n": 1}]}).encode()


class StallingServer:
    """Serves each connection in a thread by `stall(path)` (see the module's docstring)."""

    def __init__(self, stall: Callable[[str], str], tls: ssl.SSLContext | None = None) -> None:
        self.stall = stall
        self.tls = tls
        self.stopped = threading.Event()
        self.received: list[str] = []
        self._lock = threading.Lock()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(32)
        self._listener.settimeout(0.05)
        self._threads: list[threading.Thread] = []

    @property
    def origin(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> Self:
        thread = threading.Thread(target=self._accept, name="stalling-server", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stopped.set()
        for thread in list(self._threads):
            thread.join(timeout=5)
        self._listener.close()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self, raw: socket.socket) -> None:
        try:
            raw.settimeout(5)
            conn = self.tls.wrap_socket(raw, server_side=True) if self.tls is not None else raw
        except OSError:
            raw.close()
            return
        with conn:
            try:
                conn.settimeout(0.2)
                while True:
                    path = self._request_path(conn)
                    if path is None:
                        return
                    with self._lock:
                        self.received.append(path)
                    if not self._answer(conn, self.stall(path.split("?")[0])):
                        return
            except OSError:
                return

    def _request_path(self, conn: socket.socket) -> str | None:
        """The path of the next request on the connection (None when the client left or the server stops)."""
        head = b""
        while b"\r\n\r\n" not in head:
            if self.stopped.is_set() or len(head) > 65536:
                return None
            try:
                chunk = conn.recv(4096)
            except TimeoutError:
                continue
            if not chunk:
                return None
            head += chunk
        line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        return line[1] if len(line) > 1 else "/"

    def _answer(self, conn: socket.socket, how: str) -> bool:
        """Answer one request as `how` says; whether the connection may serve another."""
        until = time.monotonic() + STALL_FOR_S
        if how == "silent":
            self._wait(until)
            return False
        if how == "slow":
            self.stopped.wait(SLOW_S)
        if how == "headers":
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            self._trickle(conn, b"X-Slowly: " + b"a" * 200 + b"\r\n", until)
            conn.sendall(_head(len(OK_BODY)) + OK_BODY)
            return False
        if how == "body":
            body = b" " * 200 + OK_BODY
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + _head(len(body)))
            self._trickle(conn, body, until)
            return False
        conn.sendall(b"HTTP/1.1 200 OK\r\n" + _head(len(OK_BODY)) + OK_BODY)
        return True

    def _wait(self, until: float) -> None:
        while not self.stopped.is_set() and time.monotonic() < until:
            self.stopped.wait(0.1)

    def _trickle(self, conn: socket.socket, data: bytes, until: float) -> None:
        """`data` a byte at a time, one every `BYTE_EVERY_S`, until `until`; then the rest at once."""
        for i in range(len(data)):
            if self.stopped.is_set() or time.monotonic() >= until:
                conn.sendall(data[i:])
                return
            conn.sendall(data[i:i + 1])
            self.stopped.wait(BYTE_EVERY_S)


def _head(length: int) -> bytes:
    return (f"Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
            ).encode()
