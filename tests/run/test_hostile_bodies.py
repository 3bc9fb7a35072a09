"""Responses that used to crash a run (issue 18): a body nested hundreds of thousands deep, a lone surrogate
(`"\\ud800"` as a JSON escape) and a number past the double range (`1e400`).

Both runners judge them alike, every output stays writable and valid JSON, and the CLI exits as the oracles
decide (0 or 1), never with an internal error:
- a body nested deeper than `MAX_DEPTH` levels is "not JSON we can read" and not checked (the run goes on);
  one within the bound is checked, its deep value shown cut;
- a lone surrogate is shown escaped (`\\ud800`, six ASCII characters) in messages, values and pointers;
- `1e400` reads as JavaScript reads it (Infinity) and is shown so; it never reaches the observation store as
  a number (no JSON can hold it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from satori_ci.demo import Canned, Responder, StagingServer
from satori_ci.observe.fields import observed_fields
from satori_ci.observe.store import dump_store, load_store
from satori_ci.oracles.check import MAX_DEPTH
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan.expand import build_requests
from satori_ci.run.model import ResponseProblemKind, RunResult
from satori_ci.run.native import run_native
from satori_ci.run.newman import run_newman
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import Spec, load_spec
from tests import in_process
from tests.run.conftest import concurrently, newman_available


def nested(depth: int, leaf: str = "true") -> str:
    """`depth` arrays around `leaf`, as JSON text (json.dumps cannot write it that deep)."""
    return "[" * depth + leaf + "]" * depth


BODIES: dict[str, str] = {
    "/deep500": '{"v": ' + nested(500) + ', "n": 99}',
    "/deep5000": '{"n": 99, "v": ' + nested(5000) + "}",
    "/deep100000": '{"v": ' + nested(100_000) + "}",
    "/deepobjects": '{"n": 99, "o": ' + '{"a": ' * 3000 + "1" + "}" * 3000 + "}",
    "/within": '{"v": ' + nested(MAX_DEPTH - 1) + ', "n": 1}',
    "/surrogate": '{"s": "\\ud800", "m": {"\\udc00k": "\\ud83d\\ude00", "ok": "x"}, "v": true, "n": 1}',
    "/huge": '{"n": 1e400, "v": true, "s": "x", "m": {"k": "x"}}',
    "/tiny": '{"n": -1e400, "s": "y", "v": true}',
    "/fine": '{"n": 3, "s": "x", "v": true, "m": {"k": "y"}}',
}
DEEP = ("/deep500", "/deep5000", "/deep100000", "/deepobjects")
TOO_DEEP = f"is nested deeper than {MAX_DEPTH} levels: not checked"


def write_spec(tmp: Path) -> Path:
    schema = {"type": "object", "properties": {
        "v": {"type": "boolean"}, "n": {"type": "number", "minimum": 0, "maximum": 10},
        "s": {"type": "string", "enum": ["x", "y"]},
        "m": {"type": "object", "additionalProperties": {"type": "string", "enum": ["x", "y"]}},
        "o": {"type": "object"}}}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}
    spec = {"openapi": "3.0.3", "info": {"title": "Hostile", "version": "1"},
            "paths": {p: {"get": {"operationId": p.strip("/"), "responses": ok}} for p in BODIES}}
    path = tmp / "hostile.json"
    path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    return path


def oracles_for(spec: Spec) -> list[Oracle]:
    """The declared oracles (n in [0, 10], s and m{} in [x, y]) and `v` always true."""
    kinds: dict[str, list[tuple[OracleKind, Any]]] = {
        "v": [(OracleKind.BOOLEAN_ALWAYS_TRUE, None)],
        "n": [(OracleKind.NUMBER_MIN_VALUE, 0), (OracleKind.NUMBER_MAX_VALUE, 10)],
        "s": [(OracleKind.STRING_SPECIFIC_VALUES, ("x", "y"))],
        "m{}": [(OracleKind.STRING_SPECIFIC_VALUES, ("x", "y"))],
    }
    return [Oracle(f.operation, f.field, kind, value, "manual", "t")
            for f in spec.fields for kind, value in kinds.get(f.field, [])]


def write_oracles(spec: Spec, path: Path) -> Path:
    by_field: dict[tuple[Any, str], list[Oracle]] = {}
    for o in oracles_for(spec):
        by_field.setdefault((o.operation, o.field), []).append(o)
    entries = tuple(FieldEntry(f.operation, f.field, f.fingerprint, tuple(by_field.get((f.operation, f.field), ())))
                    for f in spec.fields)
    path.write_text(dump_oracle_file(OracleFile(spec.source, entries)), encoding="utf-8")
    return path


def _answer(text: str) -> Responder:
    return lambda _r, _p: Canned(raw=text.encode("utf-8"))


@pytest.fixture
def hostile() -> Any:
    server = StagingServer()
    for path, text in BODIES.items():
        server.route("GET", path, default=_answer(text))
    with server:
        yield server


def _messages(result: RunResult) -> list[tuple[str, str, str, str]]:
    return [(v.request.url.rsplit("/", 1)[1], v.pointer, v.value, v.message) for v in result.violations]


def test_both_runners_judge_hostile_bodies_alike(tmp_path: Path, hostile: StagingServer) -> None:
    newman_available()
    spec = load_spec(str(write_spec(tmp_path)))
    collection = build_requests(spec, oracles_for(spec), observe=observed_fields(spec.fields))
    config = RunConfig(hostile.base_url, retries=0)
    newman, native = concurrently([lambda: run_newman(collection, config), lambda: run_native(collection, config)])
    for result in (newman, native):
        assert result.requests == len(BODIES) and result.infrastructure == (), result.runner
        assert result.checked == len(BODIES) - len(DEEP), result.runner
        assert sorted((u.request.url.rsplit("/", 1)[1], u.kind, u.detail) for u in result.unchecked) == sorted(
            (p.strip("/"), ResponseProblemKind.NOT_JSON, f"the body of GET {p} {TOO_DEEP}") for p in DEEP)
        found = {(where, pointer): (value, message) for where, pointer, value, message in _messages(result)}
        cut = found[("within", "/v")]
        assert cut[0].startswith("[[[[") and cut[0].endswith("…") and len(cut[0]) == 200
        assert cut[1].startswith("v = [[[[") and cut[1].endswith("… is not a boolean")
        assert found[("surrogate", "/s")] == ('"\\ud800"', 's = "\\ud800" is not one of ["x", "y"]')
        assert found[("surrogate", "/m/\\udc00k")] == ('"😀"', 'm{} = "😀" is not one of ["x", "y"]')
        assert found[("huge", "/n")] == ("Infinity", "n = Infinity is greater than 10")
        assert found[("tiny", "/n")] == ("-Infinity", "n = -Infinity is less than 0")
        assert len(found) == 5, sorted(found)
        store = result.observed
        assert store is not None
        text = dump_store(store)
        text.encode("utf-8")  # nothing a UTF-8 file cannot hold
        assert dump_store(load_store(text, "store")) == text
        assert "Infinity" not in text and "\\ud800" not in text
    assert _messages(newman) == _messages(native)
    assert newman.unchecked == native.unchecked
    assert newman.observed is not None and native.observed is not None
    assert dump_store(newman.observed) == dump_store(native.observed)


def _cli(*args: str, cwd: Path) -> in_process.Done:
    """`satori-ci ARGS` in `cwd`: standard output is strict UTF-8 there, as `PYTHONIOENCODING=utf-8` makes a
    process's (a lone surrogate written unescaped is an error, not the six characters `\\ud800` it must show).
    Each request is bounded by the commands' own `--timeout` (30 s)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("SATORI_DEBUG", None)
    return in_process.satori(cwd, *args, env=env)


