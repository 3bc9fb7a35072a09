"""Invariants proposed from observed responses (Daikon/AGORA+ style unary invariants), as `observed` oracles.

**Evidence.** An observation is one independent look at a field's values:
- a field outside any array (`total`, `data.count`) is observed once per *response*; the operation needs
  `min_responses` responses (default 10) answering at least `min_requests` distinct requests (default 2);
- responses to a request sent again show the same data: every count (responses, elements, values) is scaled by
  the operation's `independence`, its distinct requests over its responses (1 once the store holds
  `MAX_REQUESTS` of them), so the same five posts seen three times are five looks, not fifteen;
- a field inside an array or a map (`items[].status`, `labels{}`) is observed once per *element*: the elements
  of a list are distinct records, so one list of 30 items is 30 observations of `items[].status` (a list
  operation sent once is ready once it listed `min_responses` values). Elements of one response are not
  independent for *which* values occur (a search for pizza lists pizza places), so the value-set tests below
  count a value once per response it occurred in, whatever the field.

Nothing is proposed for a field whose values are not all of the one JSON type its oracle kinds check. Every
proposal must pass a confidence test at level `alpha` (default 0.01):

- **all-n test** (constant booleans, formats, non-negative numbers, non-empty arrays, sorted numeric arrays): a
  property that held in every one of n observations is proposed when 2^-n <= alpha (n >= 7 at 0.01). For
  sorted arrays n counts only the responses with an array of two distinct numbers or more.
- **closed-set test** (`string_specific_values`, `number_specific_values`): the k distinct values seen (at most
  `MAX_VALUES`, strings of at most `MAX_VALUE_LENGTH` characters) are proposed as the whole set when the
  estimated chance that the next response brings a value outside it is at most `alpha`. The estimate is the
  species-sampling one (the Chinese restaurant process / Ewens model): with N draws (a value counted once per
  response it occurred in) showing k distinct values, the concentration theta solves
  theta * ln(1 + N / theta) = k, and a draw is new with chance theta / (N + theta); the Good-Turing estimate of
  the same chance, (values seen in one draw only) / N, is taken when it is larger. A response, which makes
  N / n draws on average, brings a new value with chance 1 - (1 - q)^(N / n), q the larger estimate. One value
  in 25 responses gives 0.008 (a constant is proposed), three in 25 give 0.034 (not yet), and `movie` 60 times
  with `game` once give 1/61 (not yet).
- **bounds hold out of sample.** A bound is a guess about values not seen yet, and the classic way observed
  invariants overfit (a list of at most 7 in 25 responses, 8 in the 26th). So:
  - an upper bound on an array's size (`array_max_size`, or a set of sizes) is never proposed: a list's size
    grows with the data or follows the request, and nothing in tens of responses bounds the chance of the
    next one being longer below 1% (with no longer list in n responses, the rule of three puts that chance
    up to 3 / n);
  - `array_specific_sizes` only for one size >= 1 seen in every response (a lookup by id answers one result,
    a point has two coordinates), by the closed-set test; an array always empty is data not there yet;
  - `array_min_size`: 1 (never empty) by the all-n test when a size smaller than all seen is unlikely (the
    estimate for numbers below: a list of creators, of 0 to 30 names, will be empty one day), or the smallest
    size seen when sizes pile up there and a smaller one is unlikely;
  - no size at all for an array outside any array of an operation with a query parameter: a search, a
    filter or a page size decides what that list holds;
  - a numeric bound at the smallest or largest value seen (other than the non-negative one) needs values
    piling up there (in at least `min_at_bound` responses, `bound_share` of them, more than at the next value
    inward: Daikon's truncated distribution) *and* an estimated chance of a value beyond it at most `alpha`:
    the chance of a new value (the closed-set estimate above) times the chance that a new value lands beyond
    all k seen, 1 / (k + 1);
  - `string_fixed_length` needs the all-n test, at least `min_distinct_lengths` distinct values of that length
    (default 4; two or three values of one length are an accident of the few), the closed-set test on the
    lengths (one length, 23 observations or more at 0.01), and values that are not numbered in sequence: when
    every value ends in five digits or more (`tt0111161`, `.../characters/1009610`), the length grows with the
    data (a date ending in its year is fine).

The proposals use the contract's kinds and semantics: null and null-like values were never observed, a value
set makes the fixed length, formats and bounds of the same field redundant (they are not proposed with it),
and `string_is_date` / `string_is_time` are exclusive by their grammar.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from satori_ci.observe.store import MAX_REQUESTS, ObservationStore, OperationObservations
from satori_ci.observe.summary import (
    FORMATS,
    ArrayStats,
    Counts,
    FieldObservations,
    NumberStats,
    StringStats,
    segments,
)
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.spec.model import ResponseField
from satori_ci.spec.paths import Prop


@dataclass(frozen=True)
class ProposalSettings:
    min_responses: int = 10
    """Observations a field needs before anything is proposed for it (responses, or elements in an array)."""
    min_requests: int = 2
    """Distinct requests the responses must answer (for a field outside any array)."""
    alpha: float = 0.01
    min_distinct_lengths: int = 4
    min_at_bound: int = 3
    bound_share: float = 0.25
    request_sized: frozenset[tuple[str, str]] = frozenset()
    """(method, path) of the operations with a query parameter (`observe.fields.queried_operations`): what their
    lists hold is the request's choice."""

    @property
    def all_n(self) -> int:
        """Observations the all-n test needs: the least n with 2^-n <= alpha."""
        return max(1, math.ceil(math.log2(1 / self.alpha) - 1e-9))


