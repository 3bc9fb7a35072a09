"""Building ResponseFields for the rules and declared tests."""

from __future__ import annotations

from typing import Any

from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation
from satori_ci.spec.paths import ITEMS, MAP_VALUES, Prop, parse

OPERATION = OperationKey("GET", "/things", "200")


def name_of(path: str) -> str:
    """The last segment of a field path with its `[]`/`{}` markers: `a[].b[]` -> `b[]`."""
    markers = ""
    for segment in reversed(parse(path)):
        if segment == ITEMS:
            markers = "[]" + markers
        elif segment == MAP_VALUES:
            markers = "{}" + markers
        elif isinstance(segment, Prop):
            return segment.name + markers
    return markers


def make_field(field: str = "x", type: str = "string", *, status: str = "200", api_title: str = "Test API",
               **facts: Any) -> ResponseField:
    """A ResponseField of `GET /things <status>`: `make_field("a[].b", "integer", description="...")`."""
    for key in ("enum", "examples"):
        if isinstance(facts.get(key), list):
            facts[key] = tuple(facts[key])
    return ResponseField(
        operation=OperationKey(OPERATION.method, OPERATION.path, status),
        operation_id="getThings",
        field=field,
        name=name_of(field),
        type=type,
        facts=FieldFacts(**facts),
        api_title=api_title,
        location=SourceLocation("spec.json", ""),
        fingerprint="",
    )


Found = set[tuple[str, Any]]


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list | tuple) else value


def found(rule_name: str, field: ResponseField) -> Found:
    """What one registered rule infers for a field, as {(kind, value)}."""
    from satori_ci.infer.rules.registry import RULES

    rule = next(r for r in RULES if r.name == rule_name)
    oracles = rule.apply(field)
    for o in oracles:
        assert o.source == "rules" and o.reason, o
        assert o.field == field.field and o.operation == field.operation
    return {(o.kind.value, _hashable(o.value)) for o in oracles}


def kinds(oracles: Any) -> Found:
    """{(kind, value)} of a sequence of oracles."""
    return {(o.kind.value, _hashable(o.value)) for o in oracles}
