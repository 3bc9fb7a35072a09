"""The team collection's side of a run (`run.team`): its tests counted and listed, its opted-in requests, the
credential headers its requests carried; and how satori-ci's scripts are told from the team's (no Newman needed)."""

from __future__ import annotations

import re
from pathlib import Path

from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.postman.script import OWN_SCRIPT, RESULTS_VARIABLE, build_prerequest_script, build_test_script
from satori_ci.run.model import RequestRef
from satori_ci.run.newman import REPORTER_DIR
from satori_ci.run.team import (
    TEAM_TESTS_LISTED,
    TeamLog,
    TeamTest,
    TeamTestOutcome,
    TeamTestPolicy,
    credential_headers,
)

REF = RequestRef("item", 0, "GET", "https://staging.example/x", "Folder/x")


def _given(request_id: str, method: str, headers: tuple[tuple[str, str], ...] = (), scripted: bool = True
           ) -> GivenRequest:
    return GivenRequest(request_id, f"Folder/{request_id}", method, f"https://staging.example/{request_id}",
                        headers, None, f"/{request_id}", scripted=scripted)


def _test(n: int, outcome: TeamTestOutcome) -> TeamTest:
    return TeamTest(f"test {n}", REF, outcome, "boom" if outcome is TeamTestOutcome.FAILED else "")


def test_every_test_is_counted_and_the_failing_ones_are_listed_first_in_run_order() -> None:
    log = TeamLog(None)
    for n in range(TEAM_TESTS_LISTED + 50):
        log.test(_test(n, TeamTestOutcome.PASSED))
    for n in range(TEAM_TESTS_LISTED + 50, TEAM_TESTS_LISTED + 60):
        log.test(_test(n, TeamTestOutcome.FAILED))
    log.test(_test(999, TeamTestOutcome.SKIPPED))
    tests = log.tests(TeamTestPolicy.FAIL)
    assert (tests.passed, tests.failed, tests.skipped, tests.total) == (TEAM_TESTS_LISTED + 50, 10, 1, 261)
    assert len(tests.listed) == TEAM_TESTS_LISTED and len(tests.failures) == 10 and tests.failing == 10
    numbers = [int(t.name.split()[1]) for t in tests.listed]
    assert numbers == sorted(numbers) and numbers[:3] == [0, 1, 2]  # run order; the first passes kept
    assert log.tests(TeamTestPolicy.WARN).failing == 0 and log.tests(TeamTestPolicy.IGNORE).listed == ()


def test_opted_in_requests_say_what_they_got_or_why_they_were_not_sent() -> None:
    given = GivenRequests("team.json", "Team", (_given("list", "GET"), _given("create", "POST"),
                                                 _given("drop", "DELETE"), _given("skipped", "PUT")))
    log = TeamLog(given, left_out=("drop",))
    log.sent(given.requests[1], 201)
    log.sent(given.requests[1], None)
    log.sent(given.requests[3], None, "Folder/skipped needs {{id}}")
    found = {r.label: r for r in log.opted_in("newman")}
    assert list(found) == ["Folder/create", "Folder/skipped"]  # the GET is not opted in, the DELETE left out
    assert found["Folder/create"].statuses == (201, None) and found["Folder/create"].detail == ""
    assert found["Folder/skipped"].detail == "Folder/skipped needs {{id}}"
    never = TeamLog(given, left_out=("drop",)).opted_in("native")
    assert never[0].detail.startswith("not sent: the native runner sends only the team's requests that call")


def test_the_credential_headers_a_team_request_carried_are_named() -> None:
    team = _given("list", "GET", (("Authorization", "Bearer t0ken-value"), ("X-Api-Key", "k3y-value"),
                                  ("Accept", "application/json"), ("Cookie", ""), ("authorization", "again")))
    log = TeamLog(GivenRequests("team.json", "Team", (team,)))
    log.sent(team, 200)
    assert log.sent_headers(("authorization",)) == ("authorization", "X-Api-Key")
    assert credential_headers((), None, (("X-Staging", "v"),)) == ("X-Staging",)


def test_the_native_runner_says_once_that_the_team_tests_did_not_run() -> None:
    given = GivenRequests("team.json", "Team", (_given("list", "GET"),))
    log = TeamLog(given)
    tests = log.result("native", TeamTestPolicy.FAIL)
    assert tests is not None and not tests.ran and tests.total == 0
    quiet = TeamLog(GivenRequests("team.json", "Team", (_given("list", "GET", scripted=False),)))
    assert quiet.result("native", TeamTestPolicy.FAIL) is None and TeamLog(None).result("newman",
                                                                                       TeamTestPolicy.FAIL) is None


def test_the_reporter_tells_satoris_scripts_by_the_first_line_every_script_of_satori_starts_with() -> None:
    reporter = (REPORTER_DIR / "newman-reporter-satori" / "index.js").read_text(encoding="utf-8")
    found = re.search(r"var OWN_SCRIPT = '([^']*)';", reporter)
    assert found is not None and found.group(1) == OWN_SCRIPT
    assert build_test_script("GET /x", ["200"], {"200": []}, [])[0].startswith(OWN_SCRIPT)
    assert build_prerequest_script(["v"], "needs v")[0].startswith(OWN_SCRIPT)


def test_the_scripts_write_their_console_lines_only_when_asked() -> None:
    for script in (build_test_script("GET /x", ["200"], {"200": []}, []), build_prerequest_script(["v"], "why")):
        text = "\n".join(script)
        assert RESULTS_VARIABLE in text
        for line in text.splitlines():
            if "console.log(" in line:
                assert "pm.variables.get(RESULTS)" in line or "function (line)" in line, line
    assert Path(REPORTER_DIR).is_dir()
