"""SARIF 2.1.0: valid under the OASIS schema, results on the violated fields' spec lines, stable fingerprints,
levels by fail-on, redacted, capped, the same bytes twice."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from satori_ci import redaction
from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.model import CheckReport, FailOn, FieldLocation
from satori_ci.report.sarif import FINGERPRINT, MAX_RESULTS, artifact_location, sarif_log
from tests.report import factory as f
from tests.report.ci_reports import LINE, SECRET, hostile_report, hostile_spec
from tests.report.ci_reports import valid_sarif as valid


def _rendered(report: CheckReport | None = None, **kw: Any) -> str:
    with redaction.installed([SECRET]):
        return sarif_log(report or hostile_report(), **kw)


def _results(text: str) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = valid(text)["runs"][0]["results"]
    return results


def test_a_hostile_report_is_valid_sarif_redacted_and_the_same_bytes_twice() -> None:
    text = _rendered()
    valid(text)
    assert text == _rendered()
    assert SECRET not in text and "***" in text
    assert "<!--" not in text
    text.encode("utf-8")  # no lone surrogate left


def test_one_rule_per_oracle_kind_and_results_name_theirs() -> None:
    run = valid(_rendered())["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "satori-ci" and driver["version"] and driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == [k.value for k in OracleKind]
    assert all(r["shortDescription"]["text"] and r["fullDescription"]["text"] for r in driver["rules"])
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_levels_follow_fail_on_suspects_and_preexisting_values() -> None:
    levels = {r["properties"]["field"]: r["level"] for r in _results(_rendered())}
    assert levels["businesses[].price"] == "error"
    assert levels["owner.email"] == "warning"  # suspect
    assert levels["total"] == "warning"  # pre-existing
    assert levels["businesses[].rating"] == "note"  # not new under new-violations
    never = _results(_rendered(replace(hostile_report(), fail_on=FailOn.NEVER)))
    assert "error" not in {r["level"] for r in never}


def test_results_point_at_the_spec_line_of_the_violated_field() -> None:
    for r in _results(_rendered()):
        (where,) = r["locations"]
        physical = where["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": "api/openapi.yaml", "uriBaseId": "%SRCROOT%"}
        field = r["properties"]["field"]
        expected = {"businesses[].price": LINE["price"], "businesses[].rating": LINE["rating"]}.get(field)
        if field.startswith("businesses[].</testcase>"):
            expected = LINE["hostile"]
        assert physical["region"]["startLine"] == (expected or 1)  # line 1 when the field was not located


def test_fingerprints_stay_when_values_lines_and_order_change() -> None:
    first = {r["properties"]["field"]: r["partialFingerprints"][FINGERPRINT] for r in _results(_rendered())}
    spec = hostile_spec()
    assert spec.run is not None
    moved = replace(spec, locations={k: FieldLocation(v.file, (v.line or 0) + 9) for k, v in spec.locations.items()},
                    run=replace(spec.run, violations=tuple(replace(v, value='"other"', pointer="/x")
                                                           for v in reversed(spec.run.violations))))
    second = {r["properties"]["field"]: r["partialFingerprints"][FINGERPRINT]
              for r in _results(_rendered(CheckReport((moved,), FailOn.NEW_VIOLATIONS)))}
    assert first == second and len(set(first.values())) == len(first)


def test_the_number_of_results_is_capped_and_the_cap_is_said() -> None:
    run = valid(_rendered(max_results=2))["runs"][0]
    assert len(run["results"]) == 2
    assert run["properties"]["resultsLeftOut"] == 3 and run["properties"]["resultsCap"] == 2
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any(n["message"]["text"].startswith("3 of 5 result(s) left out") for n in notes)
    assert MAX_RESULTS < 25_000


def test_problems_that_are_not_violations_are_notifications() -> None:
    invocation = valid(_rendered())["runs"][0]["invocations"][0]
    texts = [(n["level"], n["message"]["text"]) for n in invocation["toolExecutionNotifications"]]
    assert any(level == "error" and "1 request(s) failed" in text for level, text in texts)
    assert any(level == "error" and "not checked: api/openapi.yaml:3" in text for level, text in texts)
    assert any(level == "note" and "oracles not run: no staging URL" in text for level, text in texts)
    assert invocation["exitCode"] == 1


def test_a_clean_report_is_valid_with_no_result() -> None:
    data = valid(sarif_log(f.report(f.spec_check(()))))
    assert data["runs"][0]["results"] == [] and data["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_paths_become_uri_references() -> None:
    assert artifact_location("./api/my spec#1.yaml") == {"uri": "api/my%20spec%231.yaml", "uriBaseId": "%SRCROOT%"}
    assert artifact_location("/tmp/x y/api.yaml") == {"uri": "file:///tmp/x%20y/api.yaml"}
