"""`satori-ci collection`, `satori-ci run` and `satori-ci verify`."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from satori_ci.check.frame import observable, proposal_settings
from satori_ci.check.spec_check import request_set
from satori_ci.check.stores import read_store, store_file_of
from satori_ci.check.workspace import ensure_inside_workspace, write_atomically
from satori_ci.cli.explain_command import run_explain
from satori_ci.cli.progress import ProgressBar
from satori_ci.cli.report_files import add_report_file_options, run_report, write_report_files
from satori_ci.cli.request_options import RequestInputs, add_request_options, check_base_url, request_inputs
from satori_ci.cli.spec_commands import add_spec_options, load, parse_operation
from satori_ci.config import SpecConfig, load_config
from satori_ci.errors import ExitCode, UsageError
from satori_ci.observe.apply import pending
from satori_ci.observe.fields import observed_fields
from satori_ci.observe.propose import ready
from satori_ci.observe.store import dump_store
from satori_ci.observe.update import observe_update
from satori_ci.oracles.file import dump_oracle_file, load_oracle_file
from satori_ci.oracles.freshness import staleness
from satori_ci.oracles.model import Oracle
from satori_ci.plan.requests import RequestSet
from satori_ci.postman.export import collection_json
from satori_ci.redaction import redact
from satori_ci.report.collection_text import collection_notes, written_line
from satori_ci.report.run_text import run_json, run_text
from satori_ci.run.breaker import origin
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.interface import RUNNER_NAMES, RunnerName
from satori_ci.run.model import VIOLATIONS_PER_ORACLE, RunResult
from satori_ci.run.outcome import DEFAULT_MAX_BYTES, MAX_TIMEOUT_S, RunConfig
from satori_ci.run.team import TeamTestPolicy
from satori_ci.run.verify import OperationChoice, read_responses, verify_responses
from satori_ci.spec import ResponseField, Spec


def _read_text(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the {what} ({exc.strerror if isinstance(exc, OSError) else exc})"
                         ) from None


def read_oracles(path: str, spec: Spec | None = None) -> list[Oracle]:
    """The enabled oracles of the oracle file at `path` (OracleFileError when it is not one); with the spec, a
    warning when the file is older than it (its oracles may not allow what the spec now allows)."""
    file = load_oracle_file(_read_text(path, "oracle file"), path)
    found = staleness(file, spec.fields) if spec is not None else None
    if found is not None and found.stale:
        print(f"satori-ci: warning: {path} is older than {spec.source if spec else 'the spec'}: {found.changed} "
              f"field(s) changed, {found.added} added, {found.removed} removed since it was written; update it "
              f"with `satori-ci infer {spec.source if spec else 'SPEC'} --oracles {path}`", file=sys.stderr)
    return file.enabled_oracles()


def _write(path: str, text: str) -> None:
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write ({exc.strerror})") from None


def _notes(notes: tuple[str, ...]) -> None:
    for note in notes:
        print(f"satori-ci: note: {note}", file=sys.stderr)


def _settings(args: argparse.Namespace, spec: Spec) -> SpecConfig:
    return load_config(args.config).for_spec(spec.file)


def _configured(args: argparse.Namespace, spec: Spec, oracles: list[Oracle]) -> list[Oracle]:
    """The oracles the config leaves to check (`skip_kinds`, `ignore.fields`, `ignore.operations`), as `check` does."""
    settings = _settings(args, spec)
    kept = [o for o in oracles if settings.checks(o)]
    if len(kept) < len(oracles):
        print(f"satori-ci: note: {len(oracles) - len(kept)} enabled oracle(s) left out by {settings.source} "
              "(skip_kinds, ignore)", file=sys.stderr)
    return kept


def null_like(args: argparse.Namespace, spec: Spec) -> tuple[str, ...]:
    """`--null-like` values, else the config file's `null_like` for this spec."""
    if args.null_like:
        return tuple(args.null_like)
    return _settings(args, spec).null_like


