"""The Docker action's entry point: read the event and inputs once, run the check, report, exit.

Parses `GITHUB_*`/`INPUT_*` into an `ActionContext`, runs the shared pipeline on every spec the change
touches, writes the updated oracle files into the workspace, then reports: the sticky PR comment per
spec (falling back to the job summary with a notice when it cannot be posted), the job summary,
annotations and outputs. Exit codes: 0 clean, 1 violations at or above fail-on, 2 input error,
3 infrastructure. A comment that cannot be posted never turns a clean run red.

Sharded (a CI matrix): with the `shard: I/N` input a job checks its shard of the operations
(`pipeline.check_shard`) and only writes its partial report into the workspace (output `shard-report`): no
comment, no summary, no oracle file, exit 0 once it ran (a shard that could not run writes a report saying so and
exits 2 or 3). With `merge: <folders or globs>` the job after them reads every shard's report, merges them
(`shards.merge_shards`: a missing, failed, duplicated or mismatched shard stops it with one line, exit 3
or 2) and reports exactly as an unsharded run: oracle files, comment, summary, annotations, outputs, exit code.
The reports come through artifacts, so they are read strictly, rendered escaped like any response, and decide
nothing about where requests or secrets go: the merge sends no request, and writes each oracle file only where
this job's `oracles-dir` says it goes.

Every text it sends out passes one redactor (`satori_ci.redaction`), fed with every secret value it knows
(the token and key inputs, the `staging-headers` values, the trusted config's header values, every
`SATORI_AUTH_*` value, URL passwords and key parameters) and registered with `::add-mask::`: standard output
and error (wrapped for the whole run), the comments, the job summary, the annotations, the outputs and the
JSON report. A run that stops early, whatever the reason (a bug included), still writes the job summary, a
comment saying the check could not run (on a pull request with a token) and an `::error` line, and exits 2
(input error) or 3 (infrastructure, or a bug): never a bare traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from satori_ci.cli.check_commands import read_shard_reports, report_files
from satori_ci.cli.errors import classify, terminate_as_interrupt
from satori_ci.cli.infer_commands import DEFAULT_MODEL, default_oracle_path, ensure_inside_workspace, write_atomically
from satori_ci.cli.request_options import load_team
from satori_ci.config import ConfigError, ProjectConfig, SpecConfig, load_config, load_config_at, trust_changes
from satori_ci.exit_codes import ExitCode
from satori_ci.github.comments import StickyCommenter
from satori_ci.github.context import ActionContext
from satori_ci.github.errors import ActionConfigError, GitHubUnavailable
from satori_ci.github.inputs import Backend, CommentMode, input_value
from satori_ci.github.outputs import append_outputs, append_summary, endgroup, error, group, mask_lines, notice, warning
from satori_ci.github.pulls import fetch_pull
from satori_ci.github.specs import select_specs
from satori_ci.infer.llm import LLMConfig
from satori_ci.observe.store import dump_store
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import dump_oracle_file
from satori_ci.pipeline import (
    CheckOptions,
    ShardSpec,
    SpecOutcome,
    SpecTarget,
    bind_spec,
    check_shard,
    check_spec,
    store_file_of,
)
from satori_ci.plan.shards import Shard
from satori_ci.postman.team import TeamCollection, TeamCollectionError
from satori_ci.redaction import (
    current,
    environ_secrets,
    header_secrets,
    installed,
    key_like,
    redact,
    unredacted,
    url_secrets,
    write_line,
)
from satori_ci.report import escape as esc
from satori_ci.report.annotations import render_annotations
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import marker_for, render_comment, render_resolved
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.summary import render_summary
from satori_ci.run.errors import RunError
from satori_ci.shards import (
    Expected,
    RunBinding,
    ShardReport,
    ShardReportError,
    config_digest,
    files_named,
    merge_shards,
    shard_report_text,
)

RUNNERS = ("auto", "newman", "native")
RUN_MARKER = "<!-- satori-ci:run -->"
SHARD_REPORTS = "satori-ci-shards"
"""The workspace folder a shard job writes its partial report into (not hidden: upload-artifact skips those)."""
"""The comment of a run that stopped before it knew its specs (rewritten to "resolved" by the next good run)."""


@dataclass
class Progress:
    """How far a run got: what the report of a run that stops early can name."""

    specs: list[str] = field(default_factory=list)


def say(line: str) -> None:
    """Print one line of ours, redacted, a workflow command included: the one way a line of the log starts with
    `::` (anything else printed is made `redaction.log_safe`)."""
    write_line(line)


def _feed(*secrets: str | None) -> None:
    """Give the redactor more secrets and register the new ones with the runner (`::add-mask::`)."""
    masks = mask_lines(current().add(*secrets))
    if masks:
        out = unredacted(sys.stdout)  # the mask command must carry the secret itself
        out.write(masks + "\n")
        out.flush()


def raw_input_secrets(environ: Mapping[str, str]) -> list[str]:
    """The secret inputs as given (before they are parsed: an input error must not print them either) and every
    `SATORI_AUTH_*` value."""
    lines = (input_value(environ, "staging-headers") or "").splitlines()
    values = [line.partition(":")[2].strip() for line in lines if ":" in line]
    return [*(v for v in (input_value(environ, "github-token"), input_value(environ, "openai-api-key")) if v),
            *header_secrets(values), *environ_secrets(environ)]


def action_secrets(ctx: ActionContext, environ: Mapping[str, str]) -> list[str]:
    """Every secret the inputs and the environment hold: tokens, keys, header values, credentials in URLs."""
    inputs = ctx.inputs
    return [*(v for v in (inputs.github_token, inputs.openai_api_key) if v),
            *header_secrets(h.value for h in inputs.staging_headers), *environ_secrets(environ),
            *url_secrets(inputs.staging_url), *url_secrets(inputs.openai_base_url)]


def team_secrets(team: TeamCollection | None) -> list[str]:
    """The credentials a team collection's auth sends (its header and query values, token, password)."""
    out: list[str] = []
    for request in team.requests if team is not None else ():
        auth = request.auth
        if auth is None:
            continue
        header, query = auth.header(), auth.query()
        out += header_secrets([header[1]]) if header else []
        out += [query[1]] if query else []
        out += [auth.param("token"), auth.param("password")]
    return [v for v in out if v and "{{" not in v]


