"""Bounds on what staging can do to a run, the same with both runners (issue 10).

- A redirect to another origin never carries a credential there: redirects are not followed at all, and the
  3XX is reported as a response not checked, naming where it pointed (origin and path, never the query).
- An endless body stops at the byte cap (`response too large`) and the run goes on; a body that drips forever
  stops at the request's total deadline (a timeout), however often bytes arrive.
- A response with thousands of failing values lists the first `VIOLATIONS_PER_ORACLE` per oracle and counts
  the rest.

Every server here is on 127.0.0.1 and stops by itself (the endless body after `STREAM_FOR_S` seconds or
`STREAM_AT_MOST` bytes, the drip after `DRIP_FOR_S`).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.demo import StagingServer
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import RequestSet
from satori_ci.run import newman as newman_module
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import (
    VIOLATIONS_PER_ORACLE,
    ProblemKind,
    RequestRef,
    ResponseProblemKind,
    RunResult,
    Violation,
    ViolationCap,
)
from satori_ci.run.native import run_native
from satori_ci.run.newman import NEWMAN_ENV, run_newman
from satori_ci.run.newman_report import read_report
from satori_ci.run.outcome import DEFAULT_MAX_BYTES, FindingLine, RunConfig, listed_findings, redirect_target
from satori_ci.spec import Spec, load_spec
from tests.run.conftest import concurrently, newman_available
from tests.run.specs import AUTH_SECRETS, auth_oracles, auth_spec
from tests.servers.loopback import LoopbackServer

STREAM_FOR_S = 20.0
STREAM_AT_MOST = 64 * 1024 * 1024
"""The endless body stops by itself after this long or this many bytes (8 times the default cap)."""
DRIP_FOR_S = 30.0
"""The drip stops by itself after this long: a run that ends well before it was cut by its own deadline."""
DRIP_EVERY_S = 0.05
DRIP_TIMEOUT_S = 1.0
"""The dripping body's deadline: 20 drips, each far sooner than a per-read timeout of that length would trip."""
PIECE = b'{"ok": true, "n": 1},' * 3000
MANY = 2500
"""Failing values in the `/many` response (two oracles fail on each)."""
CONFIGURED = (("X-Staging-Token", "stg-secret-6"),)
LEAKY_QUERY = "sig=never-shown-7"


class Recorder(LoopbackServer):
    """Records every request (path with query, headers) and answers by `answer(handler)`."""

    quiet_errors = True

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        super().__init__()
        self.answer = answer
        self.received: list[tuple[str, dict[str, str]]] = []
        self.lock = threading.Lock()

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                with server.lock:
                    server.received.append((self.path, dict(self.headers.items())))
                server.answer(self)

            do_GET = do_HEAD = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


def _json(handler: BaseHTTPRequestHandler, body: Any, status: int = 200, headers: dict[str, str] | None = None
          ) -> None:
    payload = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(payload)


def _stream(handler: BaseHTTPRequestHandler, pieces: Callable[[], bytes | None]) -> None:
    """A 200 JSON response without a length, closed when `pieces` says None or the client hangs up."""
    handler.close_connection = True
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Connection", "close")
    handler.end_headers()
    try:
        handler.wfile.write(b'{"items": [')
        while (piece := pieces()) is not None:
            handler.wfile.write(piece)
            handler.wfile.flush()
    except OSError:
        pass


def _endless() -> Callable[[], bytes | None]:
    stop_at = time.monotonic() + STREAM_FOR_S
    sent = [0]

    def piece() -> bytes | None:
        if time.monotonic() > stop_at or sent[0] > STREAM_AT_MOST:
            return None
        sent[0] += len(PIECE)
        return PIECE
    return piece


def _drip() -> Callable[[], bytes | None]:
    stop_at = time.monotonic() + DRIP_FOR_S

    def piece() -> bytes | None:
        if time.monotonic() > stop_at:
            return None
        time.sleep(DRIP_EVERY_S)
        return b" "
    return piece


def _staging(handler: BaseHTTPRequestHandler) -> None:
    path = handler.path.split("?")[0]
    if path == "/endless":
        _stream(handler, _endless())
    elif path == "/drip":
        _stream(handler, _drip())
    elif path == "/many":
        items = [{"ok": False, "n": 9} for _ in range(MANY)]
        _json(handler, {"items": [*items, {"ok": True, "n": 1}]})
    else:
        _json(handler, {"items": [{"ok": True, "n": 1}]})


def _spec(tmp: Path, paths: list[str]) -> Spec:
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer"}}}}}}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}
    spec = {"openapi": "3.0.3", "info": {"title": "Bounds", "version": "1"},
            "paths": {p: {"get": {"operationId": p.strip("/"), "responses": ok}} for p in paths}}
    path = tmp / "bounds.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return load_spec(str(path))


