"""The Batch API, pure: the input file (one chat request per field to infer), the batch's status, its output and
error files read back, and the replay of their answers to the LLM backend. The state file is `batch_state`.

A request's `custom_id` is its field's fingerprint (`#2`, `#3`... after a fingerprint already sent: the Batch API
wants them unique); its answer is matched back by a digest of the request body, so an answer is only ever used
for the very request that was sent.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from threading import Lock
from typing import Any, Final, Protocol

from satori_ci.spec.model import ResponseField

from .backend import LLMConfig
from .errors import CallError, Completion
from .prompt import Prompt, build_prompt, chat_request_body

ENDPOINT: Final = "/v1/chat/completions"
COMPLETION_WINDOW: Final = "24h"
PENDING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
"""Not finished yet (a status the client does not know counts as pending too)."""
PARTIAL = frozenset({"expired", "cancelled"})
"""Finished early: the output file holds the requests completed before."""
NOT_SENT = "not in the batch"


class BatchErrorKind(Enum):
    INPUT = "input"
    INFRASTRUCTURE = "infrastructure"


class BatchError(Exception):
    """A batch that cannot be submitted, found or collected; one line, already redacted."""

    def __init__(self, message: str, kind: BatchErrorKind = BatchErrorKind.INFRASTRUCTURE) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


@dataclass(frozen=True)
class BatchRequest:
    """One line of the input file, as the state file remembers it."""

    custom_id: str
    fingerprint: str
    operation: str
    """`GET /books 200`."""
    field: str
    digest: str
    """`request_digest` of the line's body."""


@dataclass(frozen=True)
class BatchInput:
    """The input file's text and its requests, in the order of the fields."""

    jsonl: str
    requests: tuple[BatchRequest, ...]
    held_back: int = 0
    """Fields left out by the call budget (`max_calls`): the rules answer them at collect."""


@dataclass(frozen=True)
class BatchStatus:
    """What the server says of a batch."""

    batch_id: str
    status: str
    total: int = 0
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: tuple[str, ...] = ()
    """Why a `failed` batch failed (its input was refused)."""

    @property
    def pending(self) -> bool:
        return self.status not in PARTIAL and self.status not in ("completed", "failed")

    def line(self) -> str:
        counts = f"{self.completed} of {self.total} request(s) done, {self.failed} failed"
        why = f" ({'; '.join(self.errors)})" if self.errors else ""
        return f"batch {self.batch_id}: {self.status}, {counts}{why}"


class BatchApi(Protocol):
    """The Batch API calls (`batch_client.BatchClient`); each raises `BatchError`."""

    @property
    def base_url(self) -> str:
        ...

    def upload(self, name: str, data: bytes) -> str:
        """The id of the uploaded input file."""
        ...

    def create(self, input_file_id: str) -> BatchStatus:
        ...

    def retrieve(self, batch_id: str) -> BatchStatus:
        ...

    def content(self, file_id: str) -> str:
        ...


# --------------------------------------------------------------------------------------------
# The input file


def request_body(prompt: Prompt, config: LLMConfig, *, json_mode: bool | None = None) -> dict[str, Any]:
    """The body the synchronous backend sends for `prompt` with `config`."""
    return chat_request_body(prompt, model=config.model, temperature=config.temperature,
                             max_output_tokens=config.max_output_tokens,
                             json_mode=config.json_mode if json_mode is None else json_mode)


def request_digest(body: Mapping[str, Any]) -> str:
    """A short stable hash of a request body."""
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def custom_ids(fingerprints: Iterable[str]) -> tuple[str, ...]:
    """Each fingerprint, with `#n` for its n-th occurrence (n >= 2)."""
    seen: Counter[str] = Counter()
    out = []
    for fingerprint in fingerprints:
        seen[fingerprint] += 1
        out.append(fingerprint if seen[fingerprint] == 1 else f"{fingerprint}#{seen[fingerprint]}")
    return tuple(out)


