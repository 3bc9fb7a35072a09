"""A collection made by Postman's openapi-to-postmanv2 from Jupyter Server's spec, edited as a team does (issue 24),
run by both runners against a local app: each operation's assertions run on its own request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from tests.run import jupyter_fixtures
from tests.run.conftest import newman_available
from tests.servers.jupyter_app import COLLECTION_PATH, ENVIRONMENT_PATH, KERNELS, SESSIONS, SPEC_PATH, JupyterApp

SPEC = str(SPEC_PATH)
KERNEL = KERNELS[0]["id"]


app, fresh, oracles = jupyter_fixtures.app, jupyter_fixtures.fresh, jupyter_fixtures.oracles  # the shared fixtures


def environment(tmp_path: Path, base_url: str) -> str:
    """The fixture's environment pointed at the local app."""
    env = json.loads(ENVIRONMENT_PATH.read_text(encoding="utf-8"))
    env["values"] = [{**v, "value": base_url} if v["key"] == "baseUrl" else v for v in env["values"]]
    path = tmp_path / "local.postman_environment.json"
    path.write_text(json.dumps(env), encoding="utf-8")
    return str(path)


def run(app: JupyterApp, oracles: str, tmp_path: Path, runner: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / f"{runner}.json"
    code = main(["run", SPEC, "--oracles", oracles, "--base-url", app.base_url, "--runner", runner, "--quiet",
                 "--postman-collection", str(COLLECTION_PATH), "--postman-environment", environment(tmp_path,
                                                                                               app.base_url),
                 "--report", str(report), "--no-observe"])
    return code, json.loads(report.read_text(encoding="utf-8"))


def violations(data: dict[str, Any]) -> set[tuple[str, str, str]]:
    """(operation, field, the path of the request it was found on)."""
    out = set()
    for found in data["violations"]:
        url = found["request"]["url"]
        out.add((f"{found['method']} {found['path']}", found["field"], url[url.index("/api"):]))
    return out


def test_the_fixture_is_the_converters_collection_as_the_user_edited_it() -> None:
    raw = json.loads(COLLECTION_PATH.read_text(encoding="utf-8"))
    assert raw["auth"]["bearer"] == [{"key": "token", "value": "{{token}}", "type": "string"}]
    assert {"key": "kernel_id", "value": ""} in raw["variable"]
    kernels = raw["item"][0]["item"][1]
    assert [i["name"] for i in kernels["item"]] == [
        "List the JSON data for all kernels that are currently running", "{kernel_id}"]
    assert "pm.collectionVariables.set('kernel_id'" in "".join(kernels["item"][0]["event"][0]["script"]["exec"])
    assert kernels["item"][1]["item"][0]["request"]["url"]["path"] == ["api", "kernels", "{{kernel_id}}"]
    contents = raw["item"][0]["item"][0]["item"][0]["item"][0]["request"]["url"]
    assert contents["path"] == ["api", "contents", ":path"]  # the converter's own path variable, a real value
    assert contents["variable"][0]["value"] == "data/clean/summary.json"


def test_newman_sends_every_request_and_each_gets_its_own_operations_assertions(
        fresh: JupyterApp, oracles: str, tmp_path: Path) -> None:
    newman_available()
    code, data = run(fresh, oracles, tmp_path, "newman")
    targets = [r.target.split("?")[0] for r in fresh.received]
    assert targets[:8] == ["/api/contents/data/clean/summary.json",
                           "/api/contents/notebooks/analysis.ipynb/checkpoints", "/api/kernels",
                           f"/api/kernels/{KERNEL}", "/api/sessions", f"/api/sessions/{SESSIONS[0]['id']}",
                           "/api/status", "/api"]  # the team's, in its order
    assert all(r.headers.get("X-Team") == "notebook-suite" for r in fresh.received)  # the pre-request script ran
    # the two operations the team calls only with ids its scripts set also get satori-ci's own requests (what a
    # runner without scripts sends), after the team's, ids from the lists
    own = targets[8:]
    assert own and all(t.startswith(("/api/kernels/", "/api/sessions/")) and t.count("/") == 3 for t in own), own
    assert {
        ("GET /api/contents/{path}", "size", "/api/contents/data/clean/summary.json?type=file&format=text&content=1"),
        ("GET /api/contents/{path}/checkpoints", "[].last_modified",
         "/api/contents/notebooks/analysis.ipynb/checkpoints"),
        ("GET /api/kernels/{kernel_id}", "connections", "/api/kernels/{{kernel_id}}"),
    } <= violations(data)
    ops = {f"{o['method']} {o['path']}": o for o in data["operations"]}
    waiting = {"GET /api/kernels/{kernel_id}": "/api/kernels/", "GET /api/sessions/{session}": "/api/sessions/"}
    assert {k: o["checked"] for k, o in ops.items()} == {
        **dict.fromkeys(ops, 1), **{k: 1 + sum(t.startswith(p) for t in own) for k, p in waiting.items()}}
    assert len(ops) == 7
    assert data["team_tests"]["passed"] == 1 and data["team_tests"]["failed"] == 0  # the team's own pm.test
    assert code == 1


def test_the_native_runner_sends_what_it_can_and_names_what_waits_for_a_script(
        fresh: JupyterApp, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data = run(fresh, oracles, tmp_path, "native")
    out = capsys.readouterr().out
    targets = [r.target.split("?")[0] for r in fresh.received]
    # never `/api/kernels/`: the team's detail requests wait for its scripts; satori-ci's own take the ids from the
    # lists, with the team's bearer token
    assert "/api/kernels/" not in targets and "/api/sessions/" not in targets, targets
    assert {f"/api/kernels/{KERNEL}", f"/api/sessions/{SESSIONS[0]['id']}"} <= set(targets), targets
    assert all(r.headers.get("Authorization") == fresh.received[0].headers.get("Authorization")
               for r in fresh.received)
    assert "team tests: not run: the native runner does not run the team collection's scripts" in out
    assert {v[:2] for v in violations(data)} == {("GET /api/contents/{path}", "size"),
                                                  ("GET /api/contents/{path}/checkpoints", "[].last_modified"),
                                                  ("GET /api/kernels/{kernel_id}", "connections")}
    checked = {f"{o['method']} {o['path']}": o["checked"] for o in data["operations"]}
    assert checked["GET /api/kernels"] == 1 and checked["GET /api/kernels/{kernel_id}"] >= 1
    assert code == 1


def test_explain_says_which_operation_each_request_calls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["collection", SPEC, "--postman-collection", str(COLLECTION_PATH), "--postman-environment",
                 str(ENVIRONMENT_PATH), "--explain"]) == 0
    out = capsys.readouterr().out
    blocks = {b.splitlines()[0]: b for b in out.split("\n\n")[1:]}
    first = out.splitlines()[0]
    assert first.startswith(f"Jupyter Server API ({COLLECTION_PATH}): 8 request(s), 7 tied to an operation of ")
    assert first.endswith("fixtures/jupyter/openapi.yaml")
    kernel = blocks["api/kernels/{kernel_id}/Get kernel information"]
    assert "  GET http://127.0.0.1:8888/api/kernels/{{kernel_id}}\n  calls GET /api/kernels/{kernel_id}\n" in kernel
    assert ("  variable {{kernel_id}}: empty, set by a script of api/kernels/List the JSON data for all kernels that "
            "are currently running") in kernel
    assert "  native runner: not sent: " in kernel
    contents = blocks["api/contents/{path}/Get contents of file or directory"]
    assert ("  calls GET /api/contents/{path}\n  path parameters: path=data/clean/summary.json; path takes 3 "
            "segments (no template matched it otherwise)") in contents
    assert "calls GET /api/contents/{path}/checkpoints\n" in blocks[
        "api/contents/{path}/checkpoints/Get a list of checkpoints for a file"]
    assert blocks["Server version"].splitlines()[2].startswith("  calls no operation: no template matched")
    assert "native runner" not in blocks["api/kernels/List the JSON data for all kernels that are currently running"]
    again = main(["collection", SPEC, "--postman-collection", str(COLLECTION_PATH), "--postman-environment",
                  str(ENVIRONMENT_PATH), "--explain"])
    assert again == 0 and capsys.readouterr().out == out  # deterministic