def _oracles(spec: Spec) -> list[Oracle]:
    out = []
    for f in spec.fields:
        if f.field == "items[].ok":
            out.append(Oracle(f.operation, f.field, OracleKind.BOOLEAN_ALWAYS_TRUE, None, "manual"))
        elif f.field == "items[].n":
            out.append(Oracle(f.operation, f.field, OracleKind.NUMBER_MAX_VALUE, 5, "manual"))
    return out


def _both(collection: RequestSet, config: RunConfig) -> tuple[tuple[RunResult, float], tuple[RunResult, float]]:
    """(result, seconds) of Newman and of the native runner, run side by side."""
    newman_available()

    def timed(run: Callable[[], RunResult]) -> tuple[RunResult, float]:
        started = time.monotonic()
        result = run()
        return result, time.monotonic() - started
    newman, native = concurrently([lambda: timed(lambda: run_newman(collection, config, sleep=lambda _: None)),
                                   lambda: timed(lambda: run_native(collection, config, sleep=lambda _: None))])
    return newman, native


def _same(a: RunResult, b: RunResult) -> None:
    assert (a.requests, a.checked, a.violations, a.omitted, a.unchecked, a.server_errors) == (
        b.requests, b.checked, b.violations, b.omitted, b.unchecked, b.server_errors)
    assert [(p.request, p.kind, p.attempts) for p in a.infrastructure] == [
        (p.request, p.kind, p.attempts) for p in b.infrastructure]


# -- redirects ---------------------------------------------------------------------------------------


def test_redirects_to_another_origin_carry_no_credentials(tmp_path: Path) -> None:
    """Staging redirects every request to another local server: not one request reaches it, so no configured
    header, auth header, cookie or query key does; both runners report the same not-followed redirects."""
    elsewhere = Recorder(lambda h: _json(h, {"ok": True}))
    with elsewhere:
        def redirect(handler: BaseHTTPRequestHandler) -> None:
            target = f"{elsewhere.origin}/landing{handler.path.split('?')[0]}?{LEAKY_QUERY}"
            _json(handler, {"moved": True}, status=302, headers={"Location": target})
        staging = Recorder(redirect)
        with staging:
            spec = auth_spec(tmp_path)
            collection = build_requests(spec, auth_oracles(spec))
            config = RunConfig(staging.origin, retries=0, environ=AUTH_SECRETS, headers=CONFIGURED)
            (newman, _), (native, _) = _both(collection, config)
            origin, other = staging.origin, elsewhere.origin
    assert elsewhere.received == []
    # the credentials did go to staging (the redirect is what must not pass them on)
    sent = json.dumps(staging.received)
    assert AUTH_SECRETS["SATORI_AUTH_HEADERKEY"] in sent and "stg-secret-6" in sent
    assert "tok-secret-3" in sent and AUTH_SECRETS["SATORI_AUTH_COOKIEKEY"] in sent
    _same(newman, native)
    for result in (newman, native):
        assert result.requests == 4 and result.checked == 0
        assert {(u.kind, u.status) for u in result.unchecked} == {(ResponseProblemKind.REDIRECTED, 302)}
        keys = next(u for u in result.unchecked if u.request.url.startswith(f"{origin}/secure/keys"))
        assert keys.detail.startswith(f"HTTP 302: redirected to {other}/landing/secure/keys (not followed")
        written = json.dumps(result.to_dict())
        assert LEAKY_QUERY not in written
        for secret in [*AUTH_SECRETS.values(), "stg-secret-6"]:
            assert secret not in written


def test_a_same_origin_redirect_is_reported_not_followed(tmp_path: Path) -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/fine"):
            _json(handler, {"moved": True}, status=301, headers={"Location": "/elsewhere?x=1#frag"})
        else:
            _json(handler, {"items": [{"ok": True}]})
    server = Recorder(answer)
    with server:
        spec = _spec(tmp_path, ["/fine"])
        result = run_native(build_requests(spec, _oracles(spec)), RunConfig(server.origin, retries=0))
        origin = server.origin
    assert [p for p, _ in server.received] == ["/fine"]
    assert [(u.kind, u.status, u.detail.split(" (")[0]) for u in result.unchecked] == [
        (ResponseProblemKind.REDIRECTED, 301, f"HTTP 301: redirected to {origin}/elsewhere")]


# -- response size and time --------------------------------------------------------------------------


