"""Matching a team's requests as collections are written: empty and script-set variables, paths with slashes, ties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from satori_ci.plan.given import GivenRequest
from satori_ci.postman.match import find_match, given_requests, match_request, may_hold_slashes
from satori_ci.postman.read import TeamCollection, read_team_collection
from satori_ci.spec import Operation, Spec, load_spec

SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
BASE = "http://127.0.0.1:8888"


def spec_of(tmp_path: Path, paths: dict[str, list[str]], schemas: dict[str, dict[str, Any]] | None = None) -> Spec:
    """A spec with these operations; `schemas`: a path parameter's schema by name (default a string)."""
    def operation(path: str) -> dict[str, Any]:
        names = [p.split("}")[0] for p in path.split("{")[1:]]
        params = [{"name": n, "in": "path", "required": True, "schema": (schemas or {}).get(n, {"type": "string"})}
                  for n in names]
        return {"parameters": params, "responses": OK}

    doc = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "servers": [{"url": BASE}],
           "paths": {p: {m.lower(): operation(p) for m in ms} for p, ms in paths.items()}}
    file = tmp_path / "spec.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    return load_spec(str(file))


def team(items: list[dict[str, Any]], variables: dict[str, str] | None = None,
         environment: dict[str, str] | None = None, globals_: dict[str, str] | None = None,
         events: list[dict[str, Any]] | None = None) -> TeamCollection:
    raw = {"info": {"name": "Team", "schema": SCHEMA}, "item": items, "event": events or [],
           "variable": [{"key": k, "value": v} for k, v in {"baseUrl": BASE, **(variables or {})}.items()]}

    def values(found: dict[str, str] | None) -> str | None:
        return json.dumps({"values": [{"key": k, "value": v} for k, v in found.items()]}) if found else None

    return read_team_collection(json.dumps(raw), "team.json", values(environment), "env.json", values(globals_),
                                "globals.json")


def get(name: str, url: str, script: tuple[str, ...] = ()) -> dict[str, Any]:
    item: dict[str, Any] = {"name": name, "request": {"method": "GET", "url": url}}
    if script:
        item["event"] = [{"listen": "test", "script": {"exec": list(script)}}]
    return item


def calls(found: tuple[Operation, tuple[tuple[str, str], ...]] | None) -> str | None:
    return f"{found[0].method} {found[0].path}" if found else None


KERNELS = {"/api/kernels": ["GET"], "/api/kernels/{kernel_id}": ["GET", "DELETE"]}


# Variables: an empty or script-set one still fills its path segment


def test_an_empty_collection_variable_set_by_a_script_fills_its_segment_not_the_list(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, KERNELS)
    found = team([get("list", "{{baseUrl}}/api/kernels",
                      ("pm.collectionVariables.set('kernel_id', pm.response.json()[0].id);",)),
                  get("one", "{{baseUrl}}/api/kernels/{{kernel_id}}")], variables={"kernel_id": ""})
    one = found.requests[1]
    assert one.url == f"{BASE}/api/kernels/"  # what a run without scripts would send
    assert one.match_url == f"{BASE}/api/kernels/{{{{kernel_id}}}}"
    assert (one.empty, one.script_set, one.unresolved) == (("kernel_id",), ("kernel_id",), ())
    assert found.setter("kernel_id") == "list"
    assert calls(match_request(one, spec.operations, [BASE])) == "GET /api/kernels/{kernel_id}"
    given = given_requests(found, spec).requests[1]
    assert given.calls == ("GET", "/api/kernels/{kernel_id}") and given.params == (("kernel_id", "{{kernel_id}}"),)
    assert given.set_by == (("kernel_id", "list"),) and given.waits_for_scripts() == (("kernel_id", "list"),)
    assert given.url == f"{BASE}/api/kernels/{{{{kernel_id}}}}"  # the scripts fill it; never `/api/kernels/`


