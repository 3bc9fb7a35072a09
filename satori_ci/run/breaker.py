"""A circuit breaker per host: after a few attempts in a row got no answer from the server under test (a
connection error, a timeout, a TLS failure), the run stops sending to it and says why in one line.

Thread-safe, no I/O: the runners record every attempt (retries included), the breaker decides. A host that
answered once is never made to wait less than the run's timeout; one that has not answered yet and has failed
already gets `RunConfig.connect_timeout_s` to start answering (`wary`): a black hole costs one timeout, not three.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from satori_ci.plan.model import SkipKind
from satori_ci.run.model import RunResult

THRESHOLD = 3
"""Attempts in a row without an answer that stop the run."""
NO_ANSWER = "no answer from "
"""How a progress report about an attempt without an answer starts (`no answer from ORIGIN: cause`)."""

_NODE_CAUSES = {
    "ECONNREFUSED": "connection refused", "ECONNRESET": "connection reset by the server",
    "ENOTFOUND": "unknown host", "EAI_AGAIN": "unknown host", "EHOSTUNREACH": "no route to host",
    "ENETUNREACH": "network unreachable", "EPIPE": "the server closed the connection",
}
_HOST_SUFFIX = re.compile(r" \([^()]*\)$")
_KIND_PREFIX = re.compile(r"^(?:timed out|connection failed|TLS error): ")


def origin(url: str) -> str:
    """`scheme://host:port` of a URL: never its credentials, path, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port or {"http": 80, "https": 443}.get(parts.scheme)
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def cause_of(detail: str) -> str:
    """The few words of an infrastructure problem's detail that say what happened (`connection refused`)."""
    code, _, message = detail.partition(": ")
    if code in _NODE_CAUSES:
        return _NODE_CAUSES[code]
    if code in ("ETIMEDOUT", "ESOCKETTIMEDOUT"):
        ms = re.search(r"within (\d+) ms", message)
        return f"no answer within {int(ms.group(1)) / 1000:g} s" if ms else "no answer in time"
    text = _HOST_SUFFIX.sub("", _KIND_PREFIX.sub("", detail))
    return text[:120] or "no answer"


def unsent_kind(trip: Trip | None) -> SkipKind:
    """Why a request the run chose was not sent: staging stopped answering (`trip` is the breaker's), else the
    budget ran out."""
    return SkipKind.UNANSWERED if trip is not None else SkipKind.BUDGET


def stopped_by(trip: Trip | None) -> tuple[SkipKind, str]:
    """The skip kind and reason of a request not sent once the breaker tripped (or the run stopped)."""
    return unsent_kind(trip), not_sent(trip)


def no_answer(url: str, cause: str) -> str:
    """The progress text of an attempt that got no answer (a heartbeat reads it)."""
    return f"{NO_ANSWER}{origin(url)}: {cause}"


@dataclass(frozen=True)
class Trip:
    """Why sending stopped: the host, what its last attempts met, how many in a row."""

    origin: str
    cause: str
    failures: int

    @property
    def line(self) -> str:
        """`connection refused, 3 times in a row: stopped sending to http://host:port`."""
        return f"{self.cause}, {self.failures} times in a row: stopped sending to {self.origin}"


@dataclass
class _Host:
    failures: int = 0
    answered: bool = False


class Breaker:
    """Counts attempts in a row without an answer, per host (`origin`); a success resets the count. Once a host
    trips, it stays open for the rest of the run."""

    def __init__(self, threshold: int = THRESHOLD) -> None:
        self.threshold = max(1, threshold)
        self._hosts: dict[str, _Host] = {}
        self._trip: Trip | None = None
        self._lock = threading.Lock()

    def record(self, url: str, cause: str | None) -> Trip | None:
        """One attempt to `url`: `cause` None when it was answered, else what it met. The trip when this very
        attempt tripped the breaker (one attempt of the run gets it), else None."""
        key = origin(url)
        with self._lock:
            host = self._hosts.setdefault(key, _Host())
            if cause is None:
                host.failures, host.answered = 0, True
            else:
                host.failures += 1
                if host.failures >= self.threshold and self._trip is None:
                    self._trip = Trip(key, cause, host.failures)
                    return self._trip
            return None

    @property
    def tripped(self) -> Trip | None:
        with self._lock:
            return self._trip

    def allows(self, url: str) -> bool:
        """Whether to send to `url` at all (not once its host has tripped)."""
        with self._lock:
            return self._trip is None or self._trip.origin != origin(url)

    def answered(self, url: str) -> bool:
        """Whether the host has answered at least once in this run."""
        with self._lock:
            host = self._hosts.get(origin(url))
            return host is not None and host.answered

    def wary(self, url: str) -> bool:
        """Whether the host has never answered and has failed already: its next attempts get a short wait."""
        with self._lock:
            host = self._hosts.get(origin(url))
            return host is not None and not host.answered and host.failures > 0


def not_sent(trip: Trip | None) -> str:
    """Why a request was not sent once the breaker tripped."""
    return f"not sent: {trip.line}" if trip is not None else "not sent: the run stopped first"


def tripped_first(result: RunResult, trip: Trip | None) -> RunResult:
    """The infrastructure problem that tripped the breaker first: the one line a report gives as the reason."""
    if trip is None:
        return result
    problems = sorted(result.infrastructure, key=lambda p: p.detail != trip.line)
    return replace(result, infrastructure=tuple(problems))
