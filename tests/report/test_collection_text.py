"""What `satori-ci collection` says on standard error about the operations it leaves out: a few non-safe ones one by
one, many in one note (GitHub's spec has 670), the others each once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from satori_ci.cli import main
from tests.run.conftest import infer_oracles


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}}


def _notes(tmp_path: Path, capsys: pytest.CaptureFixture[str], writes: int) -> list[str]:
    thing = {"type": "object", "properties": {"id": {"type": "string"}}}
    paths: dict[str, Any] = {"/things": {"get": _ok({"type": "array", "items": thing})},
                             "/reports/{report_id}": {"get": _ok(thing) | {"parameters": [
                                 {"name": "report_id", "in": "path", "required": True, "schema": {"type": "string"}}]}}}
    for i in range(writes):
        paths[f"/things/action{i}"] = {"post": _ok(thing)}
    spec = tmp_path / "openapi.yaml"
    spec.write_text(yaml.safe_dump({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths}),
                    encoding="utf-8")
    oracles = infer_oracles(spec, tmp_path / "oracles.yaml")
    capsys.readouterr()
    assert main(["collection", str(spec), "--oracles", str(oracles), "--out", str(tmp_path / "c.json")]) == 0
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("satori-ci: note:")]


def test_a_few_non_safe_operations_are_noted_one_by_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = _notes(tmp_path, capsys, writes=3)
    assert sum("not a safe method" in n for n in notes) == 3, notes


def test_many_non_safe_operations_are_one_note_and_the_others_stay(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    notes = _notes(tmp_path, capsys, writes=8)
    unsafe = [n for n in notes if "non-safe" in n or "not a safe method" in n]
    assert unsafe == ["satori-ci: note: not sent: 8 non-safe operations (POST /things/action0, POST /things/action1, "
                      "POST /things/action2, POST /things/action3, POST /things/action4, ...): only GET and HEAD are "
                      "sent unless opted in with --unsafe \"METHOD /path\" or requests: unsafe: [...] in .satori.yml"]
    # the operation that needs a value still says which, and how to give it
    assert any(n.startswith("satori-ci: note: GET /reports/{report_id}: not sent: needs a value for {report_id}")
               for n in notes), notes
