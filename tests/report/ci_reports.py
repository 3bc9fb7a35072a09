"""A CheckReport with every case the JUnit and SARIF renderings have (failing, suspect, pre-existing and omitted
violations, operations not reached, staging unreachable, 5XX answers, a spec that did not read), its text
hostile, and a secret the tests register with the redactor."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satori_ci.observe.keys import suspect_key
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan.model import Skip, SkipKind
from satori_ci.report.model import CheckReport, FailOn, FieldLocation, SpecCheck, identity
from satori_ci.run.model import (
    OmittedViolations,
    OperationCoverage,
    RunResult,
    ServerError,
    Violation,
)
from tests.report import factory as f

if TYPE_CHECKING:  # both load in ~0.5 s: imported where a rendering is validated, not in every worker's collection
    import jsonschema
    import xmlschema

SCHEMAS = Path(__file__).parent / "schemas"


@cache
def _sarif_validator() -> jsonschema.Draft4Validator:
    import jsonschema

    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


@cache
def _junit_schema() -> xmlschema.XMLSchema:
    import xmlschema

    return xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))


def valid_sarif(text: str) -> dict[str, Any]:
    """The log, after checking it against the OASIS SARIF 2.1.0 schema."""
    data: dict[str, Any] = json.loads(text)
    errors = sorted(_sarif_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    return data


def valid_junit(text: str) -> None:
    """Checks the text against Jenkins' JUnit schema (xunit-plugin's junit-10.xsd)."""
    _junit_schema().validate(text)


SECRET = "sk-staging-7f3a9c2e51"
HOSTILE = f"</testcase>]]><![CDATA[x]]> \x00\x07\x1b[31m\ud800\ufffe ::error::boom\n::warning file=x::y <!-- {SECRET}"
DETAIL = f.DETAIL
LINE = {"price": 17, "rating": 23, "hostile": 31}


def _v(o: Oracle, value: str, pointer: str, n: int) -> Violation:
    return f.violation(o, value, pointer, n)


def hostile_spec() -> SpecCheck:
    price = f.oracle(field="businesses[].price")
    rating = f.oracle(OracleKind.NUMBER_MAX_VALUE, 5, field="businesses[].rating", source="rules")
    weird = f.oracle(OracleKind.STRING_IS_URL, None, field=f"businesses[].{HOSTILE}", source="llm:x")
    suspect = f.oracle(OracleKind.STRING_IS_EMAIL, None, field="owner.email", source="rules")
    before = f.oracle(OracleKind.NUMBER_MIN_VALUE, 1, field="total", source="rules")
    violations = (
        _v(price, '"$$$$$"', "/businesses/0/price", 0),
        _v(price, f'"{SECRET}"', "/businesses/1/price", 1),
        _v(rating, "7", "/businesses/0/rating", 2),
        _v(weird, f'"{HOSTILE}"', f"/businesses/0/{HOSTILE}", 3),
        _v(suspect, '"nobody"', "/owner/email", 4),
        _v(before, "0", "/total", 5),
    )
    run = RunResult(
        "native", 40, 38, violations, (f.infra(f"connection refused {HOSTILE}"),), (f.unchecked(),), seconds=2.5,
        server_errors=(ServerError(f.request(7), 503, 3, ("q",)),),
        skipped=(Skip("GET", "/businesses/{id}", SkipKind.NO_INPUT, "needs a value for id: --value id=..."),
                 Skip("DELETE", "/businesses/{id}", SkipKind.UNSAFE_METHOD, "not a safe method")),
        coverage=(OperationCoverage("GET", "/businesses/search", 40, 38, 4, 6),
                  OperationCoverage("GET", "/businesses/{id}", 0, 0, 0, 5)),
        omitted=(OmittedViolations(f.SEARCH, price.field, price, 2, 120),),
    )
    locations = {
        ("GET", "/businesses/search", "200", "businesses[].price"): FieldLocation(f.SPEC, LINE["price"]),
        ("GET", "/businesses/search", "200", "businesses[].rating"): FieldLocation(f.SPEC, LINE["rating"]),
        ("GET", "/businesses/search", "200", weird.field): FieldLocation(f.SPEC, LINE["hostile"]),
    }
    return f.spec_check(run_result=run, locations=locations,
                        new_oracles=frozenset(identity(o) for o in (price, weird, suspect, before)),
                        preexisting=frozenset({(*identity(before), "/total")}), suspects={suspect_key(suspect): 2})


def hostile_report(fail_on: FailOn = FailOn.NEW_VIOLATIONS) -> CheckReport:
    """A checked spec with every kind of finding, a spec that did not read, and one not run."""
    not_run = f.spec_check(run_result=None, run=None, spec="api/other.yaml", run_skipped="no staging URL")
    return CheckReport((hostile_spec(), f.error_spec(f"api/openapi.yaml:3: bad {HOSTILE}"), not_run), fail_on)
