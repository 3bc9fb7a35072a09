"""Per-response summaries: the contract's semantics (every place, null and null-like skipped), their bounds, and
merging (order does not matter)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from satori_ci.observe.summary import (
    MAX_VALUE_LENGTH,
    MAX_VALUES,
    FieldObservations,
    canonical_number,
    merge_fields,
    number_text,
    summarize,
    summarize_field,
)


def test_every_place_null_and_null_like_skipped() -> None:
    body = {"items": [{"tag": "a"}, {"tag": None}, {"tag": "N/A"}, {}, {"tag": "b"}], "n": None}
    found = summarize_field("items[].tag", body, ("N/A",))
    assert found is not None and found.responses == 1 and found.values == 2
    assert found.string is not None and found.string.values == (("a", 1), ("b", 1))
    assert summarize_field("n", body) is None
    assert summarize_field("missing", body) is None
    assert summarize(["items[].tag", "n", "missing"], body, ("N/A",)) == {"items[].tag": found}


def test_strings_lengths_formats_and_a_small_set() -> None:
    found = summarize_field("u[]", {"u": ["https://a.example/x", "http://b.example"]})
    assert found is not None and found.string is not None
    s = found.string
    assert (s.min_length, s.max_length, s.url, s.numeric, s.date, s.time) == (16, 19, 1, 0, 0, 0)
    mixed = summarize_field("u[]", {"u": ["https://a.example", "not a url"]})
    assert mixed is not None and mixed.string is not None and mixed.string.url == 0  # every value, or none
    dates = summarize_field("d", {"d": "2024-02-29"})
    assert dates is not None and dates.string is not None and (dates.string.date, dates.string.time) == (1, 0)
    lengths = summarize_field("s", {"s": "é😀"})  # code points, not UTF-16 units
    assert lengths is not None and lengths.string is not None and lengths.string.max_length == 2


def test_sets_are_bounded_and_never_keep_long_strings_or_emails() -> None:
    many = summarize_field("s[]", {"s": [f"v{i}" for i in range(MAX_VALUES + 1)]})
    assert many is not None and many.string is not None and many.string.values is None
    enough = summarize_field("s[]", {"s": [f"v{i}" for i in range(MAX_VALUES)] * 3})
    assert enough is not None and enough.string is not None and enough.string.values is not None
    assert len(enough.string.values) == MAX_VALUES and all(n == 1 for _, n in enough.string.values)
    long = summarize_field("s[]", {"s": ["ok", "x" * (MAX_VALUE_LENGTH + 1)]})
    assert long is not None and long.string is not None and long.string.values is None
    assert long.string.max_length == MAX_VALUE_LENGTH + 1
    email = summarize_field("s", {"s": "ada@example.com"})
    assert email is not None and email.string is not None and email.string.values is None
    assert email.string.email == 1


def test_numbers_extremes_and_values_as_javascript_writes_them() -> None:
    found = summarize_field("n[]", {"n": [3, 1.0, 2.5, 1e21, -0.0]})
    assert found is not None and found.number is not None
    n = found.number
    assert (n.min, n.max) == (0, 1e21)
    assert n.values == (("0", 1), ("1", 1), ("1e+21", 1), ("2.5", 1), ("3", 1))
    assert canonical_number(2.0) == 2 and isinstance(canonical_number(2.0), int)
    assert isinstance(canonical_number(2**53), float) and number_text(2**53) == "9007199254740992"
    assert number_text(1e-7) == "1e-7" and number_text(0.000015) == "0.000015"


def test_booleans_arrays_and_wrong_types() -> None:
    flags = summarize_field("f[]", {"f": [True, True]})
    assert flags is not None and flags.boolean is not None and (flags.boolean.true, flags.boolean.false) == (1, 0)
    arrays = summarize_field("a[]", {"a": [[1, 2, 2], [], [5, None, "N/A", 7], [3]]}, ("N/A",))
    assert arrays is not None and arrays.array is not None
    a = arrays.array
    assert (a.min_size, a.max_size, a.ascending, a.descending, a.informative) == (0, 4, 1, 0, 1)
    assert a.sizes == (("0", 1), ("1", 1), ("3", 1), ("4", 1))
    down = summarize_field("a", {"a": [3, 3, 1]})
    assert down is not None and down.array is not None and (down.array.ascending, down.array.descending) == (0, 1)
    flat = summarize_field("a", {"a": [2, 2]})
    assert flat is not None and flat.array is not None and flat.array.informative == 0
    odd = summarize_field("x[]", {"x": ["s", 1, {"o": 1}, True]})
    assert odd is not None and odd.families == {"string", "number", "object", "boolean"} and odd.objects == 1


def _response(value: Any) -> FieldObservations | None:
    return summarize_field("v[]", {"v": value})


VALUES = st.lists(st.one_of(st.sampled_from(["a", "b", "c", "d"]), st.integers(-3, 3), st.booleans(),
                            st.lists(st.integers(0, 3), max_size=3)), max_size=4)


@settings(max_examples=150, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_merging_is_order_free(bodies: list[list[Any]], rng: Any) -> None:
    parts = [_response(b) for b in bodies]
    forward: FieldObservations | None = None
    for p in parts:
        forward = merge_fields(forward, p)
    shuffled = list(parts)
    rng.shuffle(shuffled)
    paired: FieldObservations | None = None
    for i in range(0, len(shuffled), 2):
        paired = merge_fields(paired, merge_fields(shuffled[i], shuffled[i + 1] if i + 1 < len(shuffled) else None))
    assert forward == paired
    if forward is not None:
        assert forward.responses == sum(1 for p in parts if p is not None)


def test_merged_extremes_and_the_responses_each_value_occurred_in() -> None:
    merged = None
    for body in ([1, 5], [1, 2], [3, 5], [4]):
        merged = merge_fields(merged, _response(body))
    assert merged is not None and merged.number is not None
    assert (merged.number.min, merged.number.max) == (1, 5)
    assert merged.number.values == (("1", 2), ("2", 1), ("3", 1), ("4", 1), ("5", 2))
    overflowing = None
    for i in range(MAX_VALUES + 1):
        overflowing = merge_fields(overflowing, _response([f"v{i}"]))
    assert overflowing is not None and overflowing.string is not None and overflowing.string.values is None
    assert merge_fields(overflowing, _response(["v0"])) is not None  # a dropped set stays dropped
