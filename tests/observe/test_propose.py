"""The invariants proposed from observations, each with its confidence test: positive, negative, thresholds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from satori_ci.observe.propose import ProposalSettings, new_value_chance, propose
from satori_ci.observe.store import ObservationLog, ObservationStore
from satori_ci.observe.summary import MAX_VALUES, summarize
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import OBSERVED
from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation

OP = OperationKey("GET", "/things", "200")
ANY = ProposalSettings(min_responses=1, min_requests=1)


def field(path: str, type_: str, items_type: str | None = None) -> ResponseField:
    return ResponseField(OP, "listThings", path, path.rsplit(".", 1)[-1], type_, FieldFacts(items_type=items_type),
                         "T", SourceLocation("api.yaml", "/x"), "fp")


def store_of(path: str, values: Sequence[Any], requests: int | None = None) -> ObservationStore:
    """One response per value: `{path: value}` (a list value stands for the values of one response's list)."""
    log = ObservationLog()
    for i, v in enumerate(values):
        body = {path.removesuffix("[]"): v}
        log.add(OP, f"r{i if requests is None else i % requests}", summarize([path], body))
    return log.store()


def kinds(path: str, type_: str, values: Sequence[Any], settings: ProposalSettings = ANY,
          items_type: str | None = None) -> dict[K, Any]:
    found = propose(store_of(path, values), [field(path, type_, items_type)], settings)
    return {o.kind: o.value for o in found}


def test_nothing_before_enough_responses_from_enough_requests() -> None:
    f = field("open", "boolean")
    assert propose(store_of("open", [False] * 9), [f]) == ()
    assert propose(store_of("open", [False] * 10, requests=1), [f]) == ()
    assert propose(store_of("open", [False] * 10, requests=2), [f]) == ()  # two requests, each 5 times: 2 looks
    found = propose(store_of("open", [False] * 10), [f])
    assert [(o.kind, o.source, o.enabled, o.evidence, o.operation_id) for o in found] == \
        [(K.BOOLEAN_ALWAYS_FALSE, OBSERVED, False, 10, "listThings")]
    assert found[0].reason == "observed: always false in all 10 responses"
    assert propose(store_of("open", [False] * 30), [f], ProposalSettings(min_responses=40)) == ()


def test_a_field_inside_a_list_counts_its_elements() -> None:
    """One list of 12 records from one request: 12 observations of each record's field."""
    f = field("items[].open", "boolean")
    log = ObservationLog()
    log.add(OP, "r0", summarize(["items[].open"], {"items": [{"open": False}] * 12}))
    found = propose(log.store(), [f])
    assert [(o.kind, o.evidence, o.reason) for o in found] == \
        [(K.BOOLEAN_ALWAYS_FALSE, 12, "observed: always false in all 12 values of 1 response")]
    log = ObservationLog()
    log.add(OP, "r0", summarize(["items[].open"], {"items": [{"open": False}] * 9}))
    assert propose(log.store(), [f]) == ()
    # which values occur still counts per response: one list says nothing of the set of statuses
    g = field("items[].status", "string")
    log = ObservationLog()
    log.add(OP, "r0", summarize(["items[].status"], {"items": [{"status": "active"}] * 40}))
    assert propose(log.store(), [g]) == ()


def test_the_all_n_test_needs_seven_responses_at_one_percent() -> None:
    assert ANY.all_n == 7 and ProposalSettings(alpha=0.05).all_n == 5
    assert kinds("open", "boolean", [True] * 7) == {K.BOOLEAN_ALWAYS_TRUE: None}
    assert kinds("open", "boolean", [True] * 6) == {}
    assert kinds("open", "boolean", [True] * 6, ProposalSettings(1, 1, alpha=0.05)) == {K.BOOLEAN_ALWAYS_TRUE: None}
    assert kinds("open", "boolean", [True] * 20 + [False]) == {}


def test_the_chance_of_a_new_value() -> None:
    assert new_value_chance(1, 25) == pytest.approx(0.0083, abs=1e-4)
    assert new_value_chance(1, 20) > 0.01
    assert new_value_chance(3, 25) == pytest.approx(0.034, abs=1e-3)
    assert new_value_chance(3, 100) < 0.01
    assert new_value_chance(5, 5) == 1.0 and new_value_chance(0, 0) == 1.0


def test_a_closed_set_of_strings() -> None:
    assert kinds("status", "string", ["Ok"] * 25) == {K.STRING_SPECIFIC_VALUES: ("Ok",)}
    assert kinds("status", "string", ["Ok"] * 20) == {}  # 1.1% chance of a new value: not yet
    types = ["movie", "series", "episode"]
    assert K.STRING_SPECIFIC_VALUES not in kinds("type", "string", types * 8)
    assert kinds("type", "string", types * 34)[K.STRING_SPECIFIC_VALUES] == ("episode", "movie", "series")
    # a value seen in one response of many keeps the set open
    assert K.STRING_SPECIFIC_VALUES not in kinds("type", "string", ["movie"] * 60 + ["game"])
    # a list field: a value counts once per response it occurs in
    assert kinds("price[]", "string", [["$", "$$", "$$$", "$$$$"]] * 120)[K.STRING_SPECIFIC_VALUES] == \
        ("$", "$$", "$$$", "$$$$")


def test_a_set_makes_formats_and_lengths_of_its_field_redundant() -> None:
    found = kinds("code", "string", ["200"] * 30)
    assert found == {K.STRING_SPECIFIC_VALUES: ("200",)}


def test_formats_hold_in_every_response() -> None:
    urls = [f"https://img.example/{i}.jpg" for i in range(9)]
    assert kinds("image", "string", urls)[K.STRING_IS_URL] is None
    assert K.STRING_IS_URL not in kinds("image", "string", [*urls, "n/a"])
    times = [f"2024-01-{i + 10}T10:00:00Z" for i in range(9)]
    assert K.STRING_IS_TIME in kinds("at", "string", times) and K.STRING_IS_DATE not in kinds("at", "string", times)
    dates = [f"2024-01-{i + 10}" for i in range(9)]
    assert K.STRING_IS_DATE in kinds("on", "string", dates)
    assert K.STRING_IS_NUMERIC in kinds("score", "string", [str(i * 7) for i in range(9)])
    assert K.STRING_IS_EMAIL in kinds("mail", "string", [f"u{i}@example.com" for i in range(9)])
    assert K.STRING_IS_URL not in kinds("image", "string", urls[:6])  # 6 responses: chance 1/64


def test_a_fixed_length_needs_values_that_vary() -> None:
    ids = [f"{i:021x}z" for i in range(25)]
    assert kinds("id", "string", ids)[K.STRING_FIXED_LENGTH] == 22
    assert K.STRING_FIXED_LENGTH not in kinds("id", "string", ids[:20])  # one length in 20: 1.1%, not yet
    two = ["issue_solicit_text", "issue_preview_text"] * 12
    assert K.STRING_FIXED_LENGTH not in kinds("type", "string", two)
    four = ["AAAA", "BBBB", "CCCC", "DDDD"] * 6
    assert kinds("code", "string", four)[K.STRING_FIXED_LENGTH] == 4
    assert K.STRING_FIXED_LENGTH not in kinds("id", "string", [*ids, "short"])
    long = ["x" * 60] * 25  # too long to keep: counts as varied; a constant length is true of it anyway
    assert kinds("html", "string", long)[K.STRING_FIXED_LENGTH] == 60


def test_no_fixed_length_for_values_numbered_in_sequence() -> None:
    """`tt0111161` has 9 characters until the 10,000,000th title; a date ends in its year and keeps its length."""
    imdb = [f"tt{1000000 + 7919 * i:07d}" for i in range(30)]
    assert K.STRING_FIXED_LENGTH not in kinds("imdbID", "string", imdb)
    released = [f"{d:02d} Jun 20{d:02d}" for d in range(1, 29)]
    assert kinds("Released", "string", released)[K.STRING_FIXED_LENGTH] == 11


def test_non_negative_numbers_by_the_all_n_test() -> None:
    assert kinds("count", "integer", list(range(3, 40)))[K.NUMBER_MIN_VALUE] == 0
    assert K.NUMBER_MIN_VALUE not in kinds("count", "integer", [*range(3, 40), -1])
    assert K.NUMBER_MIN_VALUE not in kinds("count", "integer", list(range(3, 9)))  # 6 responses
    assert K.NUMBER_MAX_VALUE not in kinds("count", "integer", list(range(3, 40)))  # an open tail


def test_bounds_where_values_pile_up() -> None:
    ratings = ([5] * 12 + [4] * 6 + [3] * 3 + [2] * 2) * 3
    assert kinds("rating", "number", ratings)[K.NUMBER_MAX_VALUE] == 5
    assert K.NUMBER_MAX_VALUE not in kinds("rating", "number", ratings[:23])  # a value beyond: 1.6%, not yet
    spread = ([5] * 6 + [4.5] * 9 + [4] * 8 + [3] * 3) * 3
    assert K.NUMBER_MAX_VALUE not in kinds("rating", "number", spread)  # fewer at 5 than at 4.5: no pile
    stories = [2] * 40 + [3] * 6 + [4] * 5 + [7] * 2 + [13] * 2
    assert kinds("stories", "integer", stories)[K.NUMBER_MIN_VALUE] == 2
    assert kinds("stories", "integer", [2] * 18 + [3, 3, 4, 4, 4, 7, 13])[K.NUMBER_MIN_VALUE] == 0  # 7, 13 once
    few = [2, 2, *range(3, 12)]
    assert kinds("stories", "integer", few)[K.NUMBER_MIN_VALUE] == 0  # two at the minimum: only non-negative
    many = [1] * 10 + list(range(2, 2 + MAX_VALUES))
    assert kinds("n", "integer", many)[K.NUMBER_MIN_VALUE] == 0  # the set is unknown: no truncation test


def test_array_sizes() -> None:
    assert kinds("results", "array", [[{"a": 1}]] * 25) == {K.ARRAY_SPECIFIC_SIZES: (1,)}
    assert kinds("events", "array", [[]] * 25) == {}  # always empty: data not there yet
    categories = [[1]] * 15 + [[1, 2]] * 5 + [[1, 2, 3]] * 3
    assert kinds("categories", "array", categories) == {K.ARRAY_MIN_SIZE: 1}  # sizes vary: no set, no maximum
    dates = [[1, 2]] * 40 + [[1, 2, 3, 4]] * 10
    assert kinds("dates", "array", dates) == {K.ARRAY_MIN_SIZE: 2}


def test_never_empty_only_where_an_empty_list_is_unlikely() -> None:
    """A list of creators (0 to 30 names) has many sizes, several seen once: one day one is empty."""
    creators = [list(range(n)) for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 2, 3, 2, 4, 21, 3, 5, 2, 1, 30, 3, 2, 4, 6]]
    assert K.ARRAY_MIN_SIZE not in kinds("creators", "array", creators)
    prices = [[1]] * 20 + [[1, 2]] * 30
    assert kinds("prices", "array", prices) == {K.ARRAY_MIN_SIZE: 1}


