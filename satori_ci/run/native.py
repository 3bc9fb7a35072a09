"""The native runner: the planned requests sent with `requests`, the oracles checked in Python.

Every exchange is bounded: redirects are not followed (a 3XX is reported, see `Tally`), the body is read in
pieces and reading stops past `RunConfig.max_bytes` (`too_large`), and `RunConfig.timeout_s` bounds the whole
exchange (connect, headers, body). `requests`' and urllib3's timeouts bound each wait for a byte, so a server
that sends a byte a second would never trip them: a `_Watchdog` shuts the exchange's socket down at its
deadline, whatever phase it is in, and the exchange is then a timeout.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar, Token
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, cast
from urllib.parse import urlsplit

import requests
import requests.adapters
import urllib3
import urllib3.connection

from satori_ci.observe.summary import summarize
from satori_ci.plan.explore import Explorer, Send
from satori_ci.plan.model import SkipKind
from satori_ci.plan.requests import PlannedRequest, RequestSet
from satori_ci.run.breaker import Breaker, cause_of, no_answer, not_sent, stopped_by, tripped_first, unsent_kind
from satori_ci.run.model import ProblemKind, RunResult
from satori_ci.run.outcome import (
    Exchange,
    RunConfig,
    Tally,
    base_url_of,
    body_text,
    checked_lines,
    credentials,
    json_body,
    listed_findings,
    request_ref,
)
from satori_ci.run.pace import Pace
from satori_ci.run.scriptless import unsendable

Sleep = Callable[[float], None]
Session = requests.Session


_CAUSES = (
    ("CERTIFICATE_VERIFY_FAILED", "certificate verify failed"), ("WRONG_VERSION_NUMBER", "not a TLS server"),
    ("Connection refused", "connection refused"), ("Name or service not known", "unknown host"),
    ("nodename nor servname", "unknown host"), ("Temporary failure in name resolution", "unknown host"),
    ("Connection reset", "connection reset by the server"), ("RemoteDisconnected", "the server closed the connection"),
    ("Network is unreachable", "network unreachable"), ("No route to host", "no route to host"),
    ("timed out", "no answer in time"),
)


def _cause(exc: requests.RequestException) -> str:
    """urllib3's nested text (`HTTPConnectionPool(...): Max retries exceeded ...`) as the words that matter (+ host)."""
    text = str(exc)
    said = next((words for needle, words in _CAUSES if needle in text), text.splitlines()[0][:160] if text else "")
    request = getattr(exc, "request", None)
    host = urlsplit(request.url).netloc if request is not None and request.url else ""
    return f"{said} ({host})" if host else said


def classify_exception(exc: requests.RequestException) -> tuple[ProblemKind, str]:
    """The infrastructure problem behind a `requests` exception, in a few words."""
    if isinstance(exc, requests.exceptions.SSLError):
        return ProblemKind.TLS, f"TLS error: {_cause(exc)}"
    if isinstance(exc, requests.exceptions.Timeout):
        return ProblemKind.TIMEOUT, f"timed out: {_cause(exc)}"
    return ProblemKind.CONNECTION, f"connection failed: {_cause(exc)}"


READ_SIZE = 1 << 16


class _Deadline(Exception):
    """The whole exchange took longer than `RunConfig.timeout_s`."""


_WATCHDOG: ContextVar[_Watchdog | None] = ContextVar("satori_ci_watchdog", default=None)
"""The watchdog of the exchange in progress in this thread (the connections it sends on register with it)."""


