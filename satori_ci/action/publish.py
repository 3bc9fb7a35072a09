"""A run's results out: the oracle files and stores written, then the sticky comments, the job summary, the
annotations, the JSON report, the outputs and the suggested changes on the oracle files, every text redacted."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from satori_ci.action.log import say
from satori_ci.action.report_files import write_report_files
from satori_ci.action.stopped import RUN_MARKER
from satori_ci.check.stores import store_file_of
from satori_ci.check.target import SpecOutcome
from satori_ci.check.workspace import write_atomically
from satori_ci.errors import ExitCode
from satori_ci.github.comments import StickyCommenter
from satori_ci.github.context import ActionContext
from satori_ci.github.inputs import CommentMode
from satori_ci.github.outputs import append_outputs, append_summary, notice, warning
from satori_ci.github.reviews import SuggestionReviewer
from satori_ci.observe.store import dump_store
from satori_ci.oracles.file import dump_oracle_file
from satori_ci.redaction import current, redact
from satori_ci.report.annotations import render_annotations
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import marker_for, render_comment, render_resolved
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.suggested_changes import MARKER, SuggestedChange, suggested_changes, suggestion_marker
from satori_ci.report.summary import render_summary
from satori_ci.spec.errors import SpecError
from satori_ci.spec.source import open_source


def publish(ctx: ActionContext, outcomes: list[SpecOutcome]) -> int:
    """Write the oracle files and stores, then report: comment, summary, annotations, JSON report, outputs, and
    the suggested changes on the oracle files as the pull request has them (read before they are rewritten)."""
    committed = committed_oracle_files(ctx, [o.check for o in outcomes])
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
        "report": str(report_path), "oracle-files": "\n".join(written), **write_report_files(ctx, report),
    })
    suggest_changes(ctx, report, committed)
    return int(report.exit_code)


def no_spec(ctx: ActionContext) -> int:
    """Nothing to check: a notice and empty outputs, exit 0."""
    say(notice("satori-ci: no OpenAPI spec changed; nothing to check"))
    outputs(ctx, {"violations": "0", "oracles-added": "0", "oracles-changed": "0",
                  "oracles-removed": "0", "report": "", "oracle-files": "",
                  **write_report_files(ctx, CheckReport((), ctx.inputs.fail_on))})  # an empty log closes old alerts
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


def _reviewing(ctx: ActionContext) -> bool:
    """Suggested changes go where the sticky comment goes: a pull request, comments on, a token."""
    return ctx.wants_comment and ctx.pr_number is not None


def committed_oracle_files(ctx: ActionContext, specs: list[SpecCheck]) -> dict[str, tuple[str, str]]:
    """Spec -> (its oracle file's path in the repository, the file at the pull request's head commit, else as
    checked out), for the specs with suggestions; empty when no review will be posted."""
    if not _reviewing(ctx):
        return {}
    out: dict[str, tuple[str, str]] = {}
    for spec in specs:
        found = _committed(ctx, spec.oracle_file) if spec.suggestions else None
        if found is not None:
            out[spec.spec] = found
    return out


def _committed(ctx: ActionContext, file: str) -> tuple[str, str] | None:
    path = _in_repository(ctx, file)
    if path is None:
        return None
    text = _at_head(ctx, path)
    text = text if text is not None else _read(Path(file))
    return None if text is None else (path, text)


def _in_repository(ctx: ActionContext, file: str) -> str | None:
    """The path of `file` in the repository (`/`-separated), None outside it."""
    relative = os.path.relpath(os.path.realpath(file), os.path.realpath(ctx.workspace))
    path = Path(relative).as_posix()
    return None if path == ".." or path.startswith("../") else path


def _at_head(ctx: ActionContext, path: str) -> str | None:
    if not ctx.head_sha:
        return None
    try:
        reader = open_source(f"{ctx.head_sha}:{path}")
        return reader.read(reader.entry).decode("utf-8")
    except (SpecError, UnicodeDecodeError):
        return None


def _read(file: Path) -> str | None:
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def suggest_changes(ctx: ActionContext, report: CheckReport, committed: dict[str, tuple[str, str]]) -> None:
    """One review of GitHub suggested changes that switch on the observed suggestions on lines of the pull
    request's diff; a failure is a warning, never the check's."""
    if not committed or not _reviewing(ctx) or ctx.pr_number is None:
        return
    specs = {s.spec: s for s in report.specs}

    def changes_for(patches: Mapping[str, str]) -> list[SuggestedChange]:
        return [replace(change, body=redacted_comment(suggestion_marker(path), change.body))
                for name, (path, text) in committed.items()
                for change in suggested_changes(specs[name], path, text, patches.get(path))]

    with SuggestionReviewer(ctx.api_url, ctx.inputs.github_token or "", ctx.repository, ctx.pr_number) as reviewer:
        outcome = reviewer.suggest({path for path, _ in committed.values()}, changes_for,
                                   scrub=lambda body: redacted_comment(MARKER, body))
    if not outcome.ok:
        say(warning(f"satori-ci: could not post the suggested changes on the oracle files ({outcome.reason}); "
                    "the comment names the `satori-ci accept` commands"))


def _oracle_counts(report: CheckReport) -> tuple[int, int, int]:
    added = changed = removed = 0
    for spec in report.specs:
        if spec.oracle_diff is not None:
            counts = spec.oracle_diff.counts()
            added += counts["added"]
            changed += counts["changed"]
            removed += counts["removed"]
    return added, changed, removed
