"""Sharded runs: a shard job (its slice of every spec checked, its partial report written into the workspace,
nothing else) and the merge job (the reports merged and reported as one unsharded run, no request sent)."""

from __future__ import annotations

import os
import traceback
from dataclasses import replace
from pathlib import Path

from satori_ci.action.log import debugging, feed, say
from satori_ci.action.publish import no_spec, outputs, publish
from satori_ci.action.secrets import action_secrets
from satori_ci.action.stopped import Progress, cancelled
from satori_ci.action.targets import check_options, oracles_dir, targets, trust_notice, trusted_config
from satori_ci.check.stores import store_file_of
from satori_ci.check.workspace import default_oracle_path, ensure_inside_workspace, write_atomically
from satori_ci.config import ProjectConfig, load_config
from satori_ci.errors import ErrorKind, ExitCode, classify
from satori_ci.github.context import ActionContext
from satori_ci.github.errors import ActionConfigError
from satori_ci.github.outputs import error, warning
from satori_ci.github.specs import select_specs
from satori_ci.redaction import current, redact
from satori_ci.report import escape as esc
from satori_ci.shard.binding import RunBinding, bind_spec, config_digest
from satori_ci.shard.errors import ShardError, ShardReportError
from satori_ci.shard.files import read_shard_reports, report_files
from satori_ci.shard.job import ShardSpec, check_shard
from satori_ci.shard.merge import Expected, files_named, merge_shards
from satori_ci.shard.report import ShardReport, shard_report_text
from satori_ci.shard.slice import Shard, parse_shard

SHARD_REPORTS = "satori-ci-shards"
"""The workspace folder a shard job writes its partial report into (not hidden: upload-artifact skips those)."""


def input_shard(text: str | None) -> Shard | None:
    """The `shard` input (`I/N`) as a `Shard`; None without it (ActionConfigError, exit 2, naming the input, when
    it is not one)."""
    if text is None:
        return None
    try:
        return parse_shard(text)
    except ShardError as exc:
        raise ActionConfigError(f"input 'shard': {exc}") from None


def shard_report_path(shard: Shard) -> Path:
    """Where a shard job writes its partial report, relative to the workspace (the `shard-report` output)."""
    return Path(SHARD_REPORTS) / f"shard-{shard.index}-of-{shard.count}.json"


def _write_shard_report(ctx: ActionContext, report: ShardReport) -> str:
    path = shard_report_path(report.shard)
    write_atomically(ctx.workspace / path, shard_report_text(report, current().redact_data))
    outputs(ctx, {"shard-report": path.as_posix()})
    return path.as_posix()


def run_shard(ctx: ActionContext, shard: Shard) -> int:
    """Check this job's shard of every spec the change touches and write the partial report; nothing else."""
    feed(*action_secrets(ctx, os.environ))
    os.chdir(ctx.workspace)
    config = load_config(ctx.inputs.config)
    specs = select_specs(ctx.workspace, ctx.inputs.specs, tuple(s.path for s in config.specs), ctx.base_sha,
                         ctx.head_sha)
    parts: list[ShardSpec] = []
    trusted = trusted_config(ctx, config)
    if specs:
        options = check_options(ctx)
        for target in targets(ctx, config, trusted, specs):
            part = check_shard(target, options, shard)
            notice_text = trust_notice(trusted, config, target)
            if notice_text is not None:
                check = part.frame.check
                part = replace(part, frame=replace(part.frame, check=replace(
                    check, notices=(*check.notices, notice_text))))
            parts.append(part)
    path = _write_shard_report(ctx, ShardReport(shard, tuple(parts), binding=run_binding(ctx, trusted)))
    sent = sum(p.run.requests for p in parts if p.run is not None)
    say(f"satori-ci: shard {shard}: {len(parts)} spec(s), {sent} request(s) of this shard's operations checked; "
        f"partial report {path} (the job with `merge:` gives the verdict)")
    return ExitCode.OK


def shard_main(ctx: ActionContext, shard: Shard) -> int:
    """A shard job: its report, or a report saying why it could not run (exit code and line of
    `errors.classify`); never a comment."""
    try:
        return run_shard(ctx, shard)
    except KeyboardInterrupt:
        return cancelled(ctx)
    except Exception as exc:
        failure = classify(exc)
        if failure.kind is ErrorKind.BUG and debugging():
            print(redact("".join(traceback.format_exception(exc))), flush=True)
        line = esc.visible(redact(failure.message))
        say(error(f"shard {shard}: {line}", title="satori-ci"))
        try:
            _write_shard_report(ctx, ShardReport(shard, failed=line, exit_code=int(failure.code)))
        except Exception as err:  # the report of a failure must not fail
            say(warning(f"satori-ci: cannot write the shard report ({type(err).__name__})"))
        return int(failure.code)


def run_binding(ctx: ActionContext, trusted: ProjectConfig) -> RunBinding:
    """What a shard's report is bound to besides its specs: the commit checked (the pull request's head, else
    `GITHUB_SHA`), the base commit, and the trusted config."""
    return RunBinding(ctx.head_sha or ctx.sha, ctx.base_sha, config_digest(trusted))


def run_merge(ctx: ActionContext, progress: Progress) -> int:
    """Merge the shards' partial reports and report as an unsharded run would (no request is sent). The reports
    must be of the check this job would make (its commit, trusted config, specs and their files, oracle files and
    stores, computed here); the oracle files and stores go where this job puts them, never where a report says."""
    files = report_files(ctx.inputs.merge, action=True)
    if not files:
        raise ShardReportError(ExitCode.INFRASTRUCTURE, f"no shard report (*.json) in {', '.join(ctx.inputs.merge)}: "
                               "did every shard job upload its report, and this job download them?")
    config = load_config(ctx.inputs.config)
    trusted = trusted_config(ctx, config)
    specs = select_specs(ctx.workspace, ctx.inputs.specs, tuple(s.path for s in config.specs), ctx.base_sha,
                         ctx.head_sha)
    progress.specs = list(specs)
    folder = oracles_dir(ctx, trusted)
    oracle_files = [default_oracle_path(spec, folder) for spec in specs]
    for oracle_file in oracle_files:  # before anything is read
        ensure_inside_workspace(oracle_file)
        ensure_inside_workspace(store_file_of(oracle_file))
    reports = read_shard_reports(files)
    named = files_named(reports)
    bindings = []
    for spec, oracle_file in zip(specs, oracle_files, strict=True):
        name = config.for_spec(spec).path
        bindings.append(bind_spec(spec, name, oracle_file, named.get(name, ())))
    merged = merge_shards(reports, ctx.inputs.fail_on, Expected(run_binding(ctx, trusted), tuple(bindings)))
    if not merged.outcomes:
        return no_spec(ctx)
    outcomes = [replace(outcome, check=replace(outcome.check, oracle_file=str(oracle_file)))  # this job's path
                for outcome, oracle_file in zip(merged.outcomes, oracle_files, strict=True)]
    return publish(ctx, outcomes)
