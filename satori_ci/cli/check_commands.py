"""`satori-ci check` (the pull-request flow before you push), its shards (`check --shard I/N --shard-report FILE`,
then `satori-ci merge REPORT...`) and `satori-ci demo`."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from satori_ci.check.spec_check import check_spec
from satori_ci.check.stores import store_file_of
from satori_ci.check.target import CheckOptions, SpecTarget
from satori_ci.check.workspace import default_oracle_path, ensure_inside_workspace, write_atomically
from satori_ci.cli.progress import ProgressBar
from satori_ci.cli.report_files import add_report_file_options, write_report_files
from satori_ci.cli.request_options import add_request_options, check_base_url, request_inputs
from satori_ci.cli.run_commands import add_max_response_bytes, add_team_tests, add_timeout, team_tests
from satori_ci.cli.spec_commands import add_spec_options
from satori_ci.config import ObserveSettings, ProjectConfig, load_config
from satori_ci.config.settings import ChangeMinimum, RequestSettings, change_minimum
from satori_ci.errors import ExitCode, UsageError, classify
from satori_ci.infer.factory import BACKENDS
from satori_ci.infer.llm import LLMConfig
from satori_ci.infer.llm.config import DEFAULT_MODEL
from satori_ci.observe.store import dump_store
from satori_ci.oracles.file import dump_oracle_file
from satori_ci.redaction import current
from satori_ci.report.json_report import report_json
from satori_ci.report.model import CheckReport, FailOn
from satori_ci.report.terminal import render_terminal
from satori_ci.run.breaker import origin
from satori_ci.run.interface import RUNNER_NAMES, RunnerName
from satori_ci.shard.binding import RunBinding, bind_spec, config_digest
from satori_ci.shard.errors import ShardReportError
from satori_ci.shard.files import read_shard_reports, report_files
from satori_ci.shard.job import check_shard
from satori_ci.shard.merge import Expected, files_named, merge_shards
from satori_ci.shard.report import ShardReport, shard_report_text
from satori_ci.shard.slice import Shard, parse_shard
from satori_ci.spec.errors import SpecError
from satori_ci.spec.source import open_source


def _spec_path(ref: str) -> str:
    """The spec's repository path from a file or `REV:path` argument (for config and oracle file names)."""
    if os.path.isfile(ref):
        try:
            return open_source(ref).entry
        except SpecError:
            return Path(ref).as_posix()
    if os.path.exists(ref) or ":" not in ref:
        return Path(ref).as_posix()
    return ref.partition(":")[2].removeprefix("./")


def _min_changed(flag: str | None, requests: RequestSettings) -> ChangeMinimum:
    if flag is None:
        return requests.min_changed_or_default
    try:
        return change_minimum(flag)
    except ValueError:
        raise UsageError("--min-changed-exercised must be a whole number (0 or more) or a share like 50%") from None


def options_from(args: argparse.Namespace, config: ProjectConfig, environ: dict[str, str]) -> CheckOptions:
    backend = args.backend or config.backend or "rules"
    llm = None
    if backend == "llm":
        llm = LLMConfig(model=args.model or config.model or DEFAULT_MODEL, base_url=args.base_url,
                        api_key=environ.get(args.api_key_env) or None)
    if args.max_response_bytes < 1:
        raise UsageError("--max-response-bytes must be positive")
    return CheckOptions(backend=backend, llm=llm, runner=args.runner, timeout_s=args.timeout,
                        max_response_bytes=args.max_response_bytes, environ=environ,
                        follow_remote_refs=args.follow_remote_refs, max_bytes=args.max_bytes)


def run_check(args: argparse.Namespace) -> int:
    if args.shard is None:
        if args.shard_report is not None:
            raise UsageError("--shard-report goes with --shard I/N")
        return _check(args, None)
    shard = parse_shard(args.shard)
    if args.shard_report is None:
        raise UsageError("--shard I/N writes a partial report: give its file with --shard-report FILE")
    if args.json or args.junit or args.sarif:
        raise UsageError("--json, --junit and --sarif are for the verdict, which `satori-ci merge` gives once every "
                         "shard ran")
    try:
        return _check(args, shard)
    except Exception as exc:  # the merge must name the shard that could not run
        failure = classify(exc)
        failed = ShardReport(shard, failed=failure.message, exit_code=int(failure.code))
        _write_shard_report(Path(args.shard_report), failed)
        raise


def _write_shard_report(path: Path, report: ShardReport) -> None:
    """The partial report, redacted, all or nothing (a path the user chose: anywhere)."""
    write_atomically(path, shard_report_text(report, current().redact_data), outside_ok=True)


