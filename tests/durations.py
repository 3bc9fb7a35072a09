"""Measure how long each test file takes and write `tests/durations.json`, which orders the files for the workers.

    python3 -m tests.durations        (runs the whole suite once, as the README's command does)

The workers take whole files (`--dist loadfile`) in the order the files are collected; `conftest.py` puts the
slowest first, so that no worker is left with a long file when the others are done. A file missing from the
list counts as slow (it goes first); a stale list only makes the order less good, never a test fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

DURATIONS = Path(__file__).resolve().with_name("durations.json")
ROOT = DURATIONS.parents[1]


def file_durations(report: Path) -> dict[str, float]:
    """Seconds per test file (set-up, call and tear-down of its tests) from a JUnit XML report."""
    seconds: Counter[str] = Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        while module and not module[-1].startswith("test_"):
            module.pop()
        if module:
            seconds["/".join(module) + ".py"] += float(case.get("time") or 0)
    return {name: round(value, 1) for name, value in sorted(seconds.items())}


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "junit.xml"
        subprocess.run([sys.executable, "-m", "pytest", f"--junitxml={report}"], cwd=ROOT, check=False)
        durations = file_durations(report)
    DURATIONS.write_text(json.dumps(durations, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DURATIONS}: {len(durations)} files, {sum(durations.values()):.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
