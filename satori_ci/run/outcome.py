"""From one exchange (request and response) to run results, the same way for every runner.

Both runners reduce what happened to an `Exchange`; `Tally` turns exchanges into violations,
infrastructure problems and unchecked responses, so the classification cannot differ between them.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from satori_ci.observe.store import ObservationLog, request_digest
from satori_ci.observe.summary import FieldObservations
from satori_ci.oracles.check import MAX_DEPTH, check_and_exercise, deeper_than, truncate_json
from satori_ci.oracles.model import Oracle
from satori_ci.plan.explore import base_id
from satori_ci.plan.model import Skip, SkipKind
from satori_ci.plan.requests import FINDINGS_PER_ORACLE, PlannedRequest, RequestSet
from satori_ci.plan.samples import encode
from satori_ci.run.model import (
    InfraProblem,
    OperationCoverage,
    ProblemKind,
    RequestRef,
    ResponseProblem,
    ResponseProblemKind,
    RunResult,
    ServerError,
    Violation,
    ViolationCap,
)
from satori_ci.run.team import TeamLog, TeamTestPolicy, credential_headers

Progress = Callable[[int, int, str], None]

SAFE_INTEGER = 2**53
"""JSON integers past JavaScript's exact range are read as doubles, as JSON.parse reads them."""
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
"""The byte cap on one response body (after content decoding), in both runners."""
CONNECT_TIMEOUT_S = 5.0
"""Seconds to open a connection to staging (a host that drops SYNs fails fast), within `RunConfig.timeout_s`."""
MAX_TIMEOUT_S = 3600.0
"""The longest `RunConfig.timeout_s` the CLI and the action accept: an hour for one exchange (Node.js timers
cannot wait past 2^31 ms, about 24.8 days, and fire at once instead)."""


@dataclass(frozen=True)
class RunConfig:
    """How to run: where, how patiently, how many times, with which credentials."""

    base_url: str
    timeout_s: float = 30.0
    """Seconds one exchange may take in all: connecting, the headers and the whole body (not only the wait
    between two reads). Past it the request is a timeout (an infrastructure problem, retried)."""
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    """Seconds to open a connection (at most `timeout_s`); also how long a host that has not answered yet, and
    has failed already, gets to start answering (`breaker.Breaker.wary`)."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """The most body bytes read from one response; past it the response is `too_large` and not checked."""
    retries: int = 2
    """Extra attempts for a request that met an infrastructure problem (connection, timeout, TLS); a 5XX
    answer is tried once more at most."""
    backoff_s: float = 1.0
    """Wait before retry n: backoff_s * n."""
    iterations: int = 1
    environ: Mapping[str, str] = field(default_factory=dict)
    """Where credentials come from (`SATORI_AUTH_*`); the CLI passes os.environ."""
    insecure: bool = False
    """Accept any TLS certificate (self-signed staging)."""
    headers: tuple[tuple[str, str], ...] = ()
    """(header, value) sent with every request (e.g. a staging token from the config file); they replace
    the requests' headers of the same name and, like credentials, are never written into a file that
    outlives the run."""
    min_exercised: int = 1
    fail_on_server_errors: bool = True
    team_tests: TeamTestPolicy = TeamTestPolicy.FAIL
    """What the team collection's own failing tests do (Newman runs them)."""
    borrowed: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """The team's auth header, for satori-ci's own requests that send none (`GivenRequests.auth`; native runner)."""
    progress: Progress | None = field(default=None, compare=False, repr=False)
    """Told (done, total, what) as requests finish: for a progress bar."""


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
    exercised: tuple[int, ...] = ()
    """Indices of the oracles (of the response's status) that met a non-null value."""
    skipped: str | None = None
    """Not sent: a chained value it needs was not harvested (the reason)."""
    used: tuple[tuple[str, str], ...] = ()
    """The chain variables the request was sent with (for its reference: the URL as sent)."""
    too_large: bool = False
    """The body passed `RunConfig.max_bytes`: reading stopped there (`status` is the response's status)."""
    location: str | None = None
    """The Location header of a 3XX (redirects are not followed)."""
    omitted: tuple[tuple[int, int], ...] = ()
    """(oracle index, count) of findings not listed in `findings` (past `FINDINGS_PER_ORACLE` of an oracle)."""
    observed: Mapping[str, FieldObservations] | None = None
    """The observed fields' summaries of a checked 2XX JSON body (None when the item observes no field)."""
    link: str | None = None
    """The `Link` header of a checked response (its next page)."""

    def retryable(self, attempts: int, retries: int) -> bool:
        """Whether to try again after `attempts`: infrastructure problems up to `retries` times, a 5XX once."""
        if self.too_large:
            return False
        if self.problem is not None:
            return attempts <= retries
        return self.status is not None and self.status >= 500 and attempts < 2 and retries > 0


