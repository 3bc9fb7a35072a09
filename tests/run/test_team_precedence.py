"""Where a team collection's requests go and what they carry, the same in both runners (issue 24): the base URL the
user gives wins over the team's environment (its `{{baseUrl}}`, or the one variable its URLs start with), the run's
headers complete the team's own (never replace them), and satori-ci's own requests send the run's headers, else the
team's auth: the collection's, else the one its requests share (a Postman auth or an Authorization header on each)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from tests.run import jupyter_fixtures
from tests.run.conftest import newman_available
from tests.servers.jupyter_app import COLLECTION_PATH, ENVIRONMENT_PATH, SPEC_PATH, TOKEN, JupyterApp

SPEC = str(SPEC_PATH)
DEAD = "http://127.0.0.1:9"
"""Where the team's environment points: the discard port, nothing listens there."""
DEAD_PORT = r"127\.0\.0\.1:9(?!\d)"


app, oracles = jupyter_fixtures.app, jupyter_fixtures.oracles  # the shared fixtures


def _team(folder: Path, per_request: bool) -> tuple[str, str]:
    """The converted collection and an environment pointing elsewhere. `per_request`: no auth on the collection but
    an `Authorization: Bearer {{token}}` header written on each request (the server version's included), the team's
    own `X-Suite` header on all but the sessions list; else its URLs start with `{{host}}`, not `{{baseUrl}}`, and
    every request sends `X-Suite`."""
    raw = json.loads(COLLECTION_PATH.read_text(encoding="utf-8").replace("{{baseUrl}}", "{{host}}"
                                                                         if not per_request else "{{baseUrl}}"))
    if per_request:
        raw.pop("auth")
    items: list[dict[str, Any]] = []

    def walk(found: list[Any]) -> None:
        for item in found:
            if "item" in item:
                walk(item["item"])
            else:
                items.append(item)

    walk(raw["item"])
    for item in items:
        headers = item["request"].setdefault("header", [])
        if per_request:
            headers.append({"key": "Authorization", "value": "Bearer {{token}}"})
        if not per_request or item["name"] != "List available sessions":
            headers.append({"key": "X-Suite", "value": "team"})
    collection = folder / "team.postman_collection.json"
    collection.write_text(json.dumps(raw), encoding="utf-8")
    env = json.loads(ENVIRONMENT_PATH.read_text(encoding="utf-8"))
    env["values"] = [{**v, "value": DEAD} if v["key"] == "baseUrl" else v for v in env["values"]]
    env["values"].append({"key": "host", "value": DEAD, "type": "default", "enabled": True})
    environment = folder / "elsewhere.postman_environment.json"
    environment.write_text(json.dumps(env), encoding="utf-8")
    return str(collection), str(environment)


Ran = tuple[str, dict[str, Any], list[Any]]


def _run(runner: str, app: JupyterApp, oracles: str, folder: Path, per_request: bool, *flags: str) -> Ran:
    """One run with `--base-url` the app (the team's environment says a dead port): the runner, its JSON report and
    what the app received."""
    if runner == "newman":
        newman_available()
    collection, environment = _team(folder, per_request)
    report = folder / "report.json"
    app.server.clear()
    main(["run", SPEC, "--oracles", oracles, "--base-url", app.base_url, "--runner", runner, "--quiet",
          "--postman-collection", collection, "--postman-environment", environment, "--report", str(report),
          "--no-observe", *flags])
    return runner, json.loads(report.read_text(encoding="utf-8")), list(app.server.received)


@pytest.fixture(scope="module", params=["native", "newman"])
def ran(request: pytest.FixtureRequest, app: JupyterApp, oracles: str,
        tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """An Authorization header on each request; `--header X-Suite` (the team sends its own on all but one request),
    `--header X-Run` (the team sends none)."""
    return _run(request.param, app, oracles, tmp_path_factory.mktemp(request.param), True,
                "--header", "X-Suite: run", "--header", "X-Run: yes")


@pytest.fixture(scope="module", params=["native", "newman"])
def ran_authorized(request: pytest.FixtureRequest, app: JupyterApp, oracles: str,
                   tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """The auth on the collection, URLs from `{{host}}`; `--header Authorization` (the team's auth sends its own, but
    for the one request with `noauth`) and `--header X-Suite` (every request of the team's sends its own)."""
    return _run(request.param, app, oracles, tmp_path_factory.mktemp(request.param), False,
                "--header", "Authorization: Bearer run", "--header", "X-Suite: run")


def test_the_given_base_url_wins_over_the_teams_environment(ran: Ran) -> None:
    _, data, received = ran
    assert data["infrastructure"] == [], data["infrastructure"]  # nothing went to the dead port
    assert data["base_url"].startswith("http://127.0.0.1:") and data["base_url"] != DEAD
    assert not re.search(DEAD_PORT, json.dumps(data))  # every request the report names, at the given server
    paths = [r.target.split("?")[0] for r in received]
    assert "/api/kernels" in paths and "/api/status" in paths, paths  # the team's, sent to the given server
    assert any(p.startswith("/api/kernels/") for p in paths)  # and satori-ci's own


def test_the_runs_headers_complete_the_teams_never_replace_them(ran: Ran) -> None:
    runner, _, received = ran
    team = [r for r in received if r.target.split("?")[0] in ("/api/kernels", "/api/status")]
    assert team and all(r.headers.get("X-Suite") == "team" for r in team), runner  # the team's own value kept
    assert all(r.headers.get("X-Run") == "yes" for r in received)  # a header the team does not send is added
    sessions = [r for r in received if r.target == "/api/sessions"]
    assert sessions and all(r.headers.get("X-Suite") == "run" for r in sessions)  # where the team sends none


def test_own_requests_borrow_the_auth_the_teams_requests_share(ran: Ran) -> None:
    runner, data, received = ran
    assert received and all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in received), runner
    checked = {f"{o['method']} {o['path']}": o["checked"] for o in data["operations"]}
    assert checked["GET /api/kernels/{kernel_id}"] >= 1  # reached with the borrowed token (401 without it)


def test_the_given_base_url_takes_the_place_of_the_variable_the_teams_urls_start_with(ran_authorized: Ran) -> None:
    runner, data, received = ran_authorized
    assert data["infrastructure"] == [], (runner, data["infrastructure"])  # nothing went to `{{host}}`'s dead port
    assert not re.search(DEAD_PORT, json.dumps(data))
    paths = {r.target.split("?")[0] for r in received}
    assert {"/api/kernels", "/api/status"} <= paths and any(p.startswith("/api/kernels/") for p in paths), paths


def test_the_runs_authorization_completes_the_teams_requests_and_comes_first_for_satori_cis(
        ran_authorized: Ran) -> None:
    runner, _, received = ran_authorized
    team = [r for r in received if r.headers.get("X-Suite") == "team"]
    own = [r for r in received if r.headers.get("X-Suite") == "run"]
    assert team and own and len(team) + len(own) == len(received), runner
    # the team's auth kept (`noauth` on the server version: the run's completes it)
    assert all(r.headers.get("Authorization") == ("Bearer run" if r.target == "/api" else f"Bearer {TOKEN}")
               for r in team), [(r.target, r.headers.get("Authorization")) for r in team]
    # satori-ci's own (ids from the team's lists): the run's header, never the collection's auth it would inherit
    assert all(r.target.startswith(("/api/kernels/", "/api/sessions/")) for r in own), [r.target for r in own]
    assert all(r.headers.get("Authorization") == "Bearer run" for r in own), runner
