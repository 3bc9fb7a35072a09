"""A staging that does not answer ends the run fast and says why (issue 22, part 2): a connect timeout, a
circuit breaker per host (3 attempts in a row without an answer, retries included), a heartbeat off a terminal.

Each run is a `satori-ci run` process with the default timeout (30 s) and retries (2) against a spec of 22
operations: a black hole (a listener that accepts and never answers), a refused port, and a staging that answers
the first request and then goes silent (Newman is stopped mid-run). No test touches the network: every server
is on 127.0.0.1.
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
from pathlib import Path
from typing import Any

import pytest

from satori_ci.errors import ExitCode
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file
from tests.run.conftest import ROOT, concurrently, newman_available
from tests.run.stalling_server import StallingServer
from tests.run.test_bounds import _oracles, _spec

PATHS = [f"/op{i:02d}" for i in range(22)]
GOAL_S = 90.0
"""Issue 22's goal: a staging that does not answer ends the check with exit 3 within this."""


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


def _oracle_file(tmp: Path, name: str, paths: list[str]) -> Path:
    spec = _spec(tmp, paths)
    by_field = {(o.operation, o.field): o for o in _oracles(spec)}
    entries = [FieldEntry(f.operation, f.field, f.fingerprint, (by_field[(f.operation, f.field)],))
               for f in spec.fields if (f.operation, f.field) in by_field]
    path = tmp / name / "ops.oracles.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(dump_oracle_file(OracleFile(spec.source, tuple(entries))), encoding="utf-8")
    return path


def _run(tmp: Path, origin: str, runner: str, *extra: str, env: dict[str, str] | None = None,
         paths: list[str] = PATHS) -> tuple[int, dict[str, Any], float, str, str]:
    """(exit code, JSON report, seconds, stdout, stderr) of `satori-ci run` in its own process, stderr a pipe."""
    oracles = _oracle_file(tmp, runner, paths)
    report = tmp / f"{runner}.report.json"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "satori_ci", "run", str(tmp / "bounds.json"), "--oracles", str(oracles),
         "--base-url", origin, "--runner", runner, "--report", str(report), "--no-observe", *extra],
        cwd=tmp, capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp), **(env or {})})
    seconds = time.monotonic() - started
    written = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    return proc.returncode, written, seconds, proc.stdout, proc.stderr


def _both(tmp: Path, origin: str, *extra: str) -> list[tuple[str, tuple[int, dict[str, Any], float, str, str]]]:
    newman_available()
    results = concurrently([lambda: _run(tmp, origin, "native", *extra),
                            lambda: _run(tmp, origin, "newman", *extra)])
    for runner, (_, _, seconds, _, _) in zip(("native", "newman"), results, strict=True):
        print(f"{runner}: {seconds:.1f} s")  # the measured times (pytest -s shows them)
    return list(zip(("native", "newman"), results, strict=True))


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


def test_a_black_hole_staging_ends_well_within_the_goal_in_both_runners(tmp_path: Path) -> None:
    """Accepts and never answers: the first attempt waits the whole timeout (30 s: a cold staging may be slow to
    start), the retries get the connect timeout (5 s) to start answering, and the third trips the breaker."""
    with black_hole() as origin:
        for runner, (code, report, seconds, stdout, stderr) in _both(tmp_path, origin):
            assert code == ExitCode.INFRASTRUCTURE, (runner, stderr)
            assert seconds < GOAL_S * 2 / 3, (runner, seconds)
            _stopped_once(origin, "no answer within 5 s", report, stdout, runner)
            assert report["requests"] == 1, runner


def test_a_refused_port_ends_in_seconds_in_both_runners(tmp_path: Path) -> None:
    origin = refused_port()
    for runner, (code, report, seconds, stdout, stderr) in _both(tmp_path, origin):
        assert code == ExitCode.INFRASTRUCTURE, (runner, stderr)
        assert seconds < 20, (runner, seconds)
        _stopped_once(origin, "connection refused", report, stdout, runner)


def test_concurrent_requests_trip_the_breaker_once(tmp_path: Path) -> None:
    """`--concurrency 4` against a refused port: the breaker is shared by the threads, one line names it."""
    origin = refused_port()
    code, report, seconds, stdout, stderr = _run(tmp_path, origin, "native", "--concurrency", "4")
    assert code == ExitCode.INFRASTRUCTURE, stderr
    _stopped_once(origin, "connection refused", report, stdout, "native")
    assert report["requests"] <= 4 and seconds < 20


