"""JUnit XML: valid under Jenkins' JUnit schema, one case per check and violated oracle, escaped, redacted, stable."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from satori_ci import redaction
from satori_ci.report.junit import junit_xml, xml_safe
from satori_ci.report.model import FailOn
from tests.report import factory as f
from tests.report.ci_reports import SECRET, hostile_report, valid_junit


def _rendered(fail_on: FailOn = FailOn.NEW_VIOLATIONS) -> str:
    with redaction.installed([SECRET]):
        return junit_xml(hostile_report(fail_on))


def _cases(root: ET.Element) -> dict[tuple[str, str], ET.Element]:
    return {(c.get("classname", ""), c.get("name", "")): c for c in root.iter("testcase")}


def test_a_hostile_report_is_valid_junit_redacted_and_the_same_bytes_twice() -> None:
    text = _rendered()
    valid_junit(text)
    assert text == _rendered()
    assert SECRET not in text and "***" in text
    assert not any(ord(c) < 0x20 and c not in "\n" for c in text)
    assert "\ud800" not in text and "\ufffe" not in text
    assert "<![CDATA[" not in text and "]]>" not in text
    root = ET.fromstring(text)  # the hostile field name is an attribute value, not markup
    names = [c.get("name", "") for c in root.iter("testcase")]
    assert any(n.startswith("businesses[].</testcase>]]><![CDATA[x]]> \\x00\\x07") for n in names)
    assert all("::error::" not in n or n.count("\n") == 0 for n in names)


def test_failing_violations_are_failures_the_rest_pass_and_say_why() -> None:
    root = ET.fromstring(_rendered())
    cases = _cases(root)
    price = cases[("GET /businesses/search 200", "businesses[].price string_specific_values")]
    failure = price.find("failure")
    assert failure is not None and failure.get("type") == "violation"
    assert failure.get("message") == '122 value(s) break string_specific_values ["$", "$$", "$$$"]'
    assert (failure.text or "").splitlines()[-1] == "(and 120 more)"
    for name, why in [("owner.email string_is_email", "suspect"), ("total number_min_value", "pre-existing"),
                      ("businesses[].rating number_max_value", "not failing the check under fail-on")]:
        case = cases[("GET /businesses/search 200", name)]
        assert case.find("failure") is None and why in (case.findtext("system-out") or "")


def test_unreached_operations_are_skipped_with_the_reason_and_staging_problems_are_errors() -> None:
    root = ET.fromstring(_rendered())
    cases = _cases(root)
    detail = cases[("GET /businesses/{id}", "oracles exercised")].find("skipped")
    assert detail is not None and detail.get("type") == "no_input"
    assert detail.get("message") == "5 oracle(s) not exercised: needs a value for id: --value id=..."
    assert cases[("DELETE /businesses/{id}", "oracles exercised")].find("skipped") is not None
    staging = cases[("api/openapi.yaml", "staging answered")].find("error")
    assert staging is not None and staging.get("type") == "connection"
    assert (staging.get("message") or "").startswith("1 request(s) failed after retries, first: GET ")
    spec_error = [c for c in root.iter("testcase") if c.find("error") is not None and c.get("name") == "spec read"]
    assert len(spec_error) == 1
    not_run = cases[("api/other.yaml", "run")].find("skipped")
    assert not_run is not None and not_run.get("message") == "no staging URL"


def test_counts_add_up_per_suite_and_overall() -> None:
    root = ET.fromstring(_rendered())
    assert root.get("name") == "satori-ci"
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        assert int(suite.get("tests", "")) == len(cases)
        for outcome, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(suite.get(attr, "")) == sum(c.find(outcome) is not None for c in cases)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["api/openapi.yaml", "api/openapi.yaml", "api/other.yaml"]
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("16", "2", "2")
    assert suites[0].get("time") == "2.500"


def test_fail_on_never_gives_no_failure() -> None:
    root = ET.fromstring(_rendered(FailOn.NEVER))
    assert root.get("failures") == "0"
    valid_junit(junit_xml(f.report(f.spec_check((f.violation(),)), fail_on=FailOn.NEVER)))


def test_a_clean_run_is_all_passed() -> None:
    text = junit_xml(f.report(f.spec_check(())))
    valid_junit(text)
    root = ET.fromstring(text)
    assert (root.get("failures"), root.get("errors")) == ("0", "0")
    assert all(len([e for e in c if e.tag != "system-out"]) == 0 for c in root.iter("testcase"))


def test_characters_xml_forbids_are_written_as_text() -> None:
    assert xml_safe("a\x00b\ud800c\ufffed\U0001f600\t\n") == "a\\u0000b\\ud800c\\ufffed\U0001f600\t\n"
