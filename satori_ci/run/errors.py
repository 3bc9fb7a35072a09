"""The one error type of the run stage: a run that could not take place (not a finding, not a problem of staging)."""

from __future__ import annotations

from enum import StrEnum


class RunErrorKind(StrEnum):
    NEWMAN_MISSING = "newman_missing"
    """No `newman` binary: the set-up command was not run."""
    NEWMAN_FAILED = "newman_failed"
    """Newman ran but left no complete results (crashed, killed, reporter not loaded)."""
    INPUT = "input"
    """Unreadable input: a recorded responses file, an operation that is not in the spec."""


class RunError(Exception):
    """`str(err)` is one line a person can act on."""

    def __init__(self, kind: RunErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message
