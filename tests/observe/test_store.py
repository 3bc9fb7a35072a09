"""The observation store: deterministic, bounded JSON; merging, pruning, scrubbing; refusing broken files."""

from __future__ import annotations

import json

import pytest

from satori_ci.observe.keys import oracle_key
from satori_ci.observe.store import (
    MAX_REQUESTS,
    ObservationLog,
    ObservationStore,
    ObservationStoreError,
    dump_store,
    load_store,
    merge_stores,
    pruned,
    request_digest,
    scrubbed,
    store_path,
)
from satori_ci.observe.summary import summarize
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey

OP = OperationKey("GET", "/things", "200")
OTHER = OperationKey("GET", "/other", "200")
FIELDS = ("total", "items", "items[].name", "items[].price", "items[].tags[]", "items[].open")


def _body(i: int) -> dict[str, object]:
    return {"total": i, "items": [{"name": f"n{i}", "price": "$" * (i % 3 + 1), "tags": ["a", "b"], "open": False}]}


def _store(n: int, violated: tuple[Oracle, ...] = ()) -> ObservationStore:
    log = ObservationLog()
    for i in range(n):
        log.add(OP, request_digest("GET", f"/things?page={i}"), summarize(FIELDS, _body(i)), violated)
    return log.store("api.yaml")


def test_a_store_round_trips_byte_for_byte_with_sorted_keys() -> None:
    url = Oracle(OP, "items[].name", K.STRING_IS_URL)
    store = _store(3, (url,))
    text = dump_store(store)
    assert load_store(text, "s.json") == store
    assert dump_store(load_store(text, "s.json")) == text
    data = json.loads(text)
    assert list(data) == ["operations", "spec", "version"]
    op = data["operations"]["GET /things 200"]
    assert list(op) == ["fields", "requests", "responses", "violated"]
    assert list(op["fields"]) == sorted(FIELDS)
    assert op["responses"] == 3 and len(op["requests"]) == 3
    assert op["violated"] == {"items[].name": {"string_is_url": 3}}
    assert op["fields"]["items[].price"]["string"]["values"] == {"$": 1, "$$": 1, "$$$": 1}
    assert all(len(line) < 400 for line in text.splitlines())  # one field a line
    empty = dump_store(ObservationStore("x"))
    assert json.loads(empty) == {"operations": {}, "spec": "x", "version": 1} and load_store(empty, "e") == \
        ObservationStore("x")


def test_stores_merge_in_any_order_and_requests_are_bounded() -> None:
    a, b = _store(2), _store(5)
    assert merge_stores(a, b) == merge_stores(b, a)
    assert merge_stores(a, b).operations[OP].responses == 7
    big = _store(MAX_REQUESTS + 5)
    assert len(big.operations[OP].requests) == MAX_REQUESTS
    assert big.operations[OP].requests == tuple(sorted(big.operations[OP].requests))
    assert request_digest("GET", "/x?a=1") != request_digest("GET", "/x?a=2")
    assert len(request_digest("GET", "/x")) == 12


def test_oracle_keys_are_canonical() -> None:
    assert oracle_key(Oracle(OP, "a", K.STRING_SPECIFIC_VALUES, ("b", "a"))) == \
        oracle_key(Oracle(OP, "a", K.STRING_SPECIFIC_VALUES, ("a", "b", "a"))) == 'string_specific_values ["a", "b"]'
    assert oracle_key(Oracle(OP, "a", K.NUMBER_MAX_VALUE, 5.0)) == "number_max_value 5"
    assert oracle_key(Oracle(OP, "a", K.STRING_IS_URL)) == "string_is_url"
    store = _store(2, (Oracle(OP, "total", K.NUMBER_SPECIFIC_VALUES, (1, 0)),))
    assert store.violations(Oracle(OP, "total", K.NUMBER_SPECIFIC_VALUES, (0.0, 1))) == 2
    assert store.violations(Oracle(OP, "total", K.NUMBER_SPECIFIC_VALUES, (0, 1, 2))) == 0
    assert store.violations(Oracle(OTHER, "total", K.NUMBER_SPECIFIC_VALUES, (0, 1))) == 0


