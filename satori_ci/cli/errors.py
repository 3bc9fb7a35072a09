"""Each stage's error type mapped to an exit code and one line of text."""

from __future__ import annotations

from satori_ci.config import ConfigError
from satori_ci.exit_codes import ExitCode
from satori_ci.infer.llm.batch import BatchError, BatchErrorKind
from satori_ci.oracles.errors import OracleFileError
from satori_ci.plan.shards import ShardError
from satori_ci.postman.team import TeamCollectionError
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.shards import ShardReportError
from satori_ci.spec.errors import SpecError


class UsageError(Exception):
    """Arguments that do not make sense together."""


def classify(exc: Exception) -> tuple[ExitCode | None, str]:
    """The exit code and message for a known error; (None, '') for a bug."""
    if isinstance(exc, SpecError):
        return ExitCode.INPUT_ERROR, exc.message
    if isinstance(exc, ConfigError):
        return ExitCode.INPUT_ERROR, str(exc)
    if isinstance(exc, OracleFileError | TeamCollectionError):
        return ExitCode.INPUT_ERROR, str(exc)
    if isinstance(exc, ShardError):
        return ExitCode.INPUT_ERROR, str(exc)
    if isinstance(exc, ShardReportError):
        return exc.code, exc.message
    if isinstance(exc, BatchError):
        return (ExitCode.INPUT_ERROR if exc.kind is BatchErrorKind.INPUT else ExitCode.INFRASTRUCTURE), exc.message
    if isinstance(exc, RunError):
        code = ExitCode.INPUT_ERROR if exc.kind is RunErrorKind.INPUT else ExitCode.INFRASTRUCTURE
        return code, exc.message
    return None, ""


def terminate_as_interrupt(signum: int, frame: object) -> None:
    """A SIGTERM handler: stop as Ctrl-C does, so the interrupt handling of the CLI and the action runs."""
    raise KeyboardInterrupt
