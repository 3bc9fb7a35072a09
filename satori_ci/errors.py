"""The one error model of the CLI and the action: exit codes, the error kinds, the base error type, `classify`.

Every stage raises one error type derived from `SatoriError`, which states its kind (`ErrorKind`: input,
infrastructure; per instance where it varies). `classify` turns any exception into a `Failure`: the exit code and
the one line to say, the same from `satori-ci` and from the action, which only word and print it their own way.
An exception that is not a `SatoriError` is a bug (exit 70); Ctrl-C and SIGTERM (`terminate_as_interrupt`) are
interrupts (exit 130).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any, ClassVar


class ExitCode(IntEnum):
    """Exit codes of the CLI and the action (GitHub conventions; 70 is sysexits' EX_SOFTWARE)."""

    OK = 0
    VIOLATIONS = 1
    INPUT_ERROR = 2
    INFRASTRUCTURE = 3
    CHANGE_UNCHECKED = 4
    """The run exercised too few of the oracles a pull request adds or changes (`min-changed-exercised`)."""
    BUG = 70
    INTERRUPTED = 130


class ErrorKind(StrEnum):
    """What stopped a run, and so its exit code."""

    INPUT = "input"
    """Something the user gave cannot be used (a spec, a config, an oracle file, a flag, an input)."""
    INFRASTRUCTURE = "infrastructure"
    """Something the run needs is not there or failed (a server, Newman, GitHub's API, a shard)."""
    INTERRUPTED = "interrupted"
    """Ctrl-C or SIGTERM."""
    BUG = "bug"
    """An exception no stage meant to raise: a bug in satori-ci."""

    @property
    def code(self) -> ExitCode:
        return _CODES[self]

    @classmethod
    def of_code(cls, code: int) -> ErrorKind:
        """The kind an exit code stands for (a code that is no error's: a bug)."""
        return next((kind for kind, value in _CODES.items() if value == code), cls.BUG)


_CODES = {ErrorKind.INPUT: ExitCode.INPUT_ERROR, ErrorKind.INFRASTRUCTURE: ExitCode.INFRASTRUCTURE,
          ErrorKind.INTERRUPTED: ExitCode.INTERRUPTED, ErrorKind.BUG: ExitCode.BUG}


class SatoriError(Exception):
    """The base of every stage's error type: `str(err)` is one line a person can act on, `error_kind` its kind.

    A subclass states its kind on its class line (`class SpecError(SatoriError, kind=ErrorKind.INPUT)`); a type
    whose kind varies per error (`RunError`, `BatchError`, `ShardReportError`) overrides `error_kind` as well."""

    KIND: ClassVar[ErrorKind] = ErrorKind.BUG

    def __init_subclass__(cls, kind: ErrorKind | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind is not None:
            cls.KIND = kind
        elif cls.KIND is ErrorKind.BUG:
            raise TypeError(f"{cls.__name__} must state its kind: class {cls.__name__}(..., kind=ErrorKind.X)")

    @property
    def error_kind(self) -> ErrorKind:
        return self.KIND


class UsageError(SatoriError, kind=ErrorKind.INPUT):
    """Arguments that do not make sense together."""


@dataclass(frozen=True)
class Failure:
    """What an exception means for the process: its exit code, its kind, and the one line that says why."""

    code: ExitCode
    kind: ErrorKind
    message: str


INTERRUPTED_MESSAGE = "interrupted"
BUG_PREFIX = "internal error (a bug in satori-ci)"


def classify(exc: BaseException) -> Failure:
    """The one classification of both entry points: a `SatoriError` by its kind, Ctrl-C or SIGTERM as
    interrupted, anything else a bug."""
    if isinstance(exc, KeyboardInterrupt):
        return Failure(ExitCode.INTERRUPTED, ErrorKind.INTERRUPTED, INTERRUPTED_MESSAGE)
    if isinstance(exc, SatoriError):
        kind = exc.error_kind
        return Failure(kind.code, kind, str(exc))
    said = " ".join(str(exc).split())
    return Failure(ExitCode.BUG, ErrorKind.BUG, f"{BUG_PREFIX}: {type(exc).__name__}: {said}")


def terminate_as_interrupt(signum: int, frame: object) -> None:
    """A SIGTERM handler: stop as Ctrl-C does, so the interrupt handling of the CLI and the action runs."""
    raise KeyboardInterrupt


@contextmanager
def interrupts_stop_the_run() -> Iterator[None]:
    """SIGTERM and SIGINT raise KeyboardInterrupt while inside (their handlers are the caller's again after).

    SIGINT too, because a process started in the background of a non-interactive shell (`cmd &` in a CI
    step's script) inherits SIGINT ignored, and a cancelled GitHub job sends SIGINT first. Off the main thread,
    where no handler can be installed, the signals keep their own."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum, handler in (
        (signal.SIGTERM, terminate_as_interrupt), (signal.SIGINT, signal.default_int_handler))}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
