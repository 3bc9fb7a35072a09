"""Many runs in one Python process held to a memory limit, each with its own alarm: what each did.

A test module's script calls `timed(key, limit, run)` (from `ALARM`, put at the top of the script) for each run: it
prints `[key, "started"]`, runs `run()` with an alarm of `limit` seconds, and prints `[key, outcome]`. A process
start is paid once for all the runs instead of once each; a run that stopped the process is the one it last
started.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ALARM = """
import json, signal

class TimedOut(Exception):
    pass

def _alarm(signum, frame):
    raise TimedOut

signal.signal(signal.SIGALRM, _alarm)

def timed(key, limit, run):
    # prints that `key` started, then what `run()` returned, "past LIMIT s", or the exception it raised
    print(json.dumps([key, "started"]), flush=True)
    signal.alarm(limit)
    try:
        outcome = run()
    except TimedOut:
        outcome = f"past {limit} s"
    except BaseException as exc:  # reported by the run's test
        outcome = f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
    print(json.dumps([key, outcome]), flush=True)
"""


def outcomes(script: str, args: list[str], memory_limit: int, hard_timeout_s: float, cwd: Path | None = None,
             env: dict[str, str] | None = None) -> dict[Any, Any]:
    """Each run's key (a list made a tuple) -> its outcome; the one the process stopped in -> why it stopped."""

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    lines: str | bytes
    try:
        proc = subprocess.run([sys.executable, "-c", ALARM + script, *args], capture_output=True, text=True,
                              timeout=hard_timeout_s, preexec_fn=limit_memory, check=False, cwd=cwd, env=env)
        lines, why = proc.stdout, f"the process ended (exit {proc.returncode}): {proc.stderr[-2000:]}"
    except subprocess.TimeoutExpired as exc:
        lines, why = exc.stdout or "", f"the process was stopped after {hard_timeout_s:g} s"
    found: dict[Any, Any] = {}
    for line in (lines.decode() if isinstance(lines, bytes) else lines).splitlines():
        key, outcome = json.loads(line)
        found[tuple(key) if isinstance(key, list) else key] = why if outcome == "started" else outcome
    return found