@pytest.mark.parametrize("scope", ["variables", "environment", "globals_"])
def test_an_empty_variable_of_any_scope_without_a_script_still_fills_its_segment(tmp_path: Path, scope: str) -> None:
    spec = spec_of(tmp_path, KERNELS)
    found = team([get("one", "{{baseUrl}}/api/kernels/{{kernel_id}}")], **{scope: {"kernel_id": ""}})
    one = found.requests[0]
    assert one.empty == ("kernel_id",) and one.script_set == ()
    assert calls(match_request(one, spec.operations, [BASE])) == "GET /api/kernels/{kernel_id}"
    given = given_requests(found, spec).requests[0]
    assert given.url == f"{BASE}/api/kernels/" and given.waits_for_scripts() == ()  # sent as Newman sends it


def test_an_unknown_variable_fills_a_parameter_never_a_literal(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, {"/api/kernels/{kernel_id}": ["GET"], "/api/kernels/mine": ["GET"]})
    one = team([get("one", "{{baseUrl}}/api/kernels/{{kernel_id}}")]).requests[0]
    assert one.unresolved == ("kernel_id",)
    assert calls(match_request(one, spec.operations, [BASE])) == "GET /api/kernels/{kernel_id}"


def test_environment_over_collection_over_globals(tmp_path: Path) -> None:
    found = team([get("one", "{{baseUrl}}/{{a}}/{{b}}/{{c}}")], variables={"a": "coll", "b": "coll"},
                 environment={"a": "env"}, globals_={"a": "glob", "b": "glob", "c": "glob"})
    assert found.requests[0].url == f"{BASE}/env/coll/glob"
    assert found.globals == (("a", "glob"), ("b", "glob"), ("c", "glob"))


def test_setters_are_read_from_every_scope_and_style_disabled_events_left_out() -> None:
    found = team([{"name": "F", "event": [{"listen": "prerequest", "script": {"exec": [
        "postman.setEnvironmentVariable(\"legacy\", 1);"]}}], "item": [
            get("a", "{{baseUrl}}/a", ("pm.environment.set('env_id', 1); pm.globals.set(`glob_id`, 2);",
                                       "pm.variables.set(\"local\", 3); pm.collectionVariables.set(name, 4);"))]},
        {"name": "off", "event": [{"listen": "test", "disabled": True, "script": {"exec": [
            "pm.collectionVariables.set('never', 1);"]}}], "request": {"url": "{{baseUrl}}/{{never}}"}}],
        events=[{"listen": "prerequest", "script": {"exec": ["pm.collectionVariables.set('top', 1)"]}}])
    assert found.setters == (("top", "the collection"), ("legacy", "F"), ("env_id", "F/a"), ("glob_id", "F/a"),
                             ("local", "F/a"))
    assert found.requests[1].script_set == () and found.requests[1].unresolved == ("never",)


def test_secret_values_are_known_so_that_they_are_never_printed() -> None:
    raw = {"info": {"name": "T", "schema": SCHEMA}, "item": [get("a", "http://h/a")],
           "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}"}]},
           "variable": [{"key": "pass", "value": "coll-secret-1", "type": "secret"}, {"key": "plain", "value": "p"}]}
    env = {"values": [{"key": "token", "value": "env-token-123", "type": "secret"}]}
    found = read_team_collection(json.dumps(raw), "t.json", json.dumps(env), "e.json")
    assert set(found.secrets) == {"env-token-123", "coll-secret-1"}
    assert "env-token-123" not in repr(found)


# Paths whose parameter holds slashes


CONTENTS = {"/api/contents/{path}": ["GET"], "/api/contents/{path}/checkpoints": ["GET"],
            "/api/contents/{path}/checkpoints/{checkpoint_id}": ["GET"]}


def test_a_file_path_with_slashes_matches_when_nothing_else_does(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, CONTENTS)
    found = find_match("GET", f"{BASE}/api/contents/notes/readme.txt", spec.operations, [BASE])
    assert found is not None and found.operation.path == "/api/contents/{path}"
    assert (found.params, found.greedy, found.hinted) == ((("path", "notes/readme.txt"),), "path", False)
    assert find_match("GET", f"{BASE}/api/contents/data%2Fraw%2F2024", spec.operations, [BASE]).params == (  # type: ignore[union-attr]
        ("path", "data/raw/2024"),)


