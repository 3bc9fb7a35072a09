"""The team collection's own tests and opted-in requests in every report, and in the verdict (no Newman needed)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from satori_ci import redaction
from satori_ci.errors import ExitCode
from satori_ci.report.json_report import Outcome, report_json, verdict
from satori_ci.report.junit import junit_xml
from satori_ci.report.markdown import render_comment
from satori_ci.report.model import CheckReport, FailOn
from satori_ci.report.run_text import run_text
from satori_ci.report.summary import render_summary
from satori_ci.report.terminal import render_terminal
from satori_ci.run.model import RequestRef, RunResult
from satori_ci.run.team import OptedInRequest, TeamTest, TeamTestOutcome, TeamTestPolicy, TeamTests
from tests.report import factory as f
from tests.report.ci_reports import SECRET, valid_junit

LIST = RequestRef("item-1", 0, "GET", "https://staging.example/users", "Users/list users")
HOSTILE_NAME = "team: <!-- x --> @octocat `tick` | pipe"


def _tests(policy: TeamTestPolicy = TeamTestPolicy.FAIL, message: str = "expected 4 to equal 99") -> TeamTests:
    failed = TeamTest(HOSTILE_NAME, LIST, TeamTestOutcome.FAILED, message)
    passed = TeamTest("team: list is an array", LIST, TeamTestOutcome.PASSED)
    return TeamTests(True, policy, passed=1, failed=1, listed=(passed, failed))


def _run(tests: TeamTests | None, *, violations: bool = False) -> RunResult:
    written = OptedInRequest("Users/create user", "POST", "/users", "https://staging.example/users", (201,))
    base = f.run((f.violation(),) if violations else (), runner="newman")
    return replace(base, team_tests=tests, opted_in=(written,))


def _report(tests: TeamTests | None, fail_on: FailOn = FailOn.VIOLATIONS, violations: bool = False) -> CheckReport:
    spec = f.spec_check(run_result=_run(tests, violations=violations), oracle_diff=None, field_diff=None)
    return CheckReport((spec,), fail_on)


@pytest.mark.parametrize(("policy", "fail_on", "code"), [
    (TeamTestPolicy.FAIL, FailOn.VIOLATIONS, ExitCode.VIOLATIONS),
    (TeamTestPolicy.FAIL, FailOn.NEW_VIOLATIONS, ExitCode.VIOLATIONS),
    (TeamTestPolicy.FAIL, FailOn.NEVER, ExitCode.OK),
    (TeamTestPolicy.WARN, FailOn.VIOLATIONS, ExitCode.OK),
    (TeamTestPolicy.IGNORE, FailOn.VIOLATIONS, ExitCode.OK),
])
def test_a_failing_team_test_fails_the_check_as_its_policy_says(policy: TeamTestPolicy, fail_on: FailOn,
                                                               code: ExitCode) -> None:
    report = _report(_tests(policy), fail_on)
    assert report.exit_code is code
    assert report.specs[0].run is not None
    assert report.specs[0].run.exit_code is (ExitCode.VIOLATIONS if policy is TeamTestPolicy.FAIL else ExitCode.OK)
    found = verdict(report.specs[0], fail_on)
    assert found.outcome is (Outcome.TEAM_TESTS_FAILED if code is ExitCode.VIOLATIONS else Outcome.CLEAN)


def test_the_verdict_and_every_report_name_the_failing_test_with_its_request() -> None:
    report = _report(_tests())
    terminal = render_terminal(report, colour=False)
    assert terminal.startswith("✖ 1 of 2 tests of your Postman collection failed on api/openapi.yaml")
    assert ("failed: Users/list users › team: <!-- x --> @octocat `tick` | pipe: expected 4 to equal 99"
            in terminal)
    assert "sent (opted in): POST /users, Users/create user: HTTP 201" in terminal
    assert "1 failing team test(s), exit code 1" in terminal
    comment = render_comment(report.specs[0], report.fail_on).body
    assert "### ❌ 1 of 2 tests of your Postman collection failed on `api/openapi.yaml`" in comment
    assert "#### Your Postman collection: 1 of 2 tests failed" in comment
    assert "<!-- x" not in comment.split("\n", 1)[1]  # a code span, the comment opener broken
    assert "- failed: ``Users/list users › team: <\u200d!-- x --> @octocat `tick` | pipe``: expected 4 to" in comment
    summary = render_summary(report)
    assert summary.startswith("## ❌ satori-ci: tests of your Postman collection failed")
    data = report_json(report)
    assert data["team_tests_failing"] == 1 and data["exit_code"] == 1
    spec = data["specs"][0]
    assert spec["outcome"] == "team_tests_failed"
    listed = spec["run"]["team_tests"]["listed"]
    assert [(t["name"], t["outcome"], t["request"]["name"]) for t in listed] == [
        ("team: list is an array", "passed", "Users/list users"), (HOSTILE_NAME, "failed", "Users/list users")]
    assert spec["run"]["opted_in"] == [{"name": "Users/create user", "method": "POST", "path": "/users",
                                        "url": "https://staging.example/users", "statuses": [201], "detail": ""}]


def test_warn_lists_the_failure_and_says_it_does_not_fail() -> None:
    report = _report(_tests(TeamTestPolicy.WARN))
    terminal = render_terminal(report, colour=False)
    assert terminal.startswith("✔ No violations")
    assert "Your Postman collection: 1 of 2 tests failed (team-tests: warn, not failing the check)" in terminal
    text = run_text(_run(_tests(TeamTestPolicy.WARN)))
    assert "TEAM TEST FAILED (team-tests: warn) Users/list users › " in text
    assert "team tests: 1 passed, 1 failed (team-tests: warn)" in text


def test_ignore_lists_nothing_but_the_opted_in_requests() -> None:
    report = _report(_tests(TeamTestPolicy.IGNORE))
    terminal = render_terminal(report, colour=False)
    assert "team: " not in terminal and "sent (opted in): POST /users" in terminal
    assert report_json(report)["specs"][0]["run"]["team_tests"]["listed"] == []


def test_tolerated_violations_and_failing_team_tests_say_both() -> None:
    report = _report(_tests(), FailOn.NEW_VIOLATIONS, violations=True)
    spec = report.specs[0]
    found = verdict(spec, report.fail_on)
    assert found.outcome is Outcome.TEAM_TESTS_FAILED and report.exit_code is ExitCode.VIOLATIONS
    words = render_terminal(report, colour=False).splitlines()[0]
    assert words.startswith("✖ 1 of 2 tests of your Postman collection failed on api/openapi.yaml; 1 oracle "
                            "violation in 1 field of api/openapi.yaml, not failing the check")


def test_the_native_runner_says_once_that_the_team_tests_were_not_run() -> None:
    run = replace(_run(TeamTests(False)), opted_in=())
    text = run_text(run)
    assert text.count("not run: the native runner does not run the team collection's scripts") == 1
    assert run.exit_code is not ExitCode.VIOLATIONS
    report = CheckReport((f.spec_check(run_result=run),))
    assert render_terminal(report, colour=False).count("does not run the team collection's scripts") == 1


def test_junit_has_a_case_per_team_test_failing_as_the_check_does() -> None:
    with redaction.installed([SECRET]):
        text = junit_xml(_report(_tests(message=f"expected {SECRET} to equal 99")))
        warned = junit_xml(_report(_tests(TeamTestPolicy.WARN)))
    valid_junit(text)
    assert SECRET not in text
    cases = {(c.get("classname"), c.get("name")): c for c in ET.fromstring(text).iter("testcase")}
    failed = cases[("team collection: Users/list users", HOSTILE_NAME)]
    failure = failed.find("failure")
    assert failure is not None and failure.get("type") == "team_test" and "***" in (failure.get("message") or "")
    assert cases[("team collection: Users/list users", "team: list is an array")].find("failure") is None
    quiet = {(c.get("classname"), c.get("name")): c for c in ET.fromstring(warned).iter("testcase")}
    assert quiet[("team collection: Users/list users", HOSTILE_NAME)].find("failure") is None


def test_the_json_of_a_run_carries_the_team_tests() -> None:
    data = json.loads(json.dumps(_run(_tests()).to_dict()))
    assert data["exit_code"] == 1
    assert data["team_tests"]["failed"] == 1 and data["team_tests"]["failing"] == 1
    assert data["opted_in"][0]["statuses"] == [201]
