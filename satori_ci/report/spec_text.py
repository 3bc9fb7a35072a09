"""Field lists and field diffs as JSON Lines, JSON and plain text (pure rendering).

In the plain text every value from the spec is `escape.visible`: one line, no control character.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from satori_ci.report.escape import visible
from satori_ci.spec.diff import FieldDiff
from satori_ci.spec.model import ResponseField

LineOf = Callable[[ResponseField], int | None]


def field_record(field: ResponseField, line: int | None = None) -> dict[str, Any]:
    """One field as the `fields --json` line: identity, type, operationId, facts, then bookkeeping."""
    record: dict[str, Any] = {
        "method": field.operation.method,
        "path": field.operation.path,
        "status": field.operation.status,
        "field": field.field,
        "type": field.type,
        "operation_id": field.operation_id,
    }
    record.update(field.facts.as_dict())
    record["fingerprint"] = field.fingerprint
    record["source"] = f"{field.location.file}:{line}" if line else field.location.file
    if field.notes:
        record["notes"] = list(field.notes)
    return record


def fields_jsonl(fields: Iterable[ResponseField], line_of: LineOf) -> str:
    return "".join(
        json.dumps(field_record(f, line_of(f)), ensure_ascii=False, default=str) + "\n" for f in fields
    )


def fields_table(fields: list[ResponseField], line_of: LineOf) -> str:
    """A plain table: operation, field, type, the facts in short, source line."""
    rows = [("OPERATION", "FIELD", "TYPE", "FACTS", "SOURCE")]
    for f in fields:
        facts = ", ".join(f"{k}={_short(v)}" for k, v in f.facts.as_dict().items() if k != "items_type")
        line = line_of(f)
        where = f"{f.location.file}:{line}" if line else f.location.file
        row = (str(f.operation), f.field or "(body)", _type_label(f), facts + _notes(f), where)
        rows.append((visible(row[0]), visible(row[1]), visible(row[2]), visible(row[3]), visible(row[4])))
    widths = [min(max(len(r[i]) for r in rows), cap) for i, cap in enumerate((40, 48, 14, 60, 40))]
    lines = []
    for row in rows:
        cells = [_clip(cell, widths[i]).ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    lines.append(f"{len(fields)} field(s)")
    return "\n".join(lines) + "\n"


def _type_label(f: ResponseField) -> str:
    return f"{f.type}<{f.facts.items_type}>" if f.type == "array" and f.facts.items_type else f.type


def _notes(f: ResponseField) -> str:
    return (" [" + "; ".join(f.notes) + "]") if f.notes else ""


def _short(value: Any, limit: int = 30) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _ident(f: ResponseField) -> dict[str, str]:
    return {"method": f.operation.method, "path": f.operation.path, "status": f.operation.status,
            "field": f.field}


def diff_json(diff: FieldDiff) -> dict[str, Any]:
    return {
        "counts": diff.counts(),
        "added": [{**_ident(f), "type": f.type, "fingerprint": f.fingerprint} for f in diff.added],
        "removed": [{**_ident(f), "type": f.type, "fingerprint": f.fingerprint} for f in diff.removed],
        "changed": [{**_ident(c.head), "changes": list(c.changes), "base_fingerprint": c.base.fingerprint,
                     "head_fingerprint": c.head.fingerprint} for c in diff.changed],
        "moved": [{"from": _ident(m.base), "to": _ident(m.head), "fingerprint": m.head.fingerprint}
                  for m in diff.moved],
        "unchanged": diff.unchanged,
    }


def diff_text(diff: FieldDiff) -> str:
    c = diff.counts()
    lines = [f"{c['added']} added, {c['removed']} removed, {c['changed']} changed, {c['moved']} moved, "
             f"{c['unchanged']} unchanged"]
    for f in diff.added:
        lines.append(f"+ {f.operation} {f.field or '(body)'} ({f.type})")
    for f in diff.removed:
        lines.append(f"- {f.operation} {f.field or '(body)'} ({f.type})")
    for ch in diff.changed:
        lines.append(f"~ {ch.head.operation} {ch.head.field or '(body)'}: {'; '.join(ch.changes)}")
    for m in diff.moved:
        lines.append(f"> {m.base.operation} {m.base.field} -> {m.head.operation} {m.head.field}")
    return "\n".join(visible(line) for line in lines) + "\n"
