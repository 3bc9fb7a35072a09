"""Both entry points, `satori-ci` (`process_end.begin`) and the action's `entrypoint.py`, run the cyclic collector at
`collector.THRESHOLDS` (each probe a process of its own: the thresholds are the process's)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from satori_ci import collector

ROOT = Path(__file__).resolve().parents[2]

CLI_PROBE = """
import gc, json
from satori_ci.cli import process_end
before = gc.get_threshold()
process_end.begin()
print(json.dumps([before, gc.get_threshold()]))
"""

ACTION_PROBE = """
import gc, json, runpy
import satori_ci.action.main as action
before = gc.get_threshold()
action.main = lambda: print(json.dumps([before, gc.get_threshold()])) or 0
runpy.run_path("entrypoint.py", run_name="__main__")
"""


def _thresholds(probe: str) -> tuple[list[int], list[int]]:
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    before, after = json.loads(proc.stdout)
    return before, after


def test_the_command_and_the_action_run_the_collector_less_often() -> None:
    for probe in (CLI_PROBE, ACTION_PROBE):
        before, after = _thresholds(probe)
        assert after == list(collector.THRESHOLDS) != before
        assert after[0] >= 10 * before[0]


def test_importing_the_modules_leaves_the_collector_as_it_was() -> None:
    probe = "import gc; t = gc.get_threshold(); import entrypoint, satori_ci.cli; print(gc.get_threshold() == t)"
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "True"
    assert gc.get_threshold() == collector.THRESHOLDS  # this worker's (tests/conftest.py)
