"""SARIF 2.1.0 of a check, for code scanning (`github/codeql-action/upload-sarif`) and other SARIF viewers.

One run; `tool.driver` is satori-ci with one rule per oracle kind (17). A result per violated oracle of each spec
(its violations grouped, as annotations group them): level `error` when they fail the check under fail-on,
`warning` when suspect or pre-existing, `note` otherwise; located at the violated field's line in the spec
(`SpecCheck.locations`, line 1 when unknown), the spec path relative to the repository (`%SRCROOT%`), with a
`partialFingerprints` entry of the spec and the oracle's identity (no value, pointer or line: stable across
runs and edits). Results past `MAX_RESULTS` are counted in the run's properties and a notification. A spec that
could not be read, staging that could not be asked and 5XX answers are notifications of the invocation. Message
texts are plain, redacted and cut by `escape.terminal`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from satori_ci import __version__
from satori_ci.errors import ExitCode
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.report import escape as esc
from satori_ci.report.json_report import group_violations
from satori_ci.report.model import CheckReport, FailOn, SpecCheck, identity
from satori_ci.report.oracle_text import describe
from satori_ci.run.model import Violation
from satori_ci.spec.model import OperationKey

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/satori-ci/satori-ci"
MAX_RESULTS = 1_000
"""Results one log holds at the most (GitHub takes 25,000 a run; a violated oracle is one result)."""
MESSAGE_LIMIT = 1_000
VALUES_SHOWN = 3
"""Offending values a result's message names; the rest are counted."""
FINGERPRINT = "satoriOracle/v1"

RULES: dict[OracleKind, str] = {
    OracleKind.STRING_IS_URL: "The string is an absolute URL (scheme://host...).",
    OracleKind.STRING_IS_NUMERIC: "The string is a decimal number written as text.",
    OracleKind.STRING_SPECIFIC_VALUES: "The string is one of the listed values.",
    OracleKind.STRING_IS_EMAIL: "The string is an email address (local@domain.tld).",
    OracleKind.STRING_IS_DATE: "The string is a calendar date without a time of day.",
    OracleKind.STRING_IS_TIME: "The string is a time of day or a date-time.",
    OracleKind.STRING_FIXED_LENGTH: "The string has exactly the given number of characters.",
    OracleKind.BOOLEAN_ALWAYS_TRUE: "The boolean is always true.",
    OracleKind.BOOLEAN_ALWAYS_FALSE: "The boolean is always false.",
    OracleKind.NUMBER_MIN_VALUE: "The number is at least the given minimum.",
    OracleKind.NUMBER_MAX_VALUE: "The number is at most the given maximum.",
    OracleKind.NUMBER_SPECIFIC_VALUES: "The number is one of the listed values.",
    OracleKind.ARRAY_MIN_SIZE: "The array has at least the given number of elements.",
    OracleKind.ARRAY_MAX_SIZE: "The array has at most the given number of elements.",
    OracleKind.ARRAY_SPECIFIC_SIZES: "The array's length is one of the listed sizes.",
    OracleKind.ARRAY_NUMBER_ASC_ORDER: "The array's numbers are in ascending order.",
    OracleKind.ARRAY_NUMBER_DESC_ORDER: "The array's numbers are in descending order.",
}
_KINDS = list(OracleKind)


def _rule(kind: OracleKind) -> dict[str, Any]:
    words = kind.value.split("_")
    return {
        "id": kind.value,
        "name": "".join(w.capitalize() for w in words),
        "shortDescription": {"text": f"Oracle {kind.value}"},
        "fullDescription": {"text": f"{RULES[kind]} A value of a staging response broke this oracle of the field."},
        "help": {"text": f"{RULES[kind]} Fix the API, or the spec, or the oracle in the reviewed oracle file "
                         "(satori-ci accept/reject)."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["api", "openapi", "oracle", kind.applies_to]},
    }


_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: str, limit: int = MESSAGE_LIMIT) -> str:
    """Redacted, one line, cut; a lone surrogate (no UTF-8 for it) as `\\uNNNN` text, `<!--` (which would hide
    the rest where a viewer renders HTML) broken by an invisible joiner."""
    plain = _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", esc.terminal(value, limit))
    return plain.replace("<!--", "<" + esc.BREAK + "!--")


def artifact_location(path: str) -> dict[str, Any]:
    """A repository path relative to `%SRCROOT%` (percent-encoded); an absolute path as a `file:` URI."""
    posix = PurePosixPath(path.replace("\\", "/"))
    if posix.is_absolute():
        return {"uri": "file://" + quote(posix.as_posix(), safe="/")}
    parts = [p for p in posix.parts if p != "."]
    return {"uri": quote("/".join(parts), safe="/"), "uriBaseId": "%SRCROOT%"}


def fingerprint(spec: str, oracle: Oracle) -> str:
    """sha256 of the spec path and the oracle's identity (method, path, status, field, kind)."""
    return hashlib.sha256("\0".join((spec, *identity(oracle))).encode("utf-8", "surrogatepass")).hexdigest()


def _level(spec: SpecCheck, oracle: Oracle, found: list[Violation], failing: set[int]) -> str:
    if any(id(v) in failing for v in found):
        return "error"
    if spec.is_suspect(oracle) or any(spec.is_preexisting(v) for v in found):
        return "warning"
    return "note"


