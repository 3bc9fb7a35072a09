"""Workflow-command annotations: levels, locations, escaping, the per-type cap."""

from __future__ import annotations

from dataclasses import replace

from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.annotations import command, render_annotations
from satori_ci.report.model import FailOn, FieldLocation
from tests.report import factory as f


def _of(lines: list[str], level: str) -> list[str]:
    return [line for line in lines if line.startswith(f"::{level} ")]


def test_a_field_with_a_violation_is_an_error_on_its_spec_line() -> None:
    spec = f.spec_check((f.violation(), f.violation(value='"x"', pointer="/businesses/1/price", n=1)))
    errors = _of(render_annotations(f.report(spec)), "error")
    assert errors == [
        "::error file=api/openapi.yaml,line=42,title=Oracle violation%3A GET /businesses/search 200 "
        'businesses[].price::2 value(s) break 1 oracle(s): string_specific_values ["$", "$$", "$$$"]: "$$$$$" '
        "at /businesses/0/price (and 1 more)"]


def test_oracle_changes_are_notices_and_weakenings_warnings() -> None:
    lines = render_annotations(f.report(f.spec_check()))
    notices, warnings = _of(lines, "notice"), _of(lines, "warning")
    assert len(notices) == 2 and len(warnings) == 1
    assert notices[0].startswith("::notice file=api/openapi.yaml,title=Oracle added%3A GET /businesses/search 200 "
                                 "businesses[].rating::number_max_value 5 (rules: the schema's enum)")
    assert warnings[0].startswith("::warning file=api/openapi.yaml,title=Oracle removed%3A")
    assert "number_min_value 0 (rules: counts are positive) -> number_min_value 1 (manual: at least one result)" \
        in notices[1]


def test_violations_not_failing_the_check_are_warnings() -> None:
    lines = render_annotations(f.report(f.spec_check((f.violation(),)), fail_on=FailOn.NEVER))
    assert not _of(lines, "error")
    assert any("title=Oracle violation" in line for line in _of(lines, "warning"))


def test_a_spec_that_could_not_be_read_is_an_error() -> None:
    lines = render_annotations(f.report(f.error_spec()))
    assert lines == ["::error file=api/openapi.yaml,title=satori-ci%3A spec not checked::api/openapi.yaml:3: "
                     "mapping values are not allowed here"]


def test_properties_and_messages_are_escaped() -> None:
    o = f.oracle(OracleKind.STRING_SPECIFIC_VALUES, ("a",), field="x,y:z%\n::error::boom", reason="r\r\n100%")
    spec = f.spec_check((f.violation(o, '"a,b"'),), oracle_diff=None,
                        locations={("GET", "/businesses/search", "200", o.field): FieldLocation("d,ir/a:b.yaml", 7)})
    (line,) = render_annotations(f.report(spec))
    assert line.startswith("::error file=d%2Cir/a%3Ab.yaml,line=7,title=Oracle violation%3A GET /businesses/search "
                           "200 x%2Cy%3Az%25↵%3A%3Aerror%3A%3Aboom::")
    assert "\n" not in line and "\r" not in line
    assert command("notice", "50%\nnext") == "::notice::50%25↵next"
    assert command("notice", "x", file="a,b") == "::notice file=a%2Cb::x"


def test_control_sequences_from_responses_do_not_reach_the_log() -> None:
    spec = f.spec_check((f.violation(value='"\x1b[2J"'),), oracle_diff=None)
    (line,) = render_annotations(f.report(spec))
    assert "\x1b" not in line and "\\x1b[2J" in line


def test_each_type_is_capped_with_a_count_of_the_rest() -> None:
    spec = f.spec_check(f.violations_of(25, 2))
    errors = _of(render_annotations(f.report(spec), cap=10), "error")
    assert len(errors) == 10
    assert errors[-1] == "::error title=satori-ci::16 more error annotation(s) not shown: see the job summary"
    assert len(_of(render_annotations(f.report(spec), cap=30), "error")) == 25


def test_infrastructure_problems_are_one_warning() -> None:
    spec = replace(f.spec_check(run_result=f.run(infrastructure=(f.infra(), f.infra()), checked=38)),
                   oracle_diff=None)
    (line,) = render_annotations(f.report(spec))
    assert line.startswith("::warning file=api/openapi.yaml,title=satori-ci%3A staging unreachable::2 request(s) "
                           "failed, first: GET https://staging.example/businesses/search?n=9: connection refused")
