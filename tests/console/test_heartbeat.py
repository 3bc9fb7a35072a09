"""The heartbeat: silent until the run begins, then one line per interval saying how far it is and whether the
host answers."""

from __future__ import annotations

import io
import time

from satori_ci.console.heartbeat import Heartbeat, heartbeat_interval
from satori_ci.run.breaker import no_answer


def test_nothing_before_the_run_begins_then_lines_every_interval() -> None:
    out = io.StringIO()
    beat = Heartbeat("http://127.0.0.1:9", out, interval=0.05)
    time.sleep(0.2)
    assert out.getvalue() == ""  # inference, before the run: not the run's time
    beat.on_stage("running 3 request(s)")
    beat.update(1, 3, "GET /a")
    time.sleep(0.3)
    beat.close()
    lines = out.getvalue().splitlines()
    assert lines and all(line.startswith("satori-ci: 1 of 3 requests, ") for line in lines)


def test_the_line_says_which_host_did_not_answer_and_for_how_long() -> None:
    beat = Heartbeat("http://127.0.0.1:9", io.StringIO(), interval=30)
    beat.start()
    now = beat.started
    assert beat.line(now + 12) == "satori-ci: 0 requests, 12 s, host answering"
    assert beat.line(now + 31) == "satori-ci: 0 requests, 31 s, no answer from http://127.0.0.1:9 for 31 s"
    beat.update(2, 5, no_answer("http://127.0.0.1:9", "connection refused"))
    assert beat.line(beat.heard + 3).endswith("no answer from http://127.0.0.1:9 for 3 s")
    beat.update(3, 5, "GET /b")
    elapsed = beat.heard + 1 - beat.started
    assert beat.line(beat.heard + 1) == f"satori-ci: 3 of 5 requests, {elapsed:.0f} s, host answering"
    beat.close()


def test_the_interval_comes_from_the_environment() -> None:
    assert heartbeat_interval({}) == 30.0
    assert heartbeat_interval({"SATORI_HEARTBEAT_S": "0"}) == 0.0
    assert heartbeat_interval({"SATORI_HEARTBEAT_S": "nope"}) == 30.0
