"""The job summary: every spec's verdict in one table, then each spec's full report."""

from __future__ import annotations

from collections.abc import Mapping

from satori_ci.report import escape as esc
from satori_ci.report.accept_commands import all_command
from satori_ci.report.json_report import new_suggestions, reviewed_changes, suggestion_key, verdict
from satori_ci.report.markdown import FULL, SHORTER, Limits, render_body
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.verdict_text import icon, verdict_line

SUMMARY_LIMIT = 1_000_000
"""Bytes: GitHub takes at most 1 MiB of summary per step."""

_HEADLINES = {0: "✅ satori-ci: no oracle violations", 1: "❌ satori-ci: oracle violations",
              2: "🛑 satori-ci: a spec could not be checked", 3: "⚠️ satori-ci: staging could not be checked",
              4: "⚠️ satori-ci: the change went unchecked"}


def _row(spec: SpecCheck, report: CheckReport) -> str:
    found = verdict(spec, report.fail_on)
    fd, od = spec.field_diff, reviewed_changes(spec.oracle_diff)
    fields = "—" if fd is None else "+{added} −{removed} ~{changed} ↪{moved}".format(**fd.counts())
    oracles = "—" if od is None else "+{added} −{removed} ~{changed}".format(**od.counts())
    if spec.suggestions:
        oracles += f" ({len(spec.suggestions)} suggested)"
    outcome = f"{icon(spec, found.outcome)} {found.outcome.value.replace('_', ' ')}"
    return (f"| {esc.cell_code(spec.spec)} | {outcome} | {fields} | {oracles} | {spec.oracles_enabled} | "
            f"{found.violations} |")


def _suggested(report: CheckReport) -> list[str]:
    """Per spec with observed suggestions: how many, how many new, and the command that accepts them all."""
    lines = []
    for spec in report.specs:
        if spec.suggestions and spec.error is None:
            new = new_suggestions(spec)
            fresh = sum(1 for o in spec.suggestions if suggestion_key(o) in new)
            lines.append(f"- {esc.code(spec.spec)}: {len(spec.suggestions)} suggested ({fresh} new), off until "
                         f"accepted: {esc.code(all_command(spec), 2_000)}")
    if not lines:
        return []
    return ["### Suggested oracles (observed in responses)", "", *lines, "",
            "Accept one operation's with `--operation \"METHOD /path\"` (or `--field`, `--kind`); dismiss them for "
            "good with `satori-ci reject`; then commit the oracle file.", ""]


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _section(spec: SpecCheck, report: CheckReport, overflow: str | None, room: int) -> str:
    """The spec's full report (its overflowed comment when given), shortened if it would not fit in `room` bytes."""
    if overflow is not None and _size(overflow) <= room:
        return overflow
    levels: tuple[Limits, ...] = (FULL, *SHORTER)
    for limits in levels:
        text = render_body(spec, report.fail_on, limits)
        if _size(text) <= room:
            return text
    return f"### {verdict_line(spec, report.fail_on, verdict(spec, report.fail_on))}\n"


def render_summary(report: CheckReport, overflows: Mapping[str, str] | None = None) -> str:
    """GitHub-flavoured Markdown for `$GITHUB_STEP_SUMMARY`, under GitHub's 1 MiB."""
    overflows = overflows or {}
    code = int(report.exit_code)
    headline = _HEADLINES.get(code, "satori-ci")
    if code == 1 and not report.violations and report.team_tests_failing:
        headline = "❌ satori-ci: tests of your Postman collection failed"
    head = [f"## {headline}", "",
            f"{len(report.specs)} spec(s) · {report.violations} violation(s) · fail-on `{report.fail_on.value}` · "
            f"exit code {code}", ""]
    if report.specs:
        head += ["| Spec | Outcome | Fields changed | Oracle changes | Oracles | Violations |",
                 "|---|---|---|---|---|---|", *(_row(s, report) for s in report.specs), ""]
    head += _suggested(report)
    out = "\n".join(head) + "\n"
    for n, spec in enumerate(report.specs):
        room = SUMMARY_LIMIT - _size(out) - 200 * (len(report.specs) - n)
        if room < 2_000:
            out += f"\n… {len(report.specs) - n} more spec(s) left out: the summary is full (see the JSON report).\n"
            break
        out += "\n" + _section(spec, report, overflows.get(spec.spec), room)
    return out
