"""`check` end to end against a local staging API: the responses feed the observation store, the suggestions
enter the oracle file disabled, an accepted one is checked, and an oracle that the base branch's observed
responses violate is suspect: listed, not failing the check."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.demo import Canned, Received, StagingServer
from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import OBSERVED

SPEC = """\
openapi: 3.0.0
info: {title: Things, version: "1"}
paths:
  /things:
    get:
      responses:
        "200":
          description: the things
          content:
            application/json:
              schema:
                type: object
                properties:
                  things:
                    type: array
                    items: {type: object, properties: {id: {type: string}}}
  /things/{thing_id}:
    get:
      parameters:
        - {name: thing_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: one thing
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
                  open: {type: boolean}
                  code: {type: string}
                  homepage_url: {type: string, format: uri}
"""
IDS = [f"t{i}" for i in range(10)]
ORACLES = Path(".satori/api.openapi.oracles.yaml")
STORE = Path(".satori/api.openapi.observed.json")


class Things:
    """The staging API: `homepage_url` of t3 is not a URL (a bug the base branch already has)."""

    def __init__(self, server: StagingServer) -> None:
        self.open_one: str | None = None
        self.bad_url: str | None = "t3"
        server.route("GET", "/things", lambda r, p: Canned({"things": [{"id": i} for i in IDS]}))
        server.route("GET", "/things/{thing_id}", self.thing)

    def thing(self, received: Received, params: dict[str, str]) -> Canned:
        i = params["thing_id"]
        url = "n/a" if i == self.bad_url else f"https://things.example/{i}"
        return Canned({"id": i, "open": i == self.open_one, "code": f"CODE-{i:>04}", "homepage_url": url})


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def staging() -> Iterator[tuple[StagingServer, Things]]:
    with StagingServer() as server:
        yield server, Things(server)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, staging: tuple[StagingServer, Things]) -> Path:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "openapi.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / ".satori.yml").write_text(
        f"specs:\n  - path: api/openapi.yaml\n    staging: {{url: {staging[0].base_url}}}\n"
        "    requests: {chain: 10}\n    observe: {min_responses: 10}\n", encoding="utf-8")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "t@example.invalid")
    _git(tmp_path, "config", "user.name", "t")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["check", "--head", "api/openapi.yaml", "--runner", "native", "--quiet", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def _commit(repo: Path) -> None:
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")


def test_check_observes_suggests_and_marks_suspects(repo: Path, staging: tuple[StagingServer, Things],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _check(capsys)
    spec = report["specs"][0]
    assert code == 1 and spec["counts"] == {"violations": 1, "failing": 1, "fields": 1, "suspect": 0, "preexisting": 0}
    observed = spec["observed"]
    assert observed["store"] == {"file": str(STORE), "responses": 11, "operations": 2, "ready": 2,
                                 "min_responses": 10}
    suggested = {(s["field"], s["oracle"]): s for s in observed["suggestions"]}
    assert suggested[("open", "boolean_always_false")]["evidence"] == 10
    assert ("code", "string_fixed_length") not in suggested  # one length in 10 responses: too few to bound it
    assert all(not s["enabled"] and s["new"] and s["source"] == OBSERVED for s in suggested.values())
    file = load_oracle_file(ORACLES.read_text(encoding="utf-8"), str(ORACLES))
    assert {(o.field, o.kind.value) for e in file.entries for o in e.oracles if o.source == OBSERVED} == \
        set(suggested)
    store = json.loads(STORE.read_text(encoding="utf-8"))
    detail = store["operations"]["GET /things/{thing_id} 200"]
    assert detail["responses"] == 10 and len(detail["requests"]) == 10
    assert detail["violated"] == {"homepage_url": {"string_is_url": 1}}

    # merged: the base branch has the store that saw the bug; the next pull request does not fail on it again
    _commit(repo)
    code, report = _check(capsys, "--base", "HEAD:api/openapi.yaml")
    spec = report["specs"][0]
    assert code == 0 and spec["outcome"] == "tolerated"
    assert spec["counts"]["suspect"] == 1 and spec["counts"]["failing"] == 0
    assert [v["suspect"] for v in spec["violations"]] == [True]
    assert spec["observed"]["suspects"] == [{"method": "GET", "path": "/things/{thing_id}", "status": "200",
                                             "field": "homepage_url", "oracle": "string_is_url",
                                             "violating_responses": 1}]
    assert all(not s["new"] for s in spec["observed"]["suggestions"])  # the same ones, with more evidence
    assert main(["check", "--head", "api/openapi.yaml", "--base", "HEAD:api/openapi.yaml", "--runner", "native",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Suspect oracles: 1 oracle(s) that observed responses of the base branch already violate" in text
    assert "[suspect]" in text and "Suggested oracles (observed in responses)" in text
    # without a base revision there is nothing trusted to compare with: the bug fails the check
    assert _check(capsys)[0] == 1

    # a reviewer accepts a suggestion: from then on it is checked like any oracle
    text = ORACLES.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "boolean_always_false" in x)
    ORACLES.write_text(text.replace(line, line.replace("enabled: false", "enabled: true")), encoding="utf-8")
    staging[1].open_one = "t5"
    code, report = _check(capsys, "--base", "HEAD:api/openapi.yaml")
    failing = [(v["field"], v["oracle"], v["pointer"]) for v in report["specs"][0]["violations"] if v["failing"]]
    assert code == 1 and failing == [("open", "boolean_always_false", "/open")]
    kept = load_oracle_file(ORACLES.read_text(encoding="utf-8"), str(ORACLES))
    assert [o.enabled for e in kept.entries for o in e.oracles if o.kind.value == "boolean_always_false"] == [True]

    # the API is fixed and that is merged: the oracle held, so it is no longer suspect, and a regression fails
    staging[1].open_one, staging[1].bad_url = None, None
    assert _check(capsys)[0] == 0
    assert json.loads(STORE.read_text(encoding="utf-8"))["operations"]["GET /things/{thing_id} 200"][
        "violated"] == {}
    _commit(repo)
    staging[1].bad_url = "t7"
    code, report = _check(capsys, "--base", "HEAD:api/openapi.yaml")
    assert code == 1 and report["specs"][0]["counts"]["suspect"] == 0


def test_no_write_and_no_observe(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _check(capsys, "--no-write")
    assert not STORE.exists() and not ORACLES.exists()
    _check(capsys, "--no-observe")
    assert not STORE.exists() and ORACLES.exists()
    assert "observed" not in ORACLES.read_text(encoding="utf-8").split("version:", 1)[1]
