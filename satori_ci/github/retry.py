"""Bounded retries of GitHub API calls, library-free: classify a failed call, wait, try again.

GitHub's rules (docs: "Rate limits for the REST API", "handle rate limit errors appropriately"):
a primary rate limit is a 403 or 429 with `x-ratelimit-remaining: 0`, to be retried after
`x-ratelimit-reset` (epoch seconds); a secondary one a 403 or 429 with `retry-after` (seconds), or,
without any header, after at least a minute. 5xx and network errors are retried with exponential
backoff. Any other 4xx is final. Every wait comes out of one budget (`max_wait`): a wait that
would exceed it ends the retries at once, so a rate limit that resets in an hour fails fast.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TypeVar

from satori_ci.github.outcome import FailureKind

T = TypeVar("T")
_MESSAGE_CHARS = 200


@dataclass(frozen=True)
class ApiError:
    """A failed call, as the library reported it."""

    status: int | None
    """None: no usable answer (connection refused, timeout, a body that is not JSON)."""
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Response headers, names lower-cased."""
    rate_limit_message: bool = False
    """The body says it is a rate limit (PyGithub's `RateLimitExceededException`)."""


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 3
    """Attempts after the first one."""
    backoff: float = 1.0
    """First wait after a 5xx or a network error; doubled each time."""
    max_wait: float = 20.0
    """Seconds that all waits of one operation may add up to."""
    secondary_wait: float = 60.0
    """Wait after a rate limit that gives no header (GitHub: at least one minute)."""


@dataclass(frozen=True)
class Decision:
    failure: FailureKind
    reason: str
    wait: float | None
    """Seconds to wait before the next attempt; None: final, do not retry."""


def classify(error: ApiError, *, attempt: int, policy: RetryPolicy, now: float) -> Decision:
    """What `error` (from attempt number `attempt`, 1-based) means, and how long to wait before retrying."""
    status, message = error.status, _short(error.message)
    said = f" ({message})" if message else ""
    exponential = policy.backoff * 2 ** (attempt - 1)
    if status is None:
        return Decision(FailureKind.NETWORK, f"no answer from GitHub{said}", exponential)
    retry_after = parse_retry_after(error.headers.get("retry-after"), now)
    if status in (403, 429):
        wait = _rate_limit_wait(error, retry_after, now)
        if wait is None and (status == 429 or error.rate_limit_message):
            wait = max(policy.secondary_wait, exponential)
        if wait is not None:
            return Decision(FailureKind.RATE_LIMITED, f"rate limited: GitHub answered {status}{said}", wait)
        return Decision(FailureKind.READ_ONLY, f"read-only token: GitHub answered 403{said}", None)
    if status >= 500:
        return Decision(FailureKind.SERVER_ERROR, f"GitHub answered {status}{said}",
                        exponential if retry_after is None else retry_after)
    if status == 401:
        return Decision(FailureKind.AUTH, f"bad credentials: GitHub answered 401{said}", None)
    if status == 404:
        return Decision(FailureKind.NOT_FOUND, f"GitHub answered 404{said}: the repository or pull request "
                                               f"is not visible to this token", None)
    return Decision(FailureKind.REJECTED, f"GitHub answered {status}{said}", None)


def _rate_limit_wait(error: ApiError, retry_after: float | None, now: float) -> float | None:
    if retry_after is not None:
        return retry_after
    if error.headers.get("x-ratelimit-remaining", "").strip() == "0":
        reset = error.headers.get("x-ratelimit-reset", "").strip()
        if reset.isdigit():
            return max(0.0, int(reset) - now)
        return 0.0 if error.rate_limit_message else None
    return None


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds from `Retry-After` (delta-seconds or an HTTP date), never negative; None if absent or bad."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True)
class GaveUp:
    """The final failure of a retried operation."""

    failure: FailureKind
    reason: str
    attempts: int


def run_with_retries(action: Callable[[], T], to_error: Callable[[Exception], ApiError | None], *,
                     policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep,
                     clock: Callable[[], float] = time.time) -> tuple[T, int] | GaveUp:
    """Run `action` until it returns, within `policy`: (its value, attempts), or how it finally failed.

    `to_error` turns the exceptions of a failed call into an `ApiError`; any other exception
    (`to_error` returns None) is a bug and propagates. `action` must be safe to repeat: the
    sticky comment's operation looks its comment up again on every attempt.
    """
    waited = 0.0
    attempt = 0
    while True:
        attempt += 1
        try:
            return action(), attempt
        except Exception as exc:
            error = to_error(exc)
            if error is None:
                raise
        decision = classify(error, attempt=attempt, policy=policy, now=clock())
        if decision.wait is None:
            return GaveUp(decision.failure, decision.reason, attempt)
        if attempt > policy.retries:
            return GaveUp(decision.failure, f"{decision.reason}; gave up after {attempt} attempts", attempt)
        if waited + decision.wait > policy.max_wait:
            return GaveUp(decision.failure, f"{decision.reason}; waiting {decision.wait:.0f} s more would "
                                            f"exceed the {policy.max_wait:g} s retry budget", attempt)
        sleep(decision.wait)
        waited += decision.wait


def _short(message: str) -> str:
    line = " ".join(message.split())
    return line if len(line) <= _MESSAGE_CHARS else line[:_MESSAGE_CHARS] + "…"