def base_url_of(config: RunConfig) -> str:
    return config.base_url.rstrip("/")


def credentials(requests: RequestSet, config: RunConfig) -> tuple[dict[str, str], tuple[str, ...]]:
    """The credential variables' values (from `config.environ`) and notes on the unset ones, as every runner
    sends them; the run's own headers (`config.headers`) are sent with their values as they are, and a team's
    shared auth (`GivenRequests.auth`) where neither sends that header."""
    borrowed = requests.given.auth if requests.given is not None else ()
    return auth_values(requests, config.environ, {h.lower() for h, _ in (*config.headers, *borrowed)})


def auth_values(requests: RequestSet, environ: Mapping[str, str], replaced: frozenset[str] | set[str] = frozenset()
                ) -> tuple[dict[str, str], tuple[str, ...]]:
    """The value of each credential variable, ready to substitute, and notes for the unset ones (not for a
    header that a configured header of the same name replaces)."""
    values: dict[str, str] = {}
    notes: list[str] = []
    for param in requests.auth_variables:
        raw = environ.get(param.variable)
        covered = param.location == "header" and param.name.lower() in replaced
        if raw is None and not covered:
            notes.append(f"{param.variable} is not set: requests go without that credential")
        raw = raw or ""
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


def loads_like_javascript(text: str) -> Any:
    """`text` read as JavaScript's JSON.parse reads it (a number past the double range is infinity, as there);
    ValueError when it is not JSON, RecursionError when it nests deeper than Python's decoder goes."""
    return json.loads(text, parse_int=_int_like_javascript, parse_constant=_reject_constant)


def parse_json(text: str) -> tuple[bool, Any]:
    """(True, value) when `text` is JSON as JavaScript's JSON.parse reads it; (False, None) otherwise."""
    try:
        return True, loads_like_javascript(text)
    except (ValueError, RecursionError):
        return False, None


NOT_JSON = "is not JSON"
TOO_DEEP = f"is nested deeper than {MAX_DEPTH} levels: not checked"
"""Why a response's body is not checked (after "the body of GET /path"), the same in every runner."""


