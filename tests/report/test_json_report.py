"""The machine-readable report."""

from __future__ import annotations

import json

from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.json_report import Outcome, report_json, verdict
from satori_ci.report.model import FailOn
from tests.report import factory as f


def test_report_json_has_verdict_exit_code_and_per_spec_details() -> None:
    new = f.oracle(OracleKind.NUMBER_MAX_VALUE, 5, field="businesses[].rating", source="rules",
                   reason="the schema's enum")
    spec = f.spec_check((f.violation(), f.violation(new, "7", "/businesses/0/rating")))
    data = report_json(f.report(spec, f.error_spec(), fail_on=FailOn.NEW_VIOLATIONS))
    assert json.loads(json.dumps(data)) == data
    assert (data["verdict"], data["exit_code"], data["fail_on"], data["violations"]) == \
        ("violations", 1, "new-violations", 2)
    first, second = data["specs"]
    assert first["outcome"] == "violations"
    assert first["counts"] == {"violations": 2, "failing": 1, "fields": 2, "suspect": 0, "preexisting": 0}
    assert first["field_diff"]["counts"] == {"added": 1, "removed": 1, "changed": 1, "moved": 1, "unchanged": 120}
    assert first["oracle_diff"]["counts"] == {"added": 1, "removed": 1, "changed": 1, "fields": 3}
    assert [(v["field"], v["new"], v["failing"]) for v in first["violations"]] == \
        [("businesses[].price", False, False), ("businesses[].rating", True, True)]
    assert first["violations"][0]["pointer"] == "/businesses/0/price"
    assert first["run"]["runner"] == "native" and first["inference"]["backend"] == "rules"
    assert second["outcome"] == "error" and second["error_code"] == 2 and second["run"] is None


def test_infrastructure_problems_are_listed() -> None:
    spec = f.spec_check(run_result=f.run(infrastructure=(f.infra(),), checked=39))
    data = report_json(f.report(spec))
    assert data["verdict"] == "infrastructure" and data["exit_code"] == 3
    assert data["specs"][0]["infrastructure"][0]["kind"] == "connection"


def test_verdict_order() -> None:
    assert verdict(f.spec_check((f.violation(),)), FailOn.NEVER).outcome is Outcome.TOLERATED
    infra_and_violation = f.spec_check(run_result=f.run((f.violation(),), infrastructure=(f.infra(),)))
    assert verdict(infra_and_violation, FailOn.VIOLATIONS).outcome is Outcome.VIOLATIONS
    nothing = verdict(f.spec_check(run_result=f.run(requests=0, checked=0)), FailOn.VIOLATIONS)
    assert (nothing.outcome, nothing.detail) == (Outcome.NOT_RUN, "the run had no request to send")
    assert verdict(f.spec_check(), FailOn.VIOLATIONS).outcome is Outcome.CLEAN