_FORMAT_KINDS = {"url": OracleKind.STRING_IS_URL, "numeric": OracleKind.STRING_IS_NUMERIC,
                 "email": OracleKind.STRING_IS_EMAIL, "date": OracleKind.STRING_IS_DATE,
                 "time": OracleKind.STRING_IS_TIME}
_FORMAT_WORDS = {"url": "an absolute URL", "numeric": "a decimal number written as text", "email": "an email address",
                 "date": "a date", "time": "a time or date-time"}


@dataclass(frozen=True)
class Candidate:
    kind: OracleKind
    value: object
    evidence: int
    """Observations that support it (responses, or elements for a field inside an array)."""
    reason: str


@dataclass(frozen=True)
class _Seen:
    """How one field was observed: `n` responses, `observations` independent looks (see the module docstring)."""

    n: int
    observations: int
    repeated: bool
    """Inside an array or a map: observed once per element."""
    request_sized: bool = False
    """An array outside any array, of an operation with a query parameter: the request decides its size."""

    def all_of(self, count: int) -> str:
        """`count` observations, in words (`all 25 responses`, `all 120 values of 6 responses`)."""
        if not self.repeated:
            return f"all {count} responses"
        return f"all {count} values of {_plural(self.n, 'response')}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def new_value_chance(k: int, draws: int) -> float:
    """The chance that one more draw shows a new value, after `draws` draws showed `k` distinct values (the
    Ewens model's theta / (draws + theta), theta estimated from theta * ln(1 + draws / theta) = k)."""
    if k <= 0 or draws <= 0:
        return 1.0
    if k >= draws:
        return 1.0
    low, high = 1e-12, 1e12
    for _ in range(200):
        mid = math.sqrt(low * high)
        if mid * math.log1p(draws / mid) < k:
            low = mid
        else:
            high = mid
    return high / (draws + high)


def new_value_per_response(counts: Counts | None, n: int) -> float:
    """The chance that the next response brings a value outside `counts` (see the closed-set test)."""
    if counts is None or not counts or n <= 0:
        return 1.0
    draws = sum(c for _, c in counts)
    singletons = sum(1 for _, c in counts if c == 1)
    q = max(new_value_chance(len(counts), draws), singletons / draws)
    chance: float = 1 - (1 - q) ** (draws / n)
    return chance