def value_secrets(settings: SpecConfig, environ: Mapping[str, str]) -> list[str]:
    """Parameter values read from the environment (`requests.values: {api_key: {env: …}}`) for key-like names."""
    pairs = [*settings.requests.values, *(p for _, ps in settings.requests.operations for p in ps)]
    return [found for name, value in pairs
            if value.env is not None and key_like(name) and (found := value.resolve(environ))]


def _options(ctx: ActionContext) -> CheckOptions:
    backend, why = ctx.inputs.backend_choice()
    if why:
        say(notice(why))
    llm = None
    if backend is Backend.LLM:
        llm = LLMConfig(model=ctx.inputs.model or DEFAULT_MODEL, base_url=ctx.inputs.openai_base_url,
                        api_key=ctx.inputs.openai_api_key)
    runner = input_value(os.environ, "runner") or "auto"
    if runner not in RUNNERS:
        raise ActionConfigError(f"input 'runner' must be one of {', '.join(RUNNERS)}, not {runner!r}")
    return CheckOptions(backend=backend.value, llm=llm, runner=runner, timeout_s=ctx.inputs.timeout_s,
                        environ=dict(os.environ))


def trusted_config(ctx: ActionContext, head: ProjectConfig) -> ProjectConfig:
    """The config that decides where requests and secrets go: the base commit's on a pull request (the head's
    is the proposal of whoever opened it; the base is GitHub's, see `_verified`), the checked-out one on push
    and dispatch."""
    if ctx.claim is not None:
        raise RuntimeError("the workflow_run's pull request was not checked against GitHub before reading a config")
    if ctx.is_pull_request or ctx.is_fork:
        if not ctx.base_sha:
            raise ActionConfigError("the pull request's base commit is not known, so there is no trusted config to "
                                    "read: nothing was checked")
        return load_config_at(ctx.base_sha, ctx.inputs.config)
    return head


