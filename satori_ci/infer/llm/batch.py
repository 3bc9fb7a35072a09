"""The Batch API, pure: the input (one chat request per field to infer, split into parts of at most
`MAX_BATCH_REQUESTS` lines and `MAX_BATCH_BYTES` bytes: one batch each), the batches' status, their output and
error files read back, and the replay of their answers to the LLM backend. The state file is `batch_state`.

A request's `custom_id` is its field's fingerprint (`#2`, `#3`... after a fingerprint already sent: the Batch API
wants them unique; they are unique across the parts too); its answer is matched back by a digest of the request
body, so an answer is only ever used for the very request that was sent.
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

from satori_ci.errors import ErrorKind, SatoriError
from satori_ci.spec.model import ResponseField

from .config import LLMConfig
from .errors import CallError, Completion
from .prompt import Prompt, build_prompt, chat_request_body

ENDPOINT: Final = "/v1/chat/completions"
COMPLETION_WINDOW: Final = "24h"
PENDING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
"""Not finished yet (a status the client does not know counts as pending too)."""
PARTIAL = frozenset({"expired", "cancelled"})
"""Finished early: the output file holds the requests completed before."""
NOT_SENT = "not in the batch"
BATCH_FAILED = "batch failed"
MAX_BATCH_REQUESTS = 50_000
"""Requests per input file the Batch API accepts."""
MAX_BATCH_BYTES = 190 * 1024 * 1024
"""Bytes per input file: a margin under the Batch API's 200 MB."""


class BatchErrorKind(Enum):
    INPUT = "input"
    INFRASTRUCTURE = "infrastructure"


class BatchError(SatoriError, kind=ErrorKind.INFRASTRUCTURE):
    """A batch that cannot be submitted, found or collected; one line, already redacted."""

    def __init__(self, message: str, kind: BatchErrorKind = BatchErrorKind.INFRASTRUCTURE) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind

    @property
    def error_kind(self) -> ErrorKind:
        return ErrorKind.INPUT if self.kind is BatchErrorKind.INPUT else ErrorKind.INFRASTRUCTURE


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
class InputPart:
    """One input file (one batch): its text and its requests, in the order of the fields."""

    jsonl: str
    requests: tuple[BatchRequest, ...]


@dataclass(frozen=True)
class BatchInput:
    """The input, in parts of consecutive requests in the order of the fields."""

    parts: tuple[InputPart, ...]
    held_back: int = 0
    """Fields left out by the call budget (`max_calls`): the rules answer them at collect."""

    @property
    def jsonl(self) -> str:
        """Every part's lines, in order."""
        return "".join(part.jsonl for part in self.parts)

    @property
    def requests(self) -> tuple[BatchRequest, ...]:
        return tuple(request for part in self.parts for request in part.requests)


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


def total_line(statuses: Sequence[BatchStatus]) -> str:
    """`3 batch(es): 2 completed, 1 in_progress; 7 of 9 request(s) done, 0 failed` (statuses in order of first
    appearance)."""
    counts = Counter(status.status for status in statuses)
    states = ", ".join(f"{n} {status}" for status, n in counts.items())
    done = sum(s.completed for s in statuses)
    total = sum(s.total for s in statuses)
    failed = sum(s.failed for s in statuses)
    return f"{len(statuses)} batch(es): {states}; {done} of {total} request(s) done, {failed} failed"


def ended_early(statuses: Sequence[BatchStatus]) -> str:
    """The batches that did not complete, in order: `batch b2 expired after 1 of 3 request(s), batch b3 failed`
    (empty when all completed)."""
    return ", ".join(f"batch {s.batch_id} failed" if s.status == "failed" else
                     f"batch {s.batch_id} {s.status} after {s.completed} of {s.total} request(s)"
                     for s in statuses if s.status != "completed")


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


class LineTooLarge(ValueError):
    """A line larger than a whole part may be."""

    def __init__(self, index: int) -> None:
        super().__init__(f"line {index + 1} is larger than a part")
        self.index = index


def split_lines(sizes: Sequence[int], *, max_requests: int, max_bytes: int) -> tuple[int, ...]:
    """How many consecutive lines of `sizes` (bytes each) go into each part: as many as fit, in order, each part
    at most `max_requests` lines and `max_bytes` bytes; `LineTooLarge` for a line larger than `max_bytes`."""
    if max_requests < 1 or max_bytes < 1:
        raise ValueError("the limits must be positive")
    counts: list[int] = []
    lines = size = 0
    for number, line_size in enumerate(sizes):
        if line_size > max_bytes:
            raise LineTooLarge(number)
        if lines and (lines == max_requests or size + line_size > max_bytes):
            counts.append(lines)
            lines = size = 0
        lines += 1
        size += line_size
    if lines:
        counts.append(lines)
    return tuple(counts)


def build_input(fields: Sequence[ResponseField], config: LLMConfig, *, max_requests: int | None = None,
                max_bytes: int | None = None) -> BatchInput:
    """One line per field the synchronous backend would ask about (fields of no oracle type are never asked),
    at most `config.max_calls` of them, in parts of at most `max_requests` lines and `max_bytes` bytes (None:
    `MAX_BATCH_REQUESTS`, `MAX_BATCH_BYTES`); byte-identical for the same fields, config and limits.
    `BatchError` (input) when one request alone is larger than `max_bytes`."""
    max_requests = MAX_BATCH_REQUESTS if max_requests is None else max_requests
    max_bytes = MAX_BATCH_BYTES if max_bytes is None else max_bytes
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
    sizes = [len(line.encode("utf-8")) for line in lines]
    try:
        counts = split_lines(sizes, max_requests=max_requests, max_bytes=max_bytes)
    except LineTooLarge as exc:
        big = requests[exc.index]
        raise BatchError(f"the request for {big.operation} {big.field} is {sizes[exc.index]:,} bytes, more than "
                         f"the {max_bytes:,} bytes a batch input file may hold: infer without --batch",
                         BatchErrorKind.INPUT) from None
    parts = []
    start = 0
    for count in counts:
        parts.append(InputPart("".join(lines[start:start + count]), tuple(requests[start:start + count])))
        start += count
    return BatchInput(tuple(parts), held_back)


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
        """`batch_id`: the batch (or batches, comma-separated) the answers come from, for messages."""
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