class _Watchdog:
    """At `seconds` from its start, shuts down the socket of every connection the exchange used: a blocked read
    returns at once, whether it waits for the connection, the status line, the rest of the headers or the
    body. `fired` says it did (what the exchange read is then cut short: a timeout, whatever it looks like)."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._over = False
        self._connections: list[urllib3.connection.HTTPConnection] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._token: Token[_Watchdog | None] | None = None

    def __enter__(self) -> Self:
        self._token = _WATCHDOG.set(self)
        self._timer.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._timer.cancel()
        with self._lock:
            self._over = True
        if self._token is not None:
            _WATCHDOG.reset(self._token)

    def guard(self, connection: urllib3.connection.HTTPConnection) -> None:
        """Watch `connection` (shut at once when the deadline has passed already)."""
        with self._lock:
            self._connections.append(connection)
            if self.fired:
                _shut(connection)

    def _fire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.fired = True
            for connection in self._connections:
                _shut(connection)


def _shut(connection: urllib3.connection.HTTPConnection) -> None:
    """Shut the connection's socket down for both directions (the socket's own method, also under TLS)."""
    sock = connection.sock
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _guard(connection: urllib3.connection.HTTPConnection) -> None:
    watchdog = _WATCHDOG.get()
    if watchdog is not None:
        watchdog.guard(connection)


if TYPE_CHECKING:
    _Connection = urllib3.connection.HTTPConnection
else:
    _Connection = object


class _Watched(_Connection):
    """Registers with the exchange's watchdog when it connects and when it sends a request (a kept-alive
    connection sends several)."""

    def connect(self) -> None:
        _guard(self)
        super().connect()

    def request(self, *args: Any, **kwargs: Any) -> None:
        _guard(self)
        super().request(*args, **kwargs)


class _WatchedHTTPConnection(_Watched, urllib3.connection.HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, urllib3.connection.HTTPSConnection):
    pass


class _WatchedHTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_WATCHED_POOLS: dict[str, type[urllib3.HTTPConnectionPool]] = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class WatchedAdapter(requests.adapters.HTTPAdapter):
    """requests' adapter whose connections (direct or through an HTTP proxy) register with the watchdog."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # SOCKS pools have their own connections: per-read timeouts only
            manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager


def watched_session() -> requests.Session:
    """A session whose exchanges `_Watchdog` can cut (see `exchange`)."""
    session = requests.Session()
    session.headers["User-Agent"] = "satori-ci"
    for prefix in ("http://", "https://"):
        session.mount(prefix, WatchedAdapter())
    return session


def _socket_of(raw: Any) -> socket.socket | None:
    """The socket a streamed urllib3 response reads from (None when urllib3 does not say)."""
    connection = getattr(raw, "connection", None) or getattr(raw, "_connection", None)
    sock = getattr(connection, "sock", None)
    return sock if isinstance(sock, socket.socket) else None


def read_body(raw: Any, deadline: float, max_bytes: int) -> bytes | None:
    """The decoded body, read in pieces; None past `max_bytes`. Raises `_Deadline` past `deadline` (each read
    waits at most the time left), urllib3's errors on a broken transfer."""
    sock = _socket_of(raw)
    read = raw.read1 if hasattr(raw, "read1") else raw.read  # read1: one socket read at most (urllib3 2)
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Deadline
        if sock is not None:
            sock.settimeout(left)
        try:
            chunk = read(READ_SIZE, decode_content=True)
        except urllib3.exceptions.ReadTimeoutError:
            raise _Deadline from None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            return None
        chunks.append(chunk)


def _timed_out(config: RunConfig) -> Exchange:
    return Exchange(problem=ProblemKind.TIMEOUT,
                    detail=f"timed out: no complete response within {config.timeout_s:g} s")


def _unanswered(exc: requests.RequestException, config: RunConfig, wary: bool) -> Exchange:
    """The problem of a request that got no response: a connection that did not open within the connect
    timeout, no answer within the wait, or what `classify_exception` says."""
    connect = min(config.connect_timeout_s, config.timeout_s)
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return Exchange(problem=ProblemKind.TIMEOUT, detail=f"timed out: no connection within {connect:g} s")
    if isinstance(exc, requests.exceptions.ReadTimeout):
        waited = connect if wary else config.timeout_s
        return Exchange(problem=ProblemKind.TIMEOUT, detail=f"timed out: no answer within {waited:g} s")
    kind, detail = classify_exception(exc)
    return Exchange(problem=kind, detail=detail)


