"""Reading the satori reporter's lines, and classifying Node.js request errors (no Newman needed)."""

from __future__ import annotations

import json

import pytest

from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import ProblemKind
from satori_ci.run.newman_report import problem_of, read_report
from satori_ci.run.outcome import FindingLine


def _line(**entry: object) -> str:
    return json.dumps(entry) + "\n"


def test_findings_arrive_in_chunks_and_are_all_kept() -> None:
    chunks = [[{"index": i % 3, "pointer": f"/a/{i}", "value": str(i), "message": f"m{i}"}
               for i in range(start, start + 50)] for start in range(0, 5000, 50)]
    lines = [_line(type="request", item="x", iteration=2, status=200, error=None),
             '{"type":"result","data":' + json.dumps({"item": "x", "iteration": 2, "status": 200, "json": True,
                                                      "findings": 5000}) + "}\n",
             *('{"type":"result","data":' + json.dumps({"item": "x", "iteration": 2, "findings": c}) + "}\n"
               for c in chunks),
             _line(type="assertion", item="x", iteration=2, name="a b", skipped=False, error="boom"),
             _line(type="done", error=None)]
    report = read_report(iter(lines))
    record = report.records[("x", 2)]
    assert report.done and record.requested and record.result is not None and record.result["findings"] == 5000
    assert len(record.findings) == 5000 and record.findings[4999] == FindingLine(1, "/a/4999", "4999", "m4999")
    assert [(a.name, a.error) for a in record.assertions] == [("a b", "boom")]


def test_a_broken_line_is_an_error_not_a_silent_loss() -> None:
    with pytest.raises(RunError) as caught:
        read_report(iter([_line(type="request", item="x", iteration=0), '{"type": "result", "da\n']))
    assert caught.value.kind is RunErrorKind.NEWMAN_FAILED


@pytest.mark.parametrize(("code", "message", "kind"), [
    ("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9", ProblemKind.CONNECTION),
    ("ECONNRESET", "socket hang up", ProblemKind.CONNECTION),
    ("ENOTFOUND", "getaddrinfo ENOTFOUND staging", ProblemKind.CONNECTION),
    ("ETIMEDOUT", "ETIMEDOUT", ProblemKind.TIMEOUT),
    ("ESOCKETTIMEDOUT", "ESOCKETTIMEDOUT", ProblemKind.TIMEOUT),
    ("EPROTO", "write EPROTO 0A00010B:SSL routines:ssl3_get_record:wrong version number", ProblemKind.TLS),
    ("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate", ProblemKind.TLS),
    ("ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames", ProblemKind.TLS),
    (None, "unable to verify the first certificate", ProblemKind.TLS),
])
def test_node_errors_are_classified(code: str | None, message: str, kind: ProblemKind) -> None:
    assert problem_of(code, message) is kind


def test_the_teams_tests_and_script_errors_are_kept_apart_from_satoris_own() -> None:
    lines = [_line(type="request", item="x", iteration=0, status=200, error=None),
             _line(type="assertion", item="x", iteration=0, name="status is 200", skipped=False, error=None,
                   team=False),
             _line(type="assertion", item="x", iteration=0, name="team: has 99", skipped=False,
                   error="expected 4 to equal 99", team=True),
             _line(type="assertion", item="x", iteration=0, name="team: later", skipped=True, error=None, team=True),
             _line(type="exception", item="x", iteration=0, message="boom is not defined", team=True,
                   listen="prerequest"),
             _line(type="exception", item="y", iteration=0, message="ours threw", team=False, listen="test"),
             _line(type="assertion", item="z", iteration=1, name="an older reporter's line", skipped=False,
                   error=None),
             _line(type="done", error=None)]
    report = read_report(iter(lines))
    x = report.records[("x", 0)]
    assert [a.name for a in x.assertions] == ["status is 200"] and x.exception is None
    assert [(a.name, a.skipped, a.error) for a in x.team_tests] == [
        ("team: has 99", False, "expected 4 to equal 99"), ("team: later", True, None),
        ("(error in the pre-request script)", False, "boom is not defined")]
    assert report.records[("y", 0)].exception == "ours threw" and not report.records[("y", 0)].team_tests
    assert [a.name for a in report.records[("z", 1)].assertions] == ["an older reporter's line"]