def _message(op: OperationKey, field: str, oracle: Oracle, found: list[Violation], total: int, level: str,
             spec: SpecCheck) -> str:
    shown = "; ".join(f"{_text(v.value, 200)} at {_text(v.pointer or '(body)', 200)}" for v in found[:VALUES_SHOWN])
    more = f" (and {total - min(len(found), VALUES_SHOWN)} more)" if total > VALUES_SHOWN else ""
    why = ""
    if level != "error":
        why = (" Suspect: the base side's responses violate it too." if spec.is_suspect(oracle) else
               " Pre-existing: the field's earlier oracles reject these values too."
               if any(spec.is_preexisting(v) for v in found) else " Not failing the check under fail-on.")
    return _text(f"{op} {field or '(body)'}: {total} value(s) break {describe(oracle)}: {shown}{more}.{why}")


def _results(spec: SpecCheck, fail_on: FailOn) -> list[dict[str, Any]]:
    run = spec.run
    if run is None:
        return []
    failing = {id(v) for v in spec.failing_violations(fail_on)}
    omitted = {identity(o.oracle): o.omitted for o in run.omitted}
    out = []
    for op, fields in group_violations(run.violations):
        for field, oracles in fields:
            where = spec.locations.get((op.method, op.path, op.status, field))
            file = where.file if where is not None else spec.spec
            line = where.line if where is not None and where.line is not None and where.line > 0 else 1
            for oracle, found in oracles:
                total = len(found) + omitted.get(identity(oracle), 0)
                level = _level(spec, oracle, found, failing)
                out.append({
                    "ruleId": oracle.kind.value,
                    "ruleIndex": _KINDS.index(oracle.kind),
                    "level": level,
                    "message": {"text": _message(op, field, oracle, found, total, level, spec)},
                    "locations": [{"physicalLocation": {"artifactLocation": artifact_location(_text(file, 500)),
                                                        "region": {"startLine": line}}}],
                    "partialFingerprints": {FINGERPRINT: fingerprint(spec.spec, oracle)},
                    "properties": {"operation": _text(str(op), 500), "field": _text(field, 500),
                                   "oracle": _text(describe(oracle), 500), "source": _text(oracle.source, 200),
                                   "violations": total, "new": spec.is_new(found[0]),
                                   "suspect": spec.is_suspect(oracle),
                                   "preexisting": all(spec.is_preexisting(v) for v in found)},
                })
    return out


def _notification(level: str, text: str, spec: str | None = None) -> dict[str, Any]:
    note: dict[str, Any] = {"level": level, "message": {"text": _text(text)}}
    if spec is not None:
        note["locations"] = [{"physicalLocation": {"artifactLocation": artifact_location(_text(spec, 500))}}]
    return note


def _notifications(spec: SpecCheck, fail_on: FailOn) -> list[dict[str, Any]]:
    if spec.error is not None:
        return [_notification("error", f"{spec.spec}: not checked: {spec.error}", spec.spec)]
    run = spec.run
    if run is None:
        return [_notification("note", f"{spec.spec}: oracles not run: {spec.run_skipped or 'no staging'}", spec.spec)]
    out = []
    if run.infrastructure:
        first = run.infrastructure[0]
        out.append(_notification("error", f"{spec.spec}: {len(run.infrastructure)} request(s) failed, first: "
                                 f"{first.request.method} {first.request.url}: {first.detail}", spec.spec))
    for problem in (run.auth_failure, run.nothing_checked):
        if problem:
            out.append(_notification("error", f"{spec.spec}: {problem}", spec.spec))
    change = spec.change
    if change is not None and change.short:
        reasons = "; ".join(f"{u.label}: {u.why}" for u in change.unexercised[:5])
        out.append(_notification("error", f"{spec.spec}: the change went unchecked: {change.shortfall()}. {reasons}",
                                 spec.spec))
    if run.server_errors:
        first_error = run.server_errors[0]
        level = "error" if spec.failing_server_errors(fail_on) else "warning"
        out.append(_notification(level, f"{spec.spec}: {len(run.server_errors)} 5XX answer(s), first: "
                                 f"{first_error.request.method} {first_error.request.url}: status "
                                 f"{first_error.status}", spec.spec))
    return out


def sarif_data(report: CheckReport, max_results: int = MAX_RESULTS) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (a JSON value)."""
    results = [r for spec in report.specs for r in _results(spec, report.fail_on)]
    notes = [n for spec in report.specs for n in _notifications(spec, report.fail_on)]
    left_out = max(len(results) - max_results, 0)
    if left_out:
        notes.append(_notification("warning", f"{left_out} of {len(results)} result(s) left out: a log holds "
                                   f"{max_results} at the most; the JSON report (--json) has them all"))
    code = report.exit_code
    ran = code not in (ExitCode.INPUT_ERROR, ExitCode.INFRASTRUCTURE)
    invocation: dict[str, Any] = {"executionSuccessful": ran, "exitCode": int(code)}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "satori-ci", "version": __version__, "informationUri": INFORMATION_URI,
                                "rules": [_rule(k) for k in _KINDS]}},
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
            "results": results[:max_results],
            "properties": {"failOn": report.fail_on.value, "exitCode": int(code), "resultsCap": max_results,
                           "results": len(results), "resultsLeftOut": left_out,
                           "violations": report.violations},
        }],
    }


def sarif_log(report: CheckReport, max_results: int = MAX_RESULTS) -> str:
    """`sarif_data` as JSON text: keys in a fixed order, deterministic, one trailing newline."""
    return json.dumps(sarif_data(report, max_results), ensure_ascii=False, indent=2) + "\n"
