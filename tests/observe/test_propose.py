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
    assert propose(store_of("open", [False] * 19), [f]) == ()
    assert propose(store_of("open", [False] * 20, requests=1), [f]) == ()
    found = propose(store_of("open", [False] * 20, requests=2), [f])
    assert [(o.kind, o.source, o.enabled, o.evidence, o.operation_id) for o in found] == \
        [(K.BOOLEAN_ALWAYS_FALSE, OBSERVED, False, 20, "listThings")]
    assert found[0].reason == "observed: always false in 20 responses"
    assert propose(store_of("open", [False] * 30), [f], ProposalSettings(min_responses=40)) == ()


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
    ids = [f"{i:022d}" for i in range(20)]
    assert kinds("id", "string", ids)[K.STRING_FIXED_LENGTH] == 22
    two = ["issue_solicit_text", "issue_preview_text"] * 10
    assert K.STRING_FIXED_LENGTH not in kinds("type", "string", two)
    four = ["AAAA", "BBBB", "CCCC", "DDDD"] * 5
    assert kinds("code", "string", four)[K.STRING_FIXED_LENGTH] == 4
    assert K.STRING_FIXED_LENGTH not in kinds("id", "string", [*ids, "short"])
    long = ["x" * 60] * 10  # too long to keep: counts as varied; a constant length is true of it anyway
    assert kinds("html", "string", long)[K.STRING_FIXED_LENGTH] == 60


def test_non_negative_numbers_by_the_all_n_test() -> None:
    assert kinds("count", "integer", list(range(3, 40)))[K.NUMBER_MIN_VALUE] == 0
    assert K.NUMBER_MIN_VALUE not in kinds("count", "integer", [*range(3, 40), -1])
    assert K.NUMBER_MIN_VALUE not in kinds("count", "integer", list(range(3, 9)))  # 6 responses
    assert K.NUMBER_MAX_VALUE not in kinds("count", "integer", list(range(3, 40)))  # an open tail


def test_bounds_where_values_pile_up() -> None:
    ratings = [5] * 12 + [4] * 6 + [3] * 3 + [2] * 2
    assert kinds("rating", "number", ratings)[K.NUMBER_MAX_VALUE] == 5
    spread = [5] * 6 + [4.5] * 9 + [4] * 8 + [3] * 3
    assert K.NUMBER_MAX_VALUE not in kinds("rating", "number", spread)  # fewer at 5 than at 4.5: no pile
    stories = [2] * 18 + [3, 3, 4, 4, 4, 7, 13]
    assert kinds("stories", "integer", stories)[K.NUMBER_MIN_VALUE] == 2
    few = [2, 2, *range(3, 12)]
    assert kinds("stories", "integer", few)[K.NUMBER_MIN_VALUE] == 0  # two at the minimum: only non-negative
    many = [1] * 10 + list(range(2, 2 + MAX_VALUES))
    assert kinds("n", "integer", many)[K.NUMBER_MIN_VALUE] == 0  # the set is unknown: no truncation test


def test_array_sizes() -> None:
    assert kinds("results", "array", [[{"a": 1}]] * 25) == {K.ARRAY_SPECIFIC_SIZES: (1,)}
    pages = [list(range(10))] * 20 + [[1], [1, 2], [1, 2, 3, 4], [1, 2, 3, 4, 5]]
    assert kinds("search", "array", pages) == {K.ARRAY_MAX_SIZE: 10}
    lists = [list(range(n)) for n in [1, 2, 3, 5, 8, 13, 21, 34, 40, 41, 42, 43, 44, 45, 46, 47]]
    assert kinds("businesses", "array", lists) == {}  # never empty here, but no pile at 1: not proposed
    categories = [[1]] * 15 + [[1, 2]] * 5 + [[1, 2, 3]] * 3
    assert kinds("categories", "array", categories)[K.ARRAY_MIN_SIZE] == 1


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
