"""`satori-ci infer` and `satori-ci oracle-diff`."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Self

from satori_ci.check.workspace import default_oracle_path, ensure_inside_workspace, in_main_thread, write_atomically
from satori_ci.cli.infer_batch import run_batch
from satori_ci.cli.infer_common import add_backend_options, llm_config, summary_lines
from satori_ci.cli.progress import ProgressBar
from satori_ci.cli.spec_commands import add_spec_options, load
from satori_ci.config import load_config
from satori_ci.errors import ExitCode
from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import UpdateResult, plan_inference, update_oracle_file
from satori_ci.infer.interface import BackendRun, InferenceBackend, Inferred, OnInferred
from satori_ci.infer.llm.config import DEFAULT_MODEL
from satori_ci.infer.rules import context_digests
from satori_ci.oracles.diff import diff_oracle_files
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.report.oracle_text import interchange_jsonl, oracle_diff_json, oracle_diff_text
from satori_ci.spec.model import ResponseField, Spec


def read_oracle_file(path: Path) -> OracleFile | None:
    """The file at `path`, or None when there is none yet."""
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OracleFileError(f"{path}: cannot read ({exc})") from None
    return load_oracle_file(text, str(path))


INTERRUPTS = (signal.SIGINT, signal.SIGTERM)
HELD_SIGNALS_BEFORE_STOP = 3
"""Signals noted while a held gate writes before one stops the write all the same (the user insists)."""


class InterruptGate:
    """SIGINT and SIGTERM while a command holds work it has not written yet.

    Open (at first), a signal raises KeyboardInterrupt, as Ctrl-C does anyway (SIGTERM the same: the command
    stops and writes what it has). Held (`hold`), a signal is only noted, so that what was inferred is written
    whole; the `HELD_SIGNALS_BEFORE_STOP`th stops all the same. Installed in the main thread only.
    """

    def __init__(self) -> None:
        self.noted = 0
        self._held = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Self:
        if in_main_thread():
            for signum in INTERRUPTS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        self._previous.clear()

    @property
    def interrupted(self) -> bool:
        return self.noted > 0

    def hold(self) -> None:
        """From now on, signals are noted and the work goes on."""
        self._held = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.noted += 1
        if not self._held or self.noted >= HELD_SIGNALS_BEFORE_STOP:
            raise KeyboardInterrupt


class _HeldWhenDone:
    """A backend whose gate is held as soon as it returns or stops: what it inferred is then written whatever
    signal comes."""

    def __init__(self, inner: InferenceBackend, gate: InterruptGate) -> None:
        self.inner = inner
        self.name = inner.name
        self.gate = gate

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        try:
            return self.inner.infer(fields, on_inferred)
        finally:
            self.gate.hold()


BAR_EVERY_S = 0.1
"""The rules backend's progress is drawn at most this often (it finishes thousands of fields a second)."""


def run_inference(spec_file: str, fields: Any, previous: OracleFile | None, args: argparse.Namespace,
                  spec: Spec | None = None, gate: InterruptGate | None = None
                  ) -> UpdateResult:
    """The updated oracle file; interrupted (Ctrl-C, SIGTERM), what was inferred so far with `pending` > 0.
    With `gate`, it is held as soon as the backend stops, so the caller can write the result whole."""
    bar = ProgressBar("inferring", enabled=not args.quiet)
    total = 0
    done = 0
    drawn = 0.0

    def progress(finished: int, count: int) -> None:
        bar.update(finished, count)

    def on_inferred(_: Inferred) -> None:
        nonlocal done, drawn
        done += 1
        if args.backend != "llm" and (done == total or time.monotonic() - drawn >= BAR_EVERY_S):
            drawn = time.monotonic()
            bar.update(done, total)

    backend: InferenceBackend = make_backend(args.backend, llm_config(args), progress, context=fields, spec=spec)
    if gate is not None:
        backend = _HeldWhenDone(backend, gate)
    digests = context_digests(fields, spec)
    total = len(plan_inference(fields, previous, digests).to_infer)
    if args.backend != "llm":
        bar.update(0, total)
    try:
        return update_oracle_file(spec_file, fields, previous, backend, on_inferred, digests)
    finally:
        bar.close()