def _verified(ctx: ActionContext) -> ActionContext:
    """On `workflow_run`: the pull request and its base from GitHub's API, the event's and the inputs' claims
    checked against it (the inputs may come from an artifact a fork wrote); other events: as they are."""
    if ctx.claim is None:
        return ctx
    token = ctx.inputs.github_token or ""
    return ctx.verified(lambda number: fetch_pull(ctx.api_url, token, ctx.repository, number))


def oracles_dir(ctx: ActionContext, trusted: ProjectConfig) -> str:
    """The folder of the oracle files: the `oracles-dir` input, else the trusted config's, else `.satori`."""
    return ctx.inputs.oracles_dir or trusted.oracles_dir or ".satori"


def _targets(ctx: ActionContext, config: ProjectConfig, trusted: ProjectConfig, specs: list[str]
             ) -> list[SpecTarget]:
    inputs = tuple((h.name, h.value) for h in ctx.inputs.staging_headers)
    out = []
    for path in specs:
        settings = config.for_spec(path)
        sending = trusted.for_spec(path)
        staging = sending.staging(os.environ, ctx.inputs.staging_url, inputs)
        plan, plan_notes = sending.plan_settings(os.environ)
        rev = ctx.base_sha if ctx.is_pull_request and ctx.base_sha else None
        team = load_team(sending.requests.collection, sending.requests.environment, rev)
        _feed(*header_secrets(v for _, v in staging.headers), *url_secrets(staging.url), *team_secrets(team),
              *value_secrets(sending, os.environ))
        for note in (*staging.notes, *plan_notes):
            say(warning(f"satori-ci: {path}: {note}"))
        oracle_file = default_oracle_path(path, oracles_dir(ctx, trusted))
        ensure_inside_workspace(oracle_file)  # before it is read or anything is sent
        store_file = store_file_of(oracle_file)
        ensure_inside_workspace(store_file)
        # the suspects come from the store as the base commit has it (the head's is the pull request's proposal)
        trusted_store = f"{rev}:{store_file.as_posix()}" if rev else store_file.as_posix()
        out.append(SpecTarget(
            head=path, base=f"{ctx.base_sha}:{path}" if ctx.base_sha else None,
            oracle_file=oracle_file,
            settings=settings, staging_url=staging.url, headers=staging.headers, plan=plan,
            min_exercised=sending.requests.min_exercised_or_default,
            fail_on_server_errors=sending.requests.fail_on_server_errors, team=team,
            trusted_store=trusted_store,
        ))
    return out


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


def _comment(ctx: ActionContext, report: CheckReport) -> dict[str, str]:
    """Post or update one sticky comment per spec; returns the overflow text per spec for the summary."""
    overflows: dict[str, str] = {}
    rendered = {s.spec: render_comment(s, report.fail_on, run_url=ctx.run_url) for s in report.specs}
    for name, comment in rendered.items():
        if comment.overflow:
            overflows[name] = comment.overflow
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


def _trust_notice(trusted: ProjectConfig, config: ProjectConfig, target: SpecTarget) -> str | None:
    """The notice for a pull request that changes where requests and secrets go (said as a warning too)."""
    changes = trust_changes(trusted, config, target.settings.path) if trusted is not config else ()
    if not changes:
        return None
    notice_text = (f"This pull request changes where requests and secrets go ({', '.join(changes)} in "
                   f"{config.source or '.satori.yml'}): not applied here; the base branch's settings "
                   "were used, and the change applies after merge.")
    say(warning(f"satori-ci: {target.settings.path}: {notice_text}"))
    return notice_text


