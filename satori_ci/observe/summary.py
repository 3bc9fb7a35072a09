"""What one field's values looked like: bounded summaries, per response and merged over many responses.

A `FieldObservations` holds only what the invariants of `propose` need: counts, extremes, string lengths,
format counts, and the distinct values of small sets of short strings or numbers (at most `MAX_VALUES` of
them, strings of at most `MAX_VALUE_LENGTH` code points, none that looks like an email address or holds a lone
surrogate; past that the set is dropped for good, `values` None). A number past the double range (`1e400`, read
as infinity) is counted with `objects`: no JSON summary can hold it, and no number invariant is proposed.
Counts are of *responses*, not of values: "in how many responses was every string a URL", "in how many
responses did `movie` occur". Values found in one response are not independent (a page of 20 businesses of
one city), so the confidence tests count responses.

`summarize` reads one body with the contract's semantics (§2): every place a field occurs, absent, null and
null-like values skipped. `merge_fields` adds two summaries; it is associative and commutative, so a store
does not depend on the order responses came in. `satori_check.js` (`summarize`) is the JavaScript twin of
`summarize`, for Newman runs: both write the same JSON (`field_json`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from satori_ci.oracles import predicates as p
from satori_ci.oracles.check import has_lone_surrogate, js_number, locate
from satori_ci.spec.paths import Segment, parse

MAX_VALUES = 10
"""Distinct values kept per field; one more and the field's set is dropped."""
MAX_VALUE_LENGTH = 40
"""Longer strings are never kept (the field's set is dropped)."""
SAFE_INTEGER = 2**53

Counts = tuple[tuple[str, int], ...]
"""(value, responses in which it occurred), sorted by value; numbers as JavaScript writes them."""

_COUNTER = re.compile("[0-9]{5}\\Z")


def is_counter(s: str) -> bool:
    """Ends in five ASCII digits or more: numbered in sequence (`tt0111161`), its length grows with the data (a
    year, four digits, is not)."""
    return _COUNTER.search(s) is not None


FORMATS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("url", p.is_url), ("numeric", p.is_numeric), ("email", p.is_email), ("date", p.is_date), ("time", p.is_time),
    ("counter", is_counter),
)
"""Per response: was every string value of this kind (`counter` is no oracle kind, see `propose`)."""


@dataclass(frozen=True)
class StringStats:
    responses: int
    """Responses with at least one string value."""
    min_length: int
    max_length: int
    """In code points."""
    url: int = 0
    numeric: int = 0
    email: int = 0
    date: int = 0
    time: int = 0
    """Responses in which every string value was a URL, numeric text, ... (the predicates of the contract)."""
    values: Counts | None = None
    counter: int = 0
    """Responses in which every string value ended in five digits or more (`is_counter`)."""

    def format_count(self, name: str) -> int:
        count: int = getattr(self, name)
        return count


@dataclass(frozen=True)
class NumberStats:
    responses: int
    min: int | float
    max: int | float
    values: Counts | None = None


@dataclass(frozen=True)
class BooleanStats:
    responses: int
    true: int
    """Responses with a `true` value."""
    false: int


@dataclass(frozen=True)
class ArrayStats:
    responses: int
    min_size: int
    max_size: int
    ascending: int
    """Responses in which every array was in ascending order as `array_number_asc_order` reads it."""
    descending: int
    informative: int
    """Responses with an array of at least two distinct numbers (where an order says something)."""
    sizes: Counts | None = None


@dataclass(frozen=True)
class FieldObservations:
    """One field's values over some responses (one, in a per-response summary)."""

    responses: int
    """Responses with at least one value that is neither null nor null-like."""
    values: int
    """Such values, in all."""
    string: StringStats | None = None
    number: NumberStats | None = None
    boolean: BooleanStats | None = None
    array: ArrayStats | None = None
    objects: int = 0
    """Responses with an object where a value was expected (every oracle of the field fails on it), or a number
    past the double range."""

    @property
    def families(self) -> frozenset[str]:
        """The JSON types seen: `string`, `number`, `boolean`, `array`, `object`."""
        found = {name for name in ("string", "number", "boolean", "array") if getattr(self, name) is not None}
        return frozenset(found | ({"object"} if self.objects else set()))


def canonical_number(v: int | float) -> int | float:
    """A number as JavaScript holds it: integral values below 2**53 as int, the rest as float."""
    if isinstance(v, int):
        return v if -SAFE_INTEGER < v < SAFE_INTEGER else float(v)
    if math.isfinite(v) and v.is_integer() and abs(v) < SAFE_INTEGER:
        return int(v)
    return v


def number_text(v: int | float) -> str:
    """A number as JavaScript's String() writes it (the key of a number in `values`)."""
    n = canonical_number(v)
    return str(n) if isinstance(n, int) else js_number(n)


@lru_cache(maxsize=8192)
def segments(field: str) -> tuple[Segment, ...]:
    return parse(field)


def _keepable(s: str) -> bool:
    """Short, not an email address, and text a UTF-8 file can hold (no lone surrogate)."""
    return len(s) <= MAX_VALUE_LENGTH and not p.is_email(s) and not has_lone_surrogate(s)


def _counts(keys: Iterable[str]) -> Counts | None:
    found = sorted(set(keys))
    return None if len(found) > MAX_VALUES else tuple((k, 1) for k in found)


