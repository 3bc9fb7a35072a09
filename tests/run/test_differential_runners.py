"""Newman and the native runner give the same results for the same responses.

One Newman run and one native run, side by side against one staging server, over a collection that
merges the inventory fixture API (responses generated with hypothesis: valid, faulty, null, null-like,
wrong types, non-JSON, other statuses) and every labelled operation of ../shared/data (its real recorded
responses, replayed in order, with its labels as oracles and its null-like set). Offline `verify` of the
recorded lines must agree too, and both runners feed the observation store the same summaries.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

from satori_ci.demo import Canned, Matcher, Received, StagingServer
from satori_ci.observe.fields import observed_fields
from satori_ci.observe.store import dump_store
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import RequestSet
from satori_ci.run.model import RunResult
from satori_ci.run.native import run_native
from satori_ci.run.newman import run_newman
from satori_ci.run.outcome import RunConfig, body_text, findings_of, parse_json
from satori_ci.run.verify import read_responses, verify_responses
from satori_ci.spec import Spec, load_spec
from tests.run import strategies as gen
from tests.run.conftest import FIXTURES, concurrently, newman_available, oracles_of
from tests.run.shared_data import Folder, folders

GENERATED = 25
"""Generated responses per inventory operation (= iterations of the run; recorded responses: 50 a folder)."""


@dataclass
class Differential:
    collection: RequestSet
    inventory: Spec
    queues: dict[tuple[str, str, str | None], list[Canned]]
    folders: list[Folder]
    newman: RunResult
    native: RunResult
    iterations: int


def _omdb_route(folder: Folder) -> Matcher:
    """OMDb's two operations share `GET /`: a search has `s`, a lookup has not."""
    searching = "Search" in folder.name
    return lambda r: any(k == "s" for k, _ in r.query) == searching


RUNNERS = ("newman", "native")


def _runner_of(received: Received) -> str | None:
    """Which runner sent a request: Newman's say `PostmanRuntime/...`, the native runner's `satori-ci`."""
    agent = next((v for k, v in received.headers.items() if k.lower() == "user-agent"), "")
    return "newman" if agent.startswith("PostmanRuntime/") else "native" if agent == "satori-ci" else None


def _sent_by(runner: str, when: Matcher | None) -> Matcher:
    return lambda r: _runner_of(r) == runner and (when is None or when(r))


def _route_name(runner: str, name: str | None) -> str:
    return f"{runner} {name}" if name else runner


@pytest.fixture(scope="module")
def differential() -> Any:
    """Both runners at once against one staging server (the same base URL, so the same request URLs), each
    answered from its own copy of the queues (told apart by the requests' User-Agent)."""
    newman_available()
    inventory = load_spec(str(FIXTURES / "inventory.yaml"))
    inventory_oracles = oracles_of(FIXTURES / "inventory.oracles.yaml")
    collections = [build_requests(inventory, inventory_oracles, null_like=gen.NULL_LIKE,
                                    observe=observed_fields(inventory.fields))]
    routes: list[tuple[str, str, Matcher | None, str | None]] = []
    queues: dict[tuple[str, str, str | None], list[Canned]] = {}
    for (method, path), strategy in gen.INVENTORY.items():
        routes.append((method, path, None, None))
        planted = list(gen.EVERY_KIND_BROKEN) if path == "/items" else []
        queues[(method, path, None)] = planted + gen.draw(strategy(), GENERATED - len(planted))
    data = folders()
    for folder in data:
        spec = load_spec(folder.spec)
        collections.append(build_requests(spec, folder.oracles, null_like=folder.null_like,
                                            observe=observed_fields(spec.fields)))
        when = _omdb_route(folder) if folder.op_path == "/" else None
        name = folder.name if when else None
        routes.append((folder.method, folder.op_path, when, name))
        queues[(folder.method, folder.op_path, name)] = [Canned(json.loads(x)["body"]) for x in folder.lines]
    iterations = max(len(q) for q in queues.values())
    collection = collections[0].merged(collections[1:])
    server = StagingServer()
    for runner in RUNNERS:
        for method, path, when, name in routes:
            server.route(method, path, when=_sent_by(runner, when), name=_route_name(runner, name))
        for (method, path, name), queue in queues.items():
            server.enqueue(method, path, queue, name=_route_name(runner, name))
    with server:
        config = RunConfig(server.base_url, retries=0, iterations=iterations)
        by_newman, by_native = concurrently([partial(run_newman, collection, config),
                                             partial(run_native, collection, config)], workers=2)
        # every request but the HEAD probe `run_newman` sends (natively) before Newman starts
        sent = Counter(_runner_of(r) for r in server.received if r.method != "HEAD")
        assert server.pending() == 0, "each runner took every response of its own queues"
    assert sent == {runner: by_newman.requests for runner in RUNNERS}, sent
    yield Differential(collection, inventory, queues, data, by_newman, by_native, iterations)


