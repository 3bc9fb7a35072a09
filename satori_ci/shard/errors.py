"""The errors of a sharded check: a shard that cannot run (`ShardError`), reports that cannot be merged
(`ShardReportError`)."""

from __future__ import annotations

from satori_ci.errors import ErrorKind, ExitCode, SatoriError


class ShardError(SatoriError, kind=ErrorKind.INPUT):
    """A shard that cannot be run: a bad `I/N`, or a plan that cannot be split (one line)."""


class ShardReportError(SatoriError, kind=ErrorKind.INFRASTRUCTURE):
    """Partial reports that cannot be merged: one line, and the exit code it stands for (2: a report that is not
    one, or reports of different checks; 3: a shard missing or failed)."""

    def __init__(self, code: ExitCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    @property
    def error_kind(self) -> ErrorKind:
        return ErrorKind.of_code(self.code)