def may_nest_past(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text has enough brackets to nest deeper than `limit` (a cheap test before walking it)."""
    return text.count("[") + text.count("{") > limit


def json_body(text: str) -> tuple[Any, str | None]:
    """A response body read for checking: (value, None), or (None, why it is not checked: `NOT_JSON`, or
    `TOO_DEEP` for a body nested past `MAX_DEPTH`, where JavaScript's JSON.parse and Python's json.loads part)."""
    try:
        value = loads_like_javascript(text)
    except RecursionError:
        return None, TOO_DEEP
    except ValueError:
        return None, NOT_JSON
    if may_nest_past(text) and deeper_than(value):
        return None, TOO_DEEP
    return value, None


def listed_findings(findings: Sequence[FindingLine], per_oracle: int = FINDINGS_PER_ORACLE
                    ) -> tuple[tuple[FindingLine, ...], tuple[tuple[int, int], ...]]:
    """The first `per_oracle` findings of each oracle (in order) and, per oracle index, how many more there were:
    what the test scripts print (the Python twin of their listing)."""
    seen: dict[int, int] = {}
    kept: list[FindingLine] = []
    for f in findings:
        n = seen[f.index] = seen.get(f.index, 0) + 1
        if n <= per_oracle:
            kept.append(f)
    omitted = tuple((index, n - per_oracle) for index, n in sorted(seen.items()) if n > per_oracle)
    return tuple(kept), omitted


def size_text(count: int) -> str:
    """A byte count as people write it: 8 MiB, 64 KiB, 1000 bytes."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count} bytes"


def redirect_target(request_url: str, location: str) -> str:
    """Where a redirect points, as it may be shown: scheme, host, port and path only (never credentials, the
    query string or the fragment), resolved against the request's URL."""
    try:
        parts = urlsplit(urljoin(request_url, location.strip()))
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "an unreadable Location"
    if not parts.scheme or not host:
        return "an unreadable Location"
    if ":" in host:
        host = f"[{host}]"
    path = parts.path or "/"
    shown = f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{path}"
    return shown if len(shown) <= 200 else shown[:199] + "…"


def findings_of(oracles: Sequence[Oracle], body: Any, null_like: Sequence[str]) -> tuple[FindingLine, ...]:
    """The Python checker's findings in the form the test scripts report them."""
    return checked_lines(oracles, body, null_like)[0]


def checked_lines(oracles: Sequence[Oracle], body: Any, null_like: Sequence[str]
                  ) -> tuple[tuple[FindingLine, ...], tuple[int, ...]]:
    """One walk of the body: the findings as the test scripts report them, and the oracles exercised."""
    index = {id(o): i for i, o in enumerate(oracles)}
    findings, exercised = check_and_exercise(oracles, body, null_like)
    return tuple(FindingLine(index[id(f.oracle)], f.pointer, truncate_json(f.value), f.message)
                 for f in findings), exercised


class Tally:
    """Collects the final exchange of every request into a `RunResult`."""

    def __init__(self, runner: str, planned: RequestSet | None = None, config: RunConfig | None = None) -> None:
        self.runner = runner
        requests = list(planned.requests()) if planned is not None else []
        self.rank = {r.id: n for n, r in reversed(list(enumerate(requests)))}
        """Results are listed in the order of the planned request they come from (a request the explorer chose
        ranks as its planned one), whatever order they were sent in."""
        self.label_rank = {r.label: n for n, r in reversed(list(enumerate(requests)))}
        self.requests = 0
        self.checked = 0
        self.cap = ViolationCap()
        self.infrastructure: list[InfraProblem] = []
        self.unchecked: list[ResponseProblem] = []
        self.server_errors: list[ServerError] = []
        self.config = config
        self.enabled: dict[str, int] = dict(planned.oracle_counts) if planned is not None else {}
        self.sent: dict[str, int] = {}
        self.checked_by_op: dict[str, int] = {}
        self.exercised: dict[str, set[tuple[str, int]]] = {}
        self.exercised_ids: dict[str, set[tuple[str, str, str]]] = {}
        self.runtime_skips: dict[str, tuple[SkipKind, str]] = {}
        self.statuses: dict[str, list[tuple[int | None, str]]] = {}
        self.order: list[str] = []
        self.headers: tuple[str, ...] = credential_headers(
            planned.auth_variables if planned else (), config.environ if config else None,
            config.headers if config else ())
        self.team = TeamLog(planned.given if planned else None, planned.left_out if planned else ())
        """The team collection's tests, opted-in requests and credential headers (the runner feeds its tests)."""
        observes = planned is not None and any(r.observed for r in planned.requests())
        self.log: ObservationLog | None = ObservationLog() if observes else None

    def _seen(self, request: PlannedRequest) -> str:
        label = request.label
        if label not in self.sent:
            self.sent[label] = 0
            self.checked_by_op[label] = 0
            self.exercised[label] = set()
            self.order.append(label)
        return label

    def add(self, request: PlannedRequest, ref: RequestRef, exchange: Exchange, attempts: int = 1) -> None:
        label = self._seen(request)
        if request.given is not None:
            self.team.sent(request.given, exchange.status if exchange.problem is None else None, exchange.skipped or "")
        if exchange.skipped is not None:
            self.runtime_skips.setdefault(label, (SkipKind.NO_INPUT, exchange.skipped))
            return
        self.requests += 1
        self.sent[label] += 1
        status = exchange.status
        self.statuses.setdefault(label, []).append((status, ref.url))
        if exchange.too_large:
            limit = self.config.max_bytes if self.config is not None else DEFAULT_MAX_BYTES
            self.unchecked.append(ResponseProblem(ref, ResponseProblemKind.TOO_LARGE, status,
                                                  f"response too large: the body passed {size_text(limit)} and was "
                                                  "not read further (--max-response-bytes)"))
        elif exchange.problem is not None:
            self.infrastructure.append(InfraProblem(ref, exchange.problem, exchange.detail, attempts))
        elif status is None:
            self.infrastructure.append(InfraProblem(ref, ProblemKind.CONNECTION, exchange.detail or "no response",
                                                    attempts))
        elif status >= 500:
            guessed = request.sample.guessed if request.given is None else ()
            self.server_errors.append(ServerError(ref, status, attempts, guessed))
        elif request.status_key(status) is None and 300 <= status < 400 and exchange.location:
            self.unchecked.append(ResponseProblem(
                ref, ResponseProblemKind.REDIRECTED, status,
                f"HTTP {status}: redirected to {redirect_target(ref.url, exchange.location)} (not followed: "
                "satori-ci sends the credentials to the base URL only; use the final address as the base URL)"))
        elif request.status_key(status) is None:
            expected = " or ".join(request.statuses)
            self.unchecked.append(ResponseProblem(ref, ResponseProblemKind.UNEXPECTED_STATUS, status,
                                                  f"HTTP {status}, expected {expected}"))
        elif not exchange.is_json:
            self.unchecked.append(ResponseProblem(ref, ResponseProblemKind.NOT_JSON, status,
                                                  exchange.detail or "the body is not JSON"))
        else:
            self.checked += 1
            self.checked_by_op[label] += 1
            key = request.status_key(status) or str(status)
            self.exercised[label].update((key, i) for i in exchange.exercised)
            oracles = request.oracles_for(key)
            self.exercised_ids.setdefault(label, set()).update(
                (key, oracles[i].field, oracles[i].kind.value) for i in exchange.exercised)
            operation = request.operation_key(key)
            for f in exchange.findings:
                oracle = oracles[f.index]
                self.cap.add(Violation(operation, oracle.field, oracle, f.pointer, f.value, f.message, ref))
            for index, count in exchange.omitted:
                self.cap.omit(operation, oracles[index], count)
            if self.log is not None and exchange.observed is not None:
                broken = sorted({f.index for f in exchange.findings} | {i for i, _ in exchange.omitted})
                self.log.add(operation, request_digest(ref.method, ref.url), exchange.observed,
                             [oracles[i] for i in broken], [oracles[i] for i in exchange.exercised])

    def skip(self, label: str, kind: SkipKind, detail: str) -> None:
        """An operation the run did not send, and why (no value found, the budget)."""
        self.runtime_skips.setdefault(label, (kind, detail))
        if label not in self.sent:
            self.sent[label] = 0
            self.checked_by_op[label] = 0
            self.exercised[label] = set()
            self.order.append(label)

    def _skipped(self, set_skips: Sequence[Skip]) -> tuple[Skip, ...]:
        out = list(set_skips)
        for label, (kind, reason) in self.runtime_skips.items():
            if self.sent.get(label):
                continue
            method, _, path = label.partition(" ")
            out.append(Skip(method, path, kind, reason))
        for label, seen in self.statuses.items():
            if self.checked_by_op.get(label):
                continue
            method, _, path = label.partition(" ")
            codes = {status for status, _ in seen}
            tried = ", ".join(url for _, url in seen[:3]) + (f" and {len(seen) - 3} more" if len(seen) > 3 else "")
            if codes <= {404}:
                out.append(Skip(method, path, SkipKind.NOT_FOUND, f"404 for every value tried: {tried}"))
            elif codes <= {401, 403}:
                found = "/".join(str(c) for c in sorted(c for c in codes if c is not None))
                out.append(Skip(method, path, SkipKind.REFUSED, f"{found} for every request: give credentials"))
        return tuple(out)

    def _at(self, ref: RequestRef) -> tuple[int, int]:
        return ref.iteration, self.rank.get(base_id(ref.item), len(self.rank))

    def _coverage(self, set_skips: Sequence[Skip]) -> tuple[OperationCoverage, ...]:
        order = sorted(self.order, key=lambda label: self.label_rank.get(label, len(self.label_rank)))
        labels = [*order, *(k.label for k in set_skips if k.label not in self.sent)]
        labels.extend(label for label in self.enabled if label not in labels)
        out = []
        for label in labels:
            method, _, path = label.partition(" ")
            out.append(OperationCoverage(method, path, self.sent.get(label, 0), self.checked_by_op.get(label, 0),
                                         len(self.exercised.get(label, ())), self.enabled.get(label, 0),
                                         tuple(sorted(self.exercised_ids.get(label, ())))))
        return tuple(out)

    def result(self, seconds: float, notes: Sequence[str] = (), planned: RequestSet | None = None) -> RunResult:
        skips = planned.skipped if planned is not None else ()
        config = self.config
        return RunResult(self.runner, self.requests, self.checked,
                         tuple(sorted(self.cap.kept, key=lambda v: self._at(v.request))),
                         tuple(sorted(self.infrastructure, key=lambda x: self._at(x.request))),
                         tuple(sorted(self.unchecked, key=lambda x: self._at(x.request))), seconds,
                         tuple(notes),
                         server_errors=tuple(sorted(self.server_errors, key=lambda x: self._at(x.request))),
                         skipped=self._skipped(skips),
                         coverage=self._coverage(skips),
                         headers_sent=self.team.sent_headers(self.headers),
                         min_exercised=config.min_exercised if config else 1,
                         fail_on_server_errors=config.fail_on_server_errors if config else True,
                         omitted=self.cap.omitted, observed=self.log.store() if self.log is not None else None,
                         team_tests=self.team.result(self.runner, config.team_tests if config else TeamTestPolicy.FAIL),
                         opted_in=self.team.opted_in(self.runner))


def request_ref(request: PlannedRequest, iteration: int, base_url: str,
                used: Sequence[tuple[str, str]] = ()) -> RequestRef:
    """The reference a result carries: never the credentials (auth query values are left as variables); chain
    values are filled in, so the URL is the one sent."""
    return RequestRef(request.id, iteration, request.method, request.url(base_url, dict(used)), request.name)
