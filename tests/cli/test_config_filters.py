"""`skip_kinds`, `ignore.fields` and `ignore.operations` in `.satori.yml` leave the same oracles out of `run`,
`verify` and `collection` as out of `check`: a team that silenced an oracle is not failed by it elsewhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import Canned, StagingServer

SPEC = """\
openapi: 3.0.0
info: {title: Places, version: "1"}
paths:
  /places:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  latitude: {type: number, description: "Latitude in degrees."}
                  image_url: {type: string, description: "A photo of the place."}
"""
BAD = {"latitude": 123.0, "image_url": "not a url"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("api.yaml").write_text(SPEC, encoding="utf-8")
    assert main(["infer", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--quiet"]) == 0
    Path("bad.jsonl").write_text(json.dumps({"method": "GET", "path": "/places", "status": 200, "body": BAD}) + "\n",
                                 encoding="utf-8")
    return tmp_path


@pytest.fixture
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/places", default=lambda *_: Canned(BAD))
        yield server


VERIFY = ["verify", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--responses", "bad.jsonl", "--no-observe"]


def _config(text: str) -> None:
    Path(".satori.yml").write_text("specs:\n  - path: api.yaml\n" + text, encoding="utf-8")


def test_verify_leaves_out_skipped_kinds_and_ignored_fields(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(VERIFY) == 1
    out = capsys.readouterr().out
    assert "latitude" in out and "image_url" in out

    _config("    skip_kinds: [string_is_url]\n")
    assert main(VERIFY) == 1
    captured = capsys.readouterr()
    assert "latitude" in captured.out and "image_url" not in captured.out
    assert "1 enabled oracle(s) left out by .satori.yml (skip_kinds, ignore)" in captured.err

    _config("    skip_kinds: [string_is_url]\n    ignore: {fields: [lat*]}\n")
    assert main(VERIFY) == 0


def test_ignored_operations_are_not_checked_by_verify(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _config("    ignore: {operations: ['GET /places']}\n")
    assert main(VERIFY) != 1
    assert "VIOLATION" not in capsys.readouterr().out


def test_run_and_collection_leave_them_out_too(project: Path, staging: StagingServer,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = ["run", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--base-url", staging.base_url,
           "--runner", "native", "--no-observe", "--quiet"]
    assert main(run) == 1
    _config("    skip_kinds: [number_max_value]\n    ignore: {fields: ['image_*']}\n")
    capsys.readouterr()
    assert main(run) == 0
    assert "VIOLATION" not in capsys.readouterr().out

    assert main(["collection", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--out", "c.json"]) == 0
    collection = json.loads(Path("c.json").read_text(encoding="utf-8"))
    tests = " ".join("\n".join(e["script"]["exec"]) for f in collection["item"] for i in f["item"] for e in i["event"]
                     if e["listen"] == "test")
    assert '"oracle": "number_min_value", "value": -90' in tests
    assert "image_url" not in tests and "number_max_value" not in tests
