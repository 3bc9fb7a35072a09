"""What a run produces: violations, infrastructure problems and responses that could not be checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from satori_ci.errors import ExitCode
from satori_ci.observe.store import ObservationStore
from satori_ci.oracles.model import Oracle
from satori_ci.plan.model import Skip
from satori_ci.plan.requests import FINDINGS_PER_ORACLE
from satori_ci.run.refs import RequestRef as RequestRef  # the results' readers take it from here
from satori_ci.run.refs import request_dict
from satori_ci.run.team import OptedInRequest, TeamTests
from satori_ci.spec.model import OperationKey

AUTH_STATUSES = frozenset({401, 403})
VIOLATIONS_PER_ORACLE = FINDINGS_PER_ORACLE
"""Violations listed per oracle (operation, field, kind) in a run's results; the rest are counted, so that a
response with a million failing values gives a report of kilobytes (the same for every runner). Never more than
the test scripts print per response (`FINDINGS_PER_ORACLE`), or Newman would have fewer to list."""


@dataclass(frozen=True)
class Violation:
    """One value of one response that breaks one oracle (contract §2: what a report names)."""

    operation: OperationKey
    field: str
    oracle: Oracle
    pointer: str
    """RFC 6901 pointer of the offending value in the body."""
    value: str
    """The offending value as JSON, cut to 200 characters."""
    message: str
    request: RequestRef

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.operation.method, "path": self.operation.path, "status": self.operation.status,
            "field": self.field, "oracle": self.oracle.kind.value,
            "oracle_value": list(self.oracle.value) if isinstance(self.oracle.value, tuple) else self.oracle.value,
            "source": self.oracle.source, "pointer": self.pointer, "value": self.value, "message": self.message,
            "request": request_dict(self.request),
        }


class ProblemKind(StrEnum):
    CONNECTION = "connection"
    """Refused, reset, unknown host."""
    TIMEOUT = "timeout"
    TLS = "tls"
    SERVER_ERROR = "server_error"
    """A 5XX status (reported as a `ServerError` finding, not as an infrastructure problem)."""


@dataclass(frozen=True)
class ServerError:
    """A 5XX answer: a finding about the API (its request is what to replay), not a reachability problem."""

    request: RequestRef
    status: int
    attempts: int
    guessed: tuple[str, ...] = ()
    """Parameters the request carried placeholders for: the answer may be to our guess."""

    @property
    def hint(self) -> str:
        """`` (sent with placeholder values for q: give real ones with --value q=... or requests: values)``."""
        if not self.guessed:
            return ""
        names = ", ".join(self.guessed)
        return (f" (sent with placeholder values for {names}: give real ones with --value {self.guessed[0]}=... or "
                "requests: values in .satori.yml)")

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "attempts": self.attempts, "request": request_dict(self.request),
                "placeholders": list(self.guessed)}


@dataclass(frozen=True)
class OperationCoverage:
    """What one operation's run checked: requests sent, 2XX JSON responses checked, oracles exercised."""

    method: str
    path: str
    sent: int
    checked: int
    exercised: int
    """Enabled oracles that met at least one non-null value."""
    enabled: int
    exercised_oracles: tuple[tuple[str, str, str], ...] = ()
    """(status, field, kind) of the exercised oracles, sorted: which of a change's oracles the run reached."""

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "sent": self.sent, "checked": self.checked,
                "oracles_exercised": self.exercised, "oracles_enabled": self.enabled}


@dataclass(frozen=True)
class InfraProblem:
    """The server under test could not be asked (after the retries): not a finding about the API's data."""

    request: RequestRef
    kind: ProblemKind
    detail: str
    attempts: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "detail": self.detail, "attempts": self.attempts,
                "request": request_dict(self.request)}


class ResponseProblemKind(StrEnum):
    UNEXPECTED_STATUS = "unexpected_status"
    """A status that is not one of the operation's 2XX JSON responses (and not 5XX)."""
    NOT_JSON = "not_json"
    REDIRECTED = "redirected"
    """A 3XX with a Location the spec does not declare: redirects are never followed (a redirect to another
    server would carry the credentials there), so the response is reported, not checked."""
    TOO_LARGE = "too_large"
    """The body passed the byte cap (`RunConfig.max_bytes`) and was not read further. A finding about that
    request (its response is what to look at), not a sign that staging is down: not retried, not exit 3."""
    UNKNOWN_OPERATION = "unknown_operation"
    """A recorded response of an operation the spec does not have."""


