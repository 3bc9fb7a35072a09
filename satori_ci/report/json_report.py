"""The machine-readable report, and the per-spec verdict that every renderer puts into words."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from satori_ci.errors import ExitCode
from satori_ci.oracles.diff import FieldOracleDiff, OracleDiff, oracle_identity
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.report.accept_commands import all_command
from satori_ci.report.model import CheckReport, FailOn, InferenceSummary, SpecCheck
from satori_ci.report.oracle_text import describe, oracle_diff_json
from satori_ci.report.spec_text import diff_json
from satori_ci.run.model import Violation
from satori_ci.spec.model import OperationKey

SCHEMA_VERSION = 1


class Outcome(StrEnum):
    ERROR = "error"
    """The spec could not be checked."""
    VIOLATIONS = "violations"
    """Violations that fail the check under fail-on."""
    TOLERATED = "tolerated"
    """Violations, none failing under fail-on."""
    SERVER_ERRORS = "server_errors"
    """5XX answers that fail the check under fail-on (no violations)."""
    TEAM_TESTS_FAILED = "team_tests_failed"
    """Tests of the team's own collection failed (`team-tests: fail`), no violation failing the check."""
    UNREACHABLE = "unreachable"
    """Staging could not be asked, or no response could be checked."""
    AUTH_FAILED = "auth_failed"
    """Most answers were 401/403: the credentials were refused."""
    NOTHING_CHECKED = "nothing_checked"
    """Responses came back, but no enabled oracle met a value (or fewer than asked)."""
    CHANGE_UNCHECKED = "change_unchecked"
    """No finding, but the run exercised fewer of the oracles this change adds or changes than asked."""
    NOT_RUN = "not_run"
    CLEAN = "clean"


@dataclass(frozen=True)
class Verdict:
    """What one spec's check comes to: the outcome and the numbers its one-line wording needs."""

    outcome: Outcome
    violations: int = 0
    failing: int = 0
    fields: int = 0
    """Distinct (operation, field) pairs with a violation."""
    detail: str = ""
    """Untrusted: the error, why the run was skipped, or the first infrastructure problem."""
    suspect: int = 0
    """Violations of suspect oracles (violated on the trusted side too): listed, never failing."""
    preexisting: int = 0
    """Violations of added or changed oracles that the earlier oracles of the field flag too."""


def verdict(spec: SpecCheck, fail_on: FailOn) -> Verdict:
    """The outcome of one spec, most serious first: unreadable, violations, unreachable, not run, clean."""
    if spec.error is not None:
        return Verdict(Outcome.ERROR, detail=spec.error)
    run = spec.run
    if run is None:
        return Verdict(Outcome.NOT_RUN, detail=spec.run_skipped or "")
    if run.violations:
        fields = len({(v.operation, v.field) for v in run.violations})
        failing = spec.failing_count(fail_on)
        outcome = Outcome.VIOLATIONS if failing else (
            Outcome.TEAM_TESTS_FAILED if spec.failing_team_tests(fail_on) else Outcome.TOLERATED)
        suspect = len(spec.suspect_violations()) + sum(o.omitted for o in run.omitted if spec.is_suspect(o.oracle))
        preexisting = sum(1 for v in run.violations if spec.is_preexisting(v))
        return Verdict(outcome, run.violation_count, failing, fields, suspect=suspect, preexisting=preexisting)
    if spec.failing_server_errors(fail_on):
        return Verdict(Outcome.SERVER_ERRORS, len(run.server_errors), len(run.server_errors))
    if spec.failing_team_tests(fail_on) and run.team_tests is not None:
        first = run.team_tests.failures[0].label if run.team_tests.failures else ""
        return Verdict(Outcome.TEAM_TESTS_FAILED, failing=run.team_tests.failing, detail=first)
    if not run.requests and not run.infrastructure:
        if run.nothing_checked:
            return Verdict(Outcome.NOTHING_CHECKED, detail=f"no request was sent ({len(run.skipped)} "
                           "operation(s) not sent: see below)")
        return Verdict(Outcome.NOT_RUN, detail="the run had no request to send")
    if run.infrastructure:
        return Verdict(Outcome.UNREACHABLE, detail=run.infrastructure[0].detail)
    if run.auth_failure:
        return Verdict(Outcome.AUTH_FAILED, detail=run.auth_failure)
    if run.requests and not run.checked:
        first = run.unchecked[0].detail if run.unchecked else "no response could be checked"
        return Verdict(Outcome.UNREACHABLE, detail=first)
    if run.nothing_checked:
        return Verdict(Outcome.NOTHING_CHECKED, detail=run.nothing_checked)
    change = spec.change
    if change is not None and change.short:
        return Verdict(Outcome.CHANGE_UNCHECKED, detail=change.shortfall())
    return Verdict(Outcome.CLEAN)


