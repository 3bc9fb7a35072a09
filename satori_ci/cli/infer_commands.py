"""`satori-ci infer` and `satori-ci oracle-diff`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Self

from satori_ci.cli.errors import terminate_as_interrupt
from satori_ci.cli.progress import ProgressBar
from satori_ci.cli.spec_commands import add_spec_options, load
from satori_ci.config import load_config
from satori_ci.exit_codes import ExitCode
from satori_ci.infer.factory import BACKENDS, make_backend
from satori_ci.infer.incremental import UpdateResult, plan_inference, update_oracle_file
from satori_ci.infer.interface import BackendRun, InferenceBackend, Inferred, OnInferred
from satori_ci.infer.llm import LLMConfig
from satori_ci.infer.rules import context_digests
from satori_ci.oracles.diff import diff_oracle_files
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.report.oracle_text import interchange_jsonl, oracle_diff_json, oracle_diff_text
from satori_ci.spec.model import ResponseField, Spec
from satori_ci.spec.source import git_toplevel, is_within

DEFAULT_MODEL = "gpt-4o"


def default_oracle_path(spec_file: str, directory: str = ".satori") -> Path:
    """`.satori/<spec path with / as .>.oracles.yaml`, e.g. `api/openapi.yaml` -> `.satori/api.openapi.oracles.yaml`;
    a relative `directory` is at the repository's root (whichever folder the command runs from), the path is
    given relative to the current folder."""
    stem = Path(spec_file).with_suffix("").as_posix().strip("./").replace("/", ".")
    name = f"{stem or 'spec'}.oracles.yaml"
    if Path(directory).is_absolute():
        return Path(directory) / name
    root = git_toplevel(os.getcwd())
    if root is None:
        return Path(directory) / name
    return Path(os.path.relpath(Path(root) / directory / name))


def read_oracle_file(path: Path) -> OracleFile | None:
    """The file at `path`, or None when there is none yet."""
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OracleFileError(f"{path}: cannot read ({exc})") from None
    return load_oracle_file(text, str(path))


def workspace_root() -> str:
    """Where oracle files may be written: the current directory's git repository, else the directory itself
    (symlinks resolved)."""
    cwd = os.getcwd()
    return os.path.realpath(git_toplevel(cwd) or cwd)


def ensure_inside_workspace(path: Path, *, outside_ok: bool = False) -> None:
    """Refuse (OracleFileError, one line) an oracle file path that is outside the repository, or that a
    symlink (of the file or of a parent folder, e.g. a `.satori` that a pull request made a link) takes
    outside it. `outside_ok`: an absolute path the user typed that names a place outside the repository
    (not through it) is their own choice."""
    root = workspace_root()
    absolute = os.path.abspath(path)
    real = os.path.realpath(absolute)
    if is_within(real, root):
        return
    if not is_within(absolute, root):
        if outside_ok:
            return
        raise OracleFileError(f"{path}: outside the repository ({root}); oracle files are written inside it")
    raise OracleFileError(f"{path}: a symlink leads outside the repository ({real}); refused, "
                          "oracle files are written inside it")


def write_atomically(path: Path, text: str, *, outside_ok: bool = False) -> None:
    """Write `text` to `path` (0666 less the umask, like any file the user writes), all or nothing, refusing
    a path outside the repository (see `ensure_inside_workspace`). A write cut short (an error, Ctrl-C,
    SIGTERM) leaves the previous file as it was and no temporary file."""
    ensure_inside_workspace(path, outside_ok=outside_ok)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _terminate_as_interrupt():
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # like any file the user writes (mkstemp makes it 0600)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


INTERRUPTS = (signal.SIGINT, signal.SIGTERM)
HELD_SIGNALS_BEFORE_STOP = 3
"""Signals noted while a held gate writes before one stops the write all the same (the user insists)."""


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """In the block, SIGTERM raises KeyboardInterrupt (when nothing else handles it), so what it cuts short
    cleans up after itself instead of dying half done."""
    if not _in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
        if _in_main_thread():
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


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=BACKENDS,
                        help="rules (default, offline, deterministic), llm (opt-in), declared (keywords only); "
                             "default: the config's backend, else rules")
    parser.add_argument("--model", help=f"LLM model name (default: the config's model, else {DEFAULT_MODEL})")
    parser.add_argument("--base-url", help="any OpenAI-compatible endpoint (OpenAI, Azure, Ollama, vLLM); "
                        "default: OPENAI_BASE_URL, else OpenAI")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                        help="environment variable holding the key (default OPENAI_API_KEY)")
    parser.add_argument("--concurrency", type=int, default=4, help="LLM requests at once (default 4)")
    parser.add_argument("--max-calls", type=int, help="LLM request budget for this run")
    parser.add_argument("--max-tokens", type=int, help="LLM token budget for this run")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary (warnings still shown)")


def llm_config(args: argparse.Namespace) -> LLMConfig | None:
    if args.backend != "llm":
        return None
    return LLMConfig(model=args.model, base_url=args.base_url, api_key=os.environ.get(args.api_key_env) or None,
                     concurrency=max(1, args.concurrency), max_calls=args.max_calls, max_tokens=args.max_tokens)


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


def dropped_lines(result: UpdateResult, shown: int = 3) -> list[str]:
    """The fields gone from the spec whose oracles left the file; a warning when someone's decisions went too."""
    if not result.dropped:
        return []
    oracles = sum(len(e.oracles) for e in result.dropped)
    lines = [f"{len(result.dropped)} field(s) no longer in the spec: their {oracles} oracle(s) left the file"]
    decisions = result.dropped_decisions
    if decisions:
        named = "; ".join(f"{o.operation} {o.field}: {o.kind.value}" + ("" if o.enabled else " (off)")
                          for o in decisions[:shown])
        more = f" and {len(decisions) - shown} more" if len(decisions) > shown else ""
        lines.append(f"warning: {len(decisions)} reviewed oracle(s) went with them ({named}{more}); "
                     "the previous oracle file in git still has them")
    return lines


def summary_lines(result: UpdateResult, path: Path, backend: str, *, batch_requests: int | None = None) -> list[str]:
    """The run in a few lines; `batch_requests`: the answers came from a batch of that many requests."""
    oracles = sum(len(e.oracles) for e in result.file.entries)
    lines = [f"{len(result.file.entries)} field(s): {result.reused} reused, {result.moved} moved, "
             f"{result.inferred} inferred ({backend}); {oracles} oracle(s) in {path}"]
    stats = result.stats
    if batch_requests is not None:
        lines.append(f"llm (Batch API, half price): {batch_requests} request(s), {stats.prompt_tokens:,} prompt + "
                     f"{stats.completion_tokens:,} completion tokens, about ${stats.cost_usd:.4f}")
    elif stats.calls:
        lines.append(f"llm: {stats.calls} call(s), {stats.prompt_tokens:,} prompt + "
                     f"{stats.completion_tokens:,} completion tokens, about ${stats.cost_usd:.4f}")
    lines.extend(f"warning: {w}" for w in stats.warnings)
    lines.extend(dropped_lines(result))
    if result.pending:
        lines.append(f"interrupted: {result.pending} field(s) left to infer; run again to finish "
                     "(everything inferred so far was written)")
    return lines

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
        from satori_ci.cli.infer_batch import run_batch  # it imports this module

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
