"""`satori-ci infer` and `oracle-diff` as a user runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from satori_ci.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "satori_ci" / "examples" / "bookshop"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "openapi.v1.yaml", tmp_path / "api.yaml")
    return tmp_path


def test_infer_writes_the_oracle_file_and_is_deterministic(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["infer", "api.yaml", "--jsonl"]) == 0
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert {"method": "GET", "path": "/books", "status": "200", "field": "books[].format",
            "oracle": "string_specific_values", "value": ["hardcover", "paperback", "ebook"],
            "operation_id": "listBooks", "source": "declared",
            "reason": "spec: enum [hardcover, paperback, ebook]"} in lines
    assert "14 field(s): 0 reused, 0 moved, 14 inferred (rules)" in err
    first = (workdir / ".satori" / "api.oracles.yaml").read_bytes()
    (workdir / ".satori" / "api.oracles.yaml").unlink()
    assert main(["infer", "api.yaml", "--quiet"]) == 0
    assert (workdir / ".satori" / "api.oracles.yaml").read_bytes() == first


def test_second_run_reuses_and_oracle_diff_shows_the_change(workdir: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["infer", "api.yaml", "--oracles", "old.yaml", "--quiet"]) == 0
    shutil.copy("old.yaml", "new.yaml")
    shutil.copy(EXAMPLES / "openapi.v2.yaml", workdir / "api.yaml")
    assert main(["infer", "api.yaml", "--oracles", "new.yaml"]) == 0
    _, err = capsys.readouterr()
    assert "22 field(s): 12 reused, 0 moved, 10 inferred (rules)" in err
    assert main(["oracle-diff", "old.yaml", "new.yaml", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    changed = {(f["path"], f["field"]) for f in report["fields"]}
    assert ("/books", "books[].store.latitude") in changed
    assert ("/books/{isbn}", "format") in changed
    fmt = next(f for f in report["fields"] if f["field"] == "books[].format")
    assert fmt["changed"][0]["what"] == "value"


def test_a_field_removed_from_the_spec_says_which_reviewed_oracles_went_with_it(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(EXAMPLES / "openapi.v2.yaml", workdir / "api.yaml")
    assert main(["infer", "api.yaml", "--quiet"]) == 0
    oracles = workdir / ".satori" / "api.oracles.yaml"
    text = oracles.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "books[].store.latitude" in x)
    own = '        - {kind: number_specific_values, value: [0], source: "manual", enabled: true, reason: "ours"}'
    at = text.index(line)
    oracles_at = text.index("      oracles:", at)
    end = text.index("\n", oracles_at) + 1
    oracles.write_text(text[:end].replace("oracles: []", "oracles:") + own + "\n" + text[end:], encoding="utf-8")
    shutil.copy(EXAMPLES / "openapi.v1.yaml", workdir / "api.yaml")  # v1 has no store
    capsys.readouterr()
    assert main(["infer", "api.yaml", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "field(s) no longer in the spec" not in err  # --quiet: no summary, the warning all the same
    assert ("warning: 1 reviewed oracle(s) went with them (GET /books 200 books[].store.latitude: "
            "number_specific_values); the previous oracle file in git still has them") in err
    assert "books[].store" not in oracles.read_text(encoding="utf-8")


def test_llm_backend_without_key_falls_back_to_rules(workdir: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["infer", "api.yaml", "--backend", "llm", "--oracles", "llm.yaml"]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "rules" in err
    assert main(["infer", "api.yaml", "--oracles", "rules.yaml", "--quiet"]) == 0
    assert Path("llm.yaml").read_text() == Path("rules.yaml").read_text()


def test_a_broken_oracle_file_is_exit_2(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("bad.yaml").write_text("version: 1\noperations:\n  GET /x 200:\n"
                                "    a: {fingerprint: x, oracles: [{kind: nope}]}\n")
    assert main(["infer", "api.yaml", "--oracles", "bad.yaml"]) == 2
    assert "bad.yaml:4: unknown oracle kind 'nope'" in capsys.readouterr().err


NEIGHBOURS = """
openapi: 3.0.0
info: {title: Comics, version: "1"}
paths:
  /comics:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  returned: {type: integer, description: The number of comics returned in this list (up to 20).}
                  items: {type: array, description: The list of returned comics., items: {type: string}}
"""


def test_a_rule_that_reads_a_neighbour_reinfers_when_the_neighbour_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("api.yaml").write_text(NEIGHBOURS)
    assert main(["infer", "api.yaml", "--jsonl", "--quiet"]) == 0
    first = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"field": "items", "oracle": "array_max_size", "value": 20} in [
        {k: o[k] for k in ("field", "oracle", "value")} for o in first if "value" in o]
    Path("api.yaml").write_text(NEIGHBOURS.replace("up to 20", "up to 50"))
    assert main(["infer", "api.yaml", "--jsonl"]) == 0
    out, err = capsys.readouterr()
    # `items` itself is unchanged, but the neighbour its rule reads changed: both are inferred again
    assert "3 field(s): 1 reused, 0 moved, 2 inferred (rules)" in err
    second = [json.loads(line) for line in out.splitlines()]
    assert {"field": "items", "oracle": "array_max_size", "value": 50} in [
        {k: o[k] for k in ("field", "oracle", "value")} for o in second if "value" in o]
