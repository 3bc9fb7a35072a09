"""A staging that does not answer ends the run fast and says why (issue 22, part 2): a connect timeout, a
circuit breaker per host (3 attempts in a row without an answer, retries included), a heartbeat off a terminal.

Each run is a `satori-ci run` against a spec of 22 operations: a black hole (a listener that accepts and never
answers), a refused port, and a staging that answers the first request and then goes silent (Newman is stopped
mid-run). No test touches the network: every server is on 127.0.0.1.

The durations are scaled down with the command's own flags (`--timeout`, `--backoff`, `--time-budget`) and
`SATORI_HEARTBEAT_S`, and the servers' (`stalling_server.SLOW_S`); the connect timeout has no flag, so the black
hole's run sets `RunConfig.connect_timeout_s` in this process. What the defaults add up to is checked without
waiting for them. The runs are in this process (`tests.in_process`), but for those that stop Newman (a process of
their own, as in CI) and a native run side by side with Newman's.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import build_parser, run_commands
from satori_ci.errors import ExitCode
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file
from satori_ci.run.outcome import CONNECT_TIMEOUT_S, RunConfig
from tests import in_process
from tests.run import stalling_server
from tests.run.conftest import ROOT, concurrently, newman_available
from tests.run.stalling_server import StallingServer
from tests.run.test_bounds import _oracles, _spec

PATHS = [f"/op{i:02d}" for i in range(22)]
GOAL_S = 90.0
"""Issue 22's goal: a staging that does not answer ends the check with exit 3 within this."""
RUNNERS = ("native", "newman")
SLOW_S = 0.25
"""How long the slow staging takes to answer each request here (`stalling_server.SLOW_S`, 1 s, scaled down)."""
BACKOFF = ("--backoff", "0.05")
"""The wait before retry n (n times this; 1 s by default): the retries, not their backoff, are under test."""


