"""The keys that name an oracle with its value in the observation store (`oracle_key`) and among the suspects
(`suspect_key`): value types the store, the update step and the report share."""

from __future__ import annotations

import json
from typing import Any

from satori_ci.observe.summary import number_text
from satori_ci.oracles.model import Oracle

SuspectKey = tuple[str, str, str, str, str]
"""(method, path, status, field, oracle key): an oracle with its value (`oracle_key`)."""


def _value_text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return json.dumps(value, ensure_ascii=False)
    return number_text(value)


def oracle_key(oracle: Oracle) -> str:
    """`kind` or `kind value`, the value canonical (lists as sorted sets, numbers as JavaScript writes them)."""
    if oracle.value is None:
        return oracle.kind.value
    if isinstance(oracle.value, tuple | list):
        items = sorted({_value_text(v) for v in oracle.value})
        return f"{oracle.kind.value} [{', '.join(items)}]"
    return f"{oracle.kind.value} {_value_text(oracle.value)}"


def suspect_key(oracle: Oracle) -> SuspectKey:
    op = oracle.operation
    return (op.method, op.path, op.status, oracle.field, oracle_key(oracle))