OracleGroup = tuple[Oracle, list[Violation]]
FieldGroup = tuple[str, list[OracleGroup]]


def group_violations(violations: tuple[Violation, ...]) -> list[tuple[OperationKey, list[FieldGroup]]]:
    """Violations by operation, then field, then oracle, each in order of first appearance."""
    tree: dict[OperationKey, dict[str, dict[str, OracleGroup]]] = {}
    for v in violations:
        oracles = tree.setdefault(v.operation, {}).setdefault(v.field, {})
        oracles.setdefault(describe(v.oracle), (v.oracle, []))[1].append(v)
    return [(op, [(f, list(by_oracle.values())) for f, by_oracle in fields.items()]) for op, fields in tree.items()]


_VERDICT_WORDS = {ExitCode.OK: "clean", ExitCode.VIOLATIONS: "violations", ExitCode.INPUT_ERROR: "input_error",
                  ExitCode.INFRASTRUCTURE: "infrastructure", ExitCode.CHANGE_UNCHECKED: "change_unchecked",
                  ExitCode.INTERRUPTED: "interrupted"}


def _inference(summary: InferenceSummary | None) -> dict[str, Any] | None:
    if summary is None:
        return None
    stats = summary.stats
    return {"backend": summary.backend, "reused": summary.reused, "moved": summary.moved,
            "inferred": summary.inferred, "pending": summary.pending,
            "stats": {"calls": stats.calls, "failed_calls": stats.failed_calls, "fallbacks": stats.fallbacks,
                      "answered_by": [{"backend": label, "fields": n} for label, n in stats.answered_by],
                      "prompt_tokens": stats.prompt_tokens,
                      "completion_tokens": stats.completion_tokens, "cost_usd": round(stats.cost_usd, 6),
                      "warnings": list(stats.warnings)}}


def _observed_json(spec: SpecCheck) -> dict[str, Any]:
    """The observation store's summary, the observed suggestions (the commands that accept or reject them all) and the
    suspect oracles with the responses of the trusted side that violated them."""
    new = new_suggestions(spec)
    summary = spec.observation
    return {
        "store": None if summary is None else {
            "file": summary.store_file, "responses": summary.responses, "operations": summary.operations,
            "ready": summary.ready, "min_responses": summary.min_responses},
        "suggestions": [{**o.interchange(), "evidence": o.evidence, "enabled": o.enabled,
                         "new": suggestion_key(o) in new} for o in spec.suggestions],
        "accept": all_command(spec),
        "reject": all_command(spec, "reject"),
        "suspects": [{"method": k[0], "path": k[1], "status": k[2], "field": k[3], "oracle": k[4],
                      "violating_responses": n} for k, n in sorted(spec.suspects.items())],
    }


def suggestion_key(oracle: Oracle) -> tuple[OperationKey, str, object]:
    return (oracle.operation, oracle.field, oracle_identity(oracle))


def new_suggestions(spec: SpecCheck) -> set[tuple[OperationKey, str, object]]:
    """The suggestions this check added (or whose value it changed), by `suggestion_key`."""
    if spec.oracle_diff is None:
        return set()
    return {suggestion_key(o) for f in spec.oracle_diff.fields for o in (*f.added, *(c.new for c in f.changed))
            if is_suggestion(o)}


def is_suggestion(oracle: Oracle) -> bool:
    """An observed oracle waiting for a reviewer (disabled)."""
    return oracle.source == OBSERVED and not oracle.enabled