@contextmanager
def black_hole() -> Iterator[str]:
    """A listener that accepts every connection and never answers (its origin)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for conn in held:
            conn.close()


def refused_port() -> str:
    """The origin of a port nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slow staging answers after `SLOW_S` (the server runs in this process)."""
    monkeypatch.setattr(stalling_server, "SLOW_S", SLOW_S)


def _oracle_file(tmp: Path, name: str, paths: list[str]) -> Path:
    spec = _spec(tmp, paths)
    by_field = {(o.operation, o.field): o for o in _oracles(spec)}
    entries = [FieldEntry(f.operation, f.field, f.fingerprint, (by_field[(f.operation, f.field)],))
               for f in spec.fields if (f.operation, f.field) in by_field]
    path = tmp / name / "ops.oracles.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(dump_oracle_file(OracleFile(spec.source, tuple(entries))), encoding="utf-8")
    return path


_WRITING = threading.Lock()
"""Two runs side by side write the spec (the same) one at a time."""


def _run(tmp: Path, origin: str, runner: str, *extra: str, env: dict[str, str] | None = None,
         paths: list[str] = PATHS, process: bool = False) -> tuple[int, dict[str, Any], float, str, str]:
    """(exit code, JSON report, seconds, stdout, stderr) of `satori-ci run`, stderr not a terminal: in this process,
    or (`process`) in its own, stderr a pipe."""
    if runner == "newman":
        newman_available()
    with _WRITING:
        oracles = _oracle_file(tmp, runner, paths)
    report = tmp / f"{runner}.report.json"
    args = ["run", str(tmp / "bounds.json"), "--oracles", str(oracles), "--base-url", origin, "--runner", runner,
            "--report", str(report), "--no-observe", *extra]
    started = time.monotonic()
    if process:
        done: in_process.Done | subprocess.CompletedProcess[str] = subprocess.run(
            [sys.executable, "-m", "satori_ci", *args], cwd=tmp, capture_output=True, text=True, timeout=300,
            check=False, env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp), **(env or {})})
    else:
        done = in_process.satori(tmp, *args, env={**in_process.clean_env(), "HOME": str(tmp), **(env or {})})
    seconds = time.monotonic() - started
    written = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    return done.returncode, written, seconds, done.stdout, done.stderr


def _both(tmp: Path, origin: str, *extra: str) -> list[tuple[str, tuple[int, dict[str, Any], float, str, str]]]:
    """Both runners, one after the other (a run in this process owns its file descriptors 1 and 2)."""
    newman_available()
    results = [(runner, _run(tmp, origin, runner, *extra)) for runner in RUNNERS]
    for runner, (_, _, seconds, _, _) in results:
        print(f"{runner}: {seconds:.1f} s")  # the measured times (pytest -s shows them)
    return results


def _stopped_once(origin: str, cause: str, report: dict[str, Any], stdout: str, runner: str) -> None:
    """One infrastructure line names the host and the cause; every other operation is reported not sent."""
    line = f"{cause}, 3 times in a row: stopped sending to {origin}"
    problems = report["infrastructure"]
    assert problems and problems[0]["detail"] == line, (runner, problems)
    assert sum(line in text for text in stdout.splitlines() if text.startswith("INFRASTRUCTURE")) == 1, stdout
    not_sent = {k["path"] for k in report["not_sent"] if k["kind"] == "unanswered"}
    assert len(not_sent) >= len(PATHS) - 1 - len(problems), (runner, report["not_sent"])
    assert all(k["detail"] == f"not sent: {line}" for k in report["not_sent"] if k["kind"] == "unanswered"), runner
    assert "@" not in line and "?" not in line


def _black_hole_s(timeout: float, connect: float, retries: int, backoff: float) -> float:
    """How long a run against a black hole waits: the first attempt the whole timeout, each retry the connect timeout
    (the host has not answered yet) after its backoff; the last retry trips the breaker (3 attempts in a row)."""
    return timeout + retries * connect + backoff * retries * (retries + 1) / 2


def test_a_black_hole_staging_ends_well_within_the_goal_in_both_runners(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepts and never answers: the first attempt waits the whole timeout (30 s by default: a cold staging may be
    slow to start), the retries get the connect timeout (5 s) to start answering, and the third trips the breaker.
    The defaults add up to well within the goal; the run is made at a twentieth of them (1.5 s, 0.25 s)."""
    defaults = build_parser("run").parse_args(["run", "spec.json", "--oracles", "o.yaml", "--base-url", "http://x"])
    assert (defaults.timeout, defaults.retries, defaults.backoff) == (30.0, 2, 1.0)
    assert RunConfig("http://x").connect_timeout_s == CONNECT_TIMEOUT_S == 5.0
    assert _black_hole_s(defaults.timeout, CONNECT_TIMEOUT_S, defaults.retries, defaults.backoff) < GOAL_S * 2 / 3

    timeout, connect = 1.5, 0.25
    original = run_commands._config
    monkeypatch.setattr(run_commands, "_config",
                        lambda args, inputs: replace(original(args, inputs), connect_timeout_s=connect))
    expected = _black_hole_s(timeout, connect, 2, float(BACKOFF[1]))
    with black_hole() as origin:
        for runner, (code, report, seconds, stdout, stderr) in _both(tmp_path, origin, "--timeout", str(timeout),
                                                                      *BACKOFF):
            assert code == ExitCode.INFRASTRUCTURE, (runner, stderr)
            assert seconds < 3 * expected + 2, (runner, seconds)  # not 22 requests' worth of waiting
            _stopped_once(origin, f"no answer within {connect:g} s", report, stdout, runner)
            assert report["requests"] == 1, runner


def test_a_refused_port_ends_in_seconds_in_both_runners(tmp_path: Path) -> None:
    origin = refused_port()
    for runner, (code, report, seconds, stdout, stderr) in _both(tmp_path, origin, *BACKOFF):
        assert code == ExitCode.INFRASTRUCTURE, (runner, stderr)
        assert seconds < 20, (runner, seconds)
        _stopped_once(origin, "connection refused", report, stdout, runner)


def test_concurrent_requests_trip_the_breaker_once(tmp_path: Path) -> None:
    """`--concurrency 4` against a refused port: the breaker is shared by the threads, one line names it."""
    origin = refused_port()
    code, report, seconds, stdout, stderr = _run(tmp_path, origin, "native", "--concurrency", "4", *BACKOFF)
    assert code == ExitCode.INFRASTRUCTURE, stderr
    _stopped_once(origin, "connection refused", report, stdout, "native")
    assert report["requests"] <= 4 and seconds < 20


def test_newman_is_stopped_when_staging_goes_silent_mid_run(tmp_path: Path) -> None:
    """The probe is answered, so Newman starts; then every request meets silence: its own report shows three
    requests in a row without an answer, and Newman is stopped there (not after 21 timeouts and their retries: a
    minute and more)."""
    with StallingServer(lambda path: "ok" if path == "/op00" else "silent") as server:
        origin = server.origin
        code, report, seconds, _, stderr = _run(tmp_path, origin, "newman", "--timeout", "1", process=True)
    assert code == ExitCode.INFRASTRUCTURE, stderr
    assert seconds < 30, seconds
    assert report["checked"] == 1, report
    line = f"no answer within 1 s, 3 times in a row: stopped sending to {origin}"
    assert report["infrastructure"][0]["detail"] == line, report["infrastructure"]
    assert sum(1 for k in report["not_sent"] if k["detail"] == f"not sent: {line}") >= 10, report["not_sent"]