def _no_spec(ctx: ActionContext) -> int:
    say(notice("satori-ci: no OpenAPI spec changed; nothing to check"))
    _outputs(ctx, {"violations": "0", "oracles-added": "0", "oracles-changed": "0",
                   "oracles-removed": "0", "report": "", "oracle-files": ""})
    return ExitCode.OK


def run(ctx: ActionContext, progress: Progress | None = None) -> int:
    progress = progress if progress is not None else Progress()
    _feed(*action_secrets(ctx, os.environ))
    os.chdir(ctx.workspace)
    if ctx.inputs.merge:
        return run_merge(ctx, progress)
    config = load_config(ctx.inputs.config)
    specs = select_specs(ctx.workspace, ctx.inputs.specs, tuple(s.path for s in config.specs), ctx.base_sha,
                         ctx.head_sha)
    progress.specs = list(specs)
    if not specs:
        return _no_spec(ctx)
    options = _options(ctx)
    outcomes: list[SpecOutcome] = []
    trusted = trusted_config(ctx, config)
    for target in _targets(ctx, config, trusted, specs):
        outcome = check_spec(target, options)
        notice_text = _trust_notice(trusted, config, target)
        if notice_text is not None:
            outcome = replace(outcome, check=replace(outcome.check, notices=(*outcome.check.notices, notice_text)))
        outcomes.append(outcome)
    return _report(ctx, outcomes)


def _report(ctx: ActionContext, outcomes: list[SpecOutcome]) -> int:
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
    overflows = _comment(ctx, report)
    if ctx.summary_path is not None:
        append_summary(ctx.summary_path, redact(render_summary(report, overflows)))
    for line in render_annotations(report):
        say(line)
    report_path = Path(os.environ.get("RUNNER_TEMP") or ctx.workspace) / "satori-ci-report.json"
    data = current().redact_data(report_json(report))  # string by string: the file stays valid JSON
    report_path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    counts = _oracle_counts(report)
    _outputs(ctx, {
        "violations": str(report.violations), "oracles-added": str(counts[0]),
        "oracles-changed": str(counts[1]), "oracles-removed": str(counts[2]),
        "report": str(report_path), "oracle-files": "\n".join(written),
    })
    return int(report.exit_code)


# -- shards ----------------------------------------------------------------------------------------------------


def shard_report_path(shard: Shard) -> Path:
    """Where a shard job writes its partial report, relative to the workspace (the `shard-report` output)."""
    return Path(SHARD_REPORTS) / f"shard-{shard.index}-of-{shard.count}.json"


def _write_shard_report(ctx: ActionContext, report: ShardReport) -> str:
    path = shard_report_path(report.shard)
    write_atomically(ctx.workspace / path, shard_report_text(report, current().redact_data))
    _outputs(ctx, {"shard-report": path.as_posix()})
    return path.as_posix()


def run_shard(ctx: ActionContext, shard: Shard) -> int:
    """Check this job's shard of every spec the change touches and write the partial report; nothing else."""
    _feed(*action_secrets(ctx, os.environ))
    os.chdir(ctx.workspace)
    config = load_config(ctx.inputs.config)
    specs = select_specs(ctx.workspace, ctx.inputs.specs, tuple(s.path for s in config.specs), ctx.base_sha,
                         ctx.head_sha)
    parts: list[ShardSpec] = []
    trusted = trusted_config(ctx, config)
    if specs:
        options = _options(ctx)
        for target in _targets(ctx, config, trusted, specs):
            part = check_shard(target, options, shard)
            notice_text = _trust_notice(trusted, config, target)
            if notice_text is not None:
                check = part.frame.check
                part = replace(part, frame=replace(part.frame, check=replace(
                    check, notices=(*check.notices, notice_text))))
            parts.append(part)
    path = _write_shard_report(ctx, ShardReport(shard, tuple(parts), binding=_run_binding(ctx, trusted)))
    sent = sum(p.run.requests for p in parts if p.run is not None)
    say(f"satori-ci: shard {shard}: {len(parts)} spec(s), {sent} request(s) of this shard's operations checked; "
        f"partial report {path} (the job with `merge:` gives the verdict)")
    return ExitCode.OK


