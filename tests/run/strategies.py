"""Hypothesis strategies for responses of the inventory fixture API (tests/run/fixtures/inventory.yaml).

Bodies mix values that hold and values that break each oracle, nulls, null-like strings, wrong types,
long and non-ASCII strings and numbers JavaScript reads differently (past 2**53, -0.0, 1e21); responses
are sometimes not JSON, or come with another status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from satori_ci.demo import Canned

NULL_LIKE = ("N/A", "")

STRINGS = st.one_of(
    st.sampled_from([
        "000042", "42", "-3.5", "1e5", "tool", "part", "kit", "Tool", "https://example.com/x", "example.com",
        "ftp://h", "a@b.co", "a b@c.d", "2024-02-29", "2023-02-29", "31/12/2024", "12 Jun 2013", "12:30",
        "2024-01-01T10:00:00Z", "25:00", "abc", "new", "sale", "N/A", "", "null", "😀😀😀", "é\u2028\"\\",
    ]),
    st.text(max_size=8),
    st.text(min_size=190, max_size=230),
)
NUMBERS = st.one_of(
    st.sampled_from([0, 1, 2, 3, -1, 1.0, 2.5, 1000, 1000.5, -0.0, 1e21, 1e-7, 2**53 + 1, -(2**60), 10**30]),
    st.integers(-2000, 2000),
    st.floats(allow_nan=False, allow_infinity=False),
)
WRONG = st.one_of(st.none(), st.booleans(), st.just([]), st.just({}), st.just([1, "x"]), st.sampled_from(NULL_LIKE))


def _maybe(typed: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(typed, typed, typed, STRINGS, NUMBERS, WRONG)


NUMBER_LISTS = st.lists(st.one_of(NUMBERS, NUMBERS, NUMBERS, st.none(), st.sampled_from(NULL_LIKE), STRINGS),
                        max_size=6)
SORTED = st.one_of(NUMBER_LISTS, st.lists(st.integers(-5, 5), max_size=5).map(sorted),
                   st.lists(st.integers(-5, 5), max_size=5).map(lambda xs: sorted(xs, reverse=True)))


_ABSENT = object()


def _object(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Each field present, rarely absent (hypothesis draws its simplest values first: keep them dense)."""
    present = {k: st.one_of(v, v, v, v, st.just(_ABSENT)) for k, v in fields.items()}
    return st.fixed_dictionaries(present).map(lambda d: {k: v for k, v in d.items() if v is not _ABSENT})


ITEM = _object({
    "id": _maybe(STRINGS), "url": _maybe(STRINGS), "contact": _maybe(STRINGS), "kind": _maybe(STRINGS),
    "created": _maybe(STRINGS), "updated": _maybe(STRINGS), "active": _maybe(st.booleans()),
    "deleted": _maybe(st.booleans()), "price": _maybe(NUMBERS), "priority": _maybe(NUMBERS),
    "tags": _maybe(st.lists(_maybe(STRINGS), min_size=1, max_size=5)),
})
LIST_BODY = _object({
    "count": _maybe(NUMBERS), "sizes": _maybe(SORTED), "history": _maybe(SORTED),
    "labels": _maybe(st.dictionaries(st.sampled_from(["a", "b", "x/y", "~"]), _maybe(STRINGS), max_size=3)),
    "items": _maybe(st.lists(st.one_of(ITEM, ITEM, ITEM, WRONG), min_size=1, max_size=7)),
})
PRICES = st.one_of(SORTED, SORTED, WRONG)
ORDER = _object({"id": STRINGS, "quantity": _maybe(NUMBERS)})


def responses(body: st.SearchStrategy[Any], status: int = 200) -> st.SearchStrategy[Canned]:
    """Mostly a JSON body with the expected status; sometimes another status, or a body that is not JSON."""
    odd = st.sampled_from([
        Canned({"error": "nope"}, status=404),
        Canned({"error": "moved"}, status=200 if status != 200 else 201),
        Canned(raw=b"<html>oops</html>", status=status, content_type="text/html"),
        Canned(raw=b"NaN", status=status),
        Canned(raw=b'{"count": 1,}', status=status),
        Canned(raw=b"", status=status),
        Canned(raw="\ufeff{\"count\": -1}".encode(), status=status, content_type="application/json; charset=utf-8"),
    ])
    return st.one_of(*([body.map(lambda b: Canned(b, status=status))] * 12), odd)


def draw(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """`count` values of a strategy (generation only: no shrinking, no database)."""
    drawn: list[Any] = []

    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    while len(drawn) < count:  # hypothesis may stop early on a small strategy
        drawn.extend(drawn[: count - len(drawn)] or [None])
    return drawn[:count]


BROKEN_ITEM = {"id": "12a", "url": "nope", "contact": "no-at", "kind": "gadget", "created": "yesterday",
               "updated": "later", "active": False, "deleted": True, "price": -5, "priority": 7,
               "tags": ["new", "sale", "old", "N/A"]}
EVERY_KIND_BROKEN = (
    # between them, these two /items bodies break each of the 17 kinds at least once
    Canned({"count": -1, "sizes": [3, 1, 2, 0, 5], "history": [1, 2], "labels": {"a": "toolong"},
            "items": [BROKEN_ITEM, {**BROKEN_ITEM, "price": 5000}] * 3}),
    Canned({"count": 0, "sizes": [], "history": [], "items": []}),
)

INVENTORY: dict[tuple[str, str], Callable[[], st.SearchStrategy[Canned]]] = {
    ("GET", "/items"): lambda: responses(LIST_BODY),
    ("GET", "/items/{id}"): lambda: responses(ITEM),
    ("GET", "/items/{id}/prices"): lambda: responses(PRICES),
    ("POST", "/orders"): lambda: responses(ORDER, status=201),
}
