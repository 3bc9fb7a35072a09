"""`fail-on: new-violations` and violations that existed before the change: a value that the field's earlier
oracles reject too is pre-existing (re-checked on the recorded value, when it was not cut short)."""

from __future__ import annotations

from dataclasses import replace

from satori_ci.check.conclude import preexisting
from satori_ci.config import SpecConfig
from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import render_comment
from satori_ci.report.model import FailOn, identity
from tests.report import factory as f

FIELD = "businesses[].rating"


def _check(values: list[str]) -> tuple[f.SpecCheck, OracleFile]:
    old = f.oracle(OracleKind.NUMBER_MAX_VALUE, 50, field=FIELD, source="rules", reason="up to 50")
    new = replace(old, value=40, reason="up to 40")
    before = OracleFile("api.yaml", (FieldEntry(f.SEARCH, FIELD, "fp", (old,)),))
    found = tuple(f.violation(new, v, f"/businesses/{i}/rating", i) for i, v in enumerate(values))
    return f.spec_check(found, new_oracles=frozenset({identity(new)})), before


def test_a_value_the_earlier_oracle_rejects_too_is_preexisting() -> None:
    long = "[" + ", ".join(["99"] * 80) + "]"  # cut at 200 characters: cannot be checked again
    checked, before = _check(["60", "45", long[:199] + "…"])
    found = preexisting(checked.run, before, checked.new_oracles, SpecConfig(path="api.yaml"))
    assert found == {(*identity(checked.run.violations[0].oracle), "/businesses/0/rating")}  # type: ignore[union-attr]
    marked = replace(checked, preexisting=found)
    assert [v.value for v in marked.failing_violations(FailOn.NEW_VIOLATIONS)] == ["45", long[:199] + "…"]
    assert len(marked.failing_violations(FailOn.VIOLATIONS)) == 3  # only new-violations looks at the past
    assert preexisting(checked.run, None, checked.new_oracles, SpecConfig(path="api.yaml")) == frozenset()
    report = f.report(marked, fail_on=FailOn.NEW_VIOLATIONS)
    spec = report_json(report)["specs"][0]
    assert [v["preexisting"] for v in spec["violations"]] == [True, False, False]
    assert spec["counts"]["preexisting"] == 1
    body = render_comment(marked, FailOn.NEW_VIOLATIONS).body
    assert "`/businesses/0/rating` (pre-existing)" in body and ", 1 pre-existing)" in body.splitlines()[1]


def test_an_oracle_that_was_not_new_is_never_preexisting() -> None:
    checked, before = _check(["60"])
    unchanged = replace(checked, new_oracles=frozenset())
    assert preexisting(unchanged.run, before, unchanged.new_oracles, SpecConfig(path="api.yaml")) == frozenset()
