"""The Batch API of `FakeOpenAIServer`: files (multipart upload, retrieve, content) and batches (create,
retrieve), scripted by `server.batch` (a `BatchScript`), or for one batch by `server.batches.scripts[batch_id]`;
`server.batches.refused` lists the creations (1 for the first `POST /batches`...) answered HTTP 500.

A batch is `validating` when created, `in_progress` for `script.in_progress` retrievals, then finishes at the
next one: each input line is answered like a chat completion request (the server's table or responder; a
`Reply` with a status >= 400 gives an error-file line with that response), output lines in reverse order (the
Batch API keeps no order). Its input is validated as OpenAI does (JSON lines, unique `custom_id`s, one
endpoint, one model): a bad file makes the batch `failed`.

    server.batch.in_progress = 2                                 # two retrievals say in_progress
    server.batch.errors["total"] = ("request_timeout", "...")    # an error line (response null)
    server.batch.dropped.add("books[].isbn")                     # in neither file
    server.batch.outcome = "expired"; server.batch.answered = 3  # 3 lines answered, the rest batch_expired
    server.batches.scripts["batch_fake2"] = BatchScript(in_progress=5)  # only the second batch is slow
    server.batches.refused.add(2)                                # the second creation fails, the others not

Ids are unique per server, in order of creation (a refused creation creates nothing).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.servers.openai_server import FakeOpenAIServer, RecordedRequest

CREATED_AT = 1_700_000_000
EARLY_END = {"expired": ("batch_expired", "This request could not be executed before the completion window "
                                          "expired."),
             "cancelled": ("batch_cancelled", "This request was not executed because the batch was cancelled.")}


@dataclass
class BatchScript:
    """How the next batches behave."""

    in_progress: int = 0
    """Retrievals answered `in_progress` before the batch finishes."""
    outcome: str = "completed"
    """`completed`, `expired` or `cancelled` (the first `answered` lines answered), or `failed` (no file)."""
    answered: int | None = None
    errors: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Field path -> (code, message): an error line instead of an answer."""
    dropped: set[str] = field(default_factory=set)
    """Field paths whose lines are in neither file."""
    failure: str = "the input file could not be validated"
    """The error of a `failed` batch."""


@dataclass
class StoredFile:
    id: str
    filename: str
    purpose: str
    data: bytes

    def json(self) -> dict[str, Any]:
        return {"id": self.id, "object": "file", "bytes": len(self.data), "created_at": CREATED_AT,
                "filename": self.filename, "purpose": self.purpose, "status": "processed", "expires_at": None,
                "status_details": None}


@dataclass
class FakeBatch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    status: str = "validating"
    retrievals: int = 0
    total: int = 0
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[dict[str, Any]] | None = None

    def json(self) -> dict[str, Any]:
        return {"id": self.id, "object": "batch", "endpoint": self.endpoint, "input_file_id": self.input_file_id,
                "completion_window": self.completion_window, "status": self.status,
                "output_file_id": self.output_file_id, "error_file_id": self.error_file_id,
                "created_at": CREATED_AT, "expires_at": CREATED_AT + 86_400, "metadata": None,
                "errors": {"object": "list", "data": self.errors} if self.errors else None,
                "request_counts": {"total": self.total, "completed": self.completed, "failed": self.failed}}


def _json(obj: Any, status: int = 200) -> tuple[int, bytes, str]:
    return status, json.dumps(obj).encode(), "application/json"


def _not_found(what: str) -> tuple[int, bytes, str]:
    return _json({"error": {"message": f"No such {what}", "type": "invalid_request_error", "param": None,
                            "code": None}}, 404)