def _shard_main(ctx: ActionContext, shard: Shard) -> int:
    """A shard job: its report, or a report saying why it could not run (and exit 2 or 3); never a comment."""
    try:
        return run_shard(ctx, shard)
    except KeyboardInterrupt:
        return cancelled(ctx)
    except Exception as exc:
        code, message = classify(exc)
        if isinstance(exc, ActionConfigError):
            code, message = ExitCode.INPUT_ERROR, str(exc)
        if code is None:
            if _debugging():
                print(redact(traceback.format_exc()), flush=True)
            code, message = ExitCode.INFRASTRUCTURE, f"internal error (a bug in satori-ci): {type(exc).__name__}: {exc}"
        line = esc.visible(redact(message))
        say(error(f"shard {shard}: {line}", title="satori-ci"))
        try:
            _write_shard_report(ctx, ShardReport(shard, failed=line, exit_code=int(code)))
        except Exception as err:  # the report of a failure must not fail
            say(warning(f"satori-ci: cannot write the shard report ({type(err).__name__})"))
        return int(code)


def _run_binding(ctx: ActionContext, trusted: ProjectConfig) -> RunBinding:
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
    merged = merge_shards(reports, ctx.inputs.fail_on, Expected(_run_binding(ctx, trusted), tuple(bindings)))
    if not merged.outcomes:
        return _no_spec(ctx)
    outcomes = [replace(outcome, check=replace(outcome.check, oracle_file=str(oracle_file)))  # this job's path
                for outcome, oracle_file in zip(merged.outcomes, oracle_files, strict=True)]
    return _report(ctx, outcomes)


def _outputs(ctx: ActionContext, values: dict[str, str]) -> None:
    if ctx.output_path is not None:
        append_outputs(ctx.output_path, {name: redact(value) for name, value in values.items()})


def _oracle_counts(report: CheckReport) -> tuple[int, int, int]:
    added = changed = removed = 0
    for spec in report.specs:
        if spec.oracle_diff is not None:
            counts = spec.oracle_diff.counts()
            added += counts["added"]
            changed += counts["changed"]
            removed += counts["removed"]
    return added, changed, removed


def could_not_run_body(message: str, code: int, run_url: str | None) -> str:
    """The job summary's (and, after the marker, the comment's) text for a run that stopped early."""
    icon = "🛑" if code == ExitCode.INPUT_ERROR else "⚠️"
    url = esc.link_url(run_url) if run_url else None
    link = f" · [workflow run]({url})" if url else ""
    return (f"## {icon} satori-ci: the check could not run\n\n{esc.text(message, 1_000)}\n\n"
            f"exit code {code}{link}\n")


def stopped(ctx: ActionContext | None, progress: Progress, code: int, message: str) -> int:
    """Report a run that stopped early on every channel that can still be reached; returns `code`.

    One redacted line: `::error`, the job summary, and the sticky comment of each spec it was checking (of the
    run, before it knew its specs) on a pull request with a token. Reporting never raises."""
    line = esc.visible(redact(message))
    say(error(line, title="satori-ci"))
    body = could_not_run_body(line, code, ctx.run_url if ctx is not None else None)
    summary = ctx.summary_path if ctx is not None else _path(os.environ.get("GITHUB_STEP_SUMMARY"))
    try:
        if summary is not None:
            append_summary(summary, redact(body))
    except OSError as err:
        say(warning(f"satori-ci: cannot write the job summary ({err.strerror or type(err).__name__})"))
    if ctx is not None and ctx.wants_comment and ctx.pr_number is not None:
        try:
            _comment_stopped(ctx, progress, body)
        except Exception as err:  # the report of a failure must not fail
            say(notice(f"satori-ci: could not post the comment ({type(err).__name__})"))
    return code