def reviewed_changes(diff: OracleDiff | None) -> OracleDiff | None:
    """The oracle diff without the observed suggestions coming, changing or going (listed on their own)."""
    if diff is None:
        return None
    fields = []
    for f in diff.fields:
        added = tuple(o for o in f.added if not is_suggestion(o))
        removed = tuple(o for o in f.removed if not is_suggestion(o))
        changed = tuple(c for c in f.changed if not (is_suggestion(c.new) and is_suggestion(c.old)))
        if added or removed or changed:
            fields.append(FieldOracleDiff(f.operation, f.field, added, removed, changed))
    return OracleDiff(tuple(fields))


def _spec_json(spec: SpecCheck, fail_on: FailOn) -> dict[str, Any]:
    found = verdict(spec, fail_on)
    failing = {id(v) for v in spec.failing_violations(fail_on)}
    run = spec.run
    out: dict[str, Any] = {
        "spec": spec.spec, "head_source": spec.head_source, "base_source": spec.base_source,
        "oracle_file": spec.oracle_file, "outcome": found.outcome.value,
        "error": spec.error, "error_code": None if spec.error_code is None else int(spec.error_code),
        "field_diff": None if spec.field_diff is None else diff_json(spec.field_diff),
        "oracle_diff": None if spec.oracle_diff is None else oracle_diff_json(spec.oracle_diff),
        "inference": _inference(spec.inference), "oracles_enabled": spec.oracles_enabled,
        "run_skipped": spec.run_skipped, "notices": list(spec.notices),
        "counts": {"violations": found.violations, "failing": found.failing, "fields": found.fields,
                   "suspect": found.suspect, "preexisting": found.preexisting},
        "observed": _observed_json(spec),
        "change": _change_json(spec),
        "run": None, "violations": [], "infrastructure": [], "unchecked": [],
    }
    if run is not None:
        out["run"] = {"runner": run.runner, "requests": run.requests, "checked": run.checked,
                      "seconds": round(run.seconds, 3), "exit_code": int(run.exit_code), "notes": list(run.notes),
                      "oracles_enabled": run.oracles_enabled, "oracles_exercised": run.oracles_exercised,
                      "auth_failure": run.auth_failure, "nothing_checked": run.nothing_checked,
                      "operations": [c.to_dict() for c in run.coverage],
                      "not_sent": [k.to_dict() for k in run.skipped],
                      "server_errors": [e.to_dict() for e in run.server_errors],
                      "violations_omitted": [o.to_dict() for o in run.omitted],
                      "team_tests": run.team_tests.to_dict() if run.team_tests is not None else None,
                      "opted_in": [r.to_dict() for r in run.opted_in]}
        out["violations"] = [{**v.to_dict(), "new": spec.is_new(v), "failing": id(v) in failing,
                              "suspect": spec.is_suspect(v.oracle), "preexisting": spec.is_preexisting(v)}
                             for v in run.violations]
        out["infrastructure"] = [p.to_dict() for p in run.infrastructure]
        out["unchecked"] = [p.to_dict() for p in run.unchecked]
    return out


def _change_json(spec: SpecCheck) -> dict[str, Any] | None:
    """Of the oracles this change adds or changes: how many, how many exercised, how many asked, and why the others
    were not (None when the change has no enabled oracle or nothing ran)."""
    found = spec.change
    if found is None:
        return None
    return {"changed": found.changed, "exercised": found.exercised, "required": found.required,
            "min_changed_exercised": str(found.minimum), "unchecked": found.short,
            "unexercised": [{"method": u.method, "path": u.path, "oracles": u.oracles, "why": u.why}
                            for u in found.unexercised]}


def report_json(report: CheckReport) -> dict[str, Any]:
    """Verdict, exit code and, per spec, diffs, oracle changes, violations and infrastructure problems."""
    code = report.exit_code
    return {
        "version": SCHEMA_VERSION,
        "verdict": _VERDICT_WORDS.get(code, code.name.lower()),
        "exit_code": int(code),
        "fail_on": report.fail_on.value,
        "violations": report.violations,
        "server_errors": report.server_errors,
        "team_tests_failing": report.team_tests_failing,
        "specs": [_spec_json(s, report.fail_on) for s in report.specs],
    }
