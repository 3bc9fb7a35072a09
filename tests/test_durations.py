"""`python3 -m tests.durations`: seconds per test file from a JUnit XML report (what orders the files)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.durations import DURATIONS, file_durations

REPORT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.run.test_a" name="test_one" time="1.25"/>
<testcase classname="tests.run.test_a" name="test_two[x]" time="2.5"/>
<testcase classname="tests.run.test_a.TestGroup" name="test_three" time="0.25"/>
<testcase classname="tests.test_b" name="test_four" time="0.04"><skipped/></testcase>
<testcase classname="" name="broken" time="9"/>
</testsuite></testsuites>"""


def test_seconds_add_up_per_file_classes_included(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(REPORT, encoding="utf-8")
    assert file_durations(report) == {"tests/run/test_a.py": 4.0, "tests/test_b.py": 0.0}


def test_the_committed_list_reads_as_seconds_per_file() -> None:
    durations: dict[str, float] = json.loads(DURATIONS.read_text(encoding="utf-8"))
    assert durations and all(name.startswith("tests/") and name.endswith(".py") for name in durations)
    assert all(isinstance(seconds, float | int) and seconds >= 0 for seconds in durations.values())
