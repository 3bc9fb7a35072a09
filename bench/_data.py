"""Reading the shared labelled data (../shared/data/*): fields, labels and their matching."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from satori_ci.spec.model import FACT_KEYWORDS, FieldFacts, OperationKey, ResponseField, SourceLocation
from satori_ci.spec.paths import ITEMS, MAP_VALUES, FieldPathError, Prop, parse

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

_FACT_ATTRS = {keyword: attr for attr, keyword in FACT_KEYWORDS}
_LIST_FACTS = frozenset({"enum", "examples"})


def name_of(path: str) -> str:
    """The last segment of a field path with its `[]`/`{}` markers: `a[].b[]` -> `b[]`."""
    try:
        segments = parse(path)
    except FieldPathError:
        return path
    markers = ""
    for segment in reversed(segments):
        if segment == ITEMS:
            markers = "[]" + markers
        elif segment == MAP_VALUES:
            markers = "{}" + markers
        elif isinstance(segment, Prop):
            return segment.name + markers
    return markers


def fields_from_jsonl(path: Path) -> list[ResponseField]:
    """ResponseFields from a data folder's fields.jsonl (the contract's field list with schema keywords)."""
    fields: list[ResponseField] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row: dict[str, Any] = json.loads(line)
        facts: dict[str, Any] = {}
        for key, value in row.items():
            attr = _FACT_ATTRS.get(key)
            if attr is not None:
                facts[attr] = tuple(value) if key in _LIST_FACTS and isinstance(value, list) else value
        fields.append(
            ResponseField(
                operation=OperationKey(row["method"], row["path"], str(row["status"])),
                operation_id=row.get("operation_id"),
                field=row["field"],
                name=name_of(row["field"]),
                type=row["type"],
                facts=FieldFacts(**facts),
                api_title="",
                location=SourceLocation("spec.json", ""),
                fingerprint="",
            )
        )
    return fields


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