@dataclass(frozen=True)
class ResponseProblem:
    """A response that was received but not checked, and why."""

    request: RequestRef
    kind: ResponseProblemKind
    status: int | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "status": self.status, "detail": self.detail,
                "request": request_dict(self.request)}


@dataclass(frozen=True)
class OmittedViolations:
    """The violations of one oracle past the first `VIOLATIONS_PER_ORACLE`: counted, not listed."""

    operation: OperationKey
    field: str
    oracle: Oracle
    listed: int
    omitted: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.operation.method, "path": self.operation.path, "status": self.operation.status,
            "field": self.field, "oracle": self.oracle.kind.value,
            "oracle_value": list(self.oracle.value) if isinstance(self.oracle.value, tuple) else self.oracle.value,
            "listed": self.listed, "omitted": self.omitted,
        }


_CapKey = tuple[OperationKey, str, str]


class ViolationCap:
    """Keeps the first `per_oracle` violations of each oracle (operation, field, kind), in order, and counts the
    rest; `per_oracle` None keeps them all."""

    def __init__(self, per_oracle: int | None = VIOLATIONS_PER_ORACLE) -> None:
        self.per_oracle = per_oracle
        self.kept: list[Violation] = []
        self._listed: dict[_CapKey, int] = {}
        self._omitted: dict[_CapKey, tuple[Oracle, int]] = {}

    @staticmethod
    def _key(operation: OperationKey, oracle: Oracle) -> _CapKey:
        return operation, oracle.field, oracle.kind.value

    def add(self, violation: Violation) -> None:
        key = self._key(violation.operation, violation.oracle)
        listed = self._listed.get(key, 0)
        if self.per_oracle is not None and listed >= self.per_oracle:
            self.omit(violation.operation, violation.oracle, 1)
            return
        self._listed[key] = listed + 1
        self.kept.append(violation)

    def omit(self, operation: OperationKey, oracle: Oracle, count: int) -> None:
        """Count `count` violations of `oracle` that were dropped before they got here (by a test script)."""
        if count <= 0:
            return
        key = self._key(operation, oracle)
        self._listed.setdefault(key, 0)
        first, before = self._omitted.get(key, (oracle, 0))
        self._omitted[key] = (first, before + count)

    @property
    def omitted(self) -> tuple[OmittedViolations, ...]:
        """Per oracle with omissions, in the order the oracles first had a violation."""
        out = []
        for key, listed in self._listed.items():
            if key in self._omitted:
                oracle, count = self._omitted[key]
                out.append(OmittedViolations(key[0], key[1], oracle, listed, count))
        return tuple(out)


