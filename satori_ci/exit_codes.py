"""Exit codes of the CLI and the action (architecture: GitHub conventions)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    VIOLATIONS = 1
    INPUT_ERROR = 2
    INFRASTRUCTURE = 3
    INTERRUPTED = 130