def _describe(result: RunResult) -> list[tuple[Any, ...]]:
    return [(v.request.iteration, v.request.name, str(v.operation), v.field, v.oracle.kind.value, v.pointer,
             v.value, v.message) for v in result.violations]


def test_same_violations_for_the_same_responses(differential: Differential) -> None:
    a, b = differential.newman, differential.native
    assert a.requests == b.requests == differential.iterations * sum(1 for _ in differential.collection.requests())
    if a.violations != b.violations:
        only_newman = sorted(set(_describe(a)) - set(_describe(b)))[:5]
        only_native = sorted(set(_describe(b)) - set(_describe(a)))[:5]
        raise AssertionError(f"runners disagree\nonly newman: {only_newman}\nonly native: {only_native}")
    assert a.unchecked == b.unchecked
    assert a.infrastructure == b.infrastructure == ()
    assert a.checked == b.checked
    assert len(a.violations) > 100, "the generated responses should break oracles often"


def test_every_inventory_response_was_judged_as_python_judges_it(differential: Differential) -> None:
    """The native runner's verdicts on the generated responses, recomputed from the queued bodies."""
    items = {i.path: i for i in differential.collection.requests() if i.path.startswith(("/items", "/orders"))}
    expected: list[tuple[int, str, str, str, str]] = []
    for (_, path, _), queue in differential.queues.items():
        if path not in items:
            continue
        item = items[path]
        for iteration, canned in enumerate(queue):
            if str(canned.status) not in item.statuses:
                continue
            ok, body = parse_json(body_text(canned.payload(), canned.content_type))
            if not ok:
                continue
            for f in findings_of(item.oracles_for(str(canned.status)), body, gen.NULL_LIKE):
                expected.append((iteration, item.id, f.pointer, f.value, f.message))
    got = [(v.request.iteration, v.request.item, v.pointer, v.value, v.message)
           for v in differential.newman.violations if v.request.item in {i.id for i in items.values()}]
    assert sorted(got) == sorted(expected)
    kinds = {v.oracle.kind for v in differential.newman.violations if v.request.item in {i.id for i in items.values()}}
    assert len(kinds) == 17, sorted(kinds)


def test_recorded_responses_agree_with_offline_verify(differential: Differential) -> None:
    if not differential.folders:
        pytest.skip("no labelled data in ../shared/data")
    for folder in differential.folders:
        spec = load_spec(folder.spec)
        recorded = read_responses("\n".join(folder.lines), folder.name)
        offline = verify_responses(spec, folder.oracles, recorded, folder.null_like)
        item = next(i for i in differential.collection.requests()
                    if any(o is folder.oracles[0] for o in i.oracles_for("200")))
        online = [v for v in differential.newman.violations if v.request.item == item.id]
        assert [(int(v.request.item.rsplit(":", 1)[1]) - 1, v.field, v.pointer, v.value, v.message)
                for v in offline.violations] == [
            (v.request.iteration, v.field, v.pointer, v.value, v.message) for v in online], folder.name
        assert offline.checked == len(folder.lines)



def test_same_observation_store_for_the_same_responses(differential: Differential) -> None:
    a, b = differential.newman.observed, differential.native.observed
    assert a is not None and b is not None
    assert dump_store(a) == dump_store(b)
    checked = sum(op.responses for op in a.operations.values())
    assert checked == differential.newman.checked
    assert any(op.violated for op in a.operations.values()), "violations are counted per oracle"


def test_the_recorded_apis_fields_are_observed(differential: Differential) -> None:
    if not differential.folders:
        pytest.skip("no labelled data in ../shared/data")
    observed = differential.newman.observed
    assert observed is not None
    assert sum(len(op.fields) for op in observed.operations.values()) > 100
