"""`satori-ci infer SPEC --backend llm --batch submit|status|collect`: the LLM's first run through the Batch API
(`satori_ci.infer.batch_run`); here only wiring, files and printing.

A key is needed for every action that talks to the server (no key: exit 2; the rules are never written as if a
batch had run). A large input is sent as several batches (parts), handled together. The state file
(`x.batch.json`) and the input file (`x.batch.jsonl`, every part's lines) sit next to the oracle file from submit
until a collect has written the oracle file. When every batch `failed`, the state is removed (nothing to
collect); otherwise the batches are collected once none is pending (the answers they have used, the rest
answered by the rules), then exit 3 if one `failed`, `expired` or was `cancelled`. A part that could not be
created at submit: the parts before it are kept, its fields and the later ones' are not sent (the rules answer
them at collect), exit 3.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from satori_ci.check.workspace import ensure_inside_workspace, write_atomically
from satori_ci.cli.infer_common import llm_config, summary_lines
from satori_ci.cli.progress import ProgressBar
from satori_ci.errors import ExitCode, UsageError
from satori_ci.infer.batch_run import Collected, collect, prepare, submit
from satori_ci.infer.llm.batch import (
    BatchApi,
    BatchError,
    BatchErrorKind,
    BatchStatus,
    ended_early,
    total_line,
)
from satori_ci.infer.llm.batch_state import BatchState, dump_state, input_path, load_state, state_path
from satori_ci.infer.llm.config import LLMConfig
from satori_ci.infer.rules import context_digests
from satori_ci.oracles.file import OracleFile, dump_oracle_file
from satori_ci.report.oracle_text import interchange_jsonl
from satori_ci.spec.model import Spec


def _read_state(path: Path) -> BatchState | None:
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchError(f"{path}: cannot read ({exc})", BatchErrorKind.INPUT) from None
    return load_state(text, str(path))


def _remove(*paths: Path) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


class _Batch:
    """One `infer --batch` command: its files and settings."""

    def __init__(self, args: argparse.Namespace, spec: Spec, oracle_file: Path, outside_ok: bool) -> None:
        self.args = args
        self.spec = spec
        self.oracle_file = oracle_file
        self.outside_ok = outside_ok
        self.state_file = Path(state_path(str(oracle_file)))
        self.input_file = Path(input_path(str(oracle_file)))
        for path in (self.state_file, self.input_file):
            ensure_inside_workspace(path, outside_ok=outside_ok)

    def write(self, path: Path, text: str) -> None:
        write_atomically(path, text, outside_ok=self.outside_ok)

    # -- the actions -----------------------------------------------------------------------------

    @staticmethod
    def statuses(api: BatchApi, state: BatchState) -> tuple[BatchStatus, ...]:
        return tuple(api.retrieve(batch_id) for batch_id in state.batch_ids)

    @staticmethod
    def headline(statuses: tuple[BatchStatus, ...]) -> str:
        """The one batch's line, else the total line."""
        return statuses[0].line() if len(statuses) == 1 else total_line(statuses)

    def status(self, api: BatchApi, state: BatchState) -> int:
        statuses = self.statuses(api, state)
        if len(statuses) > 1:
            for status in statuses:
                print(status.line())
        not_sent = f", {state.not_sent} not sent" if state.not_sent else ""
        print(f"{self.headline(statuses)} (submitted for {state.spec}: {len(state.requests)} field(s) with "
              f"{state.model}{not_sent})")
        return ExitCode.OK

    def submit(self, api: BatchApi, state: BatchState | None, config: LLMConfig,
               previous: OracleFile | None) -> int:
        if state is not None:
            statuses = self.statuses(api, state)
            pending = any(status.pending for status in statuses)
            then = "see --batch status" if pending else "collect it first with --batch collect"
            print(f"{self.headline(statuses)}: already submitted for {state.spec}, nothing submitted ({then})",
                  file=sys.stderr)
            return ExitCode.OK
        batch_input = prepare(self.spec.fields, previous, context_digests(self.spec.fields, self.spec), config)
        if not batch_input.requests:
            print(f"nothing to submit: no field of {self.spec.file} needs the LLM (every other field's oracles "
                  f"are reused from {self.oracle_file})", file=sys.stderr)
            return ExitCode.OK
        done = submit(api, self.spec.file, batch_input, config, self.input_file.name)
        self.write(self.input_file, done.jsonl)  # what was sent, for the curious; removed at collect
        self.write(self.state_file, dump_state(done.state))
        if len(done.statuses) == 1:
            what = f"batch {done.statuses[0].batch_id} ({done.statuses[0].status})"
        else:
            what = f"{len(done.statuses)} batches ({', '.join(status.batch_id for status in done.statuses)})"
        print(f"submitted {what}: {len(done.state.requests)} field(s) of {self.spec.file} for {config.model}; "
              f"state in {self.state_file}. When it is done (within 24h), run the same command with --batch "
              "collect", file=sys.stderr)
        if batch_input.held_back:
            print(f"warning: {batch_input.held_back} field(s) left out by --max-calls {config.max_calls}: the "
                  "rules answer them at collect", file=sys.stderr)
        if done.error is not None:
            print(f"warning: {done.state.not_sent} field(s) not sent: batch {len(done.statuses) + 1} of "
                  f"{len(batch_input.parts)} could not be created; the rules answer them at collect",
                  file=sys.stderr)
            raise done.error
        return ExitCode.OK

    def collect(self, api: BatchApi, state: BatchState, config: LLMConfig, previous: OracleFile | None) -> int:
        statuses = self.statuses(api, state)
        pending = [status for status in statuses if status.pending]
        if len(statuses) == 1 and pending:
            print(f"{statuses[0].line()}: not finished, nothing collected; collect again later", file=sys.stderr)
            return ExitCode.OK
        if pending:
            which = ", ".join(f"{status.batch_id} {status.status}" for status in pending)
            print(f"{len(pending)} of {len(statuses)} batches not finished ({which}): nothing collected; collect "
                  "again later", file=sys.stderr)
            return ExitCode.OK
        if all(status.status == "failed" for status in statuses):
            _remove(self.state_file, self.input_file)
            raise BatchError(f"{self.headline(statuses)}: nothing to collect, {self.state_file} removed; submit "
                             "again, or run without --batch")
        bar = ProgressBar("collecting", enabled=not self.args.quiet)
        try:
            done = collect(api, state, statuses, self.spec, previous, context_digests(self.spec.fields, self.spec),
                           config, bar.update)
        finally:
            bar.close()
        self.write(self.oracle_file, dump_oracle_file(done.update.file))
        if not done.update.pending:
            _remove(self.state_file, self.input_file)
        if self.args.jsonl:
            sys.stdout.write(interchange_jsonl(done.update.file.enabled_oracles()))
        if not self.args.quiet:
            for line in self._summary(done, state):
                print(line, file=sys.stderr)
        if done.update.pending:
            return ExitCode.INTERRUPTED
        ended = ended_early(statuses)
        if ended:
            raise BatchError(f"{ended}: {done.fell_back} field(s) fell back to rules ({self.oracle_file} written, "
                             f"{self.state_file} removed)")
        return ExitCode.OK

    def _summary(self, done: Collected, state: BatchState) -> list[str]:
        lines = summary_lines(done.update, self.oracle_file, "llm", batch_requests=done.requests)
        if done.fell_back:
            lines.insert(1, f"{done.fell_back} field(s) fell back to rules: {done.why}")
        if done.unreadable:
            lines.append(f"warning: {done.unreadable} line(s) of the batch's output and error files could not "
                         "be read")
        if state.held_back:
            lines.append(f"warning: {state.held_back} field(s) were left out of the batch by --max-calls")
        if state.not_sent:
            lines.append(f"warning: {state.not_sent} field(s) were not sent (their batch could not be created at "
                         "submit)")
        return lines