def test_no_upper_bound_on_a_list_size() -> None:
    """The false alarm of the issue: at most 7 in 25 responses, 8 in the 26th. A list's size grows with the data
    or follows the request: no maximum is ever proposed."""
    sizes = [7] * 9 + [6] * 6 + [5] * 5 + [4] * 3 + [3] * 2
    found = kinds("tags", "array", [list(range(n)) for n in sizes])
    assert K.ARRAY_MAX_SIZE not in found and K.ARRAY_SPECIFIC_SIZES not in found
    pages = [list(range(10))] * 60
    assert K.ARRAY_MAX_SIZE not in kinds("search", "array", pages)


def test_no_size_for_a_list_the_request_shapes() -> None:
    """An operation with a query parameter (a search, a filter, a page size): its lists hold what was asked."""
    sized = ProposalSettings(min_responses=1, min_requests=1, request_sized=frozenset({("GET", "/things")}))
    assert kinds("results", "array", [[{"a": 1}]] * 25, sized) == {}
    assert kinds("results", "array", [[1, 2]] * 25, sized) == {}
    # a list inside the records is the records' own
    log = ObservationLog()
    for i in range(25):
        log.add(OP, f"r{i}", summarize(["items[].tags"], {"items": [{"tags": ["a", "b"]}] * 3}))
    found = propose(log.store(), [field("items[].tags", "array")], sized)
    assert [(o.kind, o.value) for o in found] == [(K.ARRAY_SPECIFIC_SIZES, (2,))]


def test_sorted_numeric_arrays() -> None:
    ascending = [[i, i + 1, i + 5] for i in range(7)]
    assert kinds("scores", "array", ascending, items_type="number") == {K.ARRAY_NUMBER_ASC_ORDER: None}
    assert kinds("scores", "array", ascending[:6], items_type="number") == {}
    descending = [[i + 5, i + 1, i] for i in range(7)]
    assert kinds("scores", "array", descending, items_type="integer") == {K.ARRAY_NUMBER_DESC_ORDER: None}
    flat = [[3, 3]] * 20  # sorted both ways, says nothing
    assert K.ARRAY_NUMBER_ASC_ORDER not in kinds("scores", "array", flat, items_type="number")
    assert kinds("names", "array", ascending, items_type="string") == {}


def test_values_of_another_type_than_the_field_stop_every_proposal() -> None:
    assert kinds("flag", "boolean", [True] * 10 + ["yes"]) == {}
    assert kinds("n", "integer", ["3"] * 30) == {}
    assert kinds("s", "string", [{"a": 1}] + ["x"] * 30) == {}