def _check(args: argparse.Namespace, shard: Shard | None) -> int:
    environ = dict(os.environ)
    config = load_config(args.config)
    spec_path = _spec_path(args.head)
    settings = config.for_spec(spec_path)
    if args.no_observe:
        settings = replace(settings, observe=ObserveSettings(enabled=False))
    oracle_file = Path(args.oracles) if args.oracles else default_oracle_path(
        spec_path, config.oracles_dir or ".satori")
    outside_ok = bool(args.oracles) and oracle_file.is_absolute()
    store_file = store_file_of(oracle_file)
    ensure_inside_workspace(oracle_file, outside_ok=outside_ok)  # before reading it or sending anything
    ensure_inside_workspace(store_file, outside_ok=outside_ok)
    url = settings.staging(environ, args.staging_url).url
    inputs = request_inputs(args, settings, environ, args.staging_url)
    notes = list(inputs.notes)
    if url is not None:
        check_base_url(url, "the staging URL")
    options = options_from(args, config, environ)
    bar = ProgressBar("inferring", enabled=not args.quiet)
    requests_bar = ProgressBar("requests", enabled=not args.quiet, heartbeat=origin(url) if url else None)
    options = replace(options, progress=bar.update, on_request=requests_bar.update,
                      on_stage=requests_bar.start_heartbeat)
    target = SpecTarget(head=args.head, base=args.base, oracle_file=oracle_file, settings=settings,
                        staging_url=url, headers=inputs.headers, plan=inputs.plan,
                        min_exercised=inputs.min_exercised, fail_on_server_errors=inputs.fail_on_server_errors,
                        team=inputs.team, team_tests=team_tests(args.team_tests, settings),
                        trusted_store=trusted_store_ref(args.base, store_file),
                        min_changed=_min_changed(args.min_changed_exercised, settings.requests))
    if shard is not None:
        try:
            part = check_shard(target, options, shard)
        finally:
            bar.close()
            requests_bar.close()
        _write_shard_report(Path(args.shard_report), ShardReport(shard, (part,), notes=tuple(notes),
                                                                 binding=run_binding(config)))
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        ran = part.run
        done = (f"{ran.requests} request(s) of its operations sent, {ran.checked} response(s) checked"
                if ran is not None else "nothing run")
        print(f"satori-ci: shard {shard}: {done}; partial report {args.shard_report} (the verdict: satori-ci merge "
              "with every shard's report)", file=sys.stderr)
        return ExitCode.OK
    try:
        outcome = check_spec(target, options)
    finally:
        bar.close()
        requests_bar.close()
    if outcome.updated is not None and not args.no_write:
        write_atomically(oracle_file, dump_oracle_file(outcome.updated), outside_ok=outside_ok)
    if outcome.store is not None and not args.no_write:
        write_atomically(store_file, dump_store(outcome.store), outside_ok=outside_ok)
    fail_on = FailOn(args.fail_on) if args.fail_on else (config.fail_on or FailOn.VIOLATIONS)
    report = CheckReport((outcome.check,), fail_on)
    write_report_files(args, report)
    emit(report, args.json, notes)
    return report.exit_code


def trusted_store_ref(base: str | None, store_file: Path) -> str | None:
    """With `--base REV:path`, the observation store as it is at REV (its suspects do not fail the check);
    None for a base that is a file, or none."""
    if base is None or os.path.exists(base) or ":" not in base:
        return None
    rev = base.partition(":")[0]
    relative = os.path.relpath(store_file) if store_file.is_absolute() else store_file.as_posix()
    if relative.startswith(".."):
        return None
    return f"{rev}:./{Path(relative).as_posix()}"


