"""A small OpenAI-compatible chat completions server for tests (127.0.0.1, a free port).

It answers `POST /v1/chat/completions` (and `/chat/completions`) from a table keyed by the
response field the prompt asks about, or from any function of the request, and can be scripted
to misbehave: broken or wrapped JSON, wrong types, 429 with `retry-after`, 5xx, slow answers,
400 when `response_format` is sent. It records every request body it receives. `BlackHoleServer` accepts
connections and never answers.

    with FakeOpenAIServer() as server:
        server.table["price"] = {"string_specific_values": ["$", "$$"]}
        server.table["total"] = [rate_limited(), {"number_min_value": 0}]   # one per request
        ... LLMConfig(model="fake-model", base_url=server.base_url, api_key="test") ...
        server.requests[0].user

It also speaks the Batch API (`tests/servers/openai_batches.py`): `/v1/files` (multipart upload, retrieve,
`/content`) and `/v1/batches` (create, retrieve). A batch's lines are answered by the same table when it
finishes, and `server.batch` scripts it: in progress for N retrievals, error lines, lines missing from both
files, expired or cancelled part way, failed validation.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.loopback import LoopbackServer
from tests.servers.openai_batches import BatchScript, FakeBatches

FIELD_PATH_RE = re.compile(r"The field's path in the response body is (\"(?:[^\"\\]|\\.)*\")")
CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass
class Reply:
    """One scripted answer: a completion (`content`) or an error (`status` >= 400)."""

    content: str | None = None
    status: int = 200
    error: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (to make the client time out)."""
    raw_body: bytes | None = None
    """Sent as is instead of a chat completion or an error body."""
    finish_reason: str = "stop"
    usage: bool = True

    @classmethod
    def json(cls, obj: Any, **kwargs: Any) -> Reply:
        return cls(content=json.dumps(obj), **kwargs)


def rate_limited(retry_after: str | None = "0", *, retry_after_ms: str | None = None) -> Reply:
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = retry_after
    if retry_after_ms is not None:
        headers["retry-after-ms"] = retry_after_ms
    return Reply(status=429, error="Rate limit reached for requests", headers=headers)


def server_error(status: int = 500) -> Reply:
    return Reply(status=status, error="The server had an error while processing your request")


def slow(answer: Any, delay: float) -> Reply:
    reply = as_reply(answer)
    reply.delay = delay
    return reply


Answer = Reply | str | dict[str, Any]
"""A Reply, the message content as text, or a dict sent as JSON content."""


def as_reply(answer: Answer) -> Reply:
    if isinstance(answer, Reply):
        return Reply(**{k: getattr(answer, k) for k in answer.__dataclass_fields__})
    if isinstance(answer, str):
        return Reply(content=answer)
    return Reply.json(answer)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages", [])
        return messages if isinstance(messages, list) else []

    def _content(self, role: str) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == role)

    @property
    def system(self) -> str:
        return self._content("system")

    @property
    def user(self) -> str:
        return self._content("user")

    @property
    def field_path(self) -> str | None:
        match = FIELD_PATH_RE.search(self.user)
        return json.loads(match.group(1)) if match else None


Responder = Callable[[RecordedRequest], Answer]