@pytest.mark.usefixtures("slow")
def test_a_slow_staging_that_answers_does_not_trip_the_breaker(tmp_path: Path) -> None:
    """Every answer after `SLOW_S`, well within the timeout: slow, not down. Every request is sent and checked (the
    runners side by side: the native one in its own process, Newman's in this one)."""
    paths = PATHS[:6]
    newman_available()
    with StallingServer(lambda _: "slow") as server:
        results = concurrently([
            lambda: _run(tmp_path, server.origin, "native", "--timeout", str(6 * SLOW_S), paths=paths, process=True),
            lambda: _run(tmp_path, server.origin, "newman", "--timeout", str(6 * SLOW_S), paths=paths)])
    for runner, (code, report, _, _, stderr) in zip(RUNNERS, results, strict=True):
        assert code == ExitCode.OK, (runner, stderr)
        assert report["checked"] == len(paths) and not report["infrastructure"], runner


def _beats(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("satori-ci: ") and " requests, " in line]


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_heartbeat_goes_to_stderr_off_a_terminal(tmp_path: Path, runner: str) -> None:
    """stderr not a terminal (a CI log): a line every `SATORI_HEARTBEAT_S` seconds, saying how far the run is and
    whether staging answers (the run waits 3 timeouts of 0.4 s: a dozen intervals)."""
    with black_hole() as origin:
        code, _, _, _, stderr = _run(tmp_path, origin, runner, "--timeout", "0.4", *BACKOFF,
                                     env={"SATORI_HEARTBEAT_S": "0.1"})
    beats = _beats(stderr)
    assert code == ExitCode.INFRASTRUCTURE and len(beats) >= 4, stderr
    assert any(f"no answer from {origin} for " in line for line in beats), beats


@pytest.mark.usefixtures("slow")
def test_a_heartbeat_says_staging_answers(tmp_path: Path) -> None:
    """Answers every `SLOW_S`, a beat every two of them: the beats say the host answers."""
    with StallingServer(lambda _: "slow") as server:
        code, _, _, _, stderr = _run(tmp_path, server.origin, "native", env={"SATORI_HEARTBEAT_S": str(2 * SLOW_S)},
                                     paths=PATHS[:8])
    beats = _beats(stderr)
    assert code == ExitCode.OK and any(line.endswith("host answering") for line in beats), stderr
    assert any(" of 8 requests, " in line for line in beats), beats


TIME_BUDGETS = {"native": (6 * SLOW_S, SLOW_S), "newman": (9.0, 0.5)}
"""(`--time-budget`, seconds the staging takes to answer each request but the first) per runner. Newman's start-up
(Node.js: 1.5 s on an idle machine, 5 s and more on a busy one) counts against the budget: it gets room for it, or
nothing would be checked; and its staging is slower, so that even a quick start cannot send all 22 requests
(10.5 s) within the budget."""


@pytest.mark.parametrize("runner", RUNNERS)
def test_the_time_budget_stops_both_runners(tmp_path: Path, runner: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--time-budget` against a staging that answers the first request at once and every other slowly: sending
    stops at the budget (Newman, in its own process, is stopped too), what was not sent is reported as left out by
    the budget, and what was checked counts (exit 0: the budget is a choice, not a failure of staging)."""
    budget, slow = TIME_BUDGETS[runner]
    monkeypatch.setattr(stalling_server, "SLOW_S", slow)
    with StallingServer(lambda path: "ok" if path == PATHS[0] else "slow") as server:
        code, report, seconds, _, stderr = _run(tmp_path, server.origin, runner, "--time-budget", f"{budget:g}",
                                                process=runner == "newman")
    assert code == ExitCode.OK, (runner, stderr)
    assert 1 <= report["checked"] < len(PATHS) and seconds < 2 * budget + 8, (runner, report["checked"], seconds)
    budgeted = [k for k in report["not_sent"] if k["kind"] == "budget"]
    assert len(budgeted) >= len(PATHS) - report["requests"] - 1, report["not_sent"]
    assert all("time budget" in k["detail"] or "budget" in k["detail"] for k in budgeted), budgeted
