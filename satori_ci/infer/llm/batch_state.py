"""The state file of pending batches, next to the oracle file (`x.oracles.yaml` -> `x.batch.json`): deterministic
JSON (one part, then one request, a line) holding ids and digests only, never a key or a prompt.

Version 2 lists the parts (one batch each: batch id, input file id, input sha256) and gives each request the
number of its part (1-based); `not_sent` counts the requests of parts that could not be created. Version 1 (one
batch, its ids at the top) is still read, as one part.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .batch import BatchError, BatchErrorKind, BatchRequest

STATE_VERSION = 2
_ORACLES_SUFFIX = ".oracles.yaml"
_REQUEST_KEYS = ("custom_id", "fingerprint", "operation", "field", "request")
_PART_KEYS = ("batch_id", "input_file_id", "input_sha256")
_MAY_BE_EMPTY = frozenset({"field"})
"""Keys whose value may be the empty string: the root field's path is `""` (a body that is an array)."""


@dataclass(frozen=True)
class BatchPart:
    """One submitted batch and the requests of its input file, in order."""

    batch_id: str
    input_file_id: str
    input_sha256: str
    requests: tuple[BatchRequest, ...]


@dataclass(frozen=True)
class BatchState:
    """What `collect` needs of the submitted batches."""

    spec: str
    model: str
    parts: tuple[BatchPart, ...]
    held_back: int = 0
    not_sent: int = 0
    """Requests of the parts that could not be created: the rules answer them at collect."""

    @property
    def requests(self) -> tuple[BatchRequest, ...]:
        """The requests sent, in the order of the fields."""
        return tuple(request for part in self.parts for request in part.requests)

    @property
    def batch_ids(self) -> tuple[str, ...]:
        return tuple(part.batch_id for part in self.parts)


def state_path(oracle_file: str) -> str:
    """`x.oracles.yaml` -> `x.batch.json` (else `<file>.batch.json`)."""
    if oracle_file.endswith(_ORACLES_SUFFIX):
        return oracle_file[: -len(_ORACLES_SUFFIX)] + ".batch.json"
    return oracle_file + ".batch.json"


def input_path(oracle_file: str) -> str:
    """The input kept next to the state file (every part's lines, in order): `x.batch.jsonl`."""
    return state_path(oracle_file) + "l"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _list(key: str, items: list[str]) -> list[str]:
    if not items:
        return [f"  {_dump(key)}: []"]
    return [f"  {_dump(key)}: ["] + [f"    {text}," for text in items[:-1]] + [f"    {items[-1]}", "  ]"]


def dump_state(state: BatchState) -> str:
    head = {"version": STATE_VERSION, "spec": state.spec, "model": state.model, "held_back": state.held_back,
            "not_sent": state.not_sent}
    lines = ["{"] + [f"  {_dump(key)}: {_dump(value)}," for key, value in head.items()]
    parts = [_dump(dict(zip(_PART_KEYS, (p.batch_id, p.input_file_id, p.input_sha256), strict=True)))
             for p in state.parts]
    requests = [_dump({"part": number,
                       **dict(zip(_REQUEST_KEYS, (r.custom_id, r.fingerprint, r.operation, r.field, r.digest),
                                  strict=True))})
                for number, part in enumerate(state.parts, start=1) for r in part.requests]
    lines += _list("parts", parts)
    lines[-1] += ","
    lines += [*_list("requests", requests), "}"]
    return "\n".join(lines) + "\n"


def _fail(where: str, what: str) -> BatchError:
    return BatchError(f"{where}: not a batch state file ({what}); delete it to submit again", BatchErrorKind.INPUT)


def _text(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if key in _MAY_BE_EMPTY:
        if not isinstance(value, str):
            raise _fail(where, f"{key} is not a string")
    elif not isinstance(value, str) or not value:
        raise _fail(where, f"{key} is not a non-empty string")
    return value


def _count(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _fail(where, f"{key} is not a count")
    return value


def _objects(top: dict[str, Any], key: str, what: str, where: str) -> list[dict[str, Any]]:
    raw = top.get(key)
    if not isinstance(raw, list):
        raise _fail(where, f"{key} is not a list")
    for number, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise _fail(where, f"{what} {number} is not an object")
    return raw


def _request(item: dict[str, Any], where: str) -> BatchRequest:
    return BatchRequest(*(_text(item, key, where) for key in _REQUEST_KEYS))


def _part(obj: dict[str, Any], requests: tuple[BatchRequest, ...], where: str) -> BatchPart:
    batch_id, input_file_id, input_sha256 = (_text(obj, key, where) for key in _PART_KEYS)
    return BatchPart(batch_id, input_file_id, input_sha256, requests)


def load_state(text: str, where: str) -> BatchState:
    """The state in `text` (version 2, or 1 as one part); `BatchError` (input) naming `where` when it is not
    one."""
    try:
        top = json.loads(text)
    except ValueError as exc:
        raise _fail(where, f"invalid JSON: {exc}") from None
    if not isinstance(top, dict):
        raise _fail(where, "not an object")
    version = top.get("version")
    if version not in (1, STATE_VERSION) or isinstance(version, bool):
        raise _fail(where, f"unsupported version {version!r}")
    requests = _objects(top, "requests", "request", where)
    held_back = _count(top, "held_back", where)
    spec, model = _text(top, "spec", where), _text(top, "model", where)
    if version == 1:
        return BatchState(spec, model, (_part(top, tuple(_request(item, where) for item in requests), where),),
                          held_back)
    heads = _objects(top, "parts", "part", where)
    if not heads:
        raise _fail(where, "parts is empty")
    grouped: list[list[BatchRequest]] = [[] for _ in heads]
    for number, item in enumerate(requests, start=1):
        index = item.get("part")
        if not isinstance(index, int) or isinstance(index, bool) or not 1 <= index <= len(heads):
            raise _fail(where, f"request {number} names no part")
        if any(grouped[index:]):
            raise _fail(where, f"request {number} is out of the order of the parts")
        grouped[index - 1].append(_request(item, where))
    parts = tuple(_part(head, tuple(group), where) for head, group in zip(heads, grouped, strict=True))
    return BatchState(spec, model, parts, held_back, _count(top, "not_sent", where))
