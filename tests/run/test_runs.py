"""Both runners against the staging server: planted faults, thousands of failures, infrastructure problems.

The real Newman binary runs every scenario; its runs are started side by side once per module (Newman
takes ~2 s to start), and the native runner is run on the same queued responses for comparison.
"""

from __future__ import annotations

import base64
import copy
import json
import socket
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from satori_ci.demo import (
    BOOKS,
    BOOKSHOP_FAULTS,
    Bookshop,
    Canned,
    Received,
    StagingServer,
    book_body,
    list_body,
)
from satori_ci.errors import ExitCode
from satori_ci.oracles.check import check_body, truncate_json
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import PlannedRequest, RequestSet
from satori_ci.plan.samples import encode
from satori_ci.postman.export import collection_json
from satori_ci.run.model import VIOLATIONS_PER_ORACLE, ProblemKind, ResponseProblemKind, RunResult, Violation
from satori_ci.run.native import run_native
from satori_ci.run.newman import run_newman
from satori_ci.run.newman_report import NewmanReport
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import Spec, load_spec
from tests.run.conftest import BOOKSHOP_SPEC, FIXTURES, concurrently, newman_available, oracles_of, spec_routes
from tests.run.specs import (
    AUTH_SECRETS,
    HOSTILE_PATH,
    auth_oracles,
    auth_spec,
    hostile_bodies,
    hostile_oracles,
    hostile_spec,
)

FAULTS = sorted(BOOKSHOP_FAULTS)
LIST_ONLY = ("too_many_books", "total_negative")
_ANY = [f for f in FAULTS if f not in LIST_ONLY]
PLAN: list[tuple[str, str | None]] = [(LIST_ONLY[0], _ANY[0]), (LIST_ONLY[1], _ANY[1])] + [
    (_ANY[i], _ANY[i + 1] if i + 1 < len(_ANY) else None) for i in range(2, len(_ANY), 2)]
"""Two faults an iteration: one in the `GET /books` response, one in the `GET /books/{isbn}` response."""
WHERE = {f: (1 + i, path) for i, pair in enumerate(PLAN) for f, path in zip(pair, ("/books", "/books/{isbn}"),
                                                                            strict=True) if f}
LARGE_AT, ODD_AT = len(PLAN) + 1, len(PLAN) + 2
EXTRA_HEADERS = (("X-Staging-Token", "stg-secret-6"), ("accept", "application/json; v=2"))
"""Headers of the run (from the config file) sent with every request; `accept` replaces the sample's Accept."""
LARGE = 3000
"""Books in the large failing response: three failing values each."""


@dataclass
class Scenario:
    collection: RequestSet
    config: RunConfig
    prepare: Callable[[], None]
    """Queue the responses (again) before each runner."""
    server: StagingServer | None = None


@dataclass
class Outcome:
    newman: RunResult
    native: RunResult
    received_newman: list[Received]
    received_native: list[Received]
    reports: list[NewmanReport]


def _bookshop_queue(shop: Bookshop) -> Callable[[], None]:
    large = list_body(3)
    large["books"] = [dict(copy.deepcopy(BOOKS[i % 3]), rating=7, isbn="97804411727x") for i in range(LARGE)]

    def prepare() -> None:
        lists = [Canned(list_body())] + [Canned(list_body(fault=a)) for a, _ in PLAN] + [
            Canned(large), Canned(raw=b"<html>busy</html>", content_type="text/html")]
        ones = [Canned(book_body())] + [Canned(book_body(fault=b)) for _, b in PLAN] + [
            Canned(book_body(1)), Canned({"error": "gone"}, status=404)]
        shop.server.clear()
        shop.server.enqueue("GET", "/books", lists)
        shop.server.enqueue("GET", "/books/{isbn}", ones)
    return prepare