INTERRUPTED_WHEN_DONE = "interrupted: after the last field was inferred (the oracle file is complete)"


def run_infer(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    args.backend = args.backend or config.backend or "rules"
    args.model = args.model or config.model or DEFAULT_MODEL
    spec = load(args.spec, args)
    path = Path(args.oracles) if args.oracles else default_oracle_path(spec.file, config.oracles_dir or ".satori")
    outside_ok = bool(args.oracles) and path.is_absolute()
    ensure_inside_workspace(path, outside_ok=outside_ok)  # before reading it, and before any inference
    previous = read_oracle_file(path)
    if args.batch:
        return run_batch(args, spec, path, outside_ok, previous)
    with InterruptGate() as gate:  # from the first inferred field to the written file, Ctrl-C loses nothing
        result = run_inference(spec.file, spec.fields, previous, args, spec, gate)
        gate.hold()
        write_atomically(path, dump_oracle_file(result.file), outside_ok=outside_ok)
        if args.jsonl:
            sys.stdout.write(interchange_jsonl(result.file.enabled_oracles()))
        lines = summary_lines(result, path, args.backend)
        if gate.interrupted and not result.pending:
            lines.append(INTERRUPTED_WHEN_DONE)
        for line in lines:  # --quiet: no summary, but warnings and why the exit is 130 all the same
            if not args.quiet or line.startswith(("warning:", "interrupted:")):
                print(line, file=sys.stderr)
    return ExitCode.INTERRUPTED if result.pending or gate.interrupted else ExitCode.OK


def run_oracle_diff(args: argparse.Namespace) -> int:
    old = read_oracle_file(Path(args.old))
    new = read_oracle_file(Path(args.new))
    if new is None:
        raise OracleFileError(f"{args.new}: no such file")
    diff = diff_oracle_files(old, new)
    if args.json:
        sys.stdout.write(json.dumps(oracle_diff_json(diff), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(oracle_diff_text(diff))
    return ExitCode.OK


def register(sub: Any) -> None:
    infer = sub.add_parser("infer", help="infer oracles into the spec's oracle file",
                           description="Infer test oracles for the spec's response fields, reusing the "
                           "oracle file's reviewed oracles for every field whose fingerprint is unchanged.")
    infer.add_argument("spec", metavar="SPEC", help="a file or REV:path")
    infer.add_argument("--oracles", metavar="FILE",
                       help="the oracle file to update (default .satori/<spec path>.oracles.yaml)")
    infer.add_argument("--jsonl", action="store_true", help="print the enabled oracles as interchange lines")
    infer.add_argument("--batch", choices=("submit", "status", "collect"),
                       help="llm through the Batch API (half price, within 24h): submit the fields to infer, show "
                            "the batch's status, or collect its answers into the oracle file")
    infer.add_argument("--config", metavar="FILE",
                       help="project config file for oracles_dir, backend and model (default .satori.yml when "
                            "present; flags win)")
    add_backend_options(infer)
    add_spec_options(infer)
    infer.set_defaults(handler=run_infer)

    diff = sub.add_parser("oracle-diff", help="added, removed and changed oracles between two oracle files",
                          description="Per field: the oracles added, removed and changed (value, enabled, source) "
                          "between two oracle files, e.g. the committed one and the one check wrote.")
    diff.add_argument("old", metavar="OLD_FILE", help="the oracle file before (missing: every oracle is added)")
    diff.add_argument("new", metavar="NEW_FILE", help="the oracle file after")
    diff.add_argument("--json", action="store_true", help="machine-readable output")
    diff.set_defaults(handler=run_oracle_diff)
