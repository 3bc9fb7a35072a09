"""The state file of a pending batch, next to the oracle file (`x.oracles.yaml` -> `x.batch.json`): deterministic
JSON (one request a line) holding ids and digests only, never a key or a prompt."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .batch import BatchError, BatchErrorKind, BatchRequest

STATE_VERSION = 1
_ORACLES_SUFFIX = ".oracles.yaml"
_REQUEST_KEYS = ("custom_id", "fingerprint", "operation", "field", "request")


@dataclass(frozen=True)
class BatchState:
    """What `collect` needs of a submitted batch."""

    spec: str
    model: str
    batch_id: str
    input_file_id: str
    input_sha256: str
    requests: tuple[BatchRequest, ...]
    held_back: int = 0


def state_path(oracle_file: str) -> str:
    """`x.oracles.yaml` -> `x.batch.json` (else `<file>.batch.json`)."""
    if oracle_file.endswith(_ORACLES_SUFFIX):
        return oracle_file[: -len(_ORACLES_SUFFIX)] + ".batch.json"
    return oracle_file + ".batch.json"


def input_path(oracle_file: str) -> str:
    """The input file kept next to the state file: `x.batch.jsonl`."""
    return state_path(oracle_file) + "l"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def dump_state(state: BatchState) -> str:
    head = {"version": STATE_VERSION, "spec": state.spec, "model": state.model, "batch_id": state.batch_id,
            "input_file_id": state.input_file_id, "input_sha256": state.input_sha256,
            "held_back": state.held_back}
    lines = ["{"] + [f"  {_dump(key)}: {_dump(value)}," for key, value in head.items()]
    requests = [_dump(dict(zip(_REQUEST_KEYS, (r.custom_id, r.fingerprint, r.operation, r.field, r.digest),
                               strict=True)))
                for r in state.requests]
    if requests:
        lines.append('  "requests": [')
        lines += [f"    {text}," for text in requests[:-1]] + [f"    {requests[-1]}"]
        lines += ["  ]", "}"]
    else:
        lines += ['  "requests": []', "}"]
    return "\n".join(lines) + "\n"


def _fail(where: str, what: str) -> BatchError:
    return BatchError(f"{where}: not a batch state file ({what}); delete it to submit again", BatchErrorKind.INPUT)


def _text(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise _fail(where, f"{key} is not a non-empty string")
    return value


def load_state(text: str, where: str) -> BatchState:
    """The state in `text`; `BatchError` (input) naming `where` when it is not one."""
    try:
        top = json.loads(text)
    except ValueError as exc:
        raise _fail(where, f"invalid JSON: {exc}") from None
    if not isinstance(top, dict):
        raise _fail(where, "not an object")
    if top.get("version") != STATE_VERSION:
        raise _fail(where, f"unsupported version {top.get('version')!r}")
    raw = top.get("requests")
    if not isinstance(raw, list):
        raise _fail(where, "requests is not a list")
    requests = []
    for number, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise _fail(where, f"request {number} is not an object")
        requests.append(BatchRequest(*(_text(item, key, where) for key in _REQUEST_KEYS)))
    held_back = top.get("held_back", 0)
    if not isinstance(held_back, int) or isinstance(held_back, bool) or held_back < 0:
        raise _fail(where, "held_back is not a count")
    return BatchState(_text(top, "spec", where), _text(top, "model", where), _text(top, "batch_id", where),
                      _text(top, "input_file_id", where), _text(top, "input_sha256", where), tuple(requests),
                      held_back)
