"""`satori-ci collection --explain`: each team request, the operation it calls or why none, its variables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.postman.explain import explain, explain_json, explain_text
from satori_ci.postman.read import read_team_collection
from satori_ci.spec import load_spec

SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
SECRET = "s3cr3t-team-token-4711"


def write_spec(tmp_path: Path) -> Path:
    paths = {"/users": {"get": {"responses": OK}}, "/status": {"get": {"responses": OK}},
             "/users/{id}": {"get": {"responses": OK}, "delete": {"responses": OK}}}
    doc = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "servers": [{"url": "https://api.example.com/v1"}],
           "paths": paths}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_team(tmp_path: Path) -> tuple[Path, Path]:
    def item(name: str, url: str, method: str = "GET") -> dict[str, Any]:
        return {"name": name, "request": {"method": method, "url": url}}

    raw = {"info": {"name": "Team", "schema": SCHEMA},
           "variable": [{"key": "baseUrl", "value": "https://api.example.com/v1"}, {"key": "userId", "value": ""}],
           "item": [
               {"name": "Users", "item": [
                   {**item("list", "{{baseUrl}}/users"), "event": [{"listen": "test", "script": {"exec": [
                       "pm.collectionVariables.set('userId', pm.response.json()[0].id);"]}}]},
                   item("one", "{{baseUrl}}/users/{{userId}}"),
                   item("patch one", "{{baseUrl}}/users/7", "PATCH"),
               ]},
               item("status under another prefix", "https://api.example.com/v2/status?api_key={{apiKey}}"),
               item("health", "{{baseUrl}}/health/{{$guid}}/{{nowhere}}"),
           ]}
    env = {"values": [{"key": "apiKey", "value": SECRET, "type": "secret"}]}
    collection, environment = tmp_path / "team.json", tmp_path / "env.json"
    collection.write_text(json.dumps(raw), encoding="utf-8")
    environment.write_text(json.dumps(env), encoding="utf-8")
    return collection, environment


def test_each_request_says_what_it_calls_or_why_not(tmp_path: Path) -> None:
    collection, environment = write_team(tmp_path)
    spec = load_spec(str(write_spec(tmp_path)))
    team = read_team_collection(collection.read_text(), "team.json", environment.read_text(), "env.json")
    found = {e.label: e for e in explain(team, spec)}
    assert found["Users/list"].calls == "GET /users" and found["Users/list"].base == "/v1"
    one = found["Users/one"]
    assert (one.calls, one.params, one.url) == ("GET /users/{id}", (("id", "{{userId}}"),),
                                                "https://api.example.com/v1/users/{{userId}}")
    assert [(v.name, v.state, v.set_by) for v in one.variables] == [("userId", "empty", "Users/list")]
    assert found["Users/patch one"].why == ("method differs: no PATCH operation matches /v1/users/7; the spec has "
                                            "DELETE /users/{id}, GET /users/{id}")
    assert found["status under another prefix"].why.startswith(
        "matches GET /status only with a base URL https://api.example.com/v2 (base URLs tried: "
        "https://api.example.com/v1; ")
    health = found["health"]
    assert health.why.startswith("no template matched: no path of the spec matches /v1/health/{{$guid}}/{{nowhere}}")
    assert [(v.name, v.state) for v in health.variables] == [("$guid", "dynamic"), ("nowhere", "unknown")]
    text = explain_text(team, explain(team, spec), "spec.json", {one.id: "why not"})
    assert "Users/one\n  GET https://api.example.com/v1/users/{{userId}}\n  calls GET /users/{id} (base path /v1 " \
           "stripped)\n  path parameters: id={{userId}}\n  variable {{userId}}: empty, set by a script of " \
           "Users/list\n  native runner: not sent: why not\n" in text
    data = json.loads(explain_json(team, explain(team, spec), "spec.json", {}))
    assert [r["calls"] for r in data["requests"]] == ["GET /users", "GET /users/{id}", None, None, None]


def test_the_command_redacts_secrets_and_checks_its_options(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    collection, environment = write_team(tmp_path)
    spec = str(write_spec(tmp_path))
    assert main(["collection", spec, "--postman-collection", str(collection), "--postman-environment",
                 str(environment), "--explain"]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out and "/v2/status?api_key=***" in out
    assert main(["collection", spec, "--postman-collection", str(collection), "--postman-environment",
                 str(environment), "--explain", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert SECRET not in json.dumps(data) and len(data["requests"]) == 5
    assert main(["collection", spec, "--explain"]) == 2
    assert "--explain needs a team collection" in capsys.readouterr().err
    assert main(["collection", spec, "--json", "--postman-collection", str(collection)]) == 2
    assert "--json goes with --explain" in capsys.readouterr().err
    assert main(["collection", spec]) == 2
    assert "--oracles" in capsys.readouterr().err