def test_an_endless_body_is_too_large_and_the_run_goes_on(tmp_path: Path) -> None:
    server = Recorder(_staging)
    with server:
        spec = _spec(tmp_path, ["/endless", "/fine"])
        config = RunConfig(server.origin, retries=2, timeout_s=15)
        assert config.max_bytes == DEFAULT_MAX_BYTES == 8 * 1024 * 1024
        (newman, newman_s), (native, native_s) = _both(build_requests(spec, _oracles(spec)), config)
        origin = server.origin
    _same(newman, native)
    for result, seconds in ((newman, newman_s), (native, native_s)):
        assert seconds < STREAM_FOR_S / 2, (result.runner, seconds)
        assert [(u.kind, u.status, u.request.url) for u in result.unchecked] == [
            (ResponseProblemKind.TOO_LARGE, 200, f"{origin}/endless")], result.runner
        assert result.unchecked[0].detail.startswith("response too large: the body passed 8 MiB")
        # a finding about that request: not retried, not an infrastructure problem; the next request is checked
        assert result.infrastructure == () and result.requests == 2 and result.checked == 1
        assert [c.checked for c in result.coverage] == [0, 1]
    # once per runner, and Newman's probe (a HEAD, sent natively before Newman starts: `run.discover`)
    assert [p for p, _ in server.received].count("/endless") == 3


def test_the_byte_cap_is_configurable_from_the_command_line(tmp_path: Path) -> None:
    server = Recorder(_staging)
    with server:
        spec = _spec(tmp_path, ["/fine", "/many"])
        oracles = tmp_path / "bounds.oracles.yaml"
        by_field = {(o.operation, o.field): o for o in _oracles(spec)}
        entries = [FieldEntry(f.operation, f.field, f.fingerprint, (by_field[(f.operation, f.field)],))
                   for f in spec.fields if (f.operation, f.field) in by_field]
        oracles.write_text(dump_oracle_file(OracleFile(spec.source, tuple(entries))), encoding="utf-8")
        report = tmp_path / "report.json"
        code = main(["run", str(tmp_path / "bounds.json"), "--oracles", str(oracles), "--base-url", server.origin,
                     "--runner", "native", "--retries", "0", "--max-response-bytes", "1000", "--report", str(report)])
        origin = server.origin
    written = json.loads(report.read_text(encoding="utf-8"))
    assert [(u["kind"], u["request"]["url"]) for u in written["unchecked"]] == [("too_large", f"{origin}/many")]
    assert "1000 bytes" in written["unchecked"][0]["detail"]
    assert code == 0 and written["checked"] == 1


def test_a_dripping_body_stops_at_the_total_deadline(tmp_path: Path) -> None:
    """A byte every 0.05 s never trips a per-read timeout; the deadline for the whole exchange (1 s) stops it."""
    server = Recorder(_staging)
    with server:
        spec = _spec(tmp_path, ["/drip", "/fine"])
        config = RunConfig(server.origin, retries=0, timeout_s=DRIP_TIMEOUT_S)
        (newman, newman_s), (native, native_s) = _both(build_requests(spec, _oracles(spec)), config)
        origin = server.origin
    _same(newman, native)
    for result, seconds in ((newman, newman_s), (native, native_s)):
        assert seconds < DRIP_FOR_S / 2, (result.runner, seconds)
        assert [(p.kind, p.request.url) for p in result.infrastructure] == [
            (ProblemKind.TIMEOUT, f"{origin}/drip")], result.runner
        assert result.checked == 1


# -- violations --------------------------------------------------------------------------------------


def test_thousands_of_violations_are_listed_per_oracle_and_counted(tmp_path: Path) -> None:
    server = Recorder(_staging)
    with server:
        spec = _spec(tmp_path, ["/many"])
        config = RunConfig(server.origin, retries=0, iterations=2)
        (newman, _), (native, _) = _both(build_requests(spec, _oracles(spec)), config)
    _same(newman, native)
    for result in (newman, native):
        assert result.checked == 2 and result.violation_count == 2 * 2 * MANY
        listed: dict[str, int] = {}
        for v in result.violations:
            listed[v.field] = listed.get(v.field, 0) + 1
        assert listed == {"items[].ok": VIOLATIONS_PER_ORACLE, "items[].n": VIOLATIONS_PER_ORACLE}
        # the first ones, in order: all from the first response
        assert {v.request.iteration for v in result.violations} == {0}
        omitted = result.to_dict()["violations_omitted"]
        assert [(o["field"], o["oracle"], o["listed"], o["omitted"]) for o in omitted] == [
            ("items[].ok", "boolean_always_true", VIOLATIONS_PER_ORACLE, 2 * MANY - VIOLATIONS_PER_ORACLE),
            ("items[].n", "number_max_value", VIOLATIONS_PER_ORACLE, 2 * MANY - VIOLATIONS_PER_ORACLE)]
        assert result.to_dict()["violations_total"] == 4 * MANY
        assert len(json.dumps(result.to_dict())) < 200_000


