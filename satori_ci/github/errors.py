"""The github stage's one error type: the action was configured or started wrongly."""

from __future__ import annotations

from satori_ci.errors import ErrorKind, SatoriError


class ActionConfigError(SatoriError, ValueError, kind=ErrorKind.INPUT):
    """An input or the event cannot be used; the message is one line and never contains a secret.

    The action turns it into `::error::` and exit code 2 (input error).
    """


class GitHubUnavailable(SatoriError, RuntimeError, kind=ErrorKind.INFRASTRUCTURE):
    """GitHub's API could not be asked (no answer, a 5xx, a rate limit past the retry budget); one line.

    The action turns it into `::error::` and exit code 3 (infrastructure).
    """
