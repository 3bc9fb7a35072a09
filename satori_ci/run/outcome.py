"""From one exchange (request and response) to run results, the same way for every runner.

Both runners reduce what happened to an `Exchange`; `Tally` turns exchanges into violations,
infrastructure problems and unchecked responses, so the classification cannot differ between them.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from satori_ci.oracles.check import check_body, truncate_json
from satori_ci.oracles.model import Oracle
from satori_ci.postman.collection import Collection, RequestItem
from satori_ci.postman.samples import encode
from satori_ci.run.model import (
    InfraProblem,
    ProblemKind,
    RequestRef,
    ResponseProblem,
    ResponseProblemKind,
    RunResult,
    Violation,
)

SAFE_INTEGER = 2**53
"""JSON integers past JavaScript's exact range are read as doubles, as JSON.parse reads them."""


@dataclass(frozen=True)
class RunConfig:
    """How to run: where, how patiently, how many times, with which credentials."""

    base_url: str
    timeout_s: float = 30.0
    retries: int = 2
    """Extra attempts for a request that met an infrastructure problem (connection, timeout, TLS, 5XX)."""
    backoff_s: float = 1.0
    """Wait before retry n: backoff_s * n."""
    iterations: int = 1
    environ: Mapping[str, str] = field(default_factory=dict)
    """Where credentials come from (`SATORI_AUTH_*`); the CLI passes os.environ."""
    insecure: bool = False
    """Accept any TLS certificate (self-signed staging)."""
    headers: tuple[tuple[str, str], ...] = ()
    """(header, value) sent with every request (e.g. a staging token from the config file); they replace
    the collection's headers of the same name and, like credentials, are never written into a file that
    outlives the run."""


@dataclass(frozen=True)
class FindingLine:
    index: int
    """Index of the oracle in the item's oracles for the response status."""
    pointer: str
    value: str
    message: str


@dataclass(frozen=True)
class Exchange:
    """What one attempt gave: a transport problem, or a status and (for expected statuses) the findings."""

    problem: ProblemKind | None = None
    detail: str = ""
    status: int | None = None
    is_json: bool = False
    findings: tuple[FindingLine, ...] = ()

    @property
    def retryable(self) -> bool:
        return self.problem is not None or (self.status is not None and self.status >= 500)


def base_url_of(config: RunConfig) -> str:
    return config.base_url.rstrip("/")


EXTRA_HEADER_PREFIX = "SATORI_HEADER_"


def prepare(collection: Collection, config: RunConfig) -> tuple[Collection, dict[str, str], tuple[str, ...]]:
    """The collection as the runners send it (with the run's extra headers as variables), the variables'
    values (credentials, extra headers), and notes on missing credentials."""
    variables, notes = auth_values(collection, config.environ)
    templates = []
    for n, (header, value) in enumerate(config.headers, start=1):
        name = f"{EXTRA_HEADER_PREFIX}{n}"
        templates.append((header, "{{" + name + "}}"))
        variables[name] = value
    return collection.with_headers(templates), variables, notes


def auth_values(collection: Collection, environ: Mapping[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The value of each credential variable, ready to substitute, and notes for the unset ones."""
    values: dict[str, str] = {}
    notes: list[str] = []
    for param in collection.auth_variables:
        raw = environ.get(param.variable)
        if raw is None:
            notes.append(f"{param.variable} is not set: requests go without that credential")
            raw = ""
        if param.scheme == "basic":
            values[param.variable] = base64.b64encode(raw.encode("utf-8")).decode("ascii") if raw else ""
        elif param.location == "query":
            values[param.variable] = encode(raw)
        else:
            values[param.variable] = raw
    return values, tuple(notes)


def _int_like_javascript(text: str) -> int | float:
    value = int(text)
    return value if -SAFE_INTEGER < value < SAFE_INTEGER else float(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_CHARSET = re.compile(r";\s*charset\s*=\s*\"?([^\";\s]+)", re.IGNORECASE)


def body_text(data: bytes, content_type: str | None) -> str:
    """The body as text: the declared charset, else UTF-8; a UTF-8 byte order mark is dropped."""
    charset = "utf-8"
    found = _CHARSET.search(content_type or "")
    if found:
        charset = found.group(1)
    try:
        text = data.decode(charset, errors="replace")
    except LookupError:
        text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def parse_json(text: str) -> tuple[bool, Any]:
    """(True, value) when `text` is JSON as JavaScript's JSON.parse reads it; (False, None) otherwise."""
    try:
        return True, json.loads(text, parse_int=_int_like_javascript, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False, None


def findings_of(oracles: Sequence[Oracle], body: Any, null_like: Sequence[str]) -> tuple[FindingLine, ...]:
    """The Python checker's findings in the form the test scripts report them."""
    index = {id(o): i for i, o in enumerate(oracles)}
    return tuple(FindingLine(index[id(f.oracle)], f.pointer, truncate_json(f.value), f.message)
                 for f in check_body(oracles, body, null_like))


class Tally:
    """Collects the final exchange of every request into a `RunResult`."""

    def __init__(self, runner: str) -> None:
        self.runner = runner
        self.requests = 0
        self.checked = 0
        self.violations: list[Violation] = []
        self.infrastructure: list[InfraProblem] = []
        self.unchecked: list[ResponseProblem] = []

    def add(self, item: RequestItem, ref: RequestRef, exchange: Exchange, attempts: int = 1) -> None:
        self.requests += 1
        status = exchange.status
        if exchange.problem is not None:
            self.infrastructure.append(InfraProblem(ref, exchange.problem, exchange.detail, attempts))
        elif status is None:
            self.infrastructure.append(InfraProblem(ref, ProblemKind.CONNECTION, exchange.detail or "no response",
                                                    attempts))
        elif status >= 500:
            self.infrastructure.append(InfraProblem(ref, ProblemKind.SERVER_ERROR, f"HTTP {status}", attempts))
        elif item.status_key(status) is None:
            expected = " or ".join(item.statuses)
            self.unchecked.append(ResponseProblem(ref, ResponseProblemKind.UNEXPECTED_STATUS, status,
                                                  f"HTTP {status}, expected {expected}"))
        elif not exchange.is_json:
            self.unchecked.append(ResponseProblem(ref, ResponseProblemKind.NOT_JSON, status,
                                                  exchange.detail or "the body is not JSON"))
        else:
            self.checked += 1
            key = item.status_key(status) or str(status)
            oracles = item.oracles_for(key)
            operation = item.operation_key(key)
            for f in exchange.findings:
                oracle = oracles[f.index]
                self.violations.append(Violation(operation, oracle.field, oracle, f.pointer, f.value, f.message, ref))

    def result(self, seconds: float, notes: Sequence[str] = ()) -> RunResult:
        return RunResult(self.runner, self.requests, self.checked, tuple(self.violations),
                         tuple(self.infrastructure), tuple(self.unchecked), seconds, tuple(notes))


def request_ref(item: RequestItem, iteration: int, base_url: str) -> RequestRef:
    """The reference a result carries: never the credentials (auth query values are left as variables)."""
    return RequestRef(item.id, iteration, item.method, item.url(base_url), item.name)