def _multipart(headers: dict[str, str], raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The form's parts: name -> (filename, content)."""
    head = f"Content-Type: {headers.get('content-type', '')}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    parts: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str):
            parts[name] = (part.get_filename(), payload if isinstance(payload, bytes) else b"")
    return parts


class FakeBatches:
    """The files and batches one server holds (ids `file-fakeN`, `batch_fakeN`, in order)."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        self.server = server
        self.files: dict[str, StoredFile] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.requests: list[RecordedRequest] = []
        """Every input line answered, as a chat request."""
        self.scripts: dict[str, BatchScript] = {}
        """Batch id -> its own script, in place of `server.batch`."""
        self.refused: set[int] = set()
        """Creations (counted from 1) answered HTTP 500."""
        self.creations = 0
        self._lock = threading.Lock()

    def script(self, batch: FakeBatch) -> BatchScript:
        return self.scripts.get(batch.id, self.server.batch)

    def _store(self, filename: str, purpose: str, data: bytes) -> StoredFile:
        stored = StoredFile(f"file-fake{len(self.files) + 1}", filename, purpose, data)
        self.files[stored.id] = stored
        return stored

    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, str] | None:
        """(status, body, content type) for a Batch API request, None for any other path."""
        parts = path.rstrip("/").split("/")[1:]
        if parts[:1] == ["v1"]:
            parts = parts[1:]
        if not parts or parts[0] not in ("files", "batches"):
            return None
        with self._lock:
            if parts == ["files"] and method == "POST":
                form = _multipart(headers, raw)
                filename, data = form.get("file", (None, b""))
                purpose = form.get("purpose", (None, b""))[1].decode()
                return _json(self._store(filename or "upload.jsonl", purpose, data).json())
            if parts == ["batches"] and method == "POST":
                self.creations += 1
                if self.creations in self.refused:
                    return _json({"error": {"message": "The server had an error while creating the batch",
                                            "type": "server_error", "param": None, "code": None}}, 500)
                body = json.loads(raw or b"{}")
                if body.get("input_file_id") not in self.files:
                    return _not_found("file")
                batch = FakeBatch(f"batch_fake{len(self.batches) + 1}", body["input_file_id"],
                                  body.get("endpoint", ""), body.get("completion_window", ""))
                self.batches[batch.id] = batch
                return _json(batch.json())
            if parts[0] == "files" and len(parts) in (2, 3) and method == "GET":
                stored = self.files.get(parts[1])
                if stored is None:
                    return _not_found("file")
                if len(parts) == 3 and parts[2] == "content":
                    return 200, stored.data, "application/octet-stream"
                return _json(stored.json())
            if parts[0] == "batches" and len(parts) == 2 and method == "GET":
                found = self.batches.get(parts[1])
                if found is None:
                    return _not_found("batch")
                self._advance(found)
                return _json(found.json())
        return _not_found("endpoint")

    # -- running a batch ------------------------------------------------------------------------

    def _advance(self, batch: FakeBatch) -> None:
        if batch.status not in ("validating", "in_progress"):
            return
        batch.retrievals += 1
        if batch.retrievals <= self.script(batch).in_progress:
            batch.status = "in_progress"
            return
        lines = self._validate(batch)
        if lines is not None:
            self._finish(batch, lines)

    def _fail(self, batch: FakeBatch, message: str, line: int | None = None) -> None:
        batch.status = "failed"
        batch.errors = [{"code": "invalid_request", "message": message, "param": None, "line": line}]

    def _validate(self, batch: FakeBatch) -> list[dict[str, Any]] | None:
        script = self.script(batch)
        if script.outcome == "failed":
            self._fail(batch, script.failure)
            return None
        lines: list[dict[str, Any]] = []
        for number, text in enumerate(self.files[batch.input_file_id].data.decode().splitlines(), start=1):
            try:
                line = json.loads(text)
            except ValueError:
                self._fail(batch, "invalid JSON line", number)
                return None
            if any(line.get("custom_id") == known["custom_id"] for known in lines):
                self._fail(batch, f"duplicate custom_id {line.get('custom_id')!r}", number)
                return None
            if line.get("url") != batch.endpoint or line.get("method") != "POST":
                self._fail(batch, "the line's url or method differs from the batch's endpoint", number)
                return None
            if lines and line["body"].get("model") != lines[0]["body"].get("model"):
                self._fail(batch, "every line must use the same model", number)
                return None
            lines.append(line)
        return lines

    def _finish(self, batch: FakeBatch, lines: list[dict[str, Any]]) -> None:
        from tests.servers.openai_server import RecordedRequest, error_body

        script = self.script(batch)
        outputs: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for number, line in enumerate(lines):
            request = RecordedRequest(batch.endpoint, {}, line["body"], time.monotonic())
            result: dict[str, Any] = {"id": f"batch_req_{number + 1}", "custom_id": line["custom_id"],
                                      "response": None, "error": None}
            early = script.outcome in EARLY_END and script.answered is not None and number >= script.answered
            if request.field_path in script.dropped:
                continue
            if early or request.field_path in script.errors:
                code, message = EARLY_END[script.outcome] if early else script.errors[request.field_path or ""]
                result["error"] = {"code": code, "message": message}
                errors.append(result)
                continue
            self.requests.append(request)
            reply = self.server.answer(request)
            if reply.status >= 400:
                result["response"] = {"status_code": reply.status, "request_id": f"req_{number + 1}",
                                      "body": error_body(reply)}
                errors.append(result)
                continue
            result["response"] = {"status_code": 200, "request_id": f"req_{number + 1}",
                                  "body": self.server.completion_body(request, reply)}
            outputs.append(result)
        batch.total, batch.completed, batch.failed = len(lines), len(outputs), len(errors)
        batch.status = script.outcome if script.outcome in EARLY_END else "completed"
        if outputs:
            text = "".join(json.dumps(o) + "\n" for o in reversed(outputs))
            batch.output_file_id = self._store("batch_output.jsonl", "batch_output", text.encode()).id
        if errors:
            text = "".join(json.dumps(e) + "\n" for e in errors)
            batch.error_file_id = self._store("batch_errors.jsonl", "batch_output", text.encode()).id
