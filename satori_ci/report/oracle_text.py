"""Oracle lists and oracle diffs as JSON Lines, JSON and plain text (pure rendering; in the plain text every
line is `escape.visible`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from satori_ci.oracles.diff import OracleDiff
from satori_ci.oracles.model import Oracle
from satori_ci.report.escape import visible


def interchange_jsonl(oracles: Iterable[Oracle]) -> str:
    """The contract's interchange lines (§3), one oracle a line."""
    return "".join(json.dumps(o.interchange(), ensure_ascii=False) + "\n" for o in oracles)


def describe(oracle: Oracle) -> str:
    """`string_specific_values ["$", "$$"]`: kind and value as a reviewer reads them."""
    if oracle.value is None:
        return oracle.kind.value
    value = list(oracle.value) if isinstance(oracle.value, tuple) else oracle.value
    return f"{oracle.kind.value} {json.dumps(value, ensure_ascii=False)}"


def _oracle_json(oracle: Oracle) -> dict[str, Any]:
    line = oracle.interchange()
    line["enabled"] = oracle.enabled
    if oracle.review:
        line["review"] = oracle.review
    return line


def oracle_diff_json(diff: OracleDiff) -> dict[str, Any]:
    return {
        "counts": diff.counts(),
        "fields": [
            {
                "method": f.operation.method, "path": f.operation.path, "status": f.operation.status,
                "field": f.field,
                "added": [_oracle_json(o) for o in f.added],
                "removed": [_oracle_json(o) for o in f.removed],
                "changed": [{"what": c.what, "from": _oracle_json(c.old), "to": _oracle_json(c.new)}
                            for c in f.changed],
            }
            for f in diff.fields
        ],
    }


def oracle_diff_text(diff: OracleDiff) -> str:
    c = diff.counts()
    lines = [f"{c['added']} added, {c['removed']} removed, {c['changed']} changed oracle(s) "
             f"on {c['fields']} field(s)"]
    for f in diff.fields:
        lines.append(f"{f.operation} {f.field or '(body)'}")
        lines.extend(f"  + {describe(o)} ({o.source}: {o.reason})" for o in f.added)
        lines.extend(f"  - {describe(o)} ({o.source})" for o in f.removed)
        lines.extend(f"  ~ {describe(ch.old)} -> {describe(ch.new)} [{ch.what}]" for ch in f.changed)
    return "\n".join(visible(line) for line in lines) + "\n"
