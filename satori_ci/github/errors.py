"""The github stage's one error type: the action was configured or started wrongly."""

from __future__ import annotations


class ActionConfigError(ValueError):
    """An input or the event cannot be used; the message is one line and never contains a secret.

    The entrypoint turns it into `::error::` and exit code 2 (input error).
    """


class GitHubUnavailable(RuntimeError):
    """GitHub's API could not be asked (no answer, a 5xx, a rate limit past the retry budget); one line.

    The entrypoint turns it into `::error::` and exit code 3 (infrastructure).
    """
