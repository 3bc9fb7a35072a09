"""What a chat request brings back: a completion, or one of the failures the backend acts on.

Kept apart from `client` so that importing the backend does not import `openai` (slow to load).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Completion:
    text: str | None
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None
    usage_reported: bool = True


class CallError(Exception):
    """A request that brought no usable completion."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class TransientError(CallError):
    """Worth retrying later: 429, 5xx, timeouts and connection errors."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class ConnectFailed(TransientError):
    """No connection could be made (refused, unknown host, no answer to the connection attempt in time)."""


class TimedOut(TransientError):
    """Connected, but no answer within the read timeout."""


class BadRequest(CallError):
    """400: the server refused this request as written (e.g. an unsupported `response_format`)."""


class FatalError(CallError):
    """401, 403, 404: no request of this run can succeed (bad key, no access, unknown model)."""


class MissingCredentials(CallError):
    """The client refused to start without an API key."""