def _strings(values: list[str]) -> StringStats:
    lengths = [len(s) for s in values]
    flags = {name: int(all(test(s) for s in values)) for name, test in FORMATS}
    kept = _counts(values) if all(_keepable(s) for s in values) else None
    return StringStats(1, min(lengths), max(lengths), values=kept, **flags)


def _numbers(values: list[int | float]) -> NumberStats:
    numbers = [canonical_number(v) for v in values]
    return NumberStats(1, min(numbers), max(numbers), _counts(number_text(v) for v in numbers))


def _arrays(values: list[list[Any]], nulls: Collection[str]) -> ArrayStats:
    sizes = [len(v) for v in values]
    ascending = all(p.order_break(v, True, nulls) is None for v in values)
    descending = all(p.order_break(v, False, nulls) is None for v in values)
    informative = any(len({canonical_number(x) for x in v if p.is_number(x)}) >= 2 for v in values)
    return ArrayStats(1, min(sizes), max(sizes), int(ascending), int(descending), int(informative),
                      _counts(str(n) for n in sizes))


def summarize_field(field: str, body: Any, null_like: Collection[str] = ()) -> FieldObservations | None:
    """The field's values in one body, or None when it has none (absent, null or null-like everywhere)."""
    strings: list[str] = []
    numbers: list[int | float] = []
    booleans: list[bool] = []
    arrays: list[list[Any]] = []
    objects = 0
    for _, v in locate(body, segments(field)):
        if v is None or (isinstance(v, str) and v in null_like):
            continue
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, bool):
            booleans.append(v)
        elif p.is_number(v) and math.isfinite(v):
            numbers.append(v)
        elif p.is_array(v):
            arrays.append(list(v))
        else:
            objects += 1  # an object, or a number past the double range (1e400)
    total = len(strings) + len(numbers) + len(booleans) + len(arrays) + objects
    if not total:
        return None
    return FieldObservations(
        1, total,
        string=_strings(strings) if strings else None,
        number=_numbers(numbers) if numbers else None,
        boolean=BooleanStats(1, int(True in booleans), int(False in booleans)) if booleans else None,
        array=_arrays(arrays, null_like) if arrays else None,
        objects=int(objects > 0),
    )


def summarize(fields: Sequence[str], body: Any, null_like: Collection[str] = ()) -> dict[str, FieldObservations]:
    """Every field of `fields` that has a value in this body, by path."""
    nulls = frozenset(null_like)
    out: dict[str, FieldObservations] = {}
    for field in fields:
        found = summarize_field(field, body, nulls)
        if found is not None:
            out[field] = found
    return out


# -- merging -------------------------------------------------------------------------------------------------


def merge_counts(a: Counts | None, b: Counts | None) -> Counts | None:
    if a is None or b is None:
        return None
    total: dict[str, int] = dict(a)
    for key, n in b:
        total[key] = total.get(key, 0) + n
    return None if len(total) > MAX_VALUES else tuple(sorted(total.items()))


def _merge_strings(a: StringStats, b: StringStats) -> StringStats:
    return StringStats(a.responses + b.responses, min(a.min_length, b.min_length), max(a.max_length, b.max_length),
                       **{name: a.format_count(name) + b.format_count(name) for name, _ in FORMATS},
                       values=merge_counts(a.values, b.values))


def _merge_numbers(a: NumberStats, b: NumberStats) -> NumberStats:
    return NumberStats(a.responses + b.responses, canonical_number(min(a.min, b.min)),
                       canonical_number(max(a.max, b.max)), merge_counts(a.values, b.values))


def _merge_arrays(a: ArrayStats, b: ArrayStats) -> ArrayStats:
    return ArrayStats(a.responses + b.responses, min(a.min_size, b.min_size), max(a.max_size, b.max_size),
                      a.ascending + b.ascending, a.descending + b.descending, a.informative + b.informative,
                      merge_counts(a.sizes, b.sizes))


def _both(a: Any, b: Any, merge: Callable[[Any, Any], Any]) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return merge(a, b)


def merge_fields(a: FieldObservations | None, b: FieldObservations | None) -> FieldObservations | None:
    """Both summaries as one (None stands for no observation)."""
    if a is None:
        return b
    if b is None:
        return a
    return FieldObservations(
        a.responses + b.responses, a.values + b.values,
        string=_both(a.string, b.string, _merge_strings),
        number=_both(a.number, b.number, _merge_numbers),
        boolean=_both(a.boolean, b.boolean, lambda x, y: BooleanStats(x.responses + y.responses, x.true + y.true,
                                                                     x.false + y.false)),
        array=_both(a.array, b.array, _merge_arrays),
        objects=a.objects + b.objects,
    )


def without_values(found: FieldObservations, drop: Callable[[str], bool]) -> FieldObservations:
    """The summary with its string set dropped when `drop` says one of its values must not be kept."""
    s = found.string
    if s is None or s.values is None or not any(drop(value) for value, _ in s.values):
        return found
    return FieldObservations(found.responses, found.values, StringStats(
        s.responses, s.min_length, s.max_length, s.url, s.numeric, s.email, s.date, s.time, None, s.counter),
        found.number, found.boolean, found.array, found.objects)