def build_input(fields: Sequence[ResponseField], config: LLMConfig) -> BatchInput:
    """One line per field the synchronous backend would ask about (fields of no oracle type are never asked),
    at most `config.max_calls` of them; byte-identical for the same fields and config."""
    asked: list[tuple[ResponseField, dict[str, Any]]] = []
    for field in fields:
        prompt = build_prompt(field, ask_reasons=config.ask_reasons)
        if prompt.kinds:
            asked.append((field, request_body(prompt, config)))
    held_back = 0
    if config.max_calls is not None and len(asked) > config.max_calls:
        held_back = len(asked) - config.max_calls
        asked = asked[:config.max_calls]
    ids = custom_ids(field.fingerprint for field, _ in asked)
    lines = []
    requests = []
    for custom_id, (field, body) in zip(ids, asked, strict=True):
        line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
        lines.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        requests.append(BatchRequest(custom_id, field.fingerprint, str(field.operation), field.field,
                                     request_digest(body)))
    return BatchInput("".join(lines), tuple(requests), held_back)


# --------------------------------------------------------------------------------------------
# The output and error files


@dataclass(frozen=True)
class ResultLine:
    """One line of an output or error file: a response (`status_code`, `body`) or an `error`."""

    custom_id: str
    status_code: int | None = None
    body: Mapping[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class Failure:
    """Why a request brought no answer: `label` counts it, `message` is the field's note."""

    label: str
    message: str


def _read_line(text: str) -> ResultLine | None:
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("custom_id"), str):
        return None
    response = obj.get("response")
    error = obj.get("error")
    status = body = None
    if isinstance(response, dict):
        status = response.get("status_code") if isinstance(response.get("status_code"), int) else None
        body = response.get("body") if isinstance(response.get("body"), dict) else None
    message = None
    if isinstance(error, dict):
        message = f"{error.get('code') or 'error'}: {error.get('message') or 'no message'}"
    elif error is not None:
        message = f"error: {error}"
    return ResultLine(obj["custom_id"], status, body, message)


def parse_results(*texts: str) -> tuple[dict[str, ResultLine], int]:
    """The lines of the output and error files by `custom_id` (a line with a 200 response wins), and the number
    of lines that could not be read."""
    found: dict[str, ResultLine] = {}
    unreadable = 0
    for text in texts:
        for raw in text.splitlines():
            if not raw.strip():
                continue
            line = _read_line(raw)
            if line is None:
                unreadable += 1
                continue
            known = found.get(line.custom_id)
            if known is None or (known.status_code != 200 and line.status_code == 200):
                found[line.custom_id] = line
    return found, unreadable


def _error_text(body: Mapping[str, Any] | None) -> str:
    error = body.get("error") if body else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return "no message"


def outcome(line: ResultLine | None) -> Mapping[str, Any] | Failure:
    """The chat completion body a line answers with, or why there is none."""
    if line is None:
        return Failure("missing from the output", "missing from the batch output")
    if line.error is not None:
        return Failure(line.error.split(":", 1)[0], f"batch error {line.error}")
    if line.status_code != 200:
        status = "no status" if line.status_code is None else f"HTTP {line.status_code}"
        return Failure(status, f"{status}: {_error_text(line.body)}")
    if line.body is None:
        return Failure("unreadable answer", "the batch output holds no response body")
    return line.body


def fallback_summary(labels: Iterable[str]) -> str:
    """`3 batch_expired, 1 HTTP 500`: most frequent first."""
    counts = Counter(labels)
    return ", ".join(f"{n} {label}" for label, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


# --------------------------------------------------------------------------------------------
# The replay


class ReplayClient:
    """A `CompletionClient` answering from a collected batch: by the digest of the body the prompt would be sent
    with, a completion, else a `CallError` saying why not (so the backend falls back as for a failed call).
    `failed` lists the label of each failure it answered with."""

    def __init__(self, answers: Mapping[str, Completion | Failure], config: LLMConfig, batch_id: str) -> None:
        self._answers = answers
        self._config = config
        self._batch_id = batch_id
        self._lock = Lock()
        self.failed: list[str] = []

    @property
    def base_url(self) -> str:
        return f"batch {self._batch_id}"

    def complete(self, prompt: Prompt, *, json_mode: bool) -> Completion:
        found = self._answers.get(request_digest(request_body(prompt, self._config, json_mode=json_mode)))
        if found is None:
            found = Failure(NOT_SENT, NOT_SENT)
        if isinstance(found, Failure):
            with self._lock:
                self.failed.append(found.label)
            raise CallError(found.message)
        return found

    def close(self) -> None:
        pass