def _planned(args: argparse.Namespace, spec: Spec, oracles: list[Oracle], base_url: str | None,
             observe: list[ResponseField] | None = None) -> tuple[RequestSet, RequestInputs]:
    """The requests the plan sends, under the flags and the config's `requests:`; `observe`: the fields whose
    values each response is summarized for (the observation store)."""
    settings = _settings(args, spec)
    inputs = request_inputs(args, settings, os.environ, base_url)
    nulls = tuple(args.null_like) if args.null_like else settings.null_like
    return request_set(spec, oracles, base_url, inputs.plan, inputs.team, nulls, observe), inputs


def _observed(args: argparse.Namespace, spec: Spec) -> list[ResponseField] | None:
    """The fields to observe, or None when observing is off (`--no-observe`, `observe: false`); refuses (before
    anything is sent) an oracle file or a store that observing would write outside the repository."""
    settings = _settings(args, spec)
    if args.no_observe or not settings.observe.enabled:
        return None
    oracle_path = Path(args.oracles)
    for path in (oracle_path, store_file_of(oracle_path)):
        ensure_inside_workspace(path, outside_ok=oracle_path.is_absolute())
    return observable(spec.fields, settings)


def _observe(args: argparse.Namespace, spec: Spec, fields: list[ResponseField] | None, result: RunResult) -> None:
    """The run's observations into the store next to the oracle file, and its suggestions into the file."""
    if fields is None or result.observed is None:
        return
    oracle_path = Path(args.oracles)
    outside_ok = oracle_path.is_absolute()
    store_file = store_file_of(oracle_path)
    text = _read_text(args.oracles, "oracle file")
    file = load_oracle_file(text, args.oracles)
    settings = proposal_settings(_settings(args, spec), spec)
    found = observe_update(file, read_store(store_file), result.observed, fields, settings,
                           lambda v: redact(v) != v)
    write_atomically(store_file, dump_store(found.store), outside_ok=outside_ok)
    if found.file != file:
        write_atomically(oracle_path, dump_oracle_file(found.file), outside_ok=outside_ok)
    waiting = pending(found.file)
    ops = found.store.operations.values()
    ready_ops = sum(1 for op in ops if ready(op, settings))
    accept = shlex.join(["satori-ci", "accept", args.spec, "--oracles", args.oracles, "--all"])
    said = (f"{len(waiting)} observed oracle(s) suggested in {args.oracles}, off until you accept them "
            f"(all: {accept})" if waiting else
            f"no oracle suggested yet ({ready_ops} of {len(ops)} operation(s) have the {settings.min_responses} "
            f"responses from {settings.min_requests} requests, or list elements, suggestions need)")
    print(f"satori-ci: observed {_plural(found.responses, 'response')} into {store_file}; {said}", file=sys.stderr)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def run_collection(args: argparse.Namespace) -> int:
    spec = load(args.spec, args)
    if args.explain or args.json:
        if not args.explain:
            raise UsageError("--json goes with --explain")
        return run_explain(args, spec)
    if not args.oracles:
        raise UsageError("the following arguments are required: --oracles (all but --explain need it)")
    oracles = _configured(args, spec, read_oracles(args.oracles, spec))
    planned, inputs = _planned(args, spec, oracles, args.base_url)
    text = collection_json(planned, inputs.team,
                           tuple((name, "{{" + variable + "}}") for name, variable in inputs.header_references),
                           tuple(v for _, v in inputs.header_references))
    if args.out:
        _write(args.out, text)
        print(written_line(args.out, planned, len(oracles)), file=sys.stderr)
    else:
        sys.stdout.write(text)
    _notes(collection_notes(planned))
    for _, variable in inputs.header_references:
        print(f"satori-ci: note: the collection reads header values from the variable {variable}: set it in "
              "your Postman environment", file=sys.stderr)
    return ExitCode.OK


def _config(args: argparse.Namespace, inputs: RequestInputs) -> RunConfig:
    if args.retries < 0 or args.iterations < 1 or args.max_response_bytes < 1:
        raise UsageError("--max-response-bytes must be positive, --retries at least 0, --iterations at least 1")
    return RunConfig(base_url=args.base_url, timeout_s=args.timeout, max_bytes=args.max_response_bytes,
                     retries=args.retries,
                     backoff_s=args.backoff, iterations=args.iterations, environ=dict(os.environ),
                     insecure=args.insecure, headers=inputs.headers, min_exercised=inputs.min_exercised,
                     fail_on_server_errors=inputs.fail_on_server_errors)