def run_batch(args: argparse.Namespace, spec: Spec, oracle_file: Path, outside_ok: bool,
              previous: OracleFile | None) -> int:
    """`infer --batch ACTION`; exit codes as every command (`BatchError`s through `errors.classify`)."""
    if args.backend != "llm":
        raise UsageError("--batch needs --backend llm (the Batch API asks the LLM)")
    if args.batch == "submit" and args.max_tokens is not None:
        raise UsageError("--max-tokens cannot bound a batch (its tokens are known once it has run): "
                         "use --max-calls")
    batch = _Batch(args, spec, oracle_file, outside_ok)
    state = _read_state(batch.state_file)
    if state is None and args.batch == "status":
        print(f"no batch pending for {spec.file} (no {batch.state_file})")
        return ExitCode.OK
    if state is None and args.batch == "collect":
        raise BatchError(f"no batch to collect for {spec.file} (no {batch.state_file}): submit one with "
                         "--batch submit", BatchErrorKind.INPUT)
    config = llm_config(args)
    key = os.environ.get(args.api_key_env) or None
    if config is None or key is None:
        raise UsageError(f"--batch {args.batch} needs an API key: set {args.api_key_env} (without a key, infer "
                         "without --batch: the rules answer)")
    from satori_ci.infer.llm.batch_client import BatchClient  # imports openai: only when it is used

    with BatchClient(api_key=key, base_url=args.base_url, timeout=max(config.timeout, 60.0)) as api:
        if args.batch == "status":
            assert state is not None
            return batch.status(api, state)
        if args.batch == "submit":
            return batch.submit(api, state, config, previous)
        assert state is not None
        return batch.collect(api, state, config, previous)
