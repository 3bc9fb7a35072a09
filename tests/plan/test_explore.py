"""The explorer (`satori_ci.plan.explore`), pure: responses in, the next requests out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.plan.expand import EVIDENCE_REQUESTS, build_requests
from satori_ci.plan.explore import Explorer, Send, base_id
from satori_ci.plan.model import SkipKind
from satori_ci.plan.requests import RequestSet
from satori_ci.spec import load_spec

BASE = "http://staging.test/api"
ITEM = {"type": "object", "properties": {"id": {"type": "string"}, "kind": {"type": "string"}}}


def _spec(tmp_path: Path, query: tuple[dict[str, Any], ...] = ()) -> RequestSet:
    listing = {"parameters": list(query), "responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"type": "object", "properties": {
            "items": {"type": "array", "items": ITEM}, "nextPageToken": {"type": "string"}}}}}}}}
    detail = {"parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
              "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": ITEM}}}}}
    document = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
                "paths": {"/things": {"get": listing}, "/things/{id}": {"get": detail}}}
    path = tmp_path / "openapi.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    spec = load_spec(str(path))
    return build_requests(spec, [], BASE, (), plan_requests(spec, PlanSettings()))


def _items(*ids: str, kinds: str = "a") -> dict[str, Any]:
    return {"items": [{"id": i, "kind": kinds[n % len(kinds)]} for n, i in enumerate(ids)]}


def _paths(sends: list[Send]) -> list[str]:
    return [s.request.url(BASE).removeprefix(BASE) for s in sends]


def test_rounds_are_breadth_first_and_spread_over_the_kinds(tmp_path: Path) -> None:
    explorer = Explorer(_spec(tmp_path), BASE, samples=2, budget=100)
    first = explorer.round()
    assert _paths(first) == ["/things"]
    explorer.feed(first[0], 200, _items("t1", "t2", "t3", "t4", kinds="aabb"))
    second = explorer.round()
    assert _paths(second) == ["/things/t1"]  # one request of every operation that can go
    explorer.feed(second[0], 200, {"id": "t1"})
    assert _paths(explorer.round()) == ["/things/t3"]  # the other kind, not the next id
    assert explorer.round() == []
    assert all(base_id(s.request.id) != s.request.id for s in second)


def test_the_next_page_is_followed_on_the_same_server_only(tmp_path: Path) -> None:
    explorer = Explorer(_spec(tmp_path), BASE, samples=1, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 200, _items("t1"), link='<http://elsewhere.test/api/things?page=2>; rel="next"')
    assert _paths(explorer.round()) == ["/things/t1"]
    explorer = Explorer(_spec(tmp_path), BASE, samples=1, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 200, _items("t1"), link='<http://staging.test/api/things?page=2>; rel="next"')
    assert sorted(_paths(explorer.round())) == ["/things/t1", "/things?page=2"]


def test_a_next_page_token_goes_into_the_cursor_parameter(tmp_path: Path) -> None:
    token = {"name": "pageToken", "in": "query", "required": False, "schema": {"type": "string"}}
    explorer = Explorer(_spec(tmp_path, (token,)), BASE, samples=1, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 200, {**_items("t1"), "nextPageToken": "p 2"})
    assert "/things?pageToken=p%202" in _paths(explorer.round())


def test_the_budget_stops_a_round_and_says_what_it_left_out(tmp_path: Path) -> None:
    explorer = Explorer(_spec(tmp_path), BASE, samples=3, budget=2)
    [send] = explorer.round()
    explorer.feed(send, 200, _items("t1", "t2", "t3"))
    assert len(explorer.round()) == 1
    assert explorer.round() == []
    assert explorer.stopped
    explorer = Explorer(_spec(tmp_path), BASE, samples=3, budget=1)
    [send] = explorer.round()
    explorer.feed(send, 200, _items("t1"))
    assert explorer.round() == []
    [unsent] = explorer.unsent()
    assert (unsent.operation, unsent.kind) == ("GET /things/{id}", SkipKind.BUDGET)


def test_an_operation_whose_list_gave_nothing_needs_a_value(tmp_path: Path) -> None:
    explorer = Explorer(_spec(tmp_path), BASE, samples=3, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 200, {"items": []})
    assert explorer.round() == []
    [unsent] = explorer.unsent()
    assert unsent.kind is SkipKind.NO_INPUT
    assert unsent.detail.startswith("needs a value for {id} (path): GET /things gave no value for it")


def test_values_that_reach_nothing_are_tried_further(tmp_path: Path) -> None:
    explorer = Explorer(_spec(tmp_path), BASE, samples=1, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 200, _items("t1", "t2", "t3"))
    tried = []
    while found := explorer.round():
        tried += _paths(found)
        for s in found:
            explorer.feed(s, 404, None)
    assert tried == ["/things/t1", "/things/t2", "/things/t3"]  # every value, since none reached it


def test_a_refused_list_is_named_as_the_reason(tmp_path: Path) -> None:
    explorer = Explorer(_spec(tmp_path), BASE, samples=3, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 401, None)
    assert explorer.round() == []
    [unsent] = explorer.unsent()
    assert unsent.detail.startswith("needs a value for {id} (path): GET /things answered no 2XX JSON response")


def test_a_page_parameter_is_counted_up_while_pages_give_new_values(tmp_path: Path) -> None:
    page = {"name": "page", "in": "query", "required": False, "schema": {"type": "integer"}}
    explorer = Explorer(_spec(tmp_path, (page,)), BASE, samples=1, budget=100)
    [send] = explorer.round()
    explorer.feed(send, 200, _items("t1"))
    [second] = [s for s in explorer.round() if "page" in s.request.url(BASE)]
    assert second.request.url(BASE).endswith("/things?page=2")
    explorer.feed(second, 200, _items("t1"))  # the same items: the server ignores the page
    assert not [s for s in explorer.round() if "page" in s.request.url(BASE)]


def test_when_observing_the_explorer_gathers_evidence_once_nothing_else_is_left(tmp_path: Path) -> None:
    """`evidence`: after its `samples`, an operation that answered is sent again with values not tried yet, up to
    `evidence` requests, in rounds of their own once no other safe request is left."""
    planned = _spec(tmp_path)
    assert planned.evidence == 0
    explorer = Explorer(replace(planned, evidence=5), BASE, samples=2, budget=100)
    [listing] = explorer.round()
    explorer.feed(listing, 200, _items(*(f"t{i}" for i in range(7))))
    sent: list[str] = []
    while round_ := explorer.round():
        for send in round_:
            explorer.feed(send, 200, {"id": send.bindings[0][1]})
        sent.extend(_paths(round_))
    assert len(sent) == 5 and len(set(sent)) == 5  # 2 samples, then 3 more for evidence, each a new value
    # an operation that never answered gathers none
    explorer = Explorer(replace(planned, evidence=5), BASE, samples=2, budget=100)
    [listing] = explorer.round()
    explorer.feed(listing, 200, _items(*(f"t{i}" for i in range(20))))
    tries = 0
    while round_ := explorer.round():
        tries += len(round_)
        for send in round_:
            explorer.feed(send, 404, None)
    assert tries == 8  # up to 4 x samples while not reached, no evidence round


def test_build_requests_asks_for_evidence_only_when_observing(tmp_path: Path) -> None:
    path = tmp_path / "openapi.yaml"
    _spec(tmp_path)
    spec = load_spec(str(path))
    observing = build_requests(spec, [], BASE, (), plan_requests(spec, PlanSettings()), observe={})
    assert observing.evidence == EVIDENCE_REQUESTS == 25


def test_evidence_leaves_the_budget_of_the_opted_in_writes(tmp_path: Path) -> None:
    """The evidence rounds come before any write and never take what the writes still need."""
    planned = _spec(tmp_path)
    explorer = Explorer(replace(planned, evidence=50), BASE, samples=1, budget=6)
    explorer.fixed["POST /things"] = [planned.groups[0].requests[0]] * 2  # two opted-in writes to come
    explorer.order.append("POST /things")
    sent: list[str] = []
    while round_ := explorer.round():
        for send in round_:
            explorer.feed(send, 200, _items(*(f"t{i}" for i in range(9))) if send.operation == "GET /things"
                          else {"id": "x"})
        sent.extend(s.operation for s in round_)
    assert sent.count("POST /things") == 2 and sent[-2:] == ["POST /things", "POST /things"]
    assert len(sent) == 6  # the list, its consumer's sample, two evidence requests, the two writes