def transfer(session: requests.Session, request: PlannedRequest, base_url: str, variables: dict[str, str],
             config: RunConfig, wary: bool = False) -> tuple[requests.Response, bytes | None] | Exchange:
    """Send one request and read its response (the body None past `max_bytes`), or the problem that stopped
    it. Within `config.timeout_s` in all: past it the watchdog cuts the connection, and it is a timeout. The
    connection opens within `config.connect_timeout_s`; `wary` (a host that has not answered yet): the status
    line comes within that time too."""
    url = request.url(base_url, variables)
    headers = dict(request.headers(variables, config.headers, config.borrowed))
    body = request.body.encode("utf-8") if request.body is not None else None
    deadline = time.monotonic() + config.timeout_s
    # requests passes a urllib3 Timeout through as is (its type hints say float or tuple): `total` bounds the
    # connection and the first wait for the headers (each wait, not the whole: the watchdog bounds that)
    connect = min(config.connect_timeout_s, config.timeout_s)
    total = cast(Any, urllib3.Timeout(connect=connect, read=connect if wary else None, total=config.timeout_s))
    with _Watchdog(config.timeout_s) as watchdog:
        try:
            response = session.request(request.method, url, headers=headers, data=body, verify=not config.insecure,
                                       timeout=total, allow_redirects=False, stream=True)
        except requests.RequestException as exc:
            return _timed_out(config) if watchdog.fired else _unanswered(exc, config, wary)
        with response:
            try:
                data = read_body(response.raw, deadline, config.max_bytes)
            except _Deadline:
                return _timed_out(config)
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                if isinstance(exc, TimeoutError) or watchdog.fired or time.monotonic() >= deadline:
                    return _timed_out(config)
                kind, detail = classify_exception(requests.exceptions.ConnectionError(exc))
                return Exchange(problem=kind, detail=detail)
    if watchdog.fired:  # the headers or the body were cut short at the deadline, however they look
        return _timed_out(config)
    return response, data


def exchange(session: requests.Session, request: PlannedRequest, base_url: str, variables: dict[str, str],
             config: RunConfig, wary: bool = False) -> tuple[Exchange, Any]:
    """Send one request and check its response: the exchange, and the parsed body of a checked response."""
    sent = transfer(session, request, base_url, variables, config, wary)
    if isinstance(sent, Exchange):
        return sent, None
    response, data = sent
    status = response.status_code
    if data is None:
        return Exchange(status=status, too_large=True), None
    key = request.status_key(status)
    if key is None:
        return Exchange(status=status, location=response.headers.get("Location")), None
    parsed, unreadable = json_body(body_text(data, response.headers.get("Content-Type")))
    if unreadable is not None:
        return Exchange(status=status, detail=f"the body of {request.label} {unreadable}"), None
    oracles = request.oracles_for(key)
    lines, exercised = checked_lines(oracles, parsed, request.null_like)
    findings, omitted = listed_findings(lines)
    fields = request.observed_for(key)
    observed = summarize(fields, parsed, request.null_like) if request.observed else None
    return Exchange(status=status, is_json=True, findings=findings, omitted=omitted,
                    exercised=exercised, observed=observed, link=response.headers.get("Link")), parsed


def run_native(planned: RequestSet, config: RunConfig, sleep: Sleep = time.sleep) -> RunResult:
    """Every planned request, `config.iterations` times, each retried on infrastructure problems (a 5XX once);
    explored operations take the values earlier responses gave (`satori_ci.plan.explore`), breadth-first, within
    the request set's budget. The run's own headers (`config.headers`) go with every request as they are. After
    `breaker.THRESHOLD` attempts in a row without an answer, nothing more is sent (`Breaker`)."""
    started = time.monotonic()
    config = replace(config, borrowed=planned.given.auth) if planned.given is not None else config
    variables, notes = credentials(planned, config)
    base_url = base_url_of(config)
    tally = Tally("native", planned, config)
    budget = planned.budget
    sending = Sending(base_url, variables, config, sleep, Pace(budget.rate, sleep), Breaker(),
                       started + budget.seconds)
    with watched_session() as session:
        for iteration in range(config.iterations):
            explorer = Explorer(planned, base_url, planned.samples, budget.requests - tally.requests)
            total = explorer.estimate()
            sending.tell = _teller(config, tally, total)
            while chosen := explorer.round():
                for start in range(0, len(chosen), budget.concurrency):
                    if time.monotonic() > sending.deadline or sending.breaker.tripped:
                        explorer.stop()
                        why = not_sent(sending.breaker.tripped) if sending.breaker.tripped else OUT_OF_TIME
                        for send in chosen[start:]:  # chosen, so the explorer counts them sent: they are not
                            tally.skip(send.operation, unsent_kind(sending.breaker.tripped), why)
                        break
                    batch = chosen[start:start + budget.concurrency]
                    results = _send_all(session, batch, sending)
                    for send, (result, body, attempts) in zip(batch, results, strict=True):
                        if config.progress is not None:
                            config.progress(min(tally.requests, total), total, send.request.label)
                        if result is _UNSENT:
                            tally.skip(send.operation, *stopped_by(sending.breaker.tripped))
                        else:
                            tally.add(send.request, request_ref(send.request, iteration, base_url), result, attempts)
                        explorer.feed(send, result.status if result.is_json else None, body, result.link)
                if explorer.stopped:
                    break
            trip = sending.breaker.tripped
            for unsent in explorer.unsent():
                stopped = trip is not None and unsent.kind is SkipKind.BUDGET
                tally.skip(unsent.operation, *(stopped_by(trip) if stopped else (unsent.kind, unsent.detail)))
            if trip is not None:
                break
    return tripped_first(tally.result(time.monotonic() - started, (*planned.notes, *notes), planned),
                         sending.breaker.tripped)


