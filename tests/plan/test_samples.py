"""Sample request inputs from the spec: where each value comes from, how it is encoded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from satori_ci.plan.auth import auth_params
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import path_parts
from satori_ci.plan.samples import json_body_text, sample_requests
from satori_ci.spec import Spec, load_spec


def make_spec(tmp_path: Path, paths: dict[str, Any], version: str = "3.0.3", **extra: Any) -> Spec:
    key = "swagger" if version.startswith("2") else "openapi"
    doc = {key: version, "info": {"title": "T", "version": "1"}, "paths": paths, **extra}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_spec(str(path))


OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def op(parameters: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"get": {"parameters": parameters, "responses": OK, **extra}}


def test_values_come_from_example_then_default_then_enum_then_a_typed_placeholder(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, {"/p": op([
        {"name": "a", "in": "query", "required": True, "example": "param-level", "schema": {"type": "string",
                                                                                            "example": "schema"}},
        {"name": "b", "in": "query", "required": True, "schema": {"type": "integer", "default": 7, "enum": [1, 2]}},
        {"name": "c", "in": "query", "required": True, "schema": {"type": "string", "enum": ["x y", "z"]}},
        {"name": "d", "in": "query", "required": True, "schema": {"type": "integer", "minimum": 10}},
        {"name": "e", "in": "query", "required": True, "schema": {"type": "string", "format": "date"}},
        {"name": "f", "in": "query", "required": True, "schema": {"type": "boolean"}},
        {"name": "g", "in": "query", "required": True, "schema": {"type": "number", "maximum": 0.5}},
        {"name": "skipped", "in": "query", "schema": {"type": "string", "enum": ["only", "enum"]}},
        {"name": "kept", "in": "query", "schema": {"type": "string", "default": "dflt"}},
    ])})
    request, other = sample_requests(spec, spec.operations[0])  # `a` has two examples: two requests
    assert other.query[0] == ("a", "schema") and other.query[1:] == request.query[1:]
    assert request.query == (("a", "param-level"), ("b", "7"), ("c", "x%20y"), ("d", "10"), ("e", "2024-01-01"),
                             ("f", "true"), ("g", "0.5"), ("kept", "dflt"))


def test_each_explicit_example_gives_a_request_up_to_three(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, {"/p/{id}": op([
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "examples": ["a", "b", "c", "d"]}},
        {"name": "q", "in": "query", "example": "only"},
    ])}, version="3.1.0")
    requests = sample_requests(spec, spec.operations[0])
    assert [r.path("/p/{id}") for r in requests] == ["/p/a", "/p/b", "/p/c"]
    assert {r.query for r in requests} == {(("q", "only"),)}
    names = [i.name for i in build_requests(spec, []).requests()]
    assert names == ["GET /p/a?q=only", "GET /p/b?q=only", "GET /p/c?q=only"]


def test_arrays_in_the_query_follow_the_spec_version(tmp_path: Path) -> None:
    param = {"name": "ids", "in": "query", "required": True}
    oas3 = make_spec(tmp_path, {"/p": op([{**param, "schema": {"type": "array", "example": [1, 2]}}])})
    assert sample_requests(oas3, oas3.operations[0])[0].query == (("ids", "1"), ("ids", "2"))
    swagger = make_spec(tmp_path, {"/p": {"get": {"parameters": [{**param, "type": "array", "items": {
        "type": "string"}, "x-example": ["a", "b,c"]}], "responses": {"200": {"description": "ok", "schema": {
            "type": "object"}}}}}}, version="2.0")
    assert sample_requests(swagger, swagger.operations[0])[0].query == (("ids", "a%2Cb%2Cc"),)


def test_encoding_keeps_values_exact(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, {"/files/{name}.json": op([
        {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "example": "a/b c"}},
        {"name": "k k", "in": "query", "required": True, "schema": {"type": "string", "example": "&=#+%"}},
    ])})
    (item,) = build_requests(spec, []).requests()
    assert item.url("http://h/base/") == "http://h/base/files/a%2Fb%20c.json?k%20k=%26%3D%23%2B%25"


def test_headers_skip_what_the_runner_sets_and_what_postman_would_rewrite(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, {"/p": op([
        {"name": "Accept", "in": "header", "required": True, "schema": {"type": "string", "example": "text/html"}},
        {"name": "Authorization", "in": "header", "required": True, "schema": {"type": "string", "example": "x"}},
        {"name": "X-Var", "in": "header", "required": True, "schema": {"type": "string", "example": "{{baseUrl}}"}},
        {"name": "X-Two", "in": "header", "required": True, "schema": {"type": "string", "example": "a\nb"}},
        {"name": "session", "in": "cookie", "required": True, "schema": {"type": "string", "example": "s 1"}},
    ])})
    (request,) = sample_requests(spec, spec.operations[0])
    assert request.headers == (("Accept", "application/json"), ("X-Var", "string"), ("X-Two", "string"),
                               ("Cookie", "session=s%201"))


def test_json_bodies_from_media_examples_or_built_from_the_schema(tmp_path: Path) -> None:
    schema = {"type": "object", "required": ["name", "tags"], "properties": {
        "name": {"type": "string"}, "id": {"type": "integer", "readOnly": True},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 2},
        "size": {"type": "integer", "default": 3}, "note": {"type": "string"},
        "owner": {"allOf": [{"$ref": "#/components/schemas/Owner"}, {"required": ["email"]}]},
    }}
    components = {"schemas": {"Owner": {"type": "object", "properties": {
        "email": {"type": "string", "format": "email"}}}}}
    built = make_spec(tmp_path, {"/p": {"post": {"requestBody": {"content": {"application/json": {
        "schema": {**schema, "required": ["name", "tags", "owner"]}}}}, "responses": OK}}},
        components=components)
    (request,) = sample_requests(built, built.operations[0])
    assert request.body is not None and json.loads(request.body) == {
        "name": "string", "tags": ["a", "a"], "size": 3, "owner": {"email": "user@example.com"}}
    assert ("Content-Type", "application/json") in request.headers
    given = make_spec(tmp_path, {"/p": {"post": {"requestBody": {"content": {"application/json": {
        "schema": schema, "examples": {"one": {"value": {"name": "{{baseUrl}}"}}, "two": {"value": {"n": 2}}}}}},
        "responses": OK}}})
    first, second = sample_requests(given, given.operations[0])
    assert first.body == '{\n  "name": "\\u007b\\u007bbaseUrl}}"\n}' and "{{" not in (first.body or "")
    assert json.loads(first.body or "") == {"name": "{{baseUrl}}"} and json.loads(second.body or "") == {"n": 2}


def test_json_body_text_escapes_only_braces_inside_strings() -> None:
    text = json_body_text({"a{{": ["{{x}}", {"b": "}}{{"}]})
    assert "{{" not in text
    assert json.loads(text) == {"a{{": ["{{x}}", {"b": "}}{{"}]}


def test_path_parts() -> None:
    assert [(p.text, p.variable) for p in path_parts("/a/{id}/b:c/{x}.json/")] == [
        ("a", None), ("", "id"), ("b:c", None), ("{x}.json", None), ("", None)]
    assert [(p.text, p.variable) for p in path_parts("/")] == [("", None)]
    assert [(p.text, p.variable) for p in path_parts("/:literal/sp ace")] == [("%3Aliteral", None),
                                                                             ("sp%20ace", None)]


def test_auth_takes_the_first_supported_requirement(tmp_path: Path) -> None:
    schemes = {"securitySchemes": {
        "digest": {"type": "http", "scheme": "digest"},
        "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "oauth": {"type": "oauth2", "flows": {}},
    }}
    spec = make_spec(tmp_path, {
        "/a": {"get": {"responses": OK, "security": [{"digest": []}, {"key": [], "oauth": []}]}},
        "/b": {"get": {"responses": OK, "security": [{"digest": []}]}},
        "/c": {"get": {"responses": OK, "security": [{}, {"key": []}]}},
        "/d": {"get": {"responses": OK}},
    }, components=schemes, security=[{"key": []}])
    found = {op.path: auth_params(spec, op) for op in spec.operations}
    assert [(p.variable, p.location, p.name, p.scheme) for p in found["/a"][0]] == [
        ("SATORI_AUTH_KEY", "header", "X-Key", "apiKey"), ("SATORI_AUTH_OAUTH", "header", "Authorization", "bearer")]
    assert found["/b"] == ((), ("security scheme 'digest' is not supported: its requests go without it",))
    assert found["/c"] == ((), ())
    assert [p.variable for p in found["/d"][0]] == ["SATORI_AUTH_KEY"]
