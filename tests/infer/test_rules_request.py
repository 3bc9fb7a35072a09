"""Request rules: a response's one list holds at most the page size its request allows."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from satori_ci.infer.rules import RulesBackend, context_digests
from satori_ci.infer.rules.request import REQUEST_RULES, PageSize, Request, page_sizes
from satori_ci.spec import load_spec
from satori_ci.spec.model import Operation, OperationKey, Parameter, ResponseField, SourceLocation
from tests.infer.factory import Found, kinds, make_field

LIMIT_50 = Request((PageSize("limit", 50),), ("businesses",))

POSITIVE: list[tuple[str, ResponseField, Request, Found]] = [
    ("page-size-limit", make_field("businesses", "array", items_type="object"), LIMIT_50,
     {("array_max_size", 50)}),
    ("page-size-limit", make_field("data.items", "array", items_type="object"),
     Request((PageSize("per_page", 100),), ("data.items",)), {("array_max_size", 100)}),
    ("page-size-limit", make_field("", "array", items_type="object"),
     Request((PageSize("maxResults", 1000),), ("",)), {("array_max_size", 1000)}),
    ("page-size-limit", make_field("names", "array", items_type="string"),
     Request((PageSize("MaxItems", 10),), ("names",)), {("array_max_size", 10)}),
]

NEGATIVE: list[tuple[str, ResponseField, Request]] = [
    ("page-size-limit", make_field("businesses[].categories", "array", items_type="object"), LIMIT_50),
    ("page-size-limit", make_field("businesses", "array", items_type="object"),
     Request((PageSize("limit", 50),), ("businesses", "regions"))),
    ("page-size-limit", make_field("businesses", "array", items_type="object"),
     Request((PageSize("limit", 50), PageSize("per_page", 20)), ("businesses",))),
    ("page-size-limit", make_field("businesses", "array", items_type="object"), Request((), ("businesses",))),
    ("page-size-limit", make_field("_links", "array", items_type="object"),
     Request((PageSize("limit", 50),), ("_links",))),
    ("page-size-limit", make_field("a.b.c", "array", items_type="object"),
     Request((PageSize("limit", 5),), ("a.b.c",))),
    ("page-size-limit", make_field("total", "integer"), LIMIT_50),
]


def _apply(name: str, field: ResponseField, request: Request) -> Found:
    rule = next(r for r in REQUEST_RULES if r.name == name)
    if not rule.wants(field):
        return set()
    oracles = rule.apply(field, request)
    assert all(o.source == "rules" and o.reason for o in oracles)
    return kinds(oracles)


@pytest.mark.parametrize(("rule", "field", "request_", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, request_: Request, expected: Found) -> None:
    assert _apply(rule, field, request_) == expected


@pytest.mark.parametrize(("rule", "field", "request_"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField, request_: Request) -> None:
    assert _apply(rule, field, request_) == set()


def test_a_list_of_scalars_of_one_resource_is_not_a_page() -> None:
    tags = replace(make_field("tags", "array", items_type="string"),
                   operation=OperationKey("GET", "/volumes/{volumeId}", "200"))
    assert _apply("page-size-limit", tags, Request((PageSize("page_size", 500),), ("tags",))) == set()
    volumes = replace(tags, operation=OperationKey("GET", "/volumes", "200"))
    assert _apply("page-size-limit", volumes, Request((PageSize("page_size", 500),), ("tags",))) == {
        ("array_max_size", 500)}


def _operation(*params: Parameter) -> Operation:
    return Operation("GET", "/things", None, None, params, None, None, ("200",), SourceLocation("s", ""))


def test_page_sizes_reads_integer_maxima_of_page_size_query_parameters() -> None:
    op = _operation(Parameter("limit", "query", False, {"type": "integer", "maximum": 50}),
                    Parameter("radius", "query", False, {"type": "integer", "maximum": 40000}),
                    Parameter("per_page", "header", False, {"maximum": 10}),
                    Parameter("pageSize", "query", False, {"maximum": 2.5}),
                    Parameter("count", "query", False, {"maximum": 20, "exclusiveMaximum": True}),
                    Parameter("size", "query", False, {"maximum": True}))
    assert page_sizes(op) == (PageSize("limit", 50),)


def _spec(tmp_path: Path, maximum: int) -> Any:
    doc = {
        "openapi": "3.0.0", "info": {"title": "T", "version": "1"},
        "paths": {"/businesses/search": {"get": {
            "parameters": [{"name": "limit", "in": "query", "schema": {"$ref": "#/components/schemas/Limit"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "properties": {
                    "total": {"type": "integer"},
                    "businesses": {"type": "array", "items": {"type": "object", "properties": {
                        "categories": {"type": "array", "items": {"type": "string"}}}}}}}}}}}}}},
        "components": {"schemas": {"Limit": {"type": "integer", "maximum": maximum}}},
    }
    path = tmp_path / f"spec{maximum}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_spec(str(path))


def test_the_backend_reads_the_request_only_when_given_the_spec(tmp_path: Path) -> None:
    spec = _spec(tmp_path, 50)
    with_spec = {r.field.field: kinds(r.oracles) for r in RulesBackend(spec=spec).infer(spec.fields).results}
    assert with_spec["businesses"] == {("array_max_size", 50)}
    assert with_spec["businesses[].categories"] == set()
    without = {r.field.field: kinds(r.oracles) for r in RulesBackend(spec.fields).infer(spec.fields).results}
    assert without["businesses"] == set()
    excluded = RulesBackend(spec=spec, exclude=frozenset({"page-size-limit"})).infer(spec.fields).results
    assert all(not r.oracles for r in excluded if r.field.field == "businesses")


def test_the_context_digest_follows_the_page_size(tmp_path: Path) -> None:
    first, second = _spec(tmp_path, 50), _spec(tmp_path, 20)
    a, b = context_digests(first.fields, first), context_digests(second.fields, second)
    key = next(k for k in a if k[1] == "businesses")
    assert a[key] != b[key]
    assert not any(k[1] == "businesses" for k in context_digests(first.fields))
