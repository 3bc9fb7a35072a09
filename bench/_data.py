"""Reading the shared labelled data (../shared/data/*): labels and their matching."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def match_key(line: dict[str, Any]) -> tuple[str, str, str, str, str]:
    """What two interchange lines must share before their values are compared (contract §3)."""
    return (line["method"], line["path"], str(line["status"]), line["field"], line["oracle"])


def _norm(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return frozenset(_norm(v) for v in value)
    return json.dumps(value, sort_keys=True)


def same_value(a: Any, b: Any) -> bool:
    """Values equal as the contract compares them: numbers numerically, lists as sets."""
    return bool(_norm(a) == _norm(b))
