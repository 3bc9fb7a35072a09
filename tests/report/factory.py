"""SpecCheck and CheckReport values built directly, for the renderer tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from satori_ci.errors import ExitCode
from satori_ci.infer.interface import BackendStats
from satori_ci.oracles.diff import ChangedOracle, FieldOracleDiff, OracleDiff
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.report.model import CheckReport, FailOn, FieldLocation, InferenceSummary, SpecCheck, identity
from satori_ci.run.model import (
    InfraProblem,
    ProblemKind,
    RequestRef,
    ResponseProblem,
    ResponseProblemKind,
    RunResult,
    Violation,
)
from satori_ci.spec.diff import ChangedField, FieldDiff, MovedField
from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation

SEARCH = OperationKey("GET", "/businesses/search", "200")
DETAIL = OperationKey("GET", "/businesses/{id}", "200")
SPEC = "api/openapi.yaml"
ORACLE_FILE = ".satori/api/openapi.oracles.yaml"

HOSTILE = (
    'quote " and \' here',
    "pipe | in | cells",
    "</details><details><summary>pwned",
    "<script>alert(1)</script>",
    "@octocat please look",
    "fixes #123 and GH-45 and org/repo#7",
    "``` fenced ` tick ``",
    "${x} and $y$ math",
    "line one\nline two\r\n# heading\n- item",
    "end of comment --> <!-- again",
    "[link](https://evil.example) ![img](x) **bold** _it_ ~~s~~",
    "https://evil.example/path and www.evil.example",
    "\x1b[31mred\x1b[0m \u202etxt.exe",
    "back\\slash \\| pipe",
)
"""Strings a spec, an oracle file or a response could carry to break the rendering."""


def rfield(path: str = "price", type: str = "string", op: OperationKey = SEARCH, **facts: Any) -> ResponseField:
    """A ResponseField of `op` (fingerprint derived from the path, so equal fields compare equal)."""
    return ResponseField(operation=op, operation_id="searchBusinesses", field=path, name=path.rsplit(".", 1)[-1],
                         type=type, facts=FieldFacts(**facts), api_title="Yelp", location=SourceLocation(SPEC, "/x"),
                         fingerprint=f"fp-{path}")


def oracle(kind: OracleKind = OracleKind.STRING_SPECIFIC_VALUES, value: Any = ("$", "$$", "$$$"), *,
           field: str = "businesses[].price", op: OperationKey = SEARCH, source: str = "declared",
           reason: str = "the schema's enum", enabled: bool = True, review: str | None = None) -> Oracle:
    return Oracle(op, field, kind, value, source, reason, enabled, review=review)


def request(n: int = 0) -> RequestRef:
    return RequestRef(item=f"item-{n}", iteration=0, method="GET", url=f"https://staging.example/businesses/search?n={n}")


def violation(o: Oracle | None = None, value: str = '"$$$$$"', pointer: str = "/businesses/0/price",
              n: int = 0) -> Violation:
    o = o or oracle()
    return Violation(o.operation, o.field, o, pointer, value, f"{value} breaks {o.kind.value}", request(n))


def run(violations: tuple[Violation, ...] = (), *, requests: int = 40, checked: int = 40,
        infrastructure: tuple[InfraProblem, ...] = (), unchecked: tuple[ResponseProblem, ...] = (),
        runner: str = "native") -> RunResult:
    return RunResult(runner, requests, checked, violations, infrastructure, unchecked, seconds=1.25)


def infra(detail: str = "connection refused", attempts: int = 3) -> InfraProblem:
    return InfraProblem(request(9), ProblemKind.CONNECTION, detail, attempts)


def unchecked(detail: str = "status 404") -> ResponseProblem:
    return ResponseProblem(request(8), ResponseProblemKind.UNEXPECTED_STATUS, 404, detail)


def field_diff(*, unchanged: int = 120, note: str = "enum gained 'custom'") -> FieldDiff:
    old, new = rfield("businesses[].price"), replace(rfield("businesses[].price"), fingerprint="fp-new")
    moved = MovedField(rfield("id", op=DETAIL), rfield("business_id", op=DETAIL))
    return FieldDiff(added=(rfield("businesses[].rating", "number"),), removed=(rfield("region.center", "object"),),
                     changed=(ChangedField(old, new, (note, "description changed")),), moved=(moved,),
                     unchanged=unchanged)


def oracle_diff(reason: str = "the schema's enum") -> OracleDiff:
    added = oracle(OracleKind.NUMBER_MAX_VALUE, 5, field="businesses[].rating", source="rules", reason=reason)
    old = oracle(OracleKind.NUMBER_MIN_VALUE, 0, field="total", source="rules", reason="counts are positive")
    new = replace(old, value=1, source="manual", reason="at least one result")
    return OracleDiff((
        FieldOracleDiff(SEARCH, "businesses[].rating", (added,), (), ()),
        FieldOracleDiff(SEARCH, "region.center.latitude", (), (oracle(OracleKind.NUMBER_MIN_VALUE, -90,
                                                                       field="region.center.latitude"),), ()),
        FieldOracleDiff(SEARCH, "total", (), (), (ChangedOracle(old, new, "value"),)),
    ))


def spec_check(violations: tuple[Violation, ...] = (), *, run_result: RunResult | None = None, **overrides: Any
               ) -> SpecCheck:
    """A checked spec with a field diff, an oracle diff and a run with `violations` (override anything)."""
    result = run_result if run_result is not None else run(violations)
    locations = {(v.operation.method, v.operation.path, v.operation.status, v.field): FieldLocation(SPEC, 42)
                 for v in result.violations}
    values: dict[str, Any] = dict(
        spec=SPEC, head_source="HEAD:api/openapi.yaml", base_source="origin/main:api/openapi.yaml",
        oracle_file=ORACLE_FILE, field_diff=field_diff(), oracle_diff=oracle_diff(),
        inference=InferenceSummary("rules", reused=40, moved=1, inferred=3, pending=0, stats=BackendStats()),
        oracles_enabled=12, run=result, locations=locations,
        new_oracles=frozenset(identity(o) for f in oracle_diff().fields for o in f.added))
    values.update(overrides)
    return SpecCheck(**values)


def violations_of(n_fields: int, per_field: int, value: str = '"bad"') -> tuple[Violation, ...]:
    """`per_field` violations on each of `n_fields` fields."""
    out = []
    for f in range(n_fields):
        o = oracle(field=f"businesses[].f{f}")
        out += [violation(o, value, f"/businesses/{i}/f{f}", i) for i in range(per_field)]
    return tuple(out)


def report(*specs: SpecCheck, fail_on: FailOn = FailOn.VIOLATIONS) -> CheckReport:
    return CheckReport(specs=specs or (spec_check((violation(),)),), fail_on=fail_on)


def error_spec(message: str = "api/openapi.yaml:3: mapping values are not allowed here",
               code: ExitCode = ExitCode.INPUT_ERROR) -> SpecCheck:
    return SpecCheck(spec=SPEC, head_source="HEAD:api/openapi.yaml", base_source=None, oracle_file=ORACLE_FILE,
                     field_diff=None, oracle_diff=None, inference=None, oracles_enabled=0, run=None,
                     error=message, error_code=code)