def test_pruning_keeps_the_spec_fields_and_the_oracles_that_exist() -> None:
    url = Oracle(OP, "items[].name", K.STRING_IS_URL)
    gone = Oracle(OP, "total", K.NUMBER_MAX_VALUE, 1)
    log = ObservationLog()
    log.add(OP, "r1", summarize(FIELDS, _body(1)), (url, gone))
    log.add(OTHER, "r2", summarize(("total",), {"total": 1}))
    found = pruned(log.store(), [(OP, "total"), (OP, "items[].name")], [url])
    assert set(found.operations) == {OP}
    assert set(found.operations[OP].fields) == {"total", "items[].name"}
    assert found.operations[OP].violated == {"items[].name": {"string_is_url": 1}}


def test_scrubbing_drops_a_set_that_holds_a_secret() -> None:
    log = ObservationLog()
    log.add(OP, "r", summarize(("token", "kind"), {"token": "s3cret-value", "kind": "public"}))
    clean = scrubbed(log.store(), lambda v: "s3cret" in v)
    fields = clean.operations[OP].fields
    assert fields["token"].string is not None and fields["token"].string.values is None
    assert fields["token"].string.min_length == len("s3cret-value")
    assert fields["kind"].string is not None and fields["kind"].string.values == (("public", 1),)
    assert "s3cret" not in dump_store(clean)


@pytest.mark.parametrize(("text", "message"), [
    ("[1]", "s.json: expected an object"),
    ("{", "s.json: not JSON"),
    ('{"version": 2}', "unsupported store version 2"),
    ('{"extra": 1}', "unknown key 'extra'"),
    ('{"operations": {"nonsense": {"responses": 1}}}', "not 'METHOD /path STATUS'"),
    ('{"operations": {"GET /x 200": {"responses": -1}}}', "expected a count"),
    ('{"operations": {"GET /x 200": {"responses": 1, "fields": {"a": {"responses": 1, "values": 1, '
     '"number": {"responses": 1, "min": "x", "max": 1}}}}}}', "expected a number"),
    ('{"operations": {"GET /x 200": {"responses": 1, "requests": [1]}}}', "expected a list of strings"),
    ('{"operations": {"GET /x 200": {"responses": NaN}}}', "not JSON"),
])
def test_a_broken_store_is_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(ObservationStoreError) as caught:
        load_store(text, "s.json")
    assert message in str(caught.value) and str(caught.value).startswith("s.json") and "\n" not in str(caught.value)
    assert isinstance(caught.value, OracleFileError)  # an input error (exit 2), like a broken oracle file


def test_the_store_sits_next_to_the_oracle_file() -> None:
    assert store_path(".satori/api.openapi.oracles.yaml") == ".satori/api.openapi.observed.json"
    assert store_path("mine.yaml") == "mine.yaml.observed.json"
    assert load_store("", "empty.json") == ObservationStore()


def test_a_run_in_which_an_oracle_held_clears_its_violation_count() -> None:
    url = Oracle(OP, "items[].name", K.STRING_IS_URL)
    other = Oracle(OP, "total", K.NUMBER_MIN_VALUE, 0)
    before = _store(2, (url, other))
    assert before.violations(url) == 2
    fixed = ObservationLog()
    fixed.add(OP, "r9", summarize(FIELDS, _body(9)), (), (url,))  # met values, none broke it
    after = merge_stores(before, fixed.store())
    assert after.violations(url) == 0 and after.violations(other) == 2  # `other` met no value: unchanged
    again = ObservationLog()
    again.add(OP, "r10", summarize(FIELDS, _body(10)), (url,), (url,))
    again.add(OP, "r11", summarize(FIELDS, _body(11)), (), (url,))  # broken once in the run: not cleared
    assert merge_stores(before, again.store()).violations(url) == 3
    assert "held" not in dump_store(after) and load_store(dump_store(after), "s").operations[OP].held == frozenset()