def _set_ok(counts: Counts | None, n: int, settings: ProposalSettings) -> bool:
    return new_value_per_response(counts, n) <= settings.alpha


def beyond_chance(counts: Counts | None, n: int) -> float:
    """The chance that the next response brings a value beyond the largest (or smallest) seen: a new value, and
    one that lands past all k values seen (a new value's rank among k + 1 taken as uniform)."""
    if counts is None or not counts:
        return 1.0
    return new_value_per_response(counts, n) / (len(counts) + 1)


def _shown(values: Iterable[str], limit: int = 6) -> str:
    found = list(values)
    head = ", ".join(found[:limit])
    return head + (f" and {len(found) - limit} more" if len(found) > limit else "")


def _fixed_length(s: StringStats, seen: _Seen, settings: ProposalSettings) -> Candidate | None:
    varied = s.values is None or len(s.values) >= settings.min_distinct_lengths
    if s.min_length != s.max_length or s.min_length <= 0 or not varied:
        return None
    if s.counter == s.responses:  # numbered in sequence: the length grows with the data
        return None
    if new_value_chance(1, seen.observations) > settings.alpha:
        return None
    return Candidate(OracleKind.STRING_FIXED_LENGTH, s.min_length, seen.observations,
                     f"observed: {s.min_length} characters in {seen.all_of(seen.observations)}")


def _strings(s: StringStats, seen: _Seen, settings: ProposalSettings) -> list[Candidate]:
    n = s.responses
    if _set_ok(s.values, n, settings):
        assert s.values is not None
        values = tuple(v for v, _ in s.values)
        shown = _shown(f"{v!r} ({c})" for v, c in s.values)
        return [Candidate(OracleKind.STRING_SPECIFIC_VALUES, values, n,
                          f"observed: only {_plural(len(values), 'value')} in {n} responses: {shown}")]
    out: list[Candidate] = []
    if seen.observations < settings.all_n:
        return out
    for name, _ in FORMATS:
        if name in _FORMAT_KINDS and s.format_count(name) == n and not (name == "date" and s.time == n):
            out.append(Candidate(_FORMAT_KINDS[name], None, seen.observations,
                                 f"observed: {_FORMAT_WORDS[name]} in {seen.all_of(seen.observations)}"))
    fixed = _fixed_length(s, seen, settings)
    return [*out, fixed] if fixed is not None else out


def _as_number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)


def _truncated(counts: Counts | None, low: bool, n: int, settings: ProposalSettings) -> int:
    """The responses at the smallest (`low`) or largest value when values pile up there and a value beyond it
    is unlikely (see the module docstring), else 0."""
    if counts is None or len(counts) < 2:
        return 0
    ordered = sorted(((_as_number(v), c) for v, c in counts), reverse=not low)
    at, inward = ordered[0][1], ordered[1][1]
    piled = at >= settings.min_at_bound and at >= settings.bound_share * n and at > inward
    return at if piled and beyond_chance(counts, n) <= settings.alpha else 0


def _numbers(s: NumberStats, seen: _Seen, settings: ProposalSettings) -> list[Candidate]:
    n = s.responses
    if _set_ok(s.values, n, settings):
        assert s.values is not None
        values = tuple(sorted(_as_number(v) for v, _ in s.values))
        shown = _shown(f"{v} ({c})" for v, c in s.values)
        return [Candidate(OracleKind.NUMBER_SPECIFIC_VALUES, values, n,
                          f"observed: only {_plural(len(values), 'value')} in {n} responses: {shown}")]
    out: list[Candidate] = []
    low, high = _truncated(s.values, True, n, settings), _truncated(s.values, False, n, settings)
    if s.min != 0 and low:
        out.append(Candidate(OracleKind.NUMBER_MIN_VALUE, s.min, n,
                             f"observed: at least {s.min} in {n} responses, {low} of them with {s.min}"))
    elif s.min >= 0 and seen.observations >= settings.all_n:
        out.append(Candidate(OracleKind.NUMBER_MIN_VALUE, 0, seen.observations,
                             f"observed: never negative in {seen.all_of(seen.observations)} (smallest {s.min})"))
    if high:
        out.append(Candidate(OracleKind.NUMBER_MAX_VALUE, s.max, n,
                             f"observed: at most {s.max} in {n} responses, {high} of them with {s.max}"))
    return out


