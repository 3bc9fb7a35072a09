"""The Docker action's entry point: read the event and inputs once, run the check, report, exit.

Parses `GITHUB_*`/`INPUT_*` into an `ActionContext`, runs the shared pipeline on every spec the change
touches, writes the updated oracle files into the workspace, then reports: the sticky PR comment per
spec (falling back to the job summary with a notice when it cannot be posted), the job summary,
annotations and outputs. Exit codes: 0 clean, 1 violations at or above fail-on, 2 input error,
3 infrastructure. A comment that cannot be posted never turns a clean run red.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from satori_ci.cli.infer_commands import DEFAULT_MODEL, default_oracle_path, write_atomically
from satori_ci.cli.request_options import load_team
from satori_ci.config import ConfigError, ProjectConfig, load_config, load_config_at, trust_changes
from satori_ci.exit_codes import ExitCode
from satori_ci.github.comments import StickyCommenter
from satori_ci.github.context import ActionContext
from satori_ci.github.errors import ActionConfigError
from satori_ci.github.inputs import Backend, CommentMode, input_value
from satori_ci.github.outputs import append_outputs, append_summary, mask_lines, notice, redact, warning
from satori_ci.github.specs import select_specs
from satori_ci.infer.llm import LLMConfig
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import dump_oracle_file
from satori_ci.pipeline import CheckOptions, SpecTarget, check_spec
from satori_ci.postman.team import TeamCollectionError
from satori_ci.report.annotations import render_annotations
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import marker_for, render_comment, render_resolved
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.summary import render_summary
from satori_ci.run.errors import RunError

RUNNERS = ("auto", "newman", "native")


def say(line: str, secrets: tuple[str, ...]) -> None:
    print(redact(line, secrets), flush=True)


def _options(ctx: ActionContext, secrets: tuple[str, ...]) -> CheckOptions:
    backend, why = ctx.inputs.backend_choice()
    if why:
        say(notice(why), secrets)
    llm = None
    if backend is Backend.LLM:
        llm = LLMConfig(model=ctx.inputs.model or DEFAULT_MODEL, base_url=ctx.inputs.openai_base_url,
                        api_key=ctx.inputs.openai_api_key)
    runner = input_value(os.environ, "runner") or "auto"
    if runner not in RUNNERS:
        raise ActionConfigError(f"input 'runner' must be one of {', '.join(RUNNERS)}, not {runner!r}")
    return CheckOptions(backend=backend.value, llm=llm, runner=runner, environ=dict(os.environ))


def trusted_config(ctx: ActionContext, head: ProjectConfig) -> ProjectConfig:
    """The config that decides where requests and secrets go: the base commit's on a pull request (the head's
    is the proposal of whoever opened it), the checked-out one on push and dispatch."""
    if ctx.is_pull_request and ctx.base_sha:
        return load_config_at(ctx.base_sha, ctx.inputs.config)
    return head


def _targets(ctx: ActionContext, config: ProjectConfig, trusted: ProjectConfig, specs: list[str],
             secrets: tuple[str, ...]) -> list[SpecTarget]:
    inputs = tuple((h.name, h.value) for h in ctx.inputs.staging_headers)
    out = []
    for path in specs:
        settings = config.for_spec(path)
        sending = trusted.for_spec(path)
        staging = sending.staging(os.environ, ctx.inputs.staging_url, inputs)
        plan, plan_notes = sending.plan_settings(os.environ)
        rev = ctx.base_sha if ctx.is_pull_request and ctx.base_sha else None
        team = load_team(sending.requests.collection, sending.requests.environment, rev)
        for note in (*staging.notes, *plan_notes):
            say(warning(f"satori-ci: {path}: {note}"), secrets)
        out.append(SpecTarget(
            head=path, base=f"{ctx.base_sha}:{path}" if ctx.base_sha else None,
            oracle_file=default_oracle_path(path, ctx.inputs.oracles_dir or trusted.oracles_dir or ".satori"),
            settings=settings, staging_url=staging.url, headers=staging.headers, plan=plan,
            min_exercised=sending.requests.min_exercised if sending.requests.min_exercised is not None else 1,
            fail_on_server_errors=sending.requests.server_errors != "report", team=team,
        ))
    return out


def _is_clean(spec: SpecCheck) -> bool:
    no_violations = spec.run is None or not spec.run.violations
    no_changes = spec.oracle_diff is None or spec.oracle_diff.is_empty
    return spec.error is None and no_violations and no_changes


def _comment(ctx: ActionContext, report: CheckReport, secrets: tuple[str, ...]) -> dict[str, str]:
    """Post or update one sticky comment per spec; returns the overflow text per spec for the summary."""
    overflows: dict[str, str] = {}
    rendered = {s.spec: render_comment(s, report.fail_on, run_url=ctx.run_url) for s in report.specs}
    for name, comment in rendered.items():
        if comment.overflow:
            overflows[name] = comment.overflow
    if not (ctx.wants_comment and ctx.inputs.comment is CommentMode.STICKY and ctx.pr_number):
        return overflows
    if not ctx.inputs.github_token:
        say(notice("satori-ci: no github-token, so the report is in the job summary only"), secrets)
        return overflows
    with StickyCommenter(ctx.api_url, ctx.inputs.github_token, ctx.repository, ctx.pr_number) as commenter:
        for spec in report.specs:
            marker = marker_for(spec.spec)
            if _is_clean(spec):
                outcome = commenter.resolve(marker, render_resolved(spec))
            else:
                outcome = commenter.upsert(marker, rendered[spec.spec].body)
            if not outcome.ok:
                overflows.setdefault(spec.spec, rendered[spec.spec].body)
                say(notice(f"satori-ci: could not post the comment for {spec.spec} ({outcome.reason}); "
                           "the report is in the job summary"), secrets)
    return overflows


def run(ctx: ActionContext) -> int:
    secrets = ctx.secrets
    masks = mask_lines(secrets)
    if masks:
        print(masks, end="" if masks.endswith("\n") else "\n", flush=True)
    os.chdir(ctx.workspace)
    config = load_config(ctx.inputs.config)
    specs = select_specs(ctx.workspace, ctx.inputs.specs, tuple(s.path for s in config.specs), ctx.base_sha,
                         ctx.head_sha)
    if not specs:
        say(notice("satori-ci: no OpenAPI spec changed; nothing to check"), secrets)
        _outputs(ctx, {"violations": "0", "oracles-added": "0", "oracles-changed": "0",
                       "oracles-removed": "0", "report": "", "oracle-files": ""})
        return ExitCode.OK
    options = _options(ctx, secrets)
    checks: list[SpecCheck] = []
    written: list[str] = []
    trusted = trusted_config(ctx, config)
    for target in _targets(ctx, config, trusted, specs, secrets):
        outcome = check_spec(target, options)
        changes = trust_changes(trusted, config, target.settings.path) if trusted is not config else ()
        if changes:
            notice_text = (f"This pull request changes where requests and secrets go ({', '.join(changes)} in "
                           f"{config.source or '.satori.yml'}): not applied here; the base branch's settings "
                           "were used, and the change applies after merge.")
            outcome = replace(outcome, check=replace(outcome.check, notices=(*outcome.check.notices, notice_text)))
            say(warning(f"satori-ci: {target.settings.path}: {notice_text}"), secrets)
        checks.append(outcome.check)
        if outcome.updated is not None:
            write_atomically(target.oracle_file, dump_oracle_file(outcome.updated))
            written.append(target.oracle_file.as_posix())
    report = CheckReport(tuple(checks), ctx.inputs.fail_on)
    overflows = _comment(ctx, report, secrets)
    if ctx.summary_path is not None:
        append_summary(ctx.summary_path, redact(render_summary(report, overflows), secrets))
    for line in render_annotations(report):
        say(line, secrets)
    report_path = Path(os.environ.get("RUNNER_TEMP") or ctx.workspace) / "satori-ci-report.json"
    report_path.write_text(redact(json.dumps(report_json(report), ensure_ascii=False, indent=2), secrets) + "\n",
                           encoding="utf-8")
    counts = _oracle_counts(report)
    _outputs(ctx, {
        "violations": str(report.violations), "oracles-added": str(counts[0]),
        "oracles-changed": str(counts[1]), "oracles-removed": str(counts[2]),
        "report": str(report_path), "oracle-files": "\n".join(written),
    })
    return int(report.exit_code)


def _outputs(ctx: ActionContext, values: dict[str, str]) -> None:
    if ctx.output_path is not None:
        append_outputs(ctx.output_path, values)


def _oracle_counts(report: CheckReport) -> tuple[int, int, int]:
    added = changed = removed = 0
    for spec in report.specs:
        if spec.oracle_diff is not None:
            counts = spec.oracle_diff.counts()
            added += counts["added"]
            changed += counts["changed"]
            removed += counts["removed"]
    return added, changed, removed


def main() -> int:
    try:
        ctx = ActionContext.from_env(os.environ)
    except ActionConfigError as exc:
        print(f"::error title=satori-ci::{exc}")
        return ExitCode.INPUT_ERROR
    try:
        return run(ctx)
    except (ConfigError, OracleFileError, ActionConfigError, TeamCollectionError) as exc:
        say(f"::error title=satori-ci::{exc}", ctx.secrets)
        return ExitCode.INPUT_ERROR
    except RunError as exc:
        say(f"::error title=satori-ci::{exc}", ctx.secrets)
        return ExitCode.INFRASTRUCTURE
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
