"""The team's own Postman collection: its requests carry the assertions, everything else is kept (real Newman)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from satori_ci.cli import main
from tests.run import team_fixtures
from tests.run.conftest import newman_available
from tests.servers.resources_app import SPEC_PATH, ResourcesApp

SPEC = str(SPEC_PATH)
app, fresh, oracles = team_fixtures.app, team_fixtures.fresh, team_fixtures.oracles  # the shared fixtures


def _team(tmp_path: Path) -> tuple[Path, Path]:
    """A team collection: bearer auth from an environment variable, a login-like script that stores an id,
    a pre-request script adding a header, and a POST that must not run without an opt-in."""
    collection = {
        "info": {"name": "Team suite", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
        "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{apiToken}}", "type": "string"}]},
        "variable": [{"key": "baseUrl", "value": "http://127.0.0.1:9"}],
        "event": [{"listen": "prerequest", "script": {"exec": ["pm.request.headers.upsert({key: 'X-Team', "
                                                                "value: 'yes'});"]}}],
        "item": [
            {"name": "Users", "item": [
                {"name": "list users", "request": {"method": "GET", "url": "{{baseUrl}}/users"},
                 "event": [{"listen": "test", "script": {"exec": [
                     "pm.test('team: list is an array', function () {",
                     "  pm.expect(pm.response.json()).to.be.an('array');",
                     "});",
                     "pm.collectionVariables.set('userId', pm.response.json()[1].id);"]}}]},
                {"name": "one user", "request": {"method": "GET", "url": "{{baseUrl}}/users/{{userId}}"}},
                {"name": "create user", "request": {"method": "POST", "url": "{{baseUrl}}/users",
                                                    "body": {"mode": "raw", "raw": "{\"name\": \"x\"}"}}},
            ]},
            {"name": "health (not in the oracles' way)", "request": {"method": "GET", "url": "{{baseUrl}}/health"}},
        ],
    }
    path = tmp_path / "team.postman_collection.json"
    path.write_text(json.dumps(collection), encoding="utf-8")
    return path, tmp_path / "staging.postman_environment.json"


def _environment(path: Path, base_url: str, token: str) -> None:
    path.write_text(json.dumps({"name": "staging", "values": [
        {"key": "baseUrl", "value": base_url, "enabled": True},
        {"key": "apiToken", "value": token, "enabled": True, "type": "secret"}]}), encoding="utf-8")


def test_a_team_collection_keeps_its_auth_scripts_and_variables_with_assertions_added(
        fresh: ResourcesApp, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newman_available()
    collection, environment = _team(tmp_path)
    _environment(environment, fresh.base_url, ResourcesApp.TOKEN)
    report = tmp_path / "report.json"
    code = main(["run", SPEC, "--oracles", oracles, "--base-url", fresh.base_url, "--runner", "newman",
                 "--postman-collection", str(collection), "--postman-environment", str(environment),
                 "--report", str(report), "--value", "q=string"])
    out = capsys.readouterr().out
    data = json.loads(report.read_text(encoding="utf-8"))
    # the detail request took the id the team's own test script stored: /users/usr_3n7q4 (the second user)
    paths = [r.path for r in fresh.received]
    assert paths[:3] == ["/users", "/users/usr_3n7q4", "/health"], paths
    assert all(r.headers.get("X-Team") == "yes" for r in fresh.received[:3])  # the collection's pre-request script
    # the POST was not opted in: not sent, and said so
    assert fresh.mutations == [] and fresh.intact()
    details = [k["detail"] for k in data["not_sent"] if k["method"] == "POST"]
    assert any(d.startswith(f"Users/create user in {collection}: not a safe method") for d in details), details
    ops = {o["method"] + " " + o["path"]: o for o in data["operations"]}
    # the team's request (its id set by its script), then satori-ci's own (the operation waits for a script)
    assert ops["GET /users/{user_id}"]["checked"] >= 1 and ops["GET /users/{user_id}"]["oracles_exercised"] > 0
    assert ops["GET /users"]["checked"] == 1
    # operations the team collection does not call are still reached by the plan (chaining from its list)
    assert any(p.startswith("/orders/ord_") for p in paths)
    assert ResourcesApp.TOKEN not in out
    assert code == 1, out  # the planted 500 on /search?q=string is a server error finding
    assert "SERVER ERROR 500" in out


def test_the_written_collection_is_the_teams_with_tests_appended(
        fresh: ResourcesApp, oracles: str, tmp_path: Path) -> None:
    collection, environment = _team(tmp_path)
    _environment(environment, fresh.base_url, ResourcesApp.TOKEN)
    out = tmp_path / "out.json"
    assert main(["collection", SPEC, "--oracles", oracles, "--postman-collection", str(collection),
                 "--out", str(out)]) == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["auth"]["bearer"][0]["value"] == "{{apiToken}}"
    users = written["item"][0]["item"]
    assert [i["name"] for i in users] == ["list users", "one user"]  # the POST is left out
    listen = [e["listen"] for e in users[0]["event"]]
    assert listen == ["test", "test"]  # theirs first, then satori-ci's
    assert "team: list is an array" in "".join(users[0]["event"][0]["script"]["exec"])
    assert written["item"][-1]["name"] == "satori-ci: operations this collection does not call"
    assert ResourcesApp.TOKEN not in out.read_text(encoding="utf-8")


def test_the_native_runner_runs_what_it_can_and_says_what_it_cannot(
        fresh: ResourcesApp, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collection, environment = _team(tmp_path)
    _environment(environment, fresh.base_url, ResourcesApp.TOKEN)
    main(["run", SPEC, "--oracles", oracles, "--base-url", fresh.base_url, "--runner", "native",
          "--postman-collection", str(collection), "--postman-environment", str(environment)])
    out = capsys.readouterr().out
    assert "the native runner does not run the team collection's scripts" in out
    assert fresh.received[0].path == "/users"
    # the team's `one user` waits for its script: never sent as `/users/`; satori-ci's own requests reach the
    # operation instead, with the team's bearer token (the collection's auth, borrowed)
    assert "/users/" not in [r.path for r in fresh.received]
    assert any(r.path.startswith("/users/usr_") for r in fresh.received)
    assert all(r.headers.get("Authorization") == f"Bearer {ResourcesApp.TOKEN}" for r in fresh.received)


def test_a_broken_team_collection_is_one_line_and_exit_2(oracles: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["collection", SPEC, "--oracles", oracles, "--postman-collection", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("satori-ci: error: ") and str(bad.name) in err and len(err.strip().splitlines()) == 1
