"""What became of a sticky comment, as a value (a failed post is an outcome, never an exception)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CommentStatus(StrEnum):
    POSTED = "posted"
    """A new comment was created."""
    UPDATED = "updated"
    """The existing comment was edited in place."""
    UNCHANGED = "unchanged"
    """The existing comment already had this body: nothing was sent."""
    SKIPPED = "skipped"
    """Nothing to do (`resolve` with no comment to rewrite)."""
    FAILED = "failed"


class FailureKind(StrEnum):
    READ_ONLY = "read-only token"
    """403 that is not a rate limit: the token cannot write here (a fork's pull request)."""
    AUTH = "bad credentials"
    NOT_FOUND = "not found"
    RATE_LIMITED = "rate limited"
    SERVER_ERROR = "server error"
    NETWORK = "network error"
    REJECTED = "rejected"
    """Another 4xx (422 validation failed, …)."""
    TOO_LONG = "comment too long"


@dataclass(frozen=True)
class CommentOutcome:
    status: CommentStatus
    comment_id: int | None = None
    url: str | None = None
    """The comment's `html_url`, to link from the job summary."""
    failure: FailureKind | None = None
    reason: str = ""
    """Why it failed, one line, for a `::notice::` (no secret: the token is never in it)."""
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.status is not CommentStatus.FAILED

    @classmethod
    def failed(cls, failure: FailureKind, reason: str, attempts: int = 1) -> CommentOutcome:
        return cls(CommentStatus.FAILED, failure=failure, reason=reason, attempts=attempts)
