"""Which of a change's oracles the run exercised, and the minimum that makes the change count as checked."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from satori_ci.config.settings import ChangeMinimum, change_minimum
from satori_ci.plan.model import Skip, SkipKind
from satori_ci.report.junit import junit_xml
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.sarif import sarif_log
from satori_ci.run.model import OperationCoverage, RunResult
from tests.report.ci_reports import valid_junit, valid_sarif

CHANGED = frozenset({("GET", "/things", "200", "items[].size", "number_min_value"),
                     ("GET", "/things", "200", "items[].color", "string_specific_values"),
                     ("GET", "/things/{id}", "200", "size", "number_min_value"),
                     ("GET", "/search", "200", "hits", "array_min_size")})


DEFAULT = ChangeMinimum()


def _spec(minimum: ChangeMinimum = DEFAULT, changed: frozenset[tuple[str, ...]] = CHANGED) -> SpecCheck:
    coverage = (OperationCoverage("GET", "/things", 2, 2, 3, 5, (("200", "items[].size", "number_min_value"),)),
                OperationCoverage("GET", "/things/{id}", 3, 3, 2, 4, (("200", "name", "string_min_length"),)),
                OperationCoverage("GET", "/search", 0, 0, 0, 2))
    run = RunResult("native", 5, 5, (), coverage=coverage,
                    skipped=(Skip("GET", "/search", SkipKind.NO_INPUT, "needs a value for {q} (query)"),))
    return SpecCheck("api.yaml", "api.yaml", "HEAD:api.yaml", ".satori/api.oracles.yaml", None, None, None, 11, run,
                     changed=changed, min_changed=minimum)  # type: ignore[arg-type]


def test_the_changed_oracles_exercised_and_why_not_the_others() -> None:
    found = _spec().change
    assert found is not None
    assert (found.changed, found.exercised, found.required, found.short) == (4, 1, 1, False)
    assert found.headline() == "1 of 4 oracles this change adds or changes exercised"
    assert [(u.label, u.oracles, u.why) for u in found.unexercised] == [
        ("GET /search", 1, "not sent: needs a value for {q} (query)"),
        ("GET /things", 1, "2 response(s) checked: the changed fields met no value (absent, null, or another status)"),
        ("GET /things/{id}", 1, "3 response(s) checked: the changed fields met no value (absent, null, or another "
                                "status)")]


@pytest.mark.parametrize(("minimum", "short", "code"), [
    (ChangeMinimum(1), False, 0), (ChangeMinimum(2), True, 4), (ChangeMinimum(0), False, 0),
    (ChangeMinimum(percent=50), True, 4), (ChangeMinimum(percent=25), False, 0), (ChangeMinimum(99), True, 4)])
def test_the_minimum_decides_the_exit_code(minimum: ChangeMinimum, short: bool, code: int) -> None:
    spec = _spec(minimum)
    assert spec.change_unchecked is short
    assert int(CheckReport((spec,)).exit_code) == code


def test_no_change_no_verdict_about_it() -> None:
    assert _spec(changed=frozenset()).change is None
    assert int(CheckReport((_spec(ChangeMinimum(5), frozenset()),)).exit_code) == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("0", ChangeMinimum(0)), ("3", ChangeMinimum(3)), (7, ChangeMinimum(7)), ("50%", ChangeMinimum(percent=50)),
    ("100%", ChangeMinimum(percent=100)), (" 0% ", ChangeMinimum(percent=0))])
def test_a_minimum_is_a_count_or_a_share(text: str | int, expected: ChangeMinimum) -> None:
    assert change_minimum(text) == expected


@pytest.mark.parametrize("text", ["-1", "101%", "1.5", "½", "", "5 %", -2, "٣"])
def test_anything_else_is_refused(text: str | int) -> None:
    with pytest.raises(ValueError):
        change_minimum(text)


def test_a_share_rounds_up_and_a_count_never_asks_more_than_there_is() -> None:
    assert ChangeMinimum(percent=50).required(3) == 2
    assert ChangeMinimum(percent=1).required(3) == 1
    assert ChangeMinimum(percent=0).required(3) == 0
    assert ChangeMinimum(10).required(3) == 3


def test_junit_and_sarif_say_the_change_went_unchecked() -> None:
    report = CheckReport((_spec(ChangeMinimum(2)),))
    text = junit_xml(report)
    valid_junit(text)
    case = next(c for c in ET.fromstring(text).iter("testcase") if c.get("name") == "changed oracles exercised")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "change_unchecked"
    assert failure.get("message") == ("1 of 4 oracles this change adds or changes exercised, at least 2 asked "
                                      "(min-changed-exercised)")
    assert (failure.text or "").splitlines()[0] == "GET /search: 1 changed oracle(s) not exercised, not sent: needs " \
        "a value for {q} (query)"
    log = sarif_log(report)
    valid_sarif(log)
    notes = json.loads(log)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("the change went unchecked: 1 of 4" in n["message"]["text"] for n in notes)
    passed = junit_xml(CheckReport((_spec(),)))
    case = next(c for c in ET.fromstring(passed).iter("testcase") if c.get("name") == "changed oracles exercised")
    assert case.find("failure") is None