def test_ties_go_to_the_more_specific_template(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, CONTENTS)

    def path_of(url: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        found = find_match("GET", BASE + url, spec.operations, [BASE])
        assert found is not None, url
        return found.operation.path, found.params

    assert path_of("/api/contents/notes/readme.txt/checkpoints") == (
        "/api/contents/{path}/checkpoints", (("path", "notes/readme.txt"),))
    assert path_of("/api/contents/a.ipynb/checkpoints") == ("/api/contents/{path}/checkpoints", (("path", "a.ipynb"),))
    assert path_of("/api/contents/a/b.ipynb/checkpoints/c-1") == (
        "/api/contents/{path}/checkpoints/{checkpoint_id}", (("path", "a/b.ipynb"), ("checkpoint_id", "c-1")))
    assert path_of("/api/contents/readme.txt") == ("/api/contents/{path}", (("path", "readme.txt"),))


def test_one_segment_per_parameter_wins_over_slashes_where_both_match(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, {"/users/{user_id}": ["GET"], "/users/{user_id}/posts": ["GET"],
                              "/files/{a}/{b}": ["GET"], "/files/{path}": ["GET"]},
                   schemas={"path": {"type": "string", "format": "path"}})
    assert calls(match_request(team([get("p", "{{baseUrl}}/users/7/posts")]).requests[0], spec.operations,
                               [BASE])) == "GET /users/{user_id}/posts"
    found = find_match("GET", f"{BASE}/files/x/y", spec.operations, [BASE])
    assert found is not None and found.operation.path == "/files/{a}/{b}" and found.greedy is None
    found = find_match("GET", f"{BASE}/files/x/y/z", spec.operations, [BASE])
    assert found is not None and (found.operation.path, found.hinted) == ("/files/{path}", True)


def test_a_parameter_the_spec_says_holds_slashes_beats_a_fallback_elsewhere(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, {"/a/{x}": ["GET"], "/a/{y}/z": ["GET"]},
                   schemas={"x": {"type": "string", "x-allow-slashes": True}})
    found = find_match("GET", f"{BASE}/a/1/2/z", spec.operations, [BASE])
    assert found is not None and (found.operation.path, found.params) == ("/a/{x}", (("x", "1/2/z"),))


def test_empty_segments_method_and_shape_still_refuse(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, {"/users/{user_id}": ["GET"], "/files/{name}.json": ["GET"]})
    for url, method in [("/users//posts", "GET"), ("/users/7/x", "DELETE"), ("/files/a/b.json", "GET"),
                        ("/users", "GET")]:
        assert find_match(method, BASE + url, spec.operations, [BASE]) is None, url


@pytest.mark.parametrize(("schema", "holds"), [
    ({"type": "string", "format": "path"}, True), ({"type": "string", "format": "uri-reference"}, True),
    ({"type": "string", "pattern": "^[a-z0-9/._-]+$"}, True), ({"type": "string", "pattern": "^[^/]+$"}, False),
    ({"type": "string", "pattern": "(/"}, False), ({"type": "string", "x-multi-segment": True}, True),
    ({"type": "string", "x-allow-slashes": "yes"}, False), ({"type": "string", "format": "uuid"}, False)])
def test_which_schemas_say_a_parameter_holds_slashes(tmp_path: Path, schema: dict[str, Any], holds: bool) -> None:
    operation = spec_of(tmp_path, {"/f/{p}": ["GET"]}, schemas={"p": schema}).operations[0]
    assert may_hold_slashes(operation, "p") is holds


def test_given_requests_carry_what_the_runners_need(tmp_path: Path) -> None:
    spec = spec_of(tmp_path, CONTENTS)
    found = team([get("file", "{{baseUrl}}/api/contents/notes/readme.txt")])
    given = given_requests(found, spec).requests[0]
    assert isinstance(given, GivenRequest)
    assert (given.calls, given.params, given.greedy) == (
        ("GET", "/api/contents/{path}"), (("path", "notes/readme.txt"),), "path")