def _no_crash(done: in_process.Done) -> None:
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr


@pytest.mark.parametrize("runner", ["native", "newman"])
def test_run_reports_hostile_bodies_and_exits_as_the_oracles_decide(tmp_path: Path, hostile: StagingServer,
                                                                    runner: str) -> None:
    if runner == "newman":
        newman_available()
    spec_path = write_spec(tmp_path)
    oracles = write_oracles(load_spec(str(spec_path)), tmp_path / "hostile.oracles.yaml")
    done = _cli("run", spec_path.name, "--oracles", oracles.name, "--base-url", hostile.base_url, "--runner", runner,
                "--retries", "0", "--quiet", "--report", "report.json", cwd=tmp_path)
    _no_crash(done)
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert 's = "\\ud800" is not one of ["x", "y"] at /s' in out
    assert "n = Infinity is greater than 10 at /n" in out and "at /m/\\udc00k" in out
    assert f"GET /deep100000 {TOO_DEEP}" in out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["checked"] == len(BODIES) - len(DEEP) and len(report["unchecked"]) == len(DEEP)
    store = tmp_path / "hostile.observed.json"
    assert load_store(store.read_text(encoding="utf-8"), str(store)).operations


def test_verify_reads_recorded_hostile_responses(tmp_path: Path) -> None:
    """Recorded lines too, however deep: a line nested past what Python's JSON decoder reads is still one
    response not checked, not an unreadable file."""
    spec_path = write_spec(tmp_path)
    oracles = write_oracles(load_spec(str(spec_path)), tmp_path / "hostile.oracles.yaml")
    lines = [f'{{"method": "GET", "path": "{p}", "status": 200, "body": {text}}}' for p, text in BODIES.items()]
    (tmp_path / "recorded.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = _cli("verify", spec_path.name, "--oracles", oracles.name, "--responses", "recorded.jsonl",
                "--report", "report.json", cwd=tmp_path)
    _no_crash(done)
    assert done.returncode == 1, done.stderr
    assert 's = "\\ud800" is not one of ["x", "y"] at /s' in done.stdout
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert sorted(u["detail"] for u in report["unchecked"]) == sorted(f"the body of GET {p} {TOO_DEEP}"
                                                                      for p in DEEP)
    assert report["checked"] == len(BODIES) - len(DEEP)
    messages = {v["message"] for v in report["violations"]}
    assert {'s = "\\ud800" is not one of ["x", "y"]', "n = Infinity is greater than 10",
            "n = -Infinity is less than 0"} <= messages


def test_check_reports_hostile_bodies_in_every_format(tmp_path: Path, hostile: StagingServer) -> None:
    """`check` (inference, run, observation store, report): terminal text and JSON, exit 1 for the violations."""
    spec_path = write_spec(tmp_path)
    common = ["check", "--head", spec_path.name, "--staging-url", hostile.base_url, "--runner", "native", "--quiet"]
    done = _cli(*common, cwd=tmp_path)
    _no_crash(done)
    assert done.returncode == 1, done.stderr
    assert '"\\ud800"' in done.stdout and "Infinity" in done.stdout and TOO_DEEP in done.stdout
    done = _cli(*common, "--json", cwd=tmp_path)
    _no_crash(done)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    values = {v["value"] for spec in report["specs"] for v in spec["violations"]}
    assert {'"\\ud800"', "Infinity", "-Infinity"} <= values
    for written in tmp_path.rglob("*.observed.json"):
        assert dump_store(load_store(written.read_text(encoding="utf-8"), str(written)))
