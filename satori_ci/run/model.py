"""What a run produces: violations, infrastructure problems and responses that could not be checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from satori_ci.exit_codes import ExitCode
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey


@dataclass(frozen=True, order=True)
class RequestRef:
    """Which request a result belongs to: the collection item, the iteration, and what was sent."""

    item: str
    """The collection item's id (or `line N` for recorded responses)."""
    iteration: int
    method: str
    url: str
    name: str = ""


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
            "request": _request_dict(self.request),
        }


class ProblemKind(StrEnum):
    CONNECTION = "connection"
    """Refused, reset, unknown host."""
    TIMEOUT = "timeout"
    TLS = "tls"
    SERVER_ERROR = "server_error"
    """A 5XX status."""


@dataclass(frozen=True)
class InfraProblem:
    """The server under test could not be asked (after the retries): not a finding about the API's data."""

    request: RequestRef
    kind: ProblemKind
    detail: str
    attempts: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "detail": self.detail, "attempts": self.attempts,
                "request": _request_dict(self.request)}


class ResponseProblemKind(StrEnum):
    UNEXPECTED_STATUS = "unexpected_status"
    """A status that is not one of the operation's 2XX JSON responses (and not 5XX)."""
    NOT_JSON = "not_json"
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
                "request": _request_dict(self.request)}


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

    @property
    def exit_code(self) -> ExitCode:
        """1 for violations; else 3 when the server could not be asked or no response could be checked."""
        if self.violations:
            return ExitCode.VIOLATIONS
        if self.infrastructure or (self.requests and not self.checked):
            return ExitCode.INFRASTRUCTURE
        return ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "requests": self.requests,
            "checked": self.checked,
            "seconds": round(self.seconds, 3),
            "exit_code": int(self.exit_code),
            "violations": [v.to_dict() for v in self.violations],
            "infrastructure": [p.to_dict() for p in self.infrastructure],
            "unchecked": [p.to_dict() for p in self.unchecked],
            "notes": list(self.notes),
        }


def _request_dict(ref: RequestRef) -> dict[str, Any]:
    return {"item": ref.item, "name": ref.name, "iteration": ref.iteration, "method": ref.method, "url": ref.url}

