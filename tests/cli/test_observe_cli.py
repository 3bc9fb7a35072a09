"""`verify` (and `run`) feed the observation store next to the oracle file and suggest observed oracles in it:
disabled, with their evidence, until a reviewer sets `enabled: true`; then they are checked like any other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import OBSERVED

SPEC = """\
openapi: 3.0.0
info: {title: Things, version: "1"}
paths:
  /things:
    get:
      parameters:
        - {name: page, in: query, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  status: {type: string}
                  items:
                    type: array
                    items:
                      type: object
                      properties:
                        id: {type: string}
                        open: {type: boolean}
                        home: {type: string}
"""


def _body(page: int, open_: bool = False) -> dict[str, object]:
    return {"status": "ok", "items": [{"id": f"id{page:04d}{i:015d}x", "open": open_,
                                       "home": f"https://example.com/{page}/{i}"} for i in range(3)]}


def _responses(path: Path, pages: range, open_: bool = False) -> str:
    path.write_text("".join(json.dumps({"method": "GET", "path": "/things", "status": 200, "query": f"page={p}",
                                        "body": _body(p, open_)}) + "\n" for p in pages), encoding="utf-8")
    return str(path)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("api.yaml").write_text(SPEC, encoding="utf-8")
    assert main(["infer", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--quiet"]) == 0
    return tmp_path


def _observed(path: str) -> list[tuple[str, str, object, int | None, bool]]:
    file = load_oracle_file(Path(path).read_text(encoding="utf-8"), path)
    return [(o.field, o.kind.value, o.value, o.evidence, o.enabled) for e in file.entries for o in e.oracles
            if o.source == OBSERVED]


def test_verify_twice_suggests_then_accepting_one_checks_it(project: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    oracles = ".satori/api.oracles.yaml"
    args = ["verify", "api.yaml", "--oracles", oracles, "--responses"]
    assert main([*args, _responses(project / "a.jsonl", range(3))]) == 0  # 3 responses, 9 items
    err = capsys.readouterr().err
    assert "observed 3 responses into .satori/api.observed.json; no oracle suggested yet (0 of 1" in err
    assert _observed(oracles) == []
    store = json.loads(Path(".satori/api.observed.json").read_text(encoding="utf-8"))
    assert store["operations"]["GET /things 200"]["responses"] == 3

    assert main([*args, _responses(project / "b.jsonl", range(3, 24))]) == 0
    assert ("observed oracle(s) suggested in .satori/api.oracles.yaml, off until you accept them (all: satori-ci "
            "accept api.yaml --oracles .satori/api.oracles.yaml --all)") in capsys.readouterr().err
    suggested = _observed(oracles)
    assert ("status", "string_specific_values", ("ok",), 24, False) in suggested  # counted in responses
    assert ("items[].id", "string_fixed_length", 22, 72, False) in suggested  # counted in items
    assert ("items[].open", "boolean_always_false", None, 72, False) in suggested
    assert all(not enabled for *_, enabled in suggested)

    # the same responses again: no new look (the same requests), nothing is duplicated or switched on
    assert main([*args, str(project / "b.jsonl")]) == 0
    again = _observed(oracles)
    assert again == suggested
    assert main([*args, _responses(project / "c.jsonl", range(24, 40))]) == 0  # new pages: evidence grows
    more = _observed(oracles)
    assert len(more) == len(suggested) and ("items[].open", "boolean_always_false", None, 120, False) in more

    # a response that breaks a suggestion does not fail while it waits ...
    faulty = _responses(project / "d.jsonl", range(40, 41), open_=True)
    assert main([*args, faulty, "--no-observe"]) == 0
    # ... and does once a reviewer accepted it
    text = Path(oracles).read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "boolean_always_false" in x)
    Path(oracles).write_text(text.replace(line, line.replace("enabled: false", "enabled: true")), encoding="utf-8")
    capsys.readouterr()
    assert main([*args, faulty]) == 1
    out = capsys.readouterr().out
    assert "VIOLATION GET /things 200  items[].open  boolean_always_false" in out
    accepted = [x for x in _observed(oracles) if x[1] == "boolean_always_false"]
    assert accepted == [("items[].open", "boolean_always_false", None, 120, True)]  # kept as the reviewer left it
    store = json.loads(Path(".satori/api.observed.json").read_text(encoding="utf-8"))
    assert store["operations"]["GET /things 200"]["violated"] == {"items[].open": {"boolean_always_false": 1}}


def test_no_observe_and_observe_false_leave_every_file_alone(project: Path) -> None:
    before = Path(".satori/api.oracles.yaml").read_text(encoding="utf-8")
    lines = _responses(project / "a.jsonl", range(30))
    assert main(["verify", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--responses", lines,
                 "--no-observe"]) == 0
    Path(".satori.yml").write_text("specs:\n  - path: api.yaml\n    observe: false\n", encoding="utf-8")
    assert main(["verify", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--responses", lines]) == 0
    assert not Path(".satori/api.observed.json").exists()
    assert Path(".satori/api.oracles.yaml").read_text(encoding="utf-8") == before
    Path(".satori.yml").write_text("specs:\n  - path: api.yaml\n    observe: {min_responses: 100}\n", encoding="utf-8")
    assert main(["verify", "api.yaml", "--oracles", ".satori/api.oracles.yaml", "--responses", lines]) == 0
    assert Path(".satori/api.observed.json").exists() and _observed(".satori/api.oracles.yaml") == []


def test_a_suggestion_the_next_run_contradicts_is_withdrawn(project: Path) -> None:
    """Suggestions fade: one response that breaks a waiting suggestion takes it out of the oracle file; the others
    stay; accepting nothing was needed."""
    oracles = ".satori/api.oracles.yaml"
    args = ["verify", "api.yaml", "--oracles", oracles, "--responses"]
    assert main([*args, _responses(project / "a.jsonl", range(24))]) == 0
    before = _observed(oracles)
    assert ("items[].open", "boolean_always_false", None, 72, False) in before
    assert main([*args, _responses(project / "b.jsonl", range(24, 25), open_=True)]) == 0  # waiting: no failure
    after = _observed(oracles)
    assert not any(kind == "boolean_always_false" for _, kind, *_ in after)
    assert [x[:3] for x in after] == [x[:3] for x in before if x[1] != "boolean_always_false"]