def _finish(result: RunResult, args: argparse.Namespace, extra: dict[str, Any]) -> None:
    sys.stdout.write(run_text(result))
    if args.report:
        _write(args.report, redact(run_json(result, extra)))


def run_run(args: argparse.Namespace) -> int:
    spec = load(args.spec, args)
    oracles = _configured(args, spec, read_oracles(args.oracles, spec))
    check_base_url(args.base_url, "--base-url")
    observe = _observed(args, spec)
    planned, inputs = _planned(args, spec, oracles, args.base_url, observe)
    _notes(inputs.notes)
    config = _config(args, inputs)
    bar = ProgressBar("requests", enabled=not args.quiet, heartbeat=origin(args.base_url))
    config = replace(config, progress=bar.update, team_tests=team_tests(args.team_tests, _settings(args, spec)))
    try:
        bar.start_heartbeat()
        result = RunnerName(args.runner).build(inputs.team).run(planned, config)
    finally:
        bar.close()
    write_report_files(args, run_report(spec, result, args.oracles))
    _finish(result, args, {"spec": spec.source, "oracles": args.oracles, "base_url": args.base_url})
    _observe(args, spec, observe, result)
    return result.exit_code


def run_verify(args: argparse.Namespace) -> int:
    spec = load(args.spec, args)
    oracles = _configured(args, spec, read_oracles(args.oracles, spec))
    choice = None
    if args.operation:
        method, path, status = parse_operation(args.operation)
        if not any(o.method == method and o.path == path for o in spec.operations):
            raise UsageError(f"{spec.source}: no operation {method} {path}")
        choice = OperationChoice(method, path, status)
    recorded = read_responses(_read_text(args.responses, "recorded responses"), args.responses, choice)
    observe = _observed(args, spec)
    result = verify_responses(spec, oracles, recorded, null_like(args, spec),
                              None if args.list_all else VIOLATIONS_PER_ORACLE,
                              observed_fields(observe) if observe is not None else None)
    write_report_files(args, run_report(spec, result, args.oracles))
    _finish(result, args, {"spec": spec.source, "oracles": args.oracles, "responses": args.responses})
    _observe(args, spec, observe, result)
    if result.violations:
        return ExitCode.VIOLATIONS
    if recorded and not result.checked:
        raise RunError(RunErrorKind.INPUT, f"{args.responses}: no recorded response matched an operation "
                       "and status of the spec")
    return ExitCode.OK


def timeout_seconds(text: str) -> float:
    """`--timeout`'s value: seconds, more than 0 and at most `MAX_TIMEOUT_S` (not NaN, not infinite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text[:40]!r}") from None
    if not 0 < value <= MAX_TIMEOUT_S:  # NaN fails every comparison
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds "
                                         f"(got {text[:40]!r})")
    return value


def add_timeout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=timeout_seconds, default=30.0, metavar="SECONDS",
                        help="per request, the whole exchange: connect, headers and body, however slowly the server "
                             f"sends them (default 30, at most {MAX_TIMEOUT_S:g}); past it the request is a timeout")


def add_max_response_bytes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-response-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help="read at most N bytes of a response body; a larger response is reported as too "
                             f"large and not checked, and the run goes on (default {DEFAULT_MAX_BYTES}, 8 MiB)")


def add_team_tests(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--team-tests", choices=[p.value for p in TeamTestPolicy],
                        help="what a failing test of your own Postman collection (its pm.test, run by Newman) does: "
                             "fail (like a violation, exit 1), warn (listed only) or ignore (default: the config's "
                             "requests.team_tests, else fail)")


def team_tests(flag: str | None, settings: SpecConfig) -> TeamTestPolicy:
    """`--team-tests`, else the config's `requests.team_tests`, else fail."""
    return TeamTestPolicy(flag or settings.requests.team_tests_or_default)


