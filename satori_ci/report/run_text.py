"""A run's results as plain text and JSON (pure rendering).

In the plain text every line is `escape.visible`: a value from the spec or a response stays on its line, and no
control character of theirs is printed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.plan.model import SENT, Skip, SkipKind
from satori_ci.report.coverage import coverage_of, distinct
from satori_ci.report.escape import clip, visible
from satori_ci.report.team_text import MESSAGE_LIMIT, NOT_RUN
from satori_ci.run.model import RunResult, Violation

MAX_LISTED = 200
"""Violations spelled out in the text; the rest are counted (the JSON report has them all)."""


UNSAFE_LISTED = 3
"""Non-safe operations not sent that are listed one by one; more are said in one line (`unsafe_summary`)."""


def unsafe_summary(unsafe: Sequence[Skip]) -> str:
    """The non-safe operations not sent, in one line: how many, the first five, how to opt in."""
    return (f"{len(unsafe)} non-safe operations ({', '.join(k.label for k in unsafe[:5])}"
            f"{', ...' if len(unsafe) > 5 else ''}): only GET and HEAD are sent unless opted in with "
            "--unsafe \"METHOD /path\" or requests: unsafe: [...] in .satori.yml")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def observed_mark(oracle: Oracle) -> str:
    """` (observed)` after a violated oracle that a reviewer accepted from observed responses, else nothing: the
    one mark every rendering of a violation (comment, terminal, annotations, run text) puts after the oracle."""
    return " (observed)" if oracle.source == OBSERVED and oracle.enabled else ""


def _oracle(v: Violation) -> str:
    value = v.oracle.value
    if value is None:
        return v.oracle.kind.value + observed_mark(v.oracle)
    shown = list(value) if isinstance(value, tuple) else value
    return f"{v.oracle.kind.value} {json.dumps(shown, ensure_ascii=False)}{observed_mark(v.oracle)}"


def summary_line(result: RunResult, seconds: bool = True) -> str:
    parts = [
        _plural(result.requests, "response"),
        f"{result.checked} checked",
        _plural(result.violation_count, "violation"),
    ]
    if result.server_errors:
        parts.append(_plural(len(result.server_errors), "server error"))
    team = result.team_tests
    if team is not None and team.shown and team.ran:
        parts.append(f"team tests: {team.counts()}" + (" (team-tests: warn)" if team.failed and not team.failing
                                                        else ""))
    if result.infrastructure:
        parts.append(_plural(len(result.infrastructure), "infrastructure problem"))
    if result.unchecked:
        parts.append(f"{len(result.unchecked)} not checked")
    found = coverage_of(result)
    if found is not None:
        parts.append(found.headline().replace(" · ", ", "))
    if result.skipped:
        parts.append(f"{len({k.label for k in result.skipped})} operation(s) not sent")
    timing = f", {result.seconds:.1f} s" if seconds else ""
    return f"{result.runner}: " + ", ".join(parts) + f"{timing}"


def run_text(result: RunResult) -> str:
    """Violations first (operation, field, oracle, where, what), then infrastructure, then unchecked."""
    out: list[str] = []
    for v in result.violations[:MAX_LISTED]:
        where = v.pointer or "(body)"
        iteration = f" (iteration {v.request.iteration + 1})" if v.request.iteration else ""
        out += [f"VIOLATION {v.operation}  {v.field or '(body)'}  {_oracle(v)}", f"  {v.message} at {where}",
                f"  request: {v.request.method} {v.request.url}{iteration}"]
    if len(result.violations) > MAX_LISTED:
        out.append(f"... and {len(result.violations) - MAX_LISTED} more violations (see the JSON report)")
    for o in result.omitted:
        out.append(f"... {o.omitted} more violations of {o.operation}  {o.field or '(body)'}  {o.oracle.kind.value} "
                   f"not listed (the first {o.listed} are)")
    out += _team_lines(result)
    for e in result.server_errors:
        attempts = f" after {_plural(e.attempts, 'attempt')}" if e.attempts > 1 else ""
        out.append(f"SERVER ERROR {e.status}: {e.request.method} {e.request.url}{attempts}{e.hint}")
    for p in result.infrastructure:
        attempts = f" after {_plural(p.attempts, 'attempt')}" if p.attempts > 1 else ""
        out.append(f"INFRASTRUCTURE {p.kind.value}: {p.request.method} {p.request.url}: {p.detail}{attempts}")
    for u in result.unchecked:
        out.append(f"NOT CHECKED {u.kind.value}: {u.request.method} {u.request.url}: {u.detail}")
    skipped = distinct(result.skipped)
    unsafe = [k for k in skipped if k.kind is SkipKind.UNSAFE_METHOD]
    for skip in skipped:
        if skip.kind is not SkipKind.UNSAFE_METHOD or len(unsafe) <= UNSAFE_LISTED:
            out.append(f"{'NOT REACHED' if skip.kind in SENT else 'NOT SENT'} {skip.label}: {skip.detail}")
    if len(unsafe) > UNSAFE_LISTED:
        out.append(f"NOT SENT {unsafe_summary(unsafe)}")
    for label, sent, checked, enabled in (found.unexercised if (found := coverage_of(result)) else ()):
        out.append(f"NO ORACLE EXERCISED {label}: {sent} sent, {checked} checked, {enabled} oracle(s) met no value")
    for note in result.notes:
        out.append(f"note: {note}")
    for problem in (result.auth_failure, result.nothing_checked):
        if problem:
            out.append(f"error: {problem}")
    out.append(summary_line(result, seconds=result.runner != "verify"))
    return "".join(visible(line) + "\n" for line in out)


def _team_lines(result: RunResult) -> list[str]:
    """The team collection's failing tests (or that they were not run) and its opted-in requests."""
    out = []
    team = result.team_tests
    if team is not None and team.shown:
        if not team.ran:
            out.append(f"note: team tests: {NOT_RUN}")
        word = "TEAM TEST FAILED" if team.failing else "TEAM TEST FAILED (team-tests: warn)"
        out += [f"{word} {t.label}: {clip(t.message, MESSAGE_LIMIT) or 'failed'}" for t in team.failures]
        if team.failed > len(team.failures):
            out.append(f"... and {team.failed - len(team.failures)} more failing team tests (counted in the JSON "
                       "report)")
    for r in result.opted_in:
        answers = ", ".join("no answer" if s is None else f"HTTP {s}" for s in r.statuses)
        out.append(f"SENT (opted in) {r.method} {r.path} ({r.label}): {answers}" if r.statuses else
                   f"NOT SENT (opted in) {r.method} {r.path} ({r.label}): {r.detail}")
    return out


def run_json(result: RunResult, extra: dict[str, Any] | None = None) -> str:
    payload = {**(extra or {}), **result.to_dict()}
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