def _arrays(a: ArrayStats, seen: _Seen, numeric_items: bool, settings: ProposalSettings) -> list[Candidate]:
    n = a.responses
    out: list[Candidate] = []
    if not seen.request_sized:
        if a.sizes is not None and len(a.sizes) == 1 and a.min_size > 0 and _set_ok(a.sizes, n, settings):
            out.append(Candidate(OracleKind.ARRAY_SPECIFIC_SIZES, (a.min_size,), n,
                                 f"observed: {_plural(a.min_size, 'element')} in all {n} responses"))
        elif a.min_size > 1 and (low := _truncated(a.sizes, True, n, settings)):
            out.append(Candidate(OracleKind.ARRAY_MIN_SIZE, a.min_size, n,
                                 f"observed: at least {a.min_size} elements in {n} responses, {low} of them with "
                                 f"{a.min_size}"))
        elif a.min_size > 0 and seen.observations >= settings.all_n and beyond_chance(a.sizes, n) <= settings.alpha:
            out.append(Candidate(OracleKind.ARRAY_MIN_SIZE, 1, seen.observations,
                                 f"observed: never empty in {seen.all_of(seen.observations)}"))
    if numeric_items and a.informative >= settings.all_n:
        for count, kind, word in ((a.ascending, OracleKind.ARRAY_NUMBER_ASC_ORDER, "ascending"),
                                  (a.descending, OracleKind.ARRAY_NUMBER_DESC_ORDER, "descending")):
            if count == n:
                out.append(Candidate(kind, None, n,
                                     f"observed: in {word} order in all {n} responses ({a.informative} with "
                                     "distinct numbers)"))
    return out


def _scaled(n: int, share: Fraction) -> int:
    return n if share >= 1 else max(1, math.floor(n * share)) if n else 0


def _scaled_counts(counts: Counts | None, share: Fraction) -> Counts | None:
    return counts if counts is None or share >= 1 else tuple((v, _scaled(c, share)) for v, c in counts)


def _discounted(found: FieldObservations, share: Fraction) -> FieldObservations:
    """The summary with its counts of responses and values scaled by `share` (responses to a request sent again
    are not new looks); a property that held in every response still holds in every scaled one."""
    if share >= 1:
        return found
    s, num, b, a = found.string, found.number, found.boolean, found.array

    def every(count: int, of: int) -> int:
        return _scaled(of, share) if count == of else min(_scaled(count, share), _scaled(of, share) - 1)
    return replace(
        found, responses=_scaled(found.responses, share), values=_scaled(found.values, share),
        string=None if s is None else replace(
            s, responses=_scaled(s.responses, share), values=_scaled_counts(s.values, share),
            **{name: every(s.format_count(name), s.responses) for name, _ in FORMATS}),
        number=None if num is None else replace(num, responses=_scaled(num.responses, share),
                                                values=_scaled_counts(num.values, share)),
        boolean=None if b is None else replace(b, responses=_scaled(b.responses, share),
                                               true=every(b.true, b.responses), false=every(b.false, b.responses)),
        array=None if a is None else replace(
            a, responses=_scaled(a.responses, share), ascending=every(a.ascending, a.responses),
            descending=every(a.descending, a.responses), informative=_scaled(a.informative, share),
            sizes=_scaled_counts(a.sizes, share)))