@dataclass(frozen=True)
class RunResult:
    runner: str
    """`newman`, `native` or `verify`."""
    requests: int
    """Responses expected: requests sent (times iterations) or recorded responses read."""
    checked: int
    """Responses whose body was checked against the oracles."""
    violations: tuple[Violation, ...]
    infrastructure: tuple[InfraProblem, ...] = ()
    unchecked: tuple[ResponseProblem, ...] = ()
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())
    server_errors: tuple[ServerError, ...] = ()
    skipped: tuple[Skip, ...] = ()
    """Operations not sent (by the plan, or at run time for want of a chained value), and why."""
    coverage: tuple[OperationCoverage, ...] = ()
    headers_sent: tuple[str, ...] = ()
    """Names of the credential and configured headers the requests carried (never their values)."""
    min_exercised: int = 1
    """Fewer enabled oracles exercised than this (when there are any) and the run proves nothing: exit 3."""
    fail_on_server_errors: bool = True
    omitted: tuple[OmittedViolations, ...] = ()
    """Violations not listed in `violations` (past the first `VIOLATIONS_PER_ORACLE` of an oracle), counted."""
    observed: ObservationStore | None = None
    """What the checked 2XX JSON responses looked like, field by field (when the run observed them)."""
    team_tests: TeamTests | None = None
    """The team collection's own tests (None: no team collection)."""
    opted_in: tuple[OptedInRequest, ...] = ()
    """The team's non-safe requests that were opted in, in its order, and what they got."""

    @property
    def violation_count(self) -> int:
        """Every violation found: the listed ones and the omitted ones."""
        return len(self.violations) + sum(o.omitted for o in self.omitted)

    @property
    def oracles_enabled(self) -> int:
        return sum(c.enabled for c in self.coverage)

    @property
    def sendable(self) -> tuple[OperationCoverage, ...]:
        """The operations the run could send (not left out on purpose: non-safe, ignored, nothing to check)."""
        aside = {k.label for k in self.skipped if k.on_purpose}
        return tuple(c for c in self.coverage if c.label not in aside)

    @property
    def oracles_sendable(self) -> int:
        return sum(c.enabled for c in self.sendable)

    @property
    def oracles_exercised(self) -> int:
        return sum(c.exercised for c in self.coverage)

    @property
    def denied(self) -> int:
        """Responses with 401 or 403."""
        return sum(1 for u in self.unchecked if u.kind is ResponseProblemKind.UNEXPECTED_STATUS
                   and u.status in AUTH_STATUSES)

    @property
    def unauthenticated(self) -> int:
        """Responses with 401 (a valid credential is never answered 401; a forbidden resource is 403)."""
        return sum(1 for u in self.unchecked if u.kind is ResponseProblemKind.UNEXPECTED_STATUS and u.status == 401)

    @property
    def auth_failure(self) -> str | None:
        """One line when most answers were 401/403: a failed login must not look like a pass."""
        answered = self.requests - len(self.infrastructure)
        refused = bool(self.headers_sent) and self.unauthenticated * 5 >= answered
        if not self.denied or (self.denied * 2 <= answered and not refused):
            return None
        names = ", ".join(self.headers_sent) if self.headers_sent else "none"
        return (f"authentication failed: {self.denied} of {answered} requests got 401/403 "
                f"(credential headers sent: {names})")

    @property
    def nothing_checked(self) -> str | None:
        """One line when the run proves nothing: no (or too few) enabled oracles met a value."""
        enabled, exercised = self.oracles_sendable, self.oracles_exercised
        if not self.coverage or self.min_exercised == 0:
            return None
        if enabled == 0:
            return ("no enabled oracle for the operations this run could send: infer oracles for this spec, or "
                    "add your own to its oracle file")
        if exercised >= min(self.min_exercised, enabled):
            return None
        if exercised == 0:
            return (f"nothing was checked: none of the {enabled} enabled oracles met a value "
                    f"({self.checked} of {self.requests} responses checked)")
        return f"only {exercised} of {enabled} enabled oracles were exercised (at least {self.min_exercised} asked)"

    @property
    def failing_server_errors(self) -> tuple[ServerError, ...]:
        return self.server_errors if self.fail_on_server_errors else ()

    @property
    def failing_team_tests(self) -> int:
        """The team's failing tests that fail the run (`team-tests: fail`)."""
        return self.team_tests.failing if self.team_tests is not None else 0

    @property
    def problem_code(self) -> ExitCode:
        """3 when the server could not be asked, refused the credentials, or nothing was checked; else 0
        (what the run says about staging, whatever the findings)."""
        if self.infrastructure or self.auth_failure or (self.requests and not self.checked) or self.nothing_checked:
            return ExitCode.INFRASTRUCTURE
        return ExitCode.OK

    @property
    def exit_code(self) -> ExitCode:
        """1 for violations (and server errors, failing team tests); 3 when the server could not be asked, refused
        the credentials, or no enabled oracle was exercised."""
        if self.violations or self.failing_server_errors or self.failing_team_tests:
            return ExitCode.VIOLATIONS
        return self.problem_code

    def to_dict(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "requests": self.requests,
            "checked": self.checked,
            "seconds": round(self.seconds, 3),
            "exit_code": int(self.exit_code),
            "oracles_enabled": self.oracles_enabled,
            "oracles_sendable": self.oracles_sendable,
            "oracles_exercised": self.oracles_exercised,
            "auth_failure": self.auth_failure,
            "nothing_checked": self.nothing_checked,
            "violations_total": self.violation_count,
            "violations": [v.to_dict() for v in self.violations],
            "violations_omitted": [o.to_dict() for o in self.omitted],
            "server_errors": [e.to_dict() for e in self.server_errors],
            "not_sent": [k.to_dict() for k in self.skipped],
            "operations": [c.to_dict() for c in self.coverage],
            "infrastructure": [p.to_dict() for p in self.infrastructure],
            "unchecked": [p.to_dict() for p in self.unchecked],
            "notes": list(self.notes),
            "team_tests": self.team_tests.to_dict() if self.team_tests is not None else None,
            "opted_in": [r.to_dict() for r in self.opted_in],
        }