def emit(report: CheckReport, as_json: bool, notes: list[str]) -> None:
    if as_json:
        sys.stdout.write(json.dumps(current().redact_data(report_json(report)), ensure_ascii=False, indent=2) + "\n")
        return
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    sys.stdout.write(render_terminal(report, colour))
    for spec in report.specs:
        if spec.error is not None:  # the one line the exit code stands for, where errors go
            print(f"satori-ci: error: {spec.error}", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def git_head() -> str | None:
    """The commit checked out here (`git rev-parse HEAD`); None outside a repository or before its first commit."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD"], capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (proc.stdout.strip() or None) if proc.returncode == 0 else None


def run_binding(config: ProjectConfig) -> RunBinding:
    """What a shard's report is bound to on the command line: the commit checked out and the config."""
    return RunBinding(git_head(), None, config_digest(config))


@dataclass(frozen=True)
class MergeTarget:
    """A spec this merge checks, as it finds it itself: never taken from a report."""

    spec: str
    head: str
    oracle_file: Path
    outside_ok: bool


def merge_targets(args: argparse.Namespace, config: ProjectConfig) -> list[MergeTarget]:
    """The specs the shards were to check: `--head` (as `check` was given it), else the config's; the oracle file
    of each where `check` puts it (`--oracles`, else the config's folder), inside the repository."""
    heads = [args.head] if args.head is not None else [s.path for s in config.specs]
    if not heads:
        raise UsageError("give the spec the shards checked with --head (as `check --shard` was given it), or list "
                         "it in the config's specs")
    if args.oracles and len(heads) > 1:
        raise UsageError("--oracles names the oracle file of one spec: give its --head too")
    out = []
    for head in heads:
        spec_path = _spec_path(head)
        oracle_file = Path(args.oracles) if args.oracles else default_oracle_path(
            spec_path, config.oracles_dir or ".satori")
        outside_ok = bool(args.oracles) and oracle_file.is_absolute()
        ensure_inside_workspace(oracle_file, outside_ok=outside_ok)
        ensure_inside_workspace(store_file_of(oracle_file), outside_ok=outside_ok)
        out.append(MergeTarget(config.for_spec(spec_path).path, head, oracle_file, outside_ok))
    return out


def run_merge(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    fail_on = FailOn(args.fail_on) if args.fail_on else (config.fail_on or FailOn.VIOLATIONS)
    files = report_files(args.reports)
    if not files:
        raise ShardReportError(ExitCode.INFRASTRUCTURE, f"no shard report (*.json) in {', '.join(args.reports)}")
    reports = read_shard_reports(files)
    targets = merge_targets(args, config)
    named = files_named(reports)
    expected = Expected(run_binding(config), tuple(bind_spec(t.head, t.spec, t.oracle_file, named.get(t.spec, ()))
                                                   for t in targets))
    merged = merge_shards(reports, fail_on, expected)
    if not args.no_write:
        for outcome, target in zip(merged.outcomes, targets, strict=True):  # this job's paths, never a report's
            if outcome.updated is not None:
                write_atomically(target.oracle_file, dump_oracle_file(outcome.updated), outside_ok=target.outside_ok)
            if outcome.store is not None:
                write_atomically(store_file_of(target.oracle_file), dump_store(outcome.store),
                                 outside_ok=target.outside_ok)
    write_report_files(args, merged.report)
    emit(merged.report, args.json, list(merged.notes))
    return merged.report.exit_code


def run_demo(args: argparse.Namespace) -> int:
    from satori_ci.demo import DemoBookshop, StagingServer, example_specs

    v1, v2 = example_specs()
    if not v1.exists():
        raise UsageError(f"the example specs are missing from this installation ({v1.parent}): reinstall satori-ci")
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="satori-demo-") as tmp, StagingServer() as server:
        DemoBookshop(server)
        os.chdir(tmp)
        try:
            report = _demo_report(v1, v2, server.base_url, args.runner)
        finally:
            os.chdir(here)
    emit(report, args.json, [])
    if not args.json:
        print(f"\n(in CI this check would exit with code {int(report.exit_code)}. Try it on your API:\n"
              "  satori-ci check --base origin/main:api/openapi.yaml --head api/openapi.yaml "
              "--staging-url https://staging.example.com)", file=sys.stderr)
    return ExitCode.OK


def _demo_report(v1: Path, v2: Path, staging_url: str, runner: str) -> CheckReport:
    """The bookshop pull request: main has v1 and its oracle file, the change brings v2."""
    (Path("api")).mkdir()
    shutil.copy(v1, "api/openapi.v1.yaml")
    shutil.copy(v2, "api/openapi.yaml")
    oracle_file = default_oracle_path("api/openapi.yaml")
    settings = load_config(None).for_spec("api/openapi.yaml")
    options = CheckOptions(runner=runner)
    main = SpecTarget(head="api/openapi.v1.yaml", base=None, oracle_file=oracle_file, settings=settings)
    committed = check_spec(main, options).updated
    if committed is None:  # pragma: no cover - the bundled example always reads
        raise UsageError("the example spec did not read")
    write_atomically(oracle_file, dump_oracle_file(committed))
    print(f"satori-ci demo: the bookshop API, v1 -> v2, checked against a local staging API at {staging_url}\n"
          "that gets some of the fields v2 adds wrong.\n", file=sys.stderr)
    head = SpecTarget(head="api/openapi.yaml", base="api/openapi.v1.yaml", oracle_file=oracle_file,
                      settings=settings, staging_url=staging_url)
    return CheckReport((check_spec(head, options).check,), FailOn.VIOLATIONS)


def register(sub: Any) -> None:
    check = sub.add_parser("check", help="the pull-request check, on your machine",
                           description="Field diff, incremental inference against the committed oracle file, "
                           "collection, run against staging, and the report the PR comment would carry.")
    check.add_argument("--base", metavar="REV_OR_FILE",
                       help="the spec before the change (origin/main:api/openapi.yaml)")
    check.add_argument("--head", metavar="REV_OR_FILE", required=True, help="the spec after the change")
    check.add_argument("--staging-url", help="where to run the oracles (default: the config file's)")
    check.add_argument("--backend", choices=BACKENDS, help="rules (default), llm, declared")
    check.add_argument("--model", help=f"LLM model (default {DEFAULT_MODEL})")
    check.add_argument("--base-url", help="OpenAI-compatible endpoint for --backend llm")
    check.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                       help="environment variable holding the LLM key (default OPENAI_API_KEY)")
    check.add_argument("--oracles", metavar="FILE", help="the oracle file (default .satori/<spec path>.oracles.yaml)")
    check.add_argument("--runner", choices=RUNNER_NAMES, default=RunnerName.AUTO.value,
                       help="auto (Newman when installed, else native), newman, native")
    check.add_argument("--fail-on", choices=[f.value for f in FailOn], help="default: violations")
    add_team_tests(check)
    check.add_argument("--min-changed-exercised", metavar="N|P%",
                       help="exit 4 when the run exercised fewer than N (or P%%) of the oracles the change adds or "
                            "changes (default: the config's requests.min_changed_exercised, else 1; 0: never)")
    check.add_argument("--config", metavar="FILE", help="project config file (default .satori.yml when present)")
    add_timeout(check)
    add_max_response_bytes(check)
    check.add_argument("--json", action="store_true", help="machine-readable report")
    add_report_file_options(check)
    check.add_argument("--no-write", action="store_true",
                       help="do not update the oracle file nor the observation store next to it")
    check.add_argument("--no-observe", action="store_true",
                       help="do not feed the responses to the observation store, nor suggest observed oracles")
    check.add_argument("--quiet", action="store_true", help="no progress bar")
    check.add_argument("--shard", metavar="I/N",
                       help="check only shard I of N of the operations (a CI matrix job): writes --shard-report, "
                            "sends no comment, exits 0 once it ran; `satori-ci merge` gives the verdict")
    check.add_argument("--shard-report", metavar="FILE", help="where --shard writes its partial report (JSON)")
    add_spec_options(check)
    add_request_options(check)
    check.set_defaults(handler=run_check)

    merge = sub.add_parser("merge", help="merge the partial reports of a sharded check into its report",
                           description="The report, JSON and exit code the unsharded check would give, from the "
                           "partial report of every shard (check --shard I/N --shard-report FILE); updates the "
                           "oracle file and the observation store like check. Sends no request. The reports must "
                           "be of this checkout: the same commit, config, spec files, oracle file and store.")
    merge.add_argument("reports", nargs="+", metavar="REPORT",
                       help="partial reports, or folders holding them (*.json)")
    merge.add_argument("--head", metavar="REV_OR_FILE",
                       help="the spec the shards checked, as check --head was given it (default: the config's specs)")
    merge.add_argument("--oracles", metavar="FILE",
                       help="the oracle file, as check --oracles was given it "
                            "(default .satori/<spec path>.oracles.yaml)")
    merge.add_argument("--fail-on", choices=[f.value for f in FailOn], help="default: the config's, else violations")
    merge.add_argument("--config", metavar="FILE", help="project config file (default .satori.yml when present)")
    merge.add_argument("--json", action="store_true", help="machine-readable report")
    add_report_file_options(merge)
    merge.add_argument("--no-write", action="store_true",
                       help="do not update the oracle file nor the observation store next to it")
    merge.set_defaults(handler=run_merge)

    demo = sub.add_parser("demo", help="run check on the bundled example against a local staging API",
                          description="Starts the example staging API on a free local port, checks the example "
                          "change v1 -> v2, prints the report and stops. No key, no network, no Node needed.")
    demo.add_argument("--runner", choices=RUNNER_NAMES, default=RunnerName.AUTO.value,
                      help="auto (Newman when installed, else native), newman, native")
    demo.add_argument("--json", action="store_true", help="machine-readable report")
    demo.set_defaults(handler=run_demo)
