"""`verify --list-all`: every violation in the report, not only the first 100 of each oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from satori_ci.cli import main

SPEC = """\
openapi: 3.0.0
info: {title: Scores, version: "1"}
paths:
  /scores:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  score: {type: integer, minimum: 0}
"""


def test_list_all_lists_every_violation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("api.yaml").write_text(SPEC, encoding="utf-8")
    assert main(["infer", "api.yaml", "--oracles", "api.oracles.yaml", "--quiet"]) == 0
    Path("r.jsonl").write_text("".join(json.dumps({"method": "GET", "path": "/scores", "status": 200,
                                                   "query": f"n={i}", "body": {"score": -1}}) + "\n"
                                       for i in range(150)), encoding="utf-8")
    base = ["verify", "api.yaml", "--oracles", "api.oracles.yaml", "--responses", "r.jsonl", "--no-observe"]
    assert main([*base, "--report", "capped.json"]) == 1
    assert main([*base, "--report", "all.json", "--list-all"]) == 1
    capped = json.loads(Path("capped.json").read_text(encoding="utf-8"))
    every = json.loads(Path("all.json").read_text(encoding="utf-8"))
    assert (len(capped["violations"]), len(every["violations"])) == (100, 150)
    assert {v["request"]["item"] for v in every["violations"]} == {f"r.jsonl:{i}" for i in range(1, 151)}
