"""Hypothesis strategies aimed at the edges of the contract's grammars and checking semantics."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st

from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey
from satori_ci.spec.paths import Items, MapValues, Prop, Segment, parse
from tests.postman.grammar import GRAMMAR_STRINGS

OP = OperationKey("GET", "/things", "200")
NULL_LIKE = ("N/A", "")
SAFE = 2**53 - 1

def pick(*options: str) -> st.SearchStrategy[str]:
    return st.sampled_from(options)


LONG_STRINGS = st.builds(lambda n, tail: "aé😀\n" * n + tail, st.integers(48, 52), pick("", "x", "\"", "😀"))
STRINGS = st.one_of(GRAMMAR_STRINGS, GRAMMAR_STRINGS, st.text(max_size=8), pick(*NULL_LIKE), LONG_STRINGS)

FLOATS = st.floats(allow_nan=False, allow_infinity=False)
SMALL_NUMBERS = pick("0", "1", "-1", "2.5", "3", "1.0", "1e21", "-0.0", "1e-7", "100").map(
    lambda s: float(s) if any(c in s for c in ".e") else int(s)
)
NUMBERS = st.one_of(SMALL_NUMBERS, st.integers(-SAFE, SAFE), FLOATS)
LEAVES = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS)
KEYS = pick("a", "b", "m", "x.y", "~/", "é", "__proto__", "constructor")


def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    return st.recursive(
        LEAVES,
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(KEYS, kids, max_size=3),
        max_leaves=max_leaves,
    )


NOISE = json_values(4)
PATHS = ("", "[]", "[][]", "a", "a[]", "a[].b", "a[].b[]", "a.b", "a[][]", "m{}", "m{}.a", "m{}[]",
         "x\\.y", "~/", "a[].m{}", "é", "constructor", "a.constructor")


@cache
def _leaf_for(family: str) -> st.SearchStrategy[Any]:
    if family == "string":
        typed: st.SearchStrategy[Any] = STRINGS
    elif family == "boolean":
        typed = st.booleans()
    elif family == "number":
        typed = NUMBERS
    else:
        elements = st.one_of(NUMBERS, st.none(), pick(*NULL_LIKE), st.booleans(), pick("1", "x"), SMALL_NUMBERS)
        typed = st.one_of(
            st.lists(st.one_of(SMALL_NUMBERS, SMALL_NUMBERS, st.none()), min_size=2, max_size=6),
            st.lists(elements, min_size=1, max_size=6),
            st.lists(NUMBERS, max_size=6).map(sorted),
            st.lists(SMALL_NUMBERS, max_size=6).map(lambda xs: sorted(xs, reverse=True)),
        )
    return st.one_of(typed, typed, typed, LEAVES)


@cache
def shaped(segments: tuple[Segment, ...], family: str) -> st.SearchStrategy[Any]:
    """Bodies that mostly follow the path down to a leaf of the family, with noise and wrong-type containers."""
    if not segments:
        return _leaf_for(family)
    head, rest = segments[0], segments[1:]
    inner = shaped(rest, family)
    noise = NOISE
    if isinstance(head, Prop):
        right: st.SearchStrategy[Any] = st.builds(
            lambda extra, v: {**extra, head.name: v}, st.dictionaries(KEYS, noise, max_size=2), inner
        )
    elif isinstance(head, Items):
        right = st.lists(st.one_of(inner, inner, inner, noise), min_size=1, max_size=4)
    else:
        assert isinstance(head, MapValues)
        right = st.dictionaries(pick("k", "b", "~", "a/b", "é"), inner, min_size=1, max_size=3)
    return st.one_of(right, right, right, right, noise)


@cache
def _oracle_value(kind: OracleKind) -> st.SearchStrategy[Any]:
    if kind is OracleKind.STRING_SPECIFIC_VALUES:
        good: st.SearchStrategy[Any] = st.lists(st.one_of(GRAMMAR_STRINGS, pick("a", "$", "$$", "é")), max_size=4)
        good = st.one_of(good, good.map(tuple))
    elif kind is OracleKind.NUMBER_SPECIFIC_VALUES:
        good = st.lists(st.one_of(SMALL_NUMBERS, NUMBERS), max_size=4)
        good = st.one_of(good, good.map(tuple))
    elif kind is OracleKind.ARRAY_SPECIFIC_SIZES:
        good = st.lists(st.integers(0, 6), max_size=3).map(tuple)
    elif kind in (OracleKind.ARRAY_MIN_SIZE, OracleKind.ARRAY_MAX_SIZE, OracleKind.STRING_FIXED_LENGTH):
        good = st.one_of(st.integers(0, 10), pick("3.0", "0.0").map(float))
    elif kind.takes_value:
        good = NUMBERS
    else:
        good = st.none()
    bad = st.one_of(st.none(), st.booleans(), pick("x"), st.just([1]), st.just(2))
    return st.one_of(good, good, good, good, good, good, good, good, bad)


@st.composite
def oracles_for(draw: st.DrawFn, field: str) -> Oracle:
    kind = draw(st.sampled_from(list(OracleKind)))
    return Oracle(OP, field, kind, draw(_oracle_value(kind)), enabled=draw(st.sampled_from([True] * 9 + [False])))


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Oracle], Any, tuple[str, ...]]:
    """(oracles, body, null_like): a body shaped after the first oracle's field, plus other oracles."""
    first = draw(oracles_for(draw(st.sampled_from(PATHS))))
    body = draw(shaped(parse(first.field), first.kind.applies_to))
    others = draw(st.lists(st.one_of(oracles_for(first.field), oracles_for(draw(st.sampled_from(PATHS)))),
                           max_size=3))
    null_like = draw(st.sampled_from([(), NULL_LIKE, ("N/A",)]))
    return [first, *others], body, null_like
