"""The one error type of the run stage: a run that could not take place (not a finding, not a problem of staging)."""

from __future__ import annotations

from enum import StrEnum

from satori_ci.errors import ErrorKind, SatoriError


class RunErrorKind(StrEnum):
    NEWMAN_MISSING = "newman_missing"
    """No `newman` binary: the set-up command was not run."""
    NEWMAN_FAILED = "newman_failed"
    """Newman ran but left no complete results (crashed, killed, reporter not loaded)."""
    INPUT = "input"
    """Unreadable input: a recorded responses file, an operation that is not in the spec."""


class RunError(SatoriError, kind=ErrorKind.INFRASTRUCTURE):
    """`str(err)` is one line a person can act on; an input error (exit 2) when `kind` is INPUT, else an
    infrastructure error (exit 3)."""

    def __init__(self, kind: RunErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message

    @property
    def error_kind(self) -> ErrorKind:
        return ErrorKind.INPUT if self.kind is RunErrorKind.INPUT else ErrorKind.INFRASTRUCTURE