def _comment_stopped(ctx: ActionContext, progress: Progress, body: str) -> None:
    assert ctx.inputs.github_token is not None and ctx.pr_number is not None
    markers = [marker_for(spec) for spec in progress.specs] or [RUN_MARKER]
    with StickyCommenter(ctx.api_url, ctx.inputs.github_token, ctx.repository, ctx.pr_number) as commenter:
        for marker in markers:
            outcome = commenter.upsert(marker, f"{marker}\n{redact(body)}")
            if not outcome.ok:
                say(notice(f"satori-ci: could not post the comment ({outcome.reason}); the job summary says why "
                           "the check could not run"))


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _debugging() -> bool:
    return os.environ.get("RUNNER_DEBUG") == "1" or bool(os.environ.get("SATORI_DEBUG"))


def cancelled(ctx: ActionContext | None) -> int:
    """A run stopped by SIGINT or SIGTERM (a cancelled workflow run): one line and the job summary say so, exit
    130. No comment: a newer run is on its way (`cancel-in-progress`), and the sticky comment is its to write."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # saying so is not cut short
    say(warning("cancelled (SIGINT or SIGTERM): the check stopped before it reported; nothing was commented",
                title="satori-ci"))
    summary = ctx.summary_path if ctx is not None else _path(os.environ.get("GITHUB_STEP_SUMMARY"))
    if summary is not None:
        with contextlib.suppress(OSError):
            append_summary(summary, "## ⏹️ satori-ci: cancelled\n\nThe check was cancelled (SIGINT or SIGTERM) "
                                    "before it reported.\n\nexit code 130\n")
    return ExitCode.INTERRUPTED


def main() -> int:
    signal.signal(signal.SIGTERM, terminate_as_interrupt)  # a cancelled job stops as Ctrl-C does, cleaning up
    with installed():
        _feed(*raw_input_secrets(os.environ))
        try:
            return _main(Progress())
        except KeyboardInterrupt:
            return cancelled(None)


def _main(progress: Progress) -> int:
    try:
        ctx = ActionContext.from_env(os.environ)
    except ActionConfigError as exc:
        return stopped(None, progress, ExitCode.INPUT_ERROR, str(exc))
    try:
        ctx = _verified(ctx)
    except ActionConfigError as exc:  # not verified: ctx has no pull request, so nothing is posted
        return stopped(ctx, progress, ExitCode.INPUT_ERROR, str(exc))
    except GitHubUnavailable as exc:
        return stopped(ctx, progress, ExitCode.INFRASTRUCTURE, str(exc))
    except Exception as exc:
        return stopped(ctx, progress, ExitCode.INFRASTRUCTURE,
                       f"internal error (a bug in satori-ci): {type(exc).__name__}: {exc}")
    if ctx.inputs.shard is not None:
        return _shard_main(ctx, ctx.inputs.shard)
    try:
        return run(ctx, progress)
    except (ConfigError, OracleFileError, ActionConfigError, TeamCollectionError) as exc:
        return stopped(ctx, progress, ExitCode.INPUT_ERROR, str(exc))
    except ShardReportError as exc:
        return stopped(ctx, progress, exc.code, str(exc))
    except RunError as exc:
        return stopped(ctx, progress, ExitCode.INFRASTRUCTURE, str(exc))
    except KeyboardInterrupt:
        return cancelled(ctx)
    except Exception as exc:  # the one boundary for bugs: reported, never a bare traceback
        if _debugging():
            say(group("satori-ci: traceback of the internal error"))
            print(redact(traceback.format_exc()), flush=True)
            say(endgroup())
        hint = "" if _debugging() else "; re-run with debug logging for a traceback"
        return stopped(ctx, progress, ExitCode.INFRASTRUCTURE,
                       f"internal error (a bug in satori-ci): {type(exc).__name__}: {exc}{hint}")


if __name__ == "__main__":
    sys.exit(main())