def repeated(field: str) -> bool:
    """Whether the field sits inside an array or a map (observed once per element)."""
    return any(not isinstance(s, Prop) for s in segments(field))


def independence(op: OperationObservations) -> Fraction:
    """The share of an operation's responses that are independent looks: its distinct requests over its responses
    (a request sent again shows the same data); 1 once the store holds `MAX_REQUESTS` of them (many)."""
    if op.responses <= 0 or len(op.requests) >= MAX_REQUESTS:
        return Fraction(1)
    return min(Fraction(1), Fraction(len(op.requests), op.responses))


def field_candidates(found: FieldObservations, field_type: str, items_type: str | None,
                     settings: ProposalSettings = ProposalSettings(), *, field: str = "",
                     request_sized: bool = False, share: Fraction = Fraction(1)) -> list[Candidate]:
    """The invariants one field's observations support (nothing when its values are not all of its type).
    `field`: its path (inside an array, elements are observations); `request_sized`: an array outside any array
    of an operation with a query parameter; `share`: the operation's `independence`."""
    family = "number" if field_type in ("number", "integer") else field_type
    if found.families != {family}:
        return []
    found = _discounted(found, share)
    inner = repeated(field) if field else False
    seen = _Seen(found.responses, found.values if inner else found.responses, inner,
                 request_sized and not inner)
    if family == "string" and found.string is not None:
        return _strings(found.string, seen, settings)
    if family == "number" and found.number is not None:
        return _numbers(found.number, seen, settings)
    if family == "boolean" and found.boolean is not None:
        b = found.boolean
        if seen.observations >= settings.all_n and (b.true == 0 or b.false == 0):
            kind = OracleKind.BOOLEAN_ALWAYS_TRUE if b.false == 0 else OracleKind.BOOLEAN_ALWAYS_FALSE
            word = "true" if b.false == 0 else "false"
            return [Candidate(kind, None, seen.observations,
                              f"observed: always {word} in {seen.all_of(seen.observations)}")]
        return []
    if family == "array" and found.array is not None:
        return _arrays(found.array, seen, items_type in ("number", "integer"), settings)
    return []


def ready(found: OperationObservations, settings: ProposalSettings) -> bool:
    """Whether an operation has enough observations for proposals: responses from enough distinct requests, or a
    field inside an array observed often enough."""
    return _responses_ready(found, settings) or any(
        repeated(path) and field_ready(found, path, summary, settings) for path, summary in found.fields.items())


def _responses_ready(found: OperationObservations, settings: ProposalSettings) -> bool:
    return (_scaled(found.responses, independence(found)) >= settings.min_responses
            and len(found.requests) >= settings.min_requests)


def field_ready(op: OperationObservations, path: str, found: FieldObservations, settings: ProposalSettings) -> bool:
    """Whether one field has enough observations (see the module docstring)."""
    if repeated(path):
        return _scaled(found.values, independence(op)) >= settings.min_responses
    return _responses_ready(op, settings)


def propose(store: ObservationStore, fields: Sequence[ResponseField],
            settings: ProposalSettings = ProposalSettings()) -> tuple[Oracle, ...]:
    """The observed oracles the store supports, in field order, disabled until a reviewer accepts them."""
    out: list[Oracle] = []
    sized = settings.request_sized
    for field in fields:
        op = store.operation(field.operation)
        found = op.fields.get(field.field) if op is not None else None
        if op is None or found is None or not field_ready(op, field.field, found, settings):
            continue
        key = (field.operation.method, field.operation.path)
        for c in field_candidates(found, field.type, field.facts.items_type, settings, field=field.field,
                                  request_sized=key in sized, share=independence(op)):
            out.append(Oracle(field.operation, field.field, c.kind, c.value, OBSERVED, c.reason, enabled=False,
                              operation_id=field.operation_id, evidence=c.evidence))
    return tuple(out)
