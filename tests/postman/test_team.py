"""A team's own Postman collection: read and resolved as Newman would, matched to the spec, assertified."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from satori_ci.postman.assertify import assertify
from satori_ci.postman.match import match_request
from satori_ci.postman.read import TeamAuth, TeamCollection, TeamCollectionError, TeamRequest, read_team_collection
from satori_ci.spec import Operation, load_spec

SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def collection() -> dict[str, Any]:
    return {
        "info": {"_postman_id": "c-1", "name": "Team API", "schema": SCHEMA},
        "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]},
        "event": [{"listen": "prerequest", "script": {"type": "text/javascript", "exec": [""]}}],
        "variable": [
            {"key": "baseUrl", "value": "http://localhost:3000/api/v1"},
            {"key": "userId", "value": "42"},
            {"key": "off", "value": "x", "disabled": True},
        ],
        "item": [
            {"name": "Login", "id": "login-id",
             "event": [
                 {"listen": "test", "script": {"type": "text/javascript",
                                               "exec": ["pm.collectionVariables.set('token', pm.response.json().t);"]}},
                 {"listen": "prerequest", "script": {"type": "text/javascript", "exec": ["console.log(1);"]}},
             ],
             "request": {"method": "post", "url": "{{baseUrl}}/login", "auth": {"type": "noauth"},
                         "header": [{"key": "X-Client", "value": "{{client}}"}],
                         "body": {"mode": "raw", "raw": "{\"user\": \"{{user}}\"}",
                                  "options": {"raw": {"language": "json"}}}}},
            {"name": "Users", "description": "All about users",
             "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "X-Key"},
                                                   {"key": "value", "value": "{{apiKey}}"},
                                                   {"key": "in", "value": "header"}]},
             "event": [{"listen": "test", "script": {"exec": ["pm.test('ok', () => {});"]}}],
             "item": [
                 {"name": "Me", "request": {"method": "GET", "url": {
                     "raw": "{{baseUrl}}/users/me", "host": ["{{baseUrl}}"], "path": ["users", "me"]}}},
                 {"name": "Admin", "item": [
                     {"name": "Get user", "request": {
                         "method": "GET",
                         "header": [{"key": "Accept", "value": "application/json"},
                                    {"key": "X-Debug", "value": "1", "disabled": True}],
                         "url": {"raw": "{{baseUrl}}/users/:id?verbose=true", "host": ["{{baseUrl}}"],
                                 "path": ["users", ":id"],
                                 "query": [{"key": "verbose", "value": "true"},
                                           {"key": "page", "value": "2", "disabled": True}],
                                 "variable": [{"key": "id", "value": "{{userId}}"}]},
                         "auth": {"type": "basic", "basic": [{"key": "username", "value": "{{user}}"},
                                                             {"key": "password", "value": "s3cret"}]}}},
                 ]},
             ]},
            {"name": "Health", "request": "{{baseUrl}}/health?x={{$guid}}"},
        ],
    }


ENVIRONMENT = {
    "id": "e-1", "name": "staging", "_postman_variable_scope": "environment",
    "values": [
        {"key": "baseUrl", "value": "https://staging.example.com/api/v1", "enabled": True, "type": "default"},
        {"key": "user", "value": "ann", "enabled": True},
        {"key": "apiKey", "value": "k-123", "type": "secret"},
        {"key": "userId", "value": "7", "enabled": False},
    ],
}


def read(raw: dict[str, Any] | None = None, environment: dict[str, Any] | None = None) -> TeamCollection:
    env = json.dumps(environment) if environment is not None else None
    return read_team_collection(json.dumps(raw or collection()), "team.json", env, "staging.json")


def by_name(team: TeamCollection) -> dict[str, TeamRequest]:
    return {r.name: r for r in team.requests}


def make_operations(tmp_path: Path, paths: dict[str, list[str]], servers: Sequence[str] = ()) -> tuple[Operation, ...]:
    methods = {path: {m.lower(): {"responses": OK} for m in ms} for path, ms in paths.items()}
    doc = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": methods,
           "servers": [{"url": s} for s in servers]}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_spec(str(path)).operations


def request(url: str, method: str = "GET") -> TeamRequest:
    return TeamRequest(id="r", name="r", folder="", index_path=(0,), method=method, url=url, headers=(), body=None,
                       content_type=None, scripts=False, auth=None, unresolved=())


# Reading


def test_requests_come_depth_first_with_their_folders_and_places() -> None:
    team = read()
    assert [(r.name, r.folder, r.index_path) for r in team.requests] == [
        ("Login", "", (0,)), ("Me", "Users", (1, 0)), ("Get user", "Users/Admin", (1, 1, 0)), ("Health", "", (2,))]
    assert team.name == "Team API" and team.source == "team.json"
    assert [r.method for r in team.requests] == ["POST", "GET", "GET", "GET"]
    assert team.requests[2].label == "Users/Admin/Get user"


def test_ids_are_kept_or_assigned_the_same_way_every_time() -> None:
    first, second = read(), read()
    ids = [r.id for r in first.requests]
    assert ids == [r.id for r in second.requests]
    assert ids[0] == "login-id" and len(set(ids)) == 4
    assert first.request(ids[2]) == first.requests[2] and first.request("nope") is None


def test_a_repeated_id_is_replaced_so_results_can_be_tied_back() -> None:
    raw = collection()
    raw["item"][3:] = [{"name": "A", "id": "dup", "request": "http://h/a"},
                       {"name": "B", "id": "dup", "request": "http://h/b"}]
    ids = [r.id for r in read(raw).requests]
    assert ids[4] == "dup" and ids[5] not in ids[:5] and ids[5] == [r.id for r in read(raw).requests][5]


def test_environment_values_win_over_collection_variables() -> None:
    plain, staged = by_name(read()), by_name(read(environment=ENVIRONMENT))
    assert plain["Login"].url == "http://localhost:3000/api/v1/login"
    assert staged["Login"].url == "https://staging.example.com/api/v1/login"
    assert staged["Get user"].url == "https://staging.example.com/api/v1/users/42?verbose=true"  # userId 7 disabled
    assert staged["Login"].body == '{"user": "ann"}' and plain["Login"].body == '{"user": "{{user}}"}'
    team = read(environment=ENVIRONMENT)
    assert dict(team.variables) == {"baseUrl": "http://localhost:3000/api/v1", "userId": "42"}
    assert [k for k, _ in team.environment] == ["baseUrl", "user", "apiKey"]


def test_variables_resolve_recursively_and_cycles_stop() -> None:
    raw = collection()
    raw["variable"] = [{"key": "a", "value": "{{b}}/x"}, {"key": "b", "value": "{{c}}"}, {"key": "c", "value": "C"},
                       {"key": "p", "value": "{{q}}"}, {"key": "q", "value": "{{p}}"}, {"key": "s", "value": "{{s}}"},
                       {"key": "n", "value": 3}]
    raw["item"] = [{"name": "r", "request": "http://h/{{a}}/{{p}}/{{s}}/{{n}}/{{$timestamp}}"}]
    (only,) = read(raw).requests
    assert only.url == "http://h/C/x/{{p}}/{{s}}/3/{{$timestamp}}"
    assert only.unresolved == ("p", "s", "$timestamp", "token")


def test_unresolved_lists_what_scripts_or_postman_set_at_run_time() -> None:
    requests = by_name(read(environment=ENVIRONMENT))
    assert requests["Health"].unresolved == ("$guid", "token")
    assert requests["Health"].url == "https://staging.example.com/api/v1/health?x={{$guid}}"
    assert requests["Login"].unresolved == ("client",)
    assert requests["Get user"].unresolved == ()


def test_disabled_headers_and_query_parameters_are_dropped() -> None:
    got = by_name(read())["Get user"]
    assert got.headers == (("Accept", "application/json"),)
    assert "page" not in got.url and got.url.endswith("/users/42?verbose=true")


def test_path_variables_are_filled_keeping_a_suffix_and_left_when_empty() -> None:
    raw = collection()
    raw["item"] = [
        {"name": "a", "request": {"url": {"host": ["h"], "path": "/files/:name.json/:other", "variable": [
            {"key": "name", "value": "{{userId}}"}, {"key": "other", "value": ""}]}}},
        {"name": "b", "request": {"url": {"raw": "http://h:8080/x/:id?q=:id",
                                          "variable": [{"key": "id", "value": "5"}]}}},
        {"name": "c", "request": {"url": {"protocol": "https", "host": "api.example.com", "port": "8443",
                                          "path": ["v1", {"type": "string", "value": "items"}], "hash": "top",
                                          "query": [{"key": "a&b", "value": "c#d"}, {"key": "flag", "value": None}]}}},
    ]
    assert [r.url for r in read(raw).requests] == [
        "h/files/42.json/:other", "http://h:8080/x/5?q=:id", "https://api.example.com:8443/v1/items?a%26b=c%23d&flag#top"]


def test_auth_is_inherited_from_the_nearest_folder_or_the_collection_and_noauth_stops_it() -> None:
    requests = by_name(read(environment=ENVIRONMENT))
    assert requests["Login"].auth is None
    assert requests["Me"].auth == TeamAuth("apikey", (("key", "X-Key"), ("value", "k-123"), ("in", "header")))
    assert requests["Me"].auth.header() == ("X-Key", "k-123") and requests["Me"].auth.query() is None
    basic = requests["Get user"].auth
    assert basic is not None and basic.type == "basic"
    assert basic.header() == ("Authorization", "Basic " + base64.b64encode(b"ann:s3cret").decode())
    assert requests["Health"].auth == TeamAuth("bearer", (("token", "{{token}}"),))
    raw = collection()
    raw["item"][1]["auth"] = {"type": "noauth"}
    assert by_name(read(raw))["Me"].auth is None and by_name(read(raw))["Get user"].auth is not None


def test_secrets_stay_out_of_reprs() -> None:
    team = read(environment=ENVIRONMENT)
    text = repr(team) + "".join(repr(r) for r in team.requests)
    assert "s3cret" not in text and "k-123" not in text and "ann" not in text
    assert "Get user" in text


def test_auth_variants_legacy_objects_and_unsupported_types() -> None:
    raw = collection()
    raw["auth"] = None
    raw["item"] = [
        {"name": "legacy", "request": {"url": "http://h/a", "auth": {"type": "bearer", "bearer": {"token": "t"}}}},
        {"name": "oauth", "request": {"url": "http://h/b", "auth": {"type": "oauth2", "oauth2": [
            {"key": "accessToken", "value": "x"}]}}},
        {"name": "query", "request": {"url": "http://h/c?api_key=old&z=1", "auth": {"type": "apikey", "apikey": [
            {"key": "key", "value": "api_key"}, {"key": "value", "value": "a&b"}, {"key": "in", "value": "query"}]}}},
        {"name": "none", "request": {"url": "http://h/d"}},
    ]
    legacy, oauth, query, none = read(raw).requests
    assert legacy.auth == TeamAuth("bearer", (("token", "t"),)) and legacy.unsupported == ()
    assert oauth.unsupported == ("auth type oauth2",) and oauth.auth is not None and oauth.auth.header() is None
    assert query.prepared() == ("http://h/c?z=1&api_key=a%26b", ())
    assert none.auth is None and none.unsupported == ()


def test_prepared_applies_auth_and_the_raw_body_content_type_as_newman_does() -> None:
    raw = collection()
    raw["item"] = [
        {"name": "a", "request": {"method": "POST", "url": "http://h/a",
                                  "header": [{"key": "authorization", "value": "old"}, {"key": "X", "value": "1"}],
                                  "body": {"mode": "raw", "raw": "{}", "options": {"raw": {"language": "json"}}}}},
        {"name": "b", "request": {"method": "PUT", "url": "http://h/b", "header": "Content-Type: text/csv\nX: 2\n",
                                  "body": {"mode": "raw", "raw": "a,b"}}},
    ]
    a, b = read(raw, {"values": [{"key": "token", "value": "T"}]}).requests
    assert a.prepared() == ("http://h/a", (("X", "1"), ("Content-Type", "application/json"),
                                           ("Authorization", "Bearer T")))
    assert b.content_type == "text/plain" and b.prepared()[1] == (("Content-Type", "text/csv"), ("X", "2"),
                                                                  ("Authorization", "Bearer T"))


def test_bodies_newman_would_not_send_are_none_and_other_modes_are_noted() -> None:
    raw = collection()
    raw["item"] = [
        {"name": "get", "request": {"method": "GET", "url": "http://h", "body": {"mode": "raw", "raw": "x"}}},
        {"name": "kept", "protocolProfileBehavior": {"disableBodyPruning": True},
         "request": {"method": "GET", "url": "http://h", "body": {"mode": "raw", "raw": "x"}}},
        {"name": "form", "request": {"method": "POST", "url": "http://h", "body": {
            "mode": "formdata", "formdata": [{"key": "f", "value": "v"}]}}},
        {"name": "off", "request": {"method": "POST", "url": "http://h", "body": {
            "mode": "raw", "raw": "x", "disabled": True}}},
        {"name": "empty", "request": {"method": "POST", "url": "http://h", "body": {"mode": "raw", "raw": ""}}},
    ]
    got = {r.name: (r.body, r.content_type, r.unsupported) for r in read(raw).requests}
    assert got == {"get": (None, None, ()), "kept": ("x", "text/plain", ()),
                   "form": (None, None, ("body mode formdata",)), "off": (None, None, ()), "empty": (None, None, ())}


def test_scripts_flag_comes_from_the_item_its_folders_or_the_collection() -> None:
    requests = by_name(read())
    assert [requests[n].scripts for n in ("Login", "Me", "Get user", "Health")] == [True, True, True, False]
    raw = collection()
    raw["event"] = [{"listen": "prerequest", "script": {"exec": "pm.environment.set('a', 1)"}}]
    assert all(r.scripts for r in read(raw).requests)
    raw["event"][0]["disabled"] = True
    assert not by_name(read(raw))["Health"].scripts


# Matching


@pytest.fixture()
def operations(tmp_path: Path) -> tuple[Operation, ...]:
    return make_operations(tmp_path, {
        "/users/{user_id}": ["GET", "DELETE"], "/users/me": ["GET"], "/login": ["POST"],
        "/files/{name}.json": ["GET"], "/users/{user_id}/posts/{post_id}": ["GET"],
    }, servers=["/api/v1"])


def matched(found: tuple[Operation, tuple[tuple[str, str], ...]] | None) -> tuple[str, tuple[tuple[str, str], ...]]:
    assert found is not None
    return f"{found[0].method} {found[0].path}", found[1]


def test_matching_strips_a_base_url_and_the_spec_base_path(operations: tuple[Operation, ...]) -> None:
    bases = ["https://staging.example.com/api/v1", "/api/v1"]
    assert matched(match_request(request("https://staging.example.com/api/v1/users/7"), operations, bases)) == (
        "GET /users/{user_id}", (("user_id", "7"),))
    assert matched(match_request(request("http://localhost:3000/api/v1/users/7/posts/9"), operations, bases)) == (
        "GET /users/{user_id}/posts/{post_id}", (("user_id", "7"), ("post_id", "9")))
    assert matched(match_request(request("{{baseUrl}}/api/v1/users/{{userId}}"), operations, ["/api/v1"])) == (
        "GET /users/{user_id}", (("user_id", "{{userId}}"),))
    assert matched(match_request(request("HTTPS://Staging.Example.com:443/api/v1/login", "POST"), operations,
                                 ["https://staging.example.com/api/v1"]))[0] == "POST /login"


def test_matching_without_a_base_uses_the_whole_path(tmp_path: Path) -> None:
    ops = make_operations(tmp_path, {"/api/v1/items/{id}": ["GET"]})
    assert matched(match_request(request("https://h/api/v1/items/3"), ops, ["https://h/api/v1"])) == (
        "GET /api/v1/items/{id}", (("id", "3"),))
    assert matched(match_request(request("/api/v1/items/3"), ops, [])) == ("GET /api/v1/items/{id}", (("id", "3"),))


def test_matching_tolerates_percent_encoding_query_and_trailing_slash(operations: tuple[Operation, ...]) -> None:
    bases = ["http://h/api/v1"]
    assert matched(match_request(request("http://h/api/v1/us%65rs/me/?x=1#f"), operations, bases))[0] == \
        "GET /users/me"
    assert matched(match_request(request("http://h/api/v1/users/a%2Fb%20c"), operations, bases))[1] == (
        ("user_id", "a/b c"),)
    assert matched(match_request(request("http://h/api/v1/files/report.json"), operations, bases)) == (
        "GET /files/{name}.json", (("name", "report"),))


def test_a_literal_segment_wins_over_a_template(operations: tuple[Operation, ...]) -> None:
    bases = ["http://h/api/v1"]
    assert matched(match_request(request("http://h/api/v1/users/me"), operations, bases))[0] == "GET /users/me"
    assert matched(match_request(request("http://h/api/v1/users/me", "DELETE"), operations, bases)) == (
        "DELETE /users/{user_id}", (("user_id", "me"),))


def test_no_match_for_another_method_or_shape(operations: tuple[Operation, ...]) -> None:
    bases = ["http://h/api/v1"]
    for url, method in [("http://h/api/v1/users/me", "PUT"), ("http://h/api/v1/users", "GET"),
                        ("http://h/api/v1/users//posts/1", "GET"), ("http://h/api/v1/files/report.xml", "GET"),
                        ("http://h/other/login", "POST")]:
        assert match_request(request(url, method), operations, bases) is None, url


def test_read_requests_match_their_operations(operations: tuple[Operation, ...]) -> None:
    team = read(environment=ENVIRONMENT)
    bases = ["https://staging.example.com/api/v1", "/api/v1"]
    found = [match_request(r, operations, bases) for r in team.requests]
    assert [f and f"{f[0].method} {f[0].path}" for f in found] == [
        "POST /login", "GET /users/me", "GET /users/{user_id}", None]


# Assertify


def strip_added(result: dict[str, Any], original: dict[str, Any], tested: set[tuple[int, ...]],
                added_variables: int) -> dict[str, Any]:
    """`result` minus what assertify may add: ids original items lacked, the appended events, new variables."""
    out = copy.deepcopy(result)

    def walk(new: list[Any], old: list[Any], index: tuple[int, ...]) -> None:
        for i, (n, o) in enumerate(zip(new, old, strict=True)):
            if "item" in o and "request" not in o:
                walk(n["item"], o["item"], (*index, i))
                continue
            if "id" not in o:
                n.pop("id")
            if (*index, i) in tested:
                n["event"].pop()
                if "event" not in o:
                    n.pop("event")

    walk(out["item"], original["item"], ())
    if added_variables:
        del out["variable"][-added_variables:]
    return out


def test_assertify_adds_tests_after_the_teams_own_and_changes_nothing_else() -> None:
    team = read(environment=ENVIRONMENT)
    before = json.dumps(team.raw)
    login, me, get_user, health = team.requests
    tests = {login.id: ["pm.test('satori', () => {});"], get_user.id: ["a();", "b();"]}
    result = assertify(team, tests)
    assert json.dumps(team.raw) == before
    assert json.dumps(strip_added(result, team.raw, {(0,), (1, 1, 0)}, 0)) == before
    events = result["item"][0]["event"]
    assert [e["listen"] for e in events] == ["test", "prerequest", "test"]
    assert events[-1] == {"listen": "test", "script": {"type": "text/javascript",
                                                       "exec": ["pm.test('satori', () => {});"]}}
    assert result["item"][1]["item"][1]["item"][0]["event"][0]["script"]["exec"] == ["a();", "b();"]
    assert "event" not in result["item"][2]
    ids = [result["item"][0]["id"], result["item"][1]["item"][0]["id"], result["item"][1]["item"][1]["item"][0]["id"],
           result["item"][2]["id"]]
    assert ids == [login.id, me.id, get_user.id, health.id]
    assert "id" not in result["item"][1] and "id" not in result["item"][1]["item"][1]  # folders untouched


def test_assertify_sets_variables_replacing_and_enabling_or_appending() -> None:
    team = read()
    result = assertify(team, {}, [("baseUrl", "http://s"), ("off", "on"), ("SATORI_CHECKER", "code")])
    assert result["variable"] == [
        {"key": "baseUrl", "value": "http://s"}, {"key": "userId", "value": "42"}, {"key": "off", "value": "on"},
        {"key": "SATORI_CHECKER", "value": "code", "type": "string"}]
    assert team.raw["variable"][2] == {"key": "off", "value": "x", "disabled": True}
    raw = collection()
    del raw["variable"]
    assert assertify(read(raw), {}, [("k", "v")])["variable"] == [{"key": "k", "value": "v", "type": "string"}]
    assert "variable" not in assertify(read(raw), {})


def test_assertify_rewrites_repeated_ids_and_rejects_unknown_ones() -> None:
    raw = collection()
    raw["item"][3:] = [{"name": "A", "id": "dup", "request": "http://h/a"},
                       {"name": "B", "id": "dup", "request": "http://h/b"}]
    team = read(raw)
    result = assertify(team, {team.requests[5].id: ["x();"]})
    assert result["item"][3]["id"] == "dup" and result["item"][4]["id"] == team.requests[5].id != "dup"
    with pytest.raises(ValueError, match="no request with id nope"):
        assertify(team, {"nope": ["x();"]})


# Errors


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "team.json: not JSON: "),
    ("[]", "team.json: not a Postman collection"),
    (json.dumps({"info": {"name": "x", "schema": SCHEMA}}), "team.json: not a Postman collection (no \"item\" list)"),
    (json.dumps({"id": "1", "name": "old", "order": [], "requests": []}), "team.json: a Postman v1 collection"),
    (json.dumps({"info": {"schema": "https://schema.getpostman.com/json/collection/v1.0.0/collection.json"},
                 "item": []}), "team.json: a Postman v1 collection"),
    (json.dumps({"item": [1]}), "team.json: item #1 is not an object"),
    (json.dumps({"item": [{"name": "F", "item": [{"name": "x"}]}]}),
     "team.json: item F/#1.1 has neither \"request\" nor \"item\""),
    (json.dumps({"item": [{"name": "r", "request": 3}]}), "team.json: request #1 is neither a URL nor an object"),
    (json.dumps({"item": [], "variable": {"a": 1}}), "team.json: \"variable\" is not a list"),
    (json.dumps({"item": [{"name": "r", "request": "http://h", "event": {}}]}),
     "team.json: request #1: \"event\" is not a list"),
])
def test_collection_errors_are_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(TeamCollectionError) as err:
        read_team_collection(text, "team.json")
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["[1, 2]", "nope", json.dumps({"values": {"a": 1}}), json.dumps({"values": [3]})])
def test_environment_errors_name_the_environment_file(text: str) -> None:
    with pytest.raises(TeamCollectionError) as err:
        read_team_collection(json.dumps(collection()), "team.json", text, "staging.json")
    assert str(err.value).startswith("staging.json: ") and "\n" not in str(err.value)
