"""JUnit XML of a check, for the test reporters of CI servers (Jenkins, GitLab, GitHub test-report actions).

One `<testsuite>` per spec. Its test cases, in a stable order: the spec could be read (`<error>` when not),
staging answered, the credentials were accepted, enough oracles met a value (`<error>`s: the run proves nothing),
enough of the oracles the change adds or changes met a value (a `<failure>` when not: exit 4), no 5XX answer; then
one per violated oracle (classname `METHOD /path STATUS`, name `field kind`: a `<failure>` when its violations fail
the check under fail-on, else passed with why in `<system-out>`); one per listed test of the team's own Postman
collection (classname `team collection: Folder/Request`, a `<failure>` when it fails the check); then one per
operation with enabled oracles (`<skipped>` with the reason when none of its responses was checked: not sent,
needs a value, refused, not found).
Every text is redacted, cut and made one line by `escape.terminal` before `xml.etree.ElementTree` escapes it;
characters XML 1.0 forbids are written as `\\uNNNN`. No timestamp: the only time is the run's own `seconds`, so
the same report gives the same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from satori_ci.oracles.model import Oracle
from satori_ci.report import escape as esc
from satori_ci.report.json_report import group_violations
from satori_ci.report.model import CheckReport, FailOn, SpecCheck, identity
from satori_ci.report.oracle_text import describe
from satori_ci.report.team_text import NOT_RUN
from satori_ci.run.model import RunResult, Violation
from satori_ci.run.team import TeamTestOutcome

DETAIL_LINES = 5
"""Violations (or problems) listed in one failure's text; the rest are counted."""
TEXT_LIMIT = 300
"""Characters of one value or message in the XML."""

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(value: str) -> str:
    """Characters XML 1.0 forbids (controls, lone surrogates, U+FFFE/U+FFFF) as `\\uNNNN` text."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m[0]):04x}", value)


def shown(value: str, limit: int = TEXT_LIMIT) -> str:
    """Untrusted text for an attribute or a line: redacted, one line, cut, XML-safe."""
    return xml_safe(esc.terminal(value, limit))


@dataclass
class _Case:
    classname: str
    name: str
    outcome: str = ""
    """`failure`, `error`, `skipped` or empty (passed)."""
    kind: str = ""
    message: str = ""
    lines: list[str] = field(default_factory=list)
    out: list[str] = field(default_factory=list)
    """`<system-out>` lines: what a passed case should still say."""


def _listed(lines: list[str], total: int) -> list[str]:
    """The first `DETAIL_LINES` lines, and how many more there are."""
    more = total - min(len(lines), DETAIL_LINES)
    return lines[:DETAIL_LINES] + ([f"(and {more} more)"] if more > 0 else [])


def _spec_cases(spec: SpecCheck) -> list[_Case]:
    name = spec.spec
    if spec.error is not None:
        code = spec.error_code.name.lower() if spec.error_code is not None else "error"
        return [_Case(name, "spec read", "error", code, spec.error)]
    if spec.run is None:
        return [_Case(name, "spec read"), _Case(name, "run", "skipped", "not_run", spec.run_skipped or "not run")]
    return [_Case(name, "spec read")]


def _staging_cases(spec: SpecCheck, run: RunResult) -> list[_Case]:
    name = spec.spec
    reach = _Case(name, "staging answered")
    if run.infrastructure:
        first = run.infrastructure[0]
        reach.outcome, reach.kind = "error", first.kind.value
        reach.message = (f"{len(run.infrastructure)} request(s) failed after retries, first: {first.request.method} "
                         f"{first.request.url}: {first.detail}")
        reach.lines = _listed([f"{p.request.method} {p.request.url}: {p.kind.value}: {p.detail} "
                               f"({p.attempts} attempt(s))" for p in run.infrastructure], len(run.infrastructure))
    elif run.requests and not run.checked:
        reach.outcome, reach.kind = "error", "unchecked"
        reach.message = run.unchecked[0].detail if run.unchecked else "no response could be checked"
        reach.lines = _listed([f"{u.request.method} {u.request.url}: {u.detail}" for u in run.unchecked],
                              len(run.unchecked))
    auth = _Case(name, "credentials accepted")
    if run.auth_failure:
        auth.outcome, auth.kind, auth.message = "error", "auth_failed", run.auth_failure
    exercised = _Case(name, "oracles exercised",
                      out=[f"{run.oracles_exercised} of {run.oracles_enabled} enabled oracle(s) met a value"])
    if run.nothing_checked:
        exercised.outcome, exercised.kind, exercised.message = "error", "nothing_checked", run.nothing_checked
    return [reach, auth, exercised]


def _change_cases(spec: SpecCheck) -> list[_Case]:
    """One case when the change adds or changes oracles: a failure when too few of them met a value (exit 4)."""
    change = spec.change
    if change is None:
        return []
    lines = [f"{u.label}: {u.oracles} changed oracle(s) not exercised, {u.why}" for u in change.unexercised]
    case = _Case(spec.spec, "changed oracles exercised", out=[change.headline(), *lines])
    if change.short:
        case.outcome, case.kind, case.message, case.lines = "failure", "change_unchecked", change.shortfall(), lines
        case.out = []
    return [case]


def _server_error_case(spec: SpecCheck, run: RunResult, fail_on: FailOn) -> _Case:
    case = _Case(spec.spec, "no 5XX answers")
    errors = run.server_errors
    if not errors:
        return case
    lines = _listed([f"{e.request.method} {e.request.url}: status {e.status} after {e.attempts} attempt(s){e.hint}"
                     for e in errors], len(errors))
    if spec.failing_server_errors(fail_on):
        case.outcome, case.kind, case.lines = "failure", "server_error", lines
        case.message = f"{len(errors)} 5XX answer(s), first: {lines[0]}"
    else:
        case.out = ["not failing the check (server_errors: report, or fail-on)", *lines]
    return case


def _why_not_failing(spec: SpecCheck, oracle: Oracle, found: list[Violation]) -> str:
    if spec.is_suspect(oracle):
        return "suspect: the trusted (base) side's responses violate this oracle too"
    if all(spec.is_preexisting(v) for v in found):
        return "pre-existing: the field's earlier oracles reject these values too"
    return "not failing the check under fail-on"


def _violation_cases(spec: SpecCheck, run: RunResult, fail_on: FailOn) -> list[_Case]:
    failing = {id(v) for v in spec.failing_violations(fail_on)}
    omitted = {identity(o.oracle): o.omitted for o in run.omitted}
    out = []
    for op, fields in group_violations(run.violations):
        for field_path, oracles in fields:
            for oracle, found in oracles:
                total = len(found) + omitted.get(identity(oracle), 0)
                case = _Case(str(op), f"{field_path or '(body)'} {oracle.kind.value}")
                lines = _listed([f"{v.pointer or '(body)'}: {v.value} {v.message} ({v.request.method} {v.request.url})"
                                 for v in found], total)
                summary = f"{total} value(s) break {describe(oracle)}"
                if any(id(v) in failing for v in found):
                    case.outcome, case.kind, case.message, case.lines = "failure", "violation", summary, lines
                else:
                    case.out = [f"{summary}; {_why_not_failing(spec, oracle, found)}", *lines]
                out.append(case)
    return out


def _team_cases(spec: SpecCheck, run: RunResult, fail_on: FailOn) -> list[_Case]:
    """One case per listed test of the team's collection (classname: its request), a failure when it fails the check;
    one skipped case when the runner did not run them."""
    tests = run.team_tests
    if tests is None or not tests.shown:
        return []
    if not tests.ran:
        return [_Case("team collection", "team tests", "skipped", "not_run", NOT_RUN)]
    out = []
    for t in tests.listed:
        case = _Case(f"team collection: {t.request.name or t.request.method + ' ' + t.request.url}", t.name)
        if t.outcome is TeamTestOutcome.SKIPPED:
            case.outcome, case.kind, case.message = "skipped", "skipped", "pm.test.skip"
        elif t.outcome is TeamTestOutcome.FAILED and spec.failing_team_tests(fail_on):
            case.outcome, case.kind, case.message = "failure", "team_test", t.message or "failed"
        elif t.outcome is TeamTestOutcome.FAILED:
            case.out = [f"failed, not failing the check (team-tests: {tests.policy.value}, or fail-on): {t.message}"]
        out.append(case)
    return out


def _operation_cases(run: RunResult) -> list[_Case]:
    skips = {k.label: k for k in run.skipped}
    out = []
    covered = set()
    for c in run.coverage:
        covered.add(c.label)
        if not c.enabled:
            continue
        case = _Case(c.label, "oracles exercised",
                     out=[f"{c.exercised} of {c.enabled} enabled oracle(s) met a value; {c.checked} of {c.sent} "
                          "response(s) checked"])
        skip = skips.get(c.label)
        if not c.checked:
            case.outcome = "skipped"
            case.kind = skip.kind.value if skip is not None else "not_checked"
            case.message = (f"{c.enabled} oracle(s) not exercised: {skip.detail}" if skip is not None else
                            f"{c.enabled} oracle(s) not exercised: no 2XX JSON response of it was checked")
        out.append(case)
    for skip in run.skipped:
        if skip.label not in covered:
            out.append(_Case(skip.label, "oracles exercised", "skipped", skip.kind.value, f"not sent: {skip.detail}"))
    return out


def _cases(spec: SpecCheck, fail_on: FailOn) -> list[_Case]:
    cases = _spec_cases(spec)
    run = spec.run
    if spec.error is not None or run is None:
        return cases
    return [*cases, *_staging_cases(spec, run), *_change_cases(spec), _server_error_case(spec, run, fail_on),
            *_violation_cases(spec, run, fail_on), *_team_cases(spec, run, fail_on), *_operation_cases(run)]


def _case_element(case: _Case) -> ET.Element:
    element = ET.Element("testcase", {"classname": shown(case.classname), "name": shown(case.name)})
    if case.outcome:
        detail = ET.SubElement(element, case.outcome, {"type": shown(case.kind, 80), "message": shown(case.message)})
        if case.lines:
            detail.text = "\n".join(shown(line) for line in case.lines)
    if case.out:
        ET.SubElement(element, "system-out").text = "\n".join(shown(line) for line in case.out)
    return element


def _seconds(run: RunResult | None) -> str:
    return f"{max(run.seconds, 0.0):.3f}" if run is not None else "0.000"


def _properties(suite: ET.Element, spec: SpecCheck, fail_on: FailOn) -> None:
    values = [("fail_on", fail_on.value), ("oracle_file", spec.oracle_file), ("head", spec.head_source)]
    if spec.base_source is not None:
        values.append(("base", spec.base_source))
    run = spec.run
    if run is not None:
        values += [("runner", run.runner), ("requests", str(run.requests)), ("checked", str(run.checked)),
                   ("oracles_enabled", str(run.oracles_enabled)), ("oracles_exercised", str(run.oracles_exercised)),
                   ("violations", str(run.violation_count))]
    props = ET.SubElement(suite, "properties")
    for name, value in values:
        ET.SubElement(props, "property", {"name": name, "value": shown(value)})


Counts = dict[str, int]


def _suite(spec: SpecCheck, fail_on: FailOn) -> tuple[ET.Element, Counts]:
    cases = _cases(spec, fail_on)
    counts = {"tests": len(cases), "failures": sum(c.outcome == "failure" for c in cases),
              "errors": sum(c.outcome == "error" for c in cases), "skipped": sum(c.outcome == "skipped" for c in cases)}
    suite = ET.Element("testsuite", {"name": shown(spec.spec), **{k: str(v) for k, v in counts.items()},
                                     "time": _seconds(spec.run), "file": shown(spec.spec)})
    _properties(suite, spec, fail_on)
    suite.extend(_case_element(c) for c in cases)
    return suite, counts


def junit_xml(report: CheckReport) -> str:
    """The report as JUnit XML (`<testsuites>`, one `<testsuite>` per spec), deterministic, redacted."""
    root = ET.Element("testsuites", {"name": "satori-ci"})
    totals = {"tests": 0, "failures": 0, "errors": 0}
    seconds = 0.0
    for spec in report.specs:
        suite, counts = _suite(spec, report.fail_on)
        root.append(suite)
        for key in totals:
            totals[key] += counts[key]
        seconds += max(spec.run.seconds, 0.0) if spec.run is not None else 0.0
    root.attrib.update({k: str(v) for k, v in totals.items()})
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