def _infra_queue(server: StagingServer, spec: Spec) -> Callable[[], None]:
    item = {"id": "000042", "price": 3.5, "active": True}

    def prepare() -> None:
        server.clear()
        server.enqueue("GET", "/items", [Canned({"error": "down"}, status=503)] * 2)
        server.enqueue("GET", "/items/{id}", [Canned({"error": "busy"}, status=502), Canned(item)])
        server.enqueue("GET", "/items/{id}/prices", [Canned([1, 2], delay_s=1.5)] * 2)
        server.enqueue("POST", "/orders", [Canned(raw=b"created", status=201, content_type="text/plain")])
    return prepare


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _run_both(s: Scenario) -> Outcome:
    s.prepare()
    reports: list[NewmanReport] = []
    by_newman = run_newman(s.collection, s.config, sleep=lambda _: None, reports=reports)
    got_newman = list(s.server.received) if s.server else []
    s.prepare()
    by_native = run_native(s.collection, s.config, sleep=lambda _: None)
    got_native = list(s.server.received) if s.server else []
    return Outcome(by_newman, by_native, got_newman, got_native, reports)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Every scenario run by both runners; Newman runs side by side."""
    newman_available()
    tmp = tmp_path_factory.mktemp("runs")
    marker = tmp / "owned"
    bookshop_spec = load_spec(str(BOOKSHOP_SPEC))
    bookshop_oracles = oracles_of(FIXTURES / "bookshop.oracles.yaml")
    inventory = load_spec(str(FIXTURES / "inventory.yaml"))
    inventory_oracles = oracles_of(FIXTURES / "inventory.oracles.yaml")
    hostile, names = hostile_spec(tmp, marker)
    secured = auth_spec(tmp)
    good, bad = hostile_bodies(hostile)

    bookshop = Bookshop()
    shop_server = bookshop.server
    shop_server.route("GET", HOSTILE_PATH, lambda r, p: Canned(good))
    for op in secured.operations:
        shop_server.route(op.method, op.path, lambda r, p: Canned({"ok": True}))
    books_queue = _bookshop_queue(bookshop)

    def prepare_main() -> None:
        books_queue()
        shop_server.enqueue("GET", HOSTILE_PATH, [Canned(good), Canned(bad)])

    main = build_requests(bookshop_spec, bookshop_oracles).merged(
        [build_requests(hostile, hostile_oracles(hostile)), build_requests(secured, auth_oracles(secured))])
    infra_server = StagingServer()
    spec_routes(infra_server, inventory)
    with shop_server, infra_server:
        scenarios = {
            "main": Scenario(main, RunConfig(shop_server.base_url, retries=0, iterations=len(PLAN) + 3,
                                             environ=AUTH_SECRETS, headers=EXTRA_HEADERS), prepare_main,
                             shop_server),
            "infra": Scenario(build_requests(inventory, inventory_oracles),
                              RunConfig(infra_server.base_url, timeout_s=0.75, retries=1, backoff_s=0),
                              _infra_queue(infra_server, inventory), infra_server),
            "refused": Scenario(build_requests(bookshop_spec, bookshop_oracles),
                                RunConfig(f"http://127.0.0.1:{_closed_port()}", retries=0), lambda: None),
            "tls": Scenario(build_requests(bookshop_spec, bookshop_oracles),
                            RunConfig(shop_server.base_url.replace("http://", "https://"), retries=0),
                            lambda: None),
        }
        # the tls scenario's handshakes reach the bookshop server but are never answered as requests
        order = list(scenarios)
        results = concurrently([partial(_run_both, scenarios[n]) for n in order], workers=4)
        yield World(dict(zip(order, results, strict=True)), main, hostile, names, good, bad, marker)


@dataclass
class World:
    outcomes: dict[str, Outcome]
    main: RequestSet
    hostile: Spec
    names: list[str]
    good: dict[str, Any]
    bad: dict[str, Any]
    marker: Path


@pytest.fixture(scope="module")
def outcomes(world: World) -> dict[str, Outcome]:
    return world.outcomes


BOOK_PATHS = ("/books", "/books/{isbn}")


def _books(result: RunResult, iteration: int) -> list[Violation]:
    return [v for v in result.violations if v.request.iteration == iteration and v.operation.path in BOOK_PATHS]


def test_correct_responses_have_no_violation(outcomes: dict[str, Outcome]) -> None:
    for result in (outcomes["main"].newman, outcomes["main"].native):
        assert [v for v in result.violations if v.request.iteration == 0] == []
        assert result.checked > 0


@pytest.mark.parametrize("fault", FAULTS)
def test_each_planted_fault_is_caught_by_its_oracle_kind(outcomes: dict[str, Outcome], fault: str) -> None:
    iteration, path = WHERE[fault]
    kind = BOOKSHOP_FAULTS[fault][0]
    for result in (outcomes["main"].newman, outcomes["main"].native):
        found = [v for v in _books(result, iteration) if v.operation.path == path]
        assert found, f"{result.runner} missed {fault}"
        assert {v.oracle.kind.value for v in found} == {kind}, (fault, [v.message for v in found])


def test_runners_agree_and_send_the_same_requests(outcomes: dict[str, Outcome]) -> None:
    for name in ("main", "infra"):
        o = outcomes[name]
        assert o.newman.violations == o.native.violations
        assert o.newman.unchecked == o.native.unchecked
        assert [(p.request, p.kind, p.attempts) for p in o.newman.infrastructure] == [
            (p.request, p.kind, p.attempts) for p in o.native.infrastructure]
        # the same requests (Newman retries after the run, the native runner at once: order may differ), but for
        # the probe before Newman starts: one HEAD of the first request, as no producer had answered yet
        probe, *newman = o.received_newman
        assert probe.method == "HEAD" and all(r.method != "HEAD" for r in o.received_native), name
        assert sorted(r.target for r in newman) == sorted(r.target for r in o.received_native), name


def test_violation_names_what_and_where(outcomes: dict[str, Outcome]) -> None:
    iteration, _ = WHERE["rating_too_high"]
    v = next(v for v in outcomes["main"].newman.violations
             if v.request.iteration == iteration and v.request.name.startswith("GET /books?"))
    assert (str(v.operation), v.field, v.oracle.kind.value, v.oracle.value) == (
        "GET /books 200", "books[].rating", "number_max_value", 5)
    assert (v.pointer, v.value, v.message) == ("/books/2/rating", "7", "rating = 7 is greater than 5")
    assert v.request.url.endswith("/books?q=dune&limit=10") and v.request.method == "GET"


def test_a_run_with_thousands_of_failures_is_read_completely(outcomes: dict[str, Outcome]) -> None:
    """Every failing value is counted; the first VIOLATIONS_PER_ORACLE of each oracle are listed."""
    iteration = LARGE_AT
    large = {"number_max_value": "books[].rating", "string_is_numeric": "books[].isbn",
             "string_fixed_length": "books[].isbn"}
    for result in (outcomes["main"].newman, outcomes["main"].native):
        listed = Counter(v.oracle.kind.value for v in _books(result, iteration))
        omitted = {o.oracle.kind.value: o for o in result.omitted if o.operation.path == "/books"}
        assert set(omitted) == set(large), result.runner
        for kind, field_name in large.items():
            # every book: rating > 5, isbn not numeric, isbn not 13 characters (omitted ones all from this response)
            assert listed[kind] + omitted[kind].omitted == LARGE, (result.runner, kind)
            earlier = [v for v in result.violations if v.operation.path == "/books" and v.field == field_name
                       and v.oracle.kind.value == kind]
            assert len(earlier) == omitted[kind].listed == VIOLATIONS_PER_ORACLE
        assert listed["array_max_size"] == 1
        assert result.violation_count == len(result.violations) + sum(o.omitted for o in result.omitted)
    assert outcomes["main"].newman.omitted == outcomes["main"].native.omitted


def test_status_mismatch_and_non_json_are_not_oracle_failures(outcomes: dict[str, Outcome]) -> None:
    iteration = ODD_AT
    for result in (outcomes["main"].newman, outcomes["main"].native):
        assert not _books(result, iteration)
        problems = {(p.kind, p.status) for p in result.unchecked if p.request.iteration == iteration}
        assert problems == {(ResponseProblemKind.NOT_JSON, 200), (ResponseProblemKind.UNEXPECTED_STATUS, 404)}
        assert result.exit_code is ExitCode.VIOLATIONS


def test_infrastructure_problems_are_retried_then_reported(outcomes: dict[str, Outcome]) -> None:
    for result in (outcomes["infra"].newman, outcomes["infra"].native):
        problems = {p.request.name.split("?")[0]: (p.kind, p.attempts) for p in result.infrastructure}
        assert problems == {"GET /items/000042/prices": (ProblemKind.TIMEOUT, 2)}, result.runner
        # a 5XX is a finding about the API (retried once), not a reachability problem
        assert [(e.request.name.split("?")[0], e.status, e.attempts) for e in result.server_errors] == [
            ("GET /items", 503, 2)], result.runner
        # the 502 was retried and the second answer checked
        assert result.checked == 1 and result.violations == ()
        assert [(u.kind, u.status) for u in result.unchecked] == [(ResponseProblemKind.NOT_JSON, 201)]
        # the server error counts like a violation (fail_on_server_errors), ahead of the timeout
        assert result.exit_code is ExitCode.VIOLATIONS


@pytest.mark.parametrize(("name", "kind"), [("refused", ProblemKind.CONNECTION), ("tls", ProblemKind.TLS)])
def test_unreachable_staging_is_infrastructure(outcomes: dict[str, Outcome], name: str, kind: ProblemKind) -> None:
    for result in (outcomes[name].newman, outcomes[name].native):
        assert {p.kind for p in result.infrastructure} == {kind}, (result.runner, result.infrastructure)
        assert len(result.infrastructure) == result.requests == 2
        assert result.exit_code is ExitCode.INFRASTRUCTURE and result.checked == 0


# -- a spec full of hostile strings ------------------------------------------------------------------


def _hostile_item(world: World) -> PlannedRequest:
    return next(i for i in world.main.requests() if i.path == HOSTILE_PATH)


def test_hostile_strings_run_and_assert_exactly_those_strings(world: World) -> None:
    item = _hostile_item(world)
    oracles = item.oracles_for("200")
    expected = [(oracles.index(f.oracle), f.pointer, truncate_json(f.value), f.message)
                for f in check_body(oracles, world.bad)]
    assert len(expected) == len(oracles) == len(world.names) + 1
    assert check_body(oracles, world.good) == []
    for result in (world.outcomes["main"].newman, world.outcomes["main"].native):
        mine = [v for v in result.violations if v.request.item == item.id]
        assert {v.request.iteration for v in mine} == {1}, result.runner
        got = [(oracles.index(v.oracle), v.pointer, v.value, v.message) for v in mine]
        assert got == expected, result.runner
    assert not world.marker.exists()


def test_hostile_strings_make_one_named_test_per_oracle(world: World) -> None:
    item = _hostile_item(world)
    report = world.outcomes["main"].reports[0]
    names = []
    for o in item.oracles_for("200"):
        value = list(o.value) if isinstance(o.value, tuple) else o.value
        names.append(f"{o.field} {o.kind.value} {json.dumps(value, ensure_ascii=False, separators=(',', ':'))}")
    for iteration in (0, 1):
        record = report.records[(item.id, iteration)]
        assert record.exception is None
        assert [a.name for a in record.assertions] == ["status is 200", "body is JSON", *names]
        failed = [a.name for a in record.assertions if a.error is not None]
        assert failed == ([] if iteration == 0 else names)
    first_failure = report.records[(item.id, 1)].assertions[2].error or ""
    assert json.dumps(world.bad[world.names[0]], ensure_ascii=False) in first_failure


def test_hostile_examples_reach_the_server_unchanged(world: World) -> None:
    for received in (world.outcomes["main"].received_newman, world.outcomes["main"].received_native):
        hits = [r for r in received if r.path.startswith("/hostile/")]
        assert hits
        for r in hits:
            assert unquote(r.path) == "/hostile/a/b c?#%"
            assert r.query == [("q", "x&y=z#\n\"'`${1}`</script>{{baseUrl}}")]
            assert r.headers["X-Note"] == "it's \"quoted\" `${x}`"


def test_hostile_collection_is_deterministic(world: World, tmp_path: Path) -> None:
    again, _ = hostile_spec(tmp_path, world.marker)
    one = collection_json(build_requests(again, hostile_oracles(again)))
    two = collection_json(build_requests(again, hostile_oracles(again)))
    assert one == two
    scripts = [line for item in json.loads(one)["item"] for request in item["item"]
               for line in request["event"][0]["script"]["exec"]]
    assert not [line for line in scripts if "</" in line or "\u2028" in line or "\n" in line]


# -- credentials -------------------------------------------------------------------------------------


def test_credentials_come_from_the_environment_and_are_sent(world: World) -> None:
    basic = base64.b64encode(AUTH_SECRETS["SATORI_AUTH_BASICAUTH"].encode()).decode()
    for received in (world.outcomes["main"].received_newman, world.outcomes["main"].received_native):
        by_path = {r.path: r for r in received if r.path.startswith("/secure/")}
        keys, token, plain, open_ = (by_path[p] for p in ("/secure/keys", "/secure/token", "/secure/basic",
                                                           "/secure/open"))
        assert keys.headers["X-Api-Key"] == AUTH_SECRETS["SATORI_AUTH_HEADERKEY"]
        assert keys.query == [("api key", AUTH_SECRETS["SATORI_AUTH_QUERYKEY"])]
        assert token.headers["Authorization"] == "Bearer " + AUTH_SECRETS["SATORI_AUTH_TOKEN"]
        assert plain.headers["Authorization"] == "Basic " + basic
        assert "session=" + AUTH_SECRETS["SATORI_AUTH_COOKIEKEY"] in plain.headers["Cookie"]
        assert "Authorization" not in open_.headers and "X-Api-Key" not in open_.headers
        for r in received:
            assert r.headers["X-Staging-Token"] == "stg-secret-6"
            assert [v for k, v in r.headers.items() if k.lower() == "accept"] == ["application/json; v=2"]


def test_credentials_are_never_written(world: World) -> None:
    text = collection_json(world.main)
    results = [world.outcomes["main"].newman, world.outcomes["main"].native]
    reports = [json.dumps(result.to_dict()) for result in results]
    for secret in [*AUTH_SECRETS.values(), EXTRA_HEADERS[0][1]]:
        for written in (text, *reports):
            assert secret not in written and encode(secret) not in written
    assert "{{SATORI_AUTH_QUERYKEY}}" in text
    assert not list(Path(tempfile.gettempdir()).glob("satori-newman-*/*.environment.json"))