def test_newman_is_stopped_when_staging_goes_silent_mid_run(tmp_path: Path) -> None:
    """The probe is answered, so Newman starts; then every request meets silence: its own report shows three
    requests in a row without an answer, and Newman is stopped there (not after 22 timeouts)."""
    newman_available()
    with StallingServer(lambda path: "ok" if path == "/op00" else "silent") as server:
        origin = server.origin
        code, report, seconds, _, stderr = _run(tmp_path, origin, "newman", "--timeout", "2")
    assert code == ExitCode.INFRASTRUCTURE, stderr
    assert seconds < 40, seconds
    assert report["checked"] == 1, report
    line = f"no answer within 2 s, 3 times in a row: stopped sending to {origin}"
    assert report["infrastructure"][0]["detail"] == line, report["infrastructure"]
    assert sum(1 for k in report["not_sent"] if k["detail"] == f"not sent: {line}") >= 10, report["not_sent"]


def test_a_slow_staging_that_answers_does_not_trip_the_breaker(tmp_path: Path) -> None:
    """Every answer after 1 s: slow, not down. Every request is sent and checked."""
    paths = PATHS[:6]
    newman_available()
    with StallingServer(lambda _: "slow") as server:
        results = concurrently([lambda: _run(tmp_path, server.origin, "native", "--timeout", "3", paths=paths),
                                lambda: _run(tmp_path, server.origin, "newman", "--timeout", "3", paths=paths)])
    for runner, (code, report, _, _, stderr) in zip(("native", "newman"), results, strict=True):
        assert code == ExitCode.OK, (runner, stderr)
        assert report["checked"] == len(paths) and not report["infrastructure"], runner


@pytest.mark.parametrize("runner", ["native", "newman"])
def test_a_heartbeat_goes_to_stderr_off_a_terminal(tmp_path: Path, runner: str) -> None:
    """stderr a pipe (a CI log): a line every `SATORI_HEARTBEAT_S` seconds, saying how far the run is and whether
    staging answers."""
    if runner == "newman":
        newman_available()
    with black_hole() as origin:
        code, _, _, _, stderr = _run(tmp_path, origin, runner, "--timeout", "3",
                                     env={"SATORI_HEARTBEAT_S": "0.5"})
    beats = [line for line in stderr.splitlines() if line.startswith("satori-ci: ") and " requests, " in line]
    assert code == ExitCode.INFRASTRUCTURE and len(beats) >= 4, stderr
    assert any(f"no answer from {origin} for " in line for line in beats), beats


def test_a_heartbeat_says_staging_answers(tmp_path: Path) -> None:
    with StallingServer(lambda _: "slow") as server:
        code, _, _, _, stderr = _run(tmp_path, server.origin, "native", env={"SATORI_HEARTBEAT_S": "1.5"},
                                     paths=PATHS[:8])
    beats = [line for line in stderr.splitlines() if line.startswith("satori-ci: ") and " requests, " in line]
    assert code == ExitCode.OK and any(line.endswith("host answering") for line in beats), stderr
    assert any(" of 8 requests, " in line for line in beats), beats


@pytest.mark.parametrize("runner", ["native", "newman"])
def test_the_time_budget_stops_both_runners(tmp_path: Path, runner: str) -> None:
    """`--time-budget 4` against a staging that answers each request after 1 s: sending stops at the budget
    (Newman is stopped too), what was not sent is reported as left out by the budget, and what was checked
    counts (exit 0: the budget is a choice, not a failure of staging)."""
    if runner == "newman":
        newman_available()
    with StallingServer(lambda _: "slow") as server:
        code, report, seconds, _, stderr = _run(tmp_path, server.origin, runner, "--time-budget", "4")
    assert code == ExitCode.OK, (runner, stderr)
    assert 1 <= report["checked"] < len(PATHS) and seconds < 20, (runner, report["checked"], seconds)
    budget = [k for k in report["not_sent"] if k["kind"] == "budget"]
    assert len(budget) >= len(PATHS) - report["requests"] - 1, report["not_sent"]
    assert all("time budget" in k["detail"] or "budget" in k["detail"] for k in budget), budget
