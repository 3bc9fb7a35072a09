"""`process_end`: a `satori-ci` process that holds its spec ends at once, its output flushed; `main` in a process
that goes on holds nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from satori_ci.cli import main, process_end


def _spec(tmp_path: Path, operations: int = 40) -> Path:
    schema = {"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(50)}}
    paths = {f"/things{i}": {"get": {"responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": schema}}}}}} for i in range(operations)}
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths},
                               indent=2), encoding="utf-8")
    return path


def test_main_in_a_process_that_goes_on_holds_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_spec(tmp_path).parent)
    assert main(["fields", "--json", "api.json"]) == 0
    assert main(["fields", "api.json"]) == 0
    assert process_end._held == []
    assert capsys.readouterr().out.count("\n") > 2 * 40 * 50


def test_the_process_ends_with_its_output_whole(tmp_path: Path) -> None:
    path = _spec(tmp_path)
    out = tmp_path / "fields.jsonl"
    with out.open("w", encoding="utf-8") as stdout:  # a file: buffered, flushed only at the end
        proc = subprocess.run([sys.executable, "-m", "satori_ci", "fields", "--json", "api.json"], stdout=stdout,
                              stderr=subprocess.PIPE, text=True, cwd=path.parent, check=False)
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 40 * 50
    assert json.loads(lines[-1])["field"] == "p49"


def test_a_reader_that_stops_early_ends_the_process_quietly(tmp_path: Path) -> None:
    path = _spec(tmp_path, operations=100)  # 1 MB of lines: past the pipe's capacity
    with subprocess.Popen([sys.executable, "-m", "satori_ci", "fields", "--json", "api.json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=path.parent) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()  # `| head -1`
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=60)
    assert json.loads(first)["path"] == "/things0"
    assert (code, err) == (0, b"")


def test_a_process_that_holds_nothing_exits_as_before(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "satori_ci", "fields", "--json", "missing.json"],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "missing.json" in proc.stderr