@pytest.mark.parametrize(("location", "shown"), [
    ("http://user:pw@other.example:8443/a/b?key=secret#x", "http://other.example:8443/a/b"),
    ("/relative?token=t", "https://staging.example/relative"),
    ("next", "https://staging.example/v1/next"),
    ("//cdn.example/x?y", "https://cdn.example/x"),
    ("http://[::1]:9/p", "http://[::1]:9/p"),
    ("http://bad:port/", "an unreadable Location"),
])
def test_a_redirect_target_is_shown_without_credentials_or_query(location: str, shown: str) -> None:
    assert redirect_target("https://staging.example/v1/items?api_key={{SATORI_AUTH_Q}}", location) == shown


def test_the_cap_keeps_the_first_of_each_oracle_and_counts_the_rest(tmp_path: Path) -> None:
    spec = _spec(tmp_path, ["/many"])
    ok, n = sorted(_oracles(spec), key=lambda o: o.field, reverse=True)
    findings = [FindingLine(i % 2, f"/items/{i}", "x", "m") for i in range(250)]
    kept, omitted = listed_findings(findings, per_oracle=100)
    assert [f.pointer for f in kept] == [f"/items/{i}" for i in range(200)] and omitted == ((0, 25), (1, 25))
    cap = ViolationCap(per_oracle=2)
    ref = RequestRef("i", 0, "GET", "http://x/many")
    for i in range(5):
        cap.add(Violation(ok.operation, ok.field, ok, f"/items/{i}/ok", "false", "m", ref))
    cap.add(Violation(n.operation, n.field, n, "/items/0/n", "9", "m", ref))
    cap.omit(n.operation, n, 7)
    assert [v.pointer for v in cap.kept] == ["/items/0/ok", "/items/1/ok", "/items/0/n"]
    assert [(o.field, o.listed, o.omitted) for o in cap.omitted] == [("items[].ok", 2, 3), ("items[].n", 1, 7)]
    assert len(ViolationCap(per_oracle=None).kept) == 0


def test_the_reporter_lines_of_a_bounded_run_are_read() -> None:
    lines = [
        json.dumps({"type": "bounds", "max_bytes": 10, "deadline_ms": 5, "error": None}),
        json.dumps({"type": "request", "item": "a", "iteration": 0, "status": None, "location": None,
                    "error": {"code": "ERESPONSETOOLARGE", "message": "Maximum response size reached", "status": 200}}),
        json.dumps({"type": "request", "item": "b", "iteration": 0, "status": 307, "location": "/x", "error": None}),
        json.dumps({"type": "done", "error": None}),
    ]
    report = read_report(iter(lines))
    assert report.bounds is not None and report.bounds["max_bytes"] == 10
    assert report.records[("a", 0)].error == {"code": "ERESPONSETOOLARGE", "message": "Maximum response size reached",
                                              "status": 200}
    assert report.records[("b", 0)].location == "/x"


_FAKE_NEWMAN = """#!{python}
import json, sys, time
args = sys.argv
export = args[args.index("--reporter-satori-export") + 1]
if {sleep}:
    time.sleep(30)
with open(export, "w") as out:
    out.write(json.dumps({{"type": "done", "error": None}}) + chr(10))
"""


@pytest.mark.parametrize("sleep", [False, True])
def test_newman_never_runs_unbounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleep: bool) -> None:
    """A newman whose reporter did not set the bounds is an error, not a run without them; a run that outlasts
    its budget is stopped."""
    fake = tmp_path / "newman"
    fake.write_text(_FAKE_NEWMAN.format(python=sys.executable, sleep=sleep), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv(NEWMAN_ENV, str(fake))
    monkeypatch.setattr(newman_module, "BUDGET_SLACK_S", 0.0)
    monkeypatch.setattr(newman_module, "PER_REQUEST_SLACK_S", 1.0)
    spec = _spec(tmp_path, ["/fine"])
    started = time.monotonic()
    with StagingServer() as staging, pytest.raises(RunError) as caught:  # it answers the probe: Newman starts
        run_newman(build_requests(spec, _oracles(spec)), RunConfig(staging.base_url, timeout_s=0.5))
    assert caught.value.kind is RunErrorKind.NEWMAN_FAILED
    assert time.monotonic() - started < 10
    assert ("did not finish within 1.5 s" if sleep else "cannot bound response sizes") in str(caught.value)
