"""Shards of the request plan: `I/N`, a stable assignment by the operation's identity, the producers a shard
sends for its chained ids, and what cannot be split."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.shard.errors import ShardError
from satori_ci.shard.slice import Shard, parse_shard, shard_of, slice_plan, unshardable
from satori_ci.spec import load_spec
from tests.servers.resources_app import SPEC_PATH

VALUES = PlanSettings(values=(("tenant_id", "acme"),))


def test_a_shard_is_written_i_of_n() -> None:
    assert parse_shard("2/4") == Shard(2, 4) and str(parse_shard(" 1 / 1 ")) == "1/1"
    for bad in ("0/4", "5/4", "1/0", "2", "a/b", "1/300", "", "-1/4"):
        with pytest.raises(ShardError):
            parse_shard(bad)


def test_every_operation_is_in_exactly_one_shard_by_its_identity() -> None:
    plan = plan_requests(load_spec(str(SPEC_PATH)), VALUES)
    labels = [p.label for p in plan.operations]
    owners = [sum(Shard(i, 4).owns(label) for i in range(1, 5)) for label in labels]
    assert owners == [1] * len(labels)
    slices = [slice_plan(plan, Shard(i, 4)) for i in range(1, 5)]
    assert sorted(label for s in slices for label in s.own) == sorted(labels)
    assert len({shard_of(label, 4) for label in labels}) == 4, "17 operations spread over the four shards"
    assert all(shard_of(label, 1) == 1 for label in labels)


def test_adding_an_operation_moves_no_other_one(tmp_path: Path) -> None:
    yaml = YAML(typ="safe")
    raw = yaml.load(SPEC_PATH.read_text())
    before = plan_requests(load_spec(str(SPEC_PATH)), VALUES)
    raw["paths"]["/warehouses"] = {"get": {"operationId": "listWarehouses", "responses": {"200": {
        "description": "the warehouses", "content": {"application/json": {"schema": {
            "type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}}}}}}
    raw["paths"]["/warehouses/{warehouse_id}"] = {"get": {"parameters": [
        {"name": "warehouse_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "one", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"id": {"type": "string"}}}}}}}}}
    grown = tmp_path / "grown.yaml"
    with grown.open("w") as handle:
        YAML().dump(raw, handle)
    after = plan_requests(load_spec(str(grown)), VALUES)
    assert len(after.operations) == len(before.operations) + 2
    for count in (2, 3, 4, 8):
        old = {label: i for i in range(1, count + 1) for label in slice_plan(before, Shard(i, count)).own}
        new = {label: i for i in range(1, count + 1) for label in slice_plan(after, Shard(i, count)).own}
        assert {label: new[label] for label in old} == old


def test_a_shard_sends_the_producers_of_its_chained_ids_transitively() -> None:
    plan = plan_requests(load_spec(str(SPEC_PATH)), VALUES)
    producers = {p.label: p.chain.producer for p in plan.operations if p.chain is not None}
    assert producers["GET /users/{user_id}/posts/{post_id}"] == "GET /users/{user_id}/posts"
    for count in (2, 3, 4, 5):
        for i in range(1, count + 1):
            found = slice_plan(plan, Shard(i, count))
            assert not found.own & found.support
            for label in found.own:
                producer = producers.get(label)
                while producer is not None:  # the list of the list of the detail, and so on
                    assert producer in found.own | found.support, (label, producer, count)
                    producer = producers.get(producer)
            for label in found.support:  # only what an operation of the shard needs
                assert any(_depends(producers, own, label) for own in found.own)


def _depends(producers: dict[str, str], label: str, on: str) -> bool:
    seen = set()
    while label in producers and label not in seen:
        seen.add(label)
        label = producers[label]
        if label == on:
            return True
    return False


def test_writes_and_team_collections_are_not_split() -> None:
    spec = load_spec(str(SPEC_PATH))
    assert unshardable(plan_requests(spec, VALUES), team=False) is None
    writes = plan_requests(spec, PlanSettings(values=(("tenant_id", "acme"),), unsafe=("PATCH /users/*",)))
    assert "PATCH /users/{user_id} is opted in" in (unshardable(writes, team=False) or "")
    assert "team Postman collection" in (unshardable(plan_requests(spec, VALUES), team=True) or "")
