"""A run's results out: the oracle files and stores written, then the sticky comments, the job summary, the
annotations, the JSON report and the outputs, every text redacted."""

from __future__ import annotations

import json
import os
from pathlib import Path

from satori_ci.action.log import say
from satori_ci.action.stopped import RUN_MARKER
from satori_ci.check.stores import store_file_of
from satori_ci.check.target import SpecOutcome
from satori_ci.check.workspace import write_atomically
from satori_ci.errors import ExitCode
from satori_ci.github.comments import StickyCommenter
from satori_ci.github.context import ActionContext
from satori_ci.github.inputs import CommentMode
from satori_ci.github.outputs import append_outputs, append_summary, notice
from satori_ci.observe.store import dump_store
from satori_ci.oracles.file import dump_oracle_file
from satori_ci.redaction import current, redact
from satori_ci.report.annotations import render_annotations
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import marker_for, render_comment, render_resolved
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.summary import render_summary


def publish(ctx: ActionContext, outcomes: list[SpecOutcome]) -> int:
    """Write the oracle files and stores, then report: comment, summary, annotations, JSON report, outputs."""
    written: list[str] = []
    for outcome in outcomes:
        oracle_file = Path(outcome.check.oracle_file)
        if outcome.updated is not None:
            write_atomically(oracle_file, dump_oracle_file(outcome.updated))
            written.append(oracle_file.as_posix())
        if outcome.store is not None:
            write_atomically(store_file_of(oracle_file), dump_store(outcome.store))
    report = CheckReport(tuple(o.check for o in outcomes), ctx.inputs.fail_on)
    overflows = comment(ctx, report)
    if ctx.summary_path is not None:
        append_summary(ctx.summary_path, redact(render_summary(report, overflows)))
    for line in render_annotations(report):
        say(line)
    report_path = Path(os.environ.get("RUNNER_TEMP") or ctx.workspace) / "satori-ci-report.json"
    data = current().redact_data(report_json(report))  # string by string: the file stays valid JSON
    report_path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    counts = _oracle_counts(report)
    outputs(ctx, {
        "violations": str(report.violations), "oracles-added": str(counts[0]),
        "oracles-changed": str(counts[1]), "oracles-removed": str(counts[2]),
        "report": str(report_path), "oracle-files": "\n".join(written),
    })
    return int(report.exit_code)


def no_spec(ctx: ActionContext) -> int:
    """Nothing to check: a notice and empty outputs, exit 0."""
    say(notice("satori-ci: no OpenAPI spec changed; nothing to check"))
    outputs(ctx, {"violations": "0", "oracles-added": "0", "oracles-changed": "0",
                  "oracles-removed": "0", "report": "", "oracle-files": ""})
    return ExitCode.OK


def outputs(ctx: ActionContext, values: dict[str, str]) -> None:
    if ctx.output_path is not None:
        append_outputs(ctx.output_path, {name: redact(value) for name, value in values.items()})


def _is_clean(spec: SpecCheck) -> bool:
    no_violations = spec.run is None or not spec.run.violations
    no_changes = spec.oracle_diff is None or spec.oracle_diff.is_empty
    return spec.error is None and no_violations and no_changes


def redacted_comment(marker: str, body: str) -> str:
    """The comment's body redacted, its marker line kept as it is (it is how the comment is found again)."""
    head, newline, rest = body.partition("\n")
    if head == marker and newline:
        return f"{marker}\n{redact(rest)}"
    return redact(body)


def comment(ctx: ActionContext, report: CheckReport) -> dict[str, str]:
    """Post or update one sticky comment per spec; returns the overflow text per spec for the summary."""
    overflows: dict[str, str] = {}
    rendered = {s.spec: render_comment(s, report.fail_on, run_url=ctx.run_url) for s in report.specs}
    for name, text in rendered.items():
        if text.overflow:
            overflows[name] = text.overflow
    if not (ctx.wants_comment and ctx.inputs.comment is CommentMode.STICKY and ctx.pr_number):
        return overflows
    if not ctx.inputs.github_token:
        say(notice("satori-ci: no github-token, so the report is in the job summary only"))
        return overflows
    with StickyCommenter(ctx.api_url, ctx.inputs.github_token, ctx.repository, ctx.pr_number) as commenter:
        for spec in report.specs:
            marker = marker_for(spec.spec)
            body = rendered[spec.spec].body
            if _is_clean(spec):
                outcome = commenter.resolve(marker, redacted_comment(marker, render_resolved(spec)))
            else:
                outcome = commenter.upsert(marker, redacted_comment(marker, body))
            if not outcome.ok:
                overflows.setdefault(spec.spec, body)
                say(notice(f"satori-ci: could not post the comment for {spec.spec} ({outcome.reason}); "
                           "the report is in the job summary"))
        commenter.resolve(RUN_MARKER, f"{RUN_MARKER}\n### ✅ Resolved: satori-ci runs again\n\n"
                                      "The check that could not run earlier ran on a later commit.\n")
    return overflows


def _oracle_counts(report: CheckReport) -> tuple[int, int, int]:
    added = changed = removed = 0
    for spec in report.specs:
        if spec.oracle_diff is not None:
            counts = spec.oracle_diff.counts()
            added += counts["added"]
            changed += counts["changed"]
            removed += counts["removed"]
    return added, changed, removed
