"""Where a team collection's requests go and what they carry, the same in both runners (issue 24): the base URL the
user gives wins over the team's environment, the run's headers complete the team's own (never replace them), and
satori-ci's own requests borrow the team's auth when its requests share one (written on each, not on the collection)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from tests.run.conftest import newman_available
from tests.servers.jupyter_app import COLLECTION_PATH, ENVIRONMENT_PATH, SPEC_PATH, TOKEN, JupyterApp

SPEC = str(SPEC_PATH)
DEAD = "http://127.0.0.1:9"
"""Where the team's environment points: the discard port, nothing listens there."""


@pytest.fixture(scope="module")
def app() -> Iterator[JupyterApp]:
    with JupyterApp() as running:
        yield running


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("oracles") / "jupyter.oracles.yaml"
    assert main(["infer", SPEC, "--oracles", str(path), "--quiet"]) == 0
    return str(path)


def _team(folder: Path) -> tuple[str, str]:
    """The converted collection with its auth written on each request (as the converter writes it) instead of on
    the collection, the team's own `X-Suite` header on all but the sessions list, and an environment pointing
    elsewhere."""
    raw = json.loads(COLLECTION_PATH.read_text(encoding="utf-8"))
    auth = raw.pop("auth")

    def walk(items: list[Any]) -> None:
        for item in items:
            if "item" in item:
                walk(item["item"])
            else:
                item["request"]["auth"] = auth
                if item["name"] != "List available sessions":
                    item["request"].setdefault("header", []).append({"key": "X-Suite", "value": "team"})

    walk(raw["item"])
    collection = folder / "team.postman_collection.json"
    collection.write_text(json.dumps(raw), encoding="utf-8")
    env = json.loads(ENVIRONMENT_PATH.read_text(encoding="utf-8"))
    env["values"] = [{**v, "value": DEAD} if v["key"] == "baseUrl" else v for v in env["values"]]
    environment = folder / "elsewhere.postman_environment.json"
    environment.write_text(json.dumps(env), encoding="utf-8")
    return str(collection), str(environment)


@pytest.fixture(scope="module", params=["native", "newman"])
def ran(request: pytest.FixtureRequest, app: JupyterApp, oracles: str,
        tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], list[Any]]:
    """One run of each runner: `--base-url` the app (the team's environment says a dead port), `--header X-Suite`
    (the team sends its own on all but one request), `--header X-Run` (the team sends none)."""
    runner: str = request.param
    if runner == "newman":
        newman_available()
    folder = tmp_path_factory.mktemp(runner)
    collection, environment = _team(folder)
    report = folder / "report.json"
    app.server.clear()
    main(["run", SPEC, "--oracles", oracles, "--base-url", app.base_url, "--runner", runner, "--quiet",
          "--postman-collection", collection, "--postman-environment", environment, "--report", str(report),
          "--no-observe", "--header", "X-Suite: run", "--header", "X-Run: yes"])
    return runner, json.loads(report.read_text(encoding="utf-8")), list(app.server.received)


def test_the_given_base_url_wins_over_the_teams_environment(ran: tuple[str, dict[str, Any], list[Any]]) -> None:
    _, data, received = ran
    assert data["infrastructure"] == [], data["infrastructure"]  # nothing went to the dead port
    assert data["base_url"].startswith("http://127.0.0.1:") and data["base_url"] != DEAD
    paths = [r.target.split("?")[0] for r in received]
    assert "/api/kernels" in paths and "/api/status" in paths, paths  # the team's, sent to the given server
    assert any(p.startswith("/api/kernels/") for p in paths)  # and satori-ci's own


def test_the_runs_headers_complete_the_teams_never_replace_them(ran: tuple[str, dict[str, Any], list[Any]]) -> None:
    runner, _, received = ran
    team = [r for r in received if r.target.split("?")[0] in ("/api/kernels", "/api/status")]
    assert team and all(r.headers.get("X-Suite") == "team" for r in team), runner  # the team's own value kept
    assert all(r.headers.get("X-Run") == "yes" for r in received)  # a header the team does not send is added
    sessions = [r for r in received if r.target == "/api/sessions"]
    assert sessions and all(r.headers.get("X-Suite") == "run" for r in sessions)  # where the team sends none


def test_own_requests_borrow_the_auth_the_teams_requests_share(ran: tuple[str, dict[str, Any], list[Any]]) -> None:
    runner, data, received = ran
    assert received and all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in received), runner
    checked = {f"{o['method']} {o['path']}": o["checked"] for o in data["operations"]}
    assert checked["GET /api/kernels/{kernel_id}"] >= 1  # reached with the borrowed token (401 without it)