def _teller(config: RunConfig, tally: Tally, total: int) -> Callable[[str], None]:
    """Tells `config.progress` about an attempt that got no answer (a heartbeat says so)."""
    def tell(text: str) -> None:
        if config.progress is not None:
            config.progress(min(tally.requests, total), total, text)
    return tell


class Sending:
    """What every exchange of a run shares: where, with which values, at which pace, under which breaker, until when."""

    def __init__(self, base_url: str, variables: dict[str, str], config: RunConfig, sleep: Sleep, pace: Pace,
                 breaker: Breaker, deadline: float) -> None:
        self.base_url, self.variables, self.config = base_url, variables, config
        self.sleep, self.pace, self.breaker, self.deadline = sleep, pace, breaker, deadline
        self.tell: Callable[[str], None] = lambda _: None
        if config.insecure:  # asked for (`--insecure`): urllib3's warning on stderr would only repeat it
            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)

    def attempt(self, session: requests.Session, request: PlannedRequest) -> tuple[Exchange, Any]:
        """One attempt, recorded by the breaker (the one that trips it carries the breaker's line)."""
        self.pace.wait()
        result, body = exchange(session, request, self.base_url, self.variables, self.config,
                                self.breaker.wary(self.base_url))
        if result.problem is None:
            self.breaker.record(self.base_url, None)
            return result, body
        cause = cause_of(result.detail)
        self.tell(no_answer(self.base_url, cause))
        trip = self.breaker.record(self.base_url, cause)
        return (replace(result, detail=trip.line) if trip is not None else result), body


Outcome = tuple[Exchange, Any, int]
OUT_OF_TIME = "left out: the run's time budget (--time-budget, requests.time_budget) ran out first"
_UNSENT = Exchange(skipped="not sent: the breaker tripped")
"""What `send_one` gives for a request it did not send because the breaker had tripped."""


def _send_all(session: requests.Session, batch: list[Send], sending: Sending) -> list[Outcome]:
    """The exchanges of a batch, in its order (at once when it holds more than one)."""
    if len(batch) == 1:
        return [send_one(session, batch[0].request, sending)]
    def alone(send: Send) -> Outcome:
        with watched_session() as own:  # a session is not shared between threads
            return send_one(own, send.request, sending)

    with ThreadPoolExecutor(max_workers=len(batch)) as pool:
        return list(pool.map(alone, batch))


def send_one(session: requests.Session, request: PlannedRequest, sending: Sending) -> Outcome:
    """One request sent, retried on infrastructure problems (not once the breaker tripped, nor past the time
    budget); a request that cannot be sent is a skip."""
    if request.requires:
        return Exchange(skipped=request.skip_reason), None, 0
    unsent = unsendable(request.given) if request.given is not None else None
    if unsent:
        return Exchange(skipped=unsent), None, 0
    config, base_url = sending.config, sending.base_url
    if not sending.breaker.allows(base_url):
        return _UNSENT, None, 0
    attempts = 1
    result, body = sending.attempt(session, request)
    while (result.retryable(attempts, config.retries) and sending.breaker.allows(base_url)
           and time.monotonic() + config.backoff_s * attempts < sending.deadline):
        sending.sleep(config.backoff_s * attempts)
        attempts += 1
        result, body = sending.attempt(session, request)
    return result, body, attempts


class NativeRunner:
    """The native runner (`RequestRunner`): Python's `requests`, no Node.js needed."""

    name = "native"

    def run(self, planned: RequestSet, config: RunConfig) -> RunResult:
        return run_native(planned, config)
