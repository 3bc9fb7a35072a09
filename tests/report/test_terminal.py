"""The terminal rendering: the same findings, plain or coloured, no Markdown and no control sequences from input."""

from __future__ import annotations

from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.model import FailOn
from satori_ci.report.terminal import render_terminal
from satori_ci.run.model import Violation
from tests.report import factory as f


def test_plain_output_lists_verdict_violations_and_changes() -> None:
    text = render_terminal(f.report(f.spec_check((f.violation(),))), colour=False)
    lines = text.splitlines()
    assert lines[0] == "✖ 1 oracle violation in 1 field of api/openapi.yaml"
    assert "  GET /businesses/search 200" in lines
    assert '    businesses[].price  string_specific_values ["$", "$$", "$$$"]' in lines
    assert '      "$$$$$"  at /businesses/0/price' in lines
    assert "Oracle changes: 1 added, 1 removed, 1 changed on 3 field(s), in .satori/api/openapi.oracles.yaml" in lines
    assert "  ~ GET /businesses/search 200  businesses[].price: enum gained 'custom'; description changed" in lines
    assert lines[-1] == "1 spec(s) checked, 1 violation(s), exit code 1 (violations)"
    assert "\x1b" not in text and "`" not in text and "|" not in text and "**" not in text


def test_colour_only_when_asked() -> None:
    report = f.report(f.spec_check((f.violation(),)))
    coloured = render_terminal(report, colour=True)
    assert coloured.startswith("\x1b[31;1m✖ 1 oracle violation")
    assert render_terminal(report, colour=False) != coloured


def test_input_cannot_write_escape_sequences() -> None:
    o = f.oracle(field="a\x1b]0;pwned\x07", reason="\x1b[2J")
    spec = f.spec_check((f.violation(o, '"\x1b[31m"'),), spec="api/\x1b[2Jx.yaml", run_skipped=None)
    for colour in (False, True):
        text = render_terminal(f.report(spec), colour=colour)
        assert "\x1b]" not in text and "\x1b[2J" not in text and "\x07" not in text
        assert "\\x1b]0;pwned\\x07" in text


def test_every_verdict_and_the_totals() -> None:
    report = f.report(f.spec_check(), f.error_spec(), f.spec_check(run_result=None, run=None,
                                                                   run_skipped="no staging URL"))
    lines = render_terminal(report, colour=False).splitlines()
    assert "✔ No violations in api/openapi.yaml: 12 oracles checked against staging (40 responses)" in lines
    assert "✖ api/openapi.yaml could not be checked: api/openapi.yaml:3: mapping values are not allowed here" in lines
    assert "ℹ Oracles not run on api/openapi.yaml: no staging URL" in lines
    assert lines[-1] == "2 of 3 spec(s) checked, 0 violation(s), exit code 2 (input_error)"


def test_new_violations_are_marked_and_long_groups_cut() -> None:
    spec = f.spec_check(f.violations_of(1, 15))
    text = render_terminal(f.report(spec, fail_on=FailOn.NEW_VIOLATIONS), colour=False)
    assert "      … and 5 more" in text
    assert "(fail-on new-violations: none on an oracle this pull request added or changed)" in text


def test_an_array_size_violation_says_the_size_and_clips_the_dump() -> None:
    sized = f.oracle(OracleKind.ARRAY_MAX_SIZE, 24, field="businesses")
    dump = "[" + ", ".join(['{"id": "abcdefgh"}'] * 30) + "]"
    v = Violation(sized.operation, sized.field, sized, "/businesses", dump,
                  f"businesses = {dump} has 30 elements, more than 24", f.request())
    text = render_terminal(f.report(f.spec_check((v,))), colour=False)
    row = next(line for line in text.splitlines() if "at /businesses" in line)
    assert row.endswith("(has 30 elements, more than 24)") and len(row) < 220


def test_responses_not_checked_are_grouped_by_cause() -> None:
    problems = tuple(f.unchecked("HTTP 404, expected 200") for _ in range(200))
    text = render_terminal(f.report(f.spec_check(run_result=f.run(unchecked=problems))), colour=False)
    grouped = [line for line in text.splitlines() if "not checked" in line]
    assert len(grouped) == 1 and "200 responses, e.g. GET" in grouped[0]