def _common(parser: argparse.ArgumentParser, oracles_required: bool = True) -> None:
    parser.add_argument("spec", metavar="SPEC", help="a file, or REV:path in git")
    parser.add_argument("--oracles", required=oracles_required, metavar="FILE", help="the reviewed oracle file")
    parser.add_argument("--config", metavar="FILE",
                        help="project config file for the spec's null_like (default .satori.yml when present)")
    parser.add_argument("--null-like", action="append", default=[], metavar="VALUE",
                        help="a string that stands for 'no value' in this API and is skipped on every field "
                             "(repeatable; e.g. --null-like N/A --null-like '')")
    add_spec_options(parser)


def _run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--report", metavar="FILE", help="also write the results as JSON")
    add_report_file_options(parser)
    parser.add_argument("--no-observe", action="store_true",
                        help="do not feed the 2XX JSON responses to the observation store next to the oracle file "
                             "(x.oracles.yaml: x.observed.json), nor suggest observed oracles in the oracle file")


def register(sub: Any) -> None:
    collection = sub.add_parser(
        "collection", help="write a Postman collection that asserts the oracles",
        description="A Postman collection (v2.1): one folder per operation, sample requests from the spec, "
                    "one named test per enabled oracle. Credentials come from SATORI_AUTH_* environment "
                    "variables at run time and are never written into the file.")
    _common(collection, oracles_required=False)
    collection.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    collection.add_argument("--base-url", metavar="URL", help="the baseUrl variable (default: the spec's server)")
    collection.add_argument("--explain", action="store_true",
                            help="instead of the collection, say which spec operation each request of your own "
                                 "collection (--postman-collection) calls, with which path parameters, or why none; "
                                 "its empty, unknown and script-set variables; what the native runner cannot send")
    collection.add_argument("--json", action="store_true", help="with --explain: as JSON")
    add_request_options(collection, sends=False)
    collection.set_defaults(handler=run_collection)

    run = sub.add_parser(
        "run", help="send the sample requests to a server and check the oracles",
        description="Only GET and HEAD operations are sent unless opted in (--unsafe or requests.unsafe in "
                    ".satori.yml); detail operations take ids from list responses. Exit 0 clean, 1 oracle "
                    "violations or 5XX answers, 3 staging unreachable (connection, timeout, TLS), credentials "
                    "refused (most answers 401/403) or no enabled oracle exercised.")
    _common(run)
    run.add_argument("--base-url", required=True, metavar="URL", help="the server under test")
    run.add_argument("--runner", choices=RUNNER_NAMES, default=RunnerName.AUTO.value,
                     help="auto (Newman when installed, else native, with a note), newman (the Postman collection) "
                          "or native (Python requests)")
    add_timeout(run)
    add_max_response_bytes(run)
    run.add_argument("--retries", type=int, default=2, metavar="N",
                     help="extra attempts on infrastructure problems (default 2)")
    run.add_argument("--backoff", type=float, default=1.0, metavar="SECONDS",
                     help="wait before retry n: n times this (default 1)")
    run.add_argument("--iterations", type=int, default=1, metavar="N", help="run every request N times")
    run.add_argument("--insecure", action="store_true", help="accept any TLS certificate")
    run.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                                                           "terminal)")
    add_team_tests(run)
    add_request_options(run)
    _run_options(run)
    run.set_defaults(handler=run_run)

    verify = sub.add_parser(
        "verify", help="check recorded responses offline",
        description="Check recorded responses: JSON Lines with method, path, status and body (or just body "
                    "with --operation).")
    _common(verify)
    verify.add_argument("--responses", required=True, metavar="FILE.jsonl", help="the recorded responses")
    verify.add_argument("--operation", metavar='"METHOD /path [STATUS]"',
                        help="the operation of lines that carry only a body")
    verify.add_argument("--list-all", action="store_true",
                        help=f"list every violation (default: the first {VIOLATIONS_PER_ORACLE} of each oracle, the "
                             "rest counted)")
    _run_options(verify)
    verify.set_defaults(handler=run_verify)