class FakeOpenAIServer(LoopbackServer):
    name = "fake-openai"
    quiet_errors = True

    """The server, started by `start()` or `with`; `base_url` ends in `/v1`.

    Answers, in order of precedence: `responder(request)` if given; else `table[field path]`
    (a list there is a script, one entry per request, the last one repeated); else `default`.
    """

    def __init__(self, responder: Responder | None = None, *, default: Answer | None = None,
                 reject_response_format: bool = False, model: str = "fake-model") -> None:
        self.responder = responder
        self.table: dict[str, Answer | list[Answer]] = {}
        self.default: Answer = {} if default is None else default
        self.reject_response_format = reject_response_format
        self.model = model
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        self._served: dict[str, int] = {}
        self.batch = BatchScript()
        self.batches = FakeBatches(self)
        self.api_calls: list[RecordedRequest] = []
        """Every Batch API request (files and batches), with its headers."""
        super().__init__()

    # -- lifecycle ----------------------------------------------------------------------------

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    # -- answering ----------------------------------------------------------------------------

    def requests_for(self, field_path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.field_path == field_path]

    def answer(self, request: RecordedRequest) -> Reply:
        if self.reject_response_format and "response_format" in request.body:
            return Reply(status=400, error="'response_format' of type 'json_object' is not supported "
                                           "with this model")
        if self.responder is not None:
            return as_reply(self.responder(request))
        path = request.field_path
        entry = self.table.get(path, self.default) if path is not None else self.default
        if isinstance(entry, list):
            with self._lock:
                served = self._served.get(path or "", 0)
                self._served[path or ""] = served + 1
            entry = entry[min(served, len(entry) - 1)]
        return as_reply(entry)

    def completion_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        prompt_chars = sum(len(str(m.get("content", ""))) for m in request.messages)
        prompt_tokens = prompt_chars // 4 + 4 * len(request.messages)
        completion_tokens = len(reply.content or "") // 4 + 1
        body: dict[str, Any] = {
            "id": f"chatcmpl-fake{len(self.requests)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": str(request.body.get("model", self.model)),
            "system_fingerprint": "fp_fake",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": reply.content, "refusal": None},
                "logprobs": None,
                "finish_reason": reply.finish_reason,
            }],
        }
        if reply.usage:
            body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
        return body


def error_body(reply: Reply) -> dict[str, Any]:
    kind = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error",
            429: "rate_limit_exceeded"}.get(reply.status, "server_error")
    return {"error": {"message": reply.error, "type": kind, "param": None, "code": None}}


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stalls

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes, headers: dict[str, str],
                  content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def _batch_api(self, method: str, raw: bytes) -> bool:
            """Answer a Batch API request; False when the path is not one."""
            path = self.path.split("?", 1)[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            handled = server.batches.handle(method, path, headers, raw)
            if handled is None:
                return False
            status, payload, content_type = handled
            with server._lock:
                server.api_calls.append(RecordedRequest(path, headers, {}, time.monotonic()))
            self._send(status, payload, {}, content_type)
            return True

        def do_GET(self) -> None:
            if not self._batch_api("GET", b""):
                self._send(404, json.dumps({"error": {"message": "not found"}}).encode(), {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self._batch_api("POST", raw):
                return
            if self.path.split("?", 1)[0] not in CHAT_PATHS:
                self._send(404, json.dumps({"error": {"message": "not found"}}).encode(), {})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                body = {}
            request = RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()},
                                      body if isinstance(body, dict) else {}, time.monotonic())
            with server._lock:
                server.requests.append(request)
                server.in_flight += 1
                server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
            try:
                try:
                    reply = server.answer(request)
                except Exception as err:  # a broken responder is a 500, visible to the test
                    reply = Reply(status=500, error=f"responder failed: {err!r}")
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw_body is not None:
                    payload = reply.raw_body
                elif reply.status >= 400:
                    payload = json.dumps(error_body(reply)).encode()
                else:
                    payload = json.dumps(server.completion_body(request, reply)).encode()
            finally:
                # Counted out before the answer leaves, so the client's next request never
                # overlaps this one in the count.
                with server._lock:
                    server.in_flight -= 1
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                self._send(reply.status, payload, reply.headers)

    return Handler


class BlackHoleServer:
    """A TCP listener on 127.0.0.1 that accepts every connection, reads what comes and never answers (a server
    that hangs, a proxy with nothing behind it). `connections` counts the connections accepted."""

    def __init__(self) -> None:
        self._sock: socket.socket | None = None
        self._held: list[socket.socket] = []
        self._stopped = threading.Event()
        self.connections = 0

    def start(self) -> BlackHoleServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        sock.settimeout(0.05)
        self._sock = sock
        threading.Thread(target=self._accept, name="black-hole", daemon=True).start()
        return self

    def _accept(self) -> None:
        assert self._sock is not None
        while not self._stopped.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._held.append(conn)  # kept open, never written to

    def stop(self) -> None:
        self._stopped.set()
        for conn in self._held:
            with contextlib.suppress(OSError):
                conn.close()
        if self._sock is not None:
            self._sock.close()

    def __enter__(self) -> BlackHoleServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._sock is not None, "server not started"
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"
