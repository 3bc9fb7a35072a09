"""Producers found by meaning (`satori_ci.plan.feeds`), each rule on the smallest spec that shows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from satori_ci.plan import PlanSettings, chaining, plan_requests
from satori_ci.plan.model import PlannedOperation, RequestPlan, SkipKind
from satori_ci.spec import load_spec


def _list(items: dict[str, Any]) -> dict[str, Any]:
    return {"responses": {"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "array", "items": items}}}}}}


def _one(schema: dict[str, Any], *params: dict[str, Any]) -> dict[str, Any]:
    return {"parameters": list(params), "responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": schema}}}}}


def _path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


THING = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}


def _plan(tmp_path: Path, paths: dict[str, Any], **extra: Any) -> RequestPlan:
    document = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths, **extra}
    spec = tmp_path / "openapi.yaml"
    spec.write_text(yaml.safe_dump(document), encoding="utf-8")
    return plan_requests(load_spec(str(spec)), PlanSettings())


def _planned(plan: RequestPlan, label: str) -> PlannedOperation:
    return next(p for p in plan.operations if p.label == label)


def _why(plan: RequestPlan, label: str) -> list[tuple[str, str]]:
    return [(f.producer, f.why) for f in _planned(plan, label).feeds]


def test_a_sibling_list_feeds_the_singular_detail(tmp_path: Path) -> None:
    plan = _plan(tmp_path, {"/silences": {"get": _list(THING)},
                            "/silence/{silenceID}": {"get": _one(THING, _path("silenceID"))}})
    assert _why(plan, "GET /silence/{silenceID}") == [("GET /silences", "sibling path")]
    feed = _planned(plan, "GET /silence/{silenceID}").feeds[0]
    assert feed.paths[0] == "[].id"  # silenceID -> the items' id


def test_a_search_sibling_feeds_the_detail_only_when_it_is_a_list(tmp_path: Path) -> None:
    plan = _plan(tmp_path, {"/things/search": {"get": _list(THING)}, "/things/status": {"get": _one(THING)},
                            "/things/{id}": {"get": _one(THING, _path("id"))}})
    assert _why(plan, "GET /things/{id}") == [("GET /things/search", "sibling path")]


def test_a_list_of_the_same_schema_feeds_the_detail_anywhere(tmp_path: Path) -> None:
    ref = {"$ref": "#/components/schemas/Book"}
    book = {"type": "object", "properties": {"isbn": {"type": "string"}, "title": {"type": "string"}}}
    plan = _plan(tmp_path, {"/catalog/new": {"get": _list(ref)}, "/books/{isbn}": {"get": _one(ref, _path("isbn"))}},
                 components={"schemas": {"Book": book}})
    assert ("GET /catalog/new", "same schema") in _why(plan, "GET /books/{isbn}")


def test_a_required_query_id_is_fed_by_the_list_it_names(tmp_path: Path) -> None:
    query = {"name": "thing_id", "in": "query", "required": True, "schema": {"type": "string"}}
    plan = _plan(tmp_path, {"/things": {"get": _list(THING)}, "/report": {"get": _one(THING, query)}})
    planned = _planned(plan, "GET /report")
    assert [(i.name, i.location) for i in planned.inputs] == [("thing_id", "query")]
    assert _why(plan, "GET /report") == [("GET /things", "same name")]


def test_a_required_parameter_without_any_value_is_not_sent(tmp_path: Path) -> None:
    query = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    plan = _plan(tmp_path, {"/search": {"get": _one(THING, query)}})
    [skip] = plan.skipped
    assert skip.kind is SkipKind.NO_INPUT
    assert skip.detail == ('needs a value for {q} (query): no operation lists its values; add it to .satori.yml: '
                           'requests: operations: {"GET /search": {q: ...}} (or requests: values: {q: ...})')


def test_a_folder_listing_feeds_itself_from_the_empty_path(tmp_path: Path) -> None:
    listing = {"type": "object", "properties": {"content": {"type": "array", "items": {
        "type": "object", "properties": {"path": {"type": "string"}, "type": {"type": "string"}}}}}}
    plan = _plan(tmp_path, {"/contents/{path}": {"get": _one(listing, _path("path"))}})
    planned = _planned(plan, "GET /contents/{path}")
    assert _why(plan, "GET /contents/{path}") == [("GET /contents/{path}", "recursive listing")]
    assert planned.inputs[0].seeds == ("",)
    assert planned.feeds[0].paths == ("content[].path",)


def test_an_empty_value_is_no_seed_where_a_slash_follows_it(tmp_path: Path) -> None:
    # `/views//` is not the root of `/views/{id}/`: Label Studio's `/api/dm/views/{id}/` was sent so
    listing = {"type": "object", "properties": {"children": {"type": "array", "items": {
        "type": "object", "properties": {"id": {"type": "string"}}}}}}
    plan = _plan(tmp_path, {"/views/{id}/": {"get": _one(listing, _path("id"))}})
    planned = _planned(plan, "GET /views/{id}/")
    assert _why(plan, "GET /views/{id}/") == [("GET /views/{id}/", "recursive listing")]
    assert planned.inputs[0].seeds == ()


def test_a_path_parameter_takes_the_feeds_of_its_name_elsewhere(tmp_path: Path) -> None:
    user = {"type": "object", "properties": {"owner": {"type": "string"}}}
    plan = _plan(tmp_path, {"/users": {"get": _list(user)}, "/users/{owner}": {"get": _one(user, _path("owner"))},
                            "/repos/{owner}/stars": {"get": _one(user, _path("owner"))}})
    assert _why(plan, "GET /repos/{owner}/stars") == [("GET /users", "same name")]


def test_nested_paths_carry_the_parents_values(tmp_path: Path) -> None:
    plan = _plan(tmp_path, {"/a": {"get": _list(THING)}, "/a/{x}/b": {"get": _list(THING) | {
        "parameters": [_path("x")]}}, "/a/{x}/b/{y}": {"get": _one(THING, _path("x"), _path("y"))}})
    planned = _planned(plan, "GET /a/{x}/b/{y}")
    assert [i.name for i in planned.inputs] == ["y", "x"]  # the carrying input first
    prefix = next(f for f in planned.feeds if f.param == "y")
    assert (prefix.producer, prefix.why, prefix.carry) == ("GET /a/{x}/b", "path prefix", (("x", "x"),))


def test_without_chaining_no_feed_is_kept(tmp_path: Path) -> None:
    document = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/silences": {"get": _list(THING)}, "/silence/{silenceID}": {"get": _one(THING, _path("silenceID"))}}}
    spec = tmp_path / "openapi.yaml"
    spec.write_text(yaml.safe_dump(document), encoding="utf-8")
    plan = plan_requests(load_spec(str(spec)), PlanSettings(chain=0))
    assert [k.label for k in plan.skipped] == ["GET /silence/{silenceID}"]


def test_operations_sharing_parameter_names_are_planned_reading_each_producers_fields_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub's spec: a thousand operations under `/repos/{owner}/{repo}`. Each parameter of each was matched
    against every list, parsing every list's fields again (hours); the fields of a producer are read once."""
    repo = {"type": "object", "properties": {"repo": {"type": "string"}, "owner": {"type": "string"},
                                             "full_name": {"type": "string"}}}
    paths: dict[str, Any] = {"/users": {"get": _list({"type": "object", "properties": {"login": {"type": "string"}}})},
                             "/repositories": {"get": _list(repo)}}
    for i in range(40):
        paths[f"/repos/{{owner}}/{{repo}}/part{i}"] = {"get": _list(repo) | {
            "parameters": [_path("owner"), _path("repo")]}}
        paths[f"/repos/{{owner}}/{{repo}}/part{i}/{{part_id}}"] = {"get": _one(THING, *(
            _path(n) for n in ("owner", "repo", "part_id")))}
    document = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths}
    spec_file = tmp_path / "openapi.yaml"
    spec_file.write_text(yaml.safe_dump(document), encoding="utf-8")
    spec = load_spec(str(spec_file))
    parsed: list[str] = []
    real_parse = chaining.parse

    def counting(path: str) -> Any:
        parsed.append(path)
        return real_parse(path)

    monkeypatch.setattr(chaining, "parse", counting)
    plan = plan_requests(spec, PlanSettings())
    # a producer's fields are read once, for the feeds finder and the chain finder alike
    assert len(parsed) <= len(spec.fields), (len(parsed), len(spec.fields))
    assert _why(plan, "GET /repos/{owner}/{repo}/part7/{part_id}")[0] == ("GET /repos/{owner}/{repo}/part7",
                                                                         "path prefix")
