"""When to call the LLM server again: the backoff before a retry, and the circuit breaker. After a few failures
in a row (5XX answers, timeouts, connection errors), across every field of the run, the run stops calling the
server; a completion resets the count.

A 429 neither counts nor resets (the server is up and asks to slow down); 400, 401, 403 and 404 are the
backend's own cases.
"""

from __future__ import annotations

import random
import threading
import time
from urllib.parse import urlsplit

from .errors import ConnectFailed, TimedOut, TransientError

_TIMES = {2: "twice", 3: "three times", 4: "four times", 5: "five times"}


def failure_of(err: TransientError, timeout: float) -> str | None:
    """What the breaker counts for one failed call (`HTTP 503`, `no answer within 15 s`), or None for one it
    does not count."""
    if isinstance(err, TimedOut):
        return f"no answer within {timeout:g} s"
    if isinstance(err, ConnectFailed):
        return "no connection"
    if err.status is None:
        return "connection lost"
    if err.status >= 500 or err.status == 408:
        return f"HTTP {err.status}"
    return None


def server_name(base_url: str) -> str:
    """`host:port` of an endpoint, for messages (no scheme, path or credentials)."""
    try:
        parts = urlsplit(base_url)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return base_url
    if not host:
        return base_url
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}" if port is not None else shown


def _cause(failures: list[str]) -> str:
    """`HTTP 503 three times in a row`, or `3 failures in a row (HTTP 500, no answer within 15 s)`."""
    distinct = list(dict.fromkeys(failures))
    if len(distinct) == 1:
        times = _TIMES.get(len(failures), f"{len(failures)} times")
        return f"{distinct[0]} {times} in a row" if len(failures) > 1 else distinct[0]
    return f"{len(failures)} failures in a row ({', '.join(distinct)})"


class CircuitBreaker:
    """Open after `threshold` counted failures in a row; once open it stays open. Thread-safe."""

    def __init__(self, threshold: int = 3) -> None:
        if threshold < 1:
            raise ValueError("the breaker's threshold must be at least 1")
        self.threshold = threshold
        self._streak: list[str] = []
        self._cause: str | None = None
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._cause is not None

    @property
    def cause(self) -> str | None:
        """Why it opened (`HTTP 503 three times in a row`), or None while closed."""
        return self._cause

    def success(self) -> None:
        """A completion arrived: the count starts again."""
        with self._lock:
            self._streak.clear()

    def failure(self, what: str) -> bool:
        """Count one failure; True for the one call that opens the breaker."""
        with self._lock:
            if self._cause is not None:
                return False
            self._streak.append(what)
            if len(self._streak) < self.threshold:
                return False
            self._cause = _cause(self._streak)
            return True


def backoff_delay(retry: int, *, base: float, maximum: float, jitter: float, rng: random.Random,
                  retry_after: float | None = None) -> float:
    """Seconds to wait before retry number `retry` (1 for the first): exponential with jitter,
    at least the server's `retry-after`, at most `maximum`."""
    delay = base * 2.0 ** (retry - 1)
    if jitter:
        delay *= 1 + jitter * (2 * rng.random() - 1)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return max(0.0, min(delay, maximum))


def pause(stop: threading.Event, breaker: CircuitBreaker, delay: float, *, poll: float = 0.05) -> bool:
    """Wait `delay` seconds before a retry, less if the breaker opens meanwhile; True when `stop` is set."""
    end = time.monotonic() + delay
    while (left := end - time.monotonic()) > 0 and not breaker.is_open:
        if stop.wait(min(left, poll)):
            return True
    return stop.is_set()
