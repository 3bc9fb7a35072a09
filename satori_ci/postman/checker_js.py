"""The JavaScript checker (js/satori_check.js) as text, and field paths as the segments it reads."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from satori_ci.oracles.model import Oracle
from satori_ci.spec.paths import Items, Prop, parse

CHECKER_JS: str = files("satori_ci.postman").joinpath("js/satori_check.js").read_text(encoding="utf-8")
"""One JavaScript expression evaluating to {checkBody, holds, isUrl, ...}; embed as `var x = <text>;`."""


def segments_json(path: str) -> list[dict[str, Any]]:
    """A field path as the checker's segments: `[{"prop": "a"}, {"items": true}, {"map": true}]`."""
    out: list[dict[str, Any]] = []
    for segment in parse(path):
        if isinstance(segment, Prop):
            out.append({"prop": segment.name})
        elif isinstance(segment, Items):
            out.append({"items": True})
        else:
            out.append({"map": True})
    return out


def oracle_json(oracle: Oracle) -> dict[str, Any]:
    """One oracle as the checker's input: `{field, segments, oracle, value}`."""
    value = list(oracle.value) if isinstance(oracle.value, tuple) else oracle.value
    return {"field": oracle.field, "segments": segments_json(oracle.field), "oracle": oracle.kind.value,
            "value": value}
