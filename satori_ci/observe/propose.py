"""Invariants proposed from observed responses (Daikon/AGORA+ style unary invariants), as `observed` oracles.

Nothing is proposed for an operation before it has `min_responses` observed responses (default 20) answering
at least `min_requests` distinct requests (default 2), and nothing for a field whose values are not all of the
one JSON type its oracle kinds check. Every proposal must also pass a confidence test: it is made only when
the observations would be unlikely (probability at most `alpha`, default 0.01) if the invariant were chance.
Counts are of responses, not values (values of one response are not independent):

- **all-n test** (constant booleans, formats, fixed lengths, non-negative numbers, sorted numeric arrays):
  a property that held in every one of n responses is proposed when 2^-n <= alpha (n >= 7 at 0.01): the
  chance of that run if each response had even odds of breaking it. For sorted arrays n counts only the
  responses with an array of two distinct numbers or more (others are sorted whatever the order).
- **closed-set test** (`string_specific_values`, `number_specific_values`, `array_specific_sizes`): the k
  distinct values seen (at most `MAX_VALUES`, strings of at most `MAX_VALUE_LENGTH` characters) are proposed
  as the whole set when the estimated chance that the next response brings a value outside it is at most
  `alpha`. The estimate is the species-sampling one (the Chinese restaurant process / Ewens model): with N
  draws (a value counted once per response it occurred in) showing k distinct values, the concentration
  theta solves theta * ln(1 + N / theta) = k (the expected number of distinct values in N draws), and a draw
  is new with chance theta / (N + theta). That model reads only k, so the Good-Turing estimate of the same
  chance, (values seen in one draw only) / N, is taken when it is larger: a value seen once says the set is
  still open. A response, which makes N / n draws on average, then brings a new value with chance
  1 - (1 - q)^(N / n), q the larger estimate. One value in 25 responses gives 0.008 (a constant is
  proposed), three in 25 give 0.034 (not yet: `movie`, `series`, `episode` need about 75 responses), and
  `movie` 60 times with `game` once give 1/61 (not yet).
- **truncation test** (a bound at the observed minimum or maximum, other than the non-negative one): values
  pile up at the extreme b, as they do where a distribution is cut (a page of 10, at least two stories) and
  not at the tail of an open one (the largest price seen, a search that found a single business): b occurred
  in at least `min_at_bound` responses (default 3), in at least `bound_share` of them (default 1/4), and in
  more responses than the next value inward (so the field's set of values must be known: at most
  `MAX_VALUES` of them). This is Daikon's "truncated distribution" justification, with response counts.
  Non-empty arrays take this test too (the bound of 1 is the observed minimum).
- **fixed length** needs, besides the all-n test, values that vary: at least `min_distinct_lengths` distinct
  values (default 4; a set dropped for its size or its long strings counts as many). Two words of an open
  vocabulary share their length about one time in seven (the sum of the squared shares of English word
  lengths), so k distinct values of one length are chance with probability about 7^-(k-1) (0.003 for k = 4,
  0.02 for k = 3): then the length is a format (an id, a hash, a country code),
  while two or three values of one length are an accident of the few (`issue_solicit_text` and
  `issue_preview_text`).

The proposals use the contract's kinds and semantics: null and null-like values were never observed, a value
set makes the fixed length, formats and bounds of the same field redundant (they are not proposed with it),
and `string_is_date` / `string_is_time` are exclusive by their grammar.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from satori_ci.observe.store import ObservationStore, OperationObservations
from satori_ci.observe.summary import FORMATS, ArrayStats, Counts, FieldObservations, NumberStats, StringStats
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.spec.model import OperationKey, ResponseField


@dataclass(frozen=True)
class ProposalSettings:
    min_responses: int = 20
    """Observed responses an operation needs before anything is proposed for it."""
    min_requests: int = 2
    """Distinct requests those responses must answer."""
    alpha: float = 0.01
    min_distinct_lengths: int = 4
    min_at_bound: int = 3
    bound_share: float = 0.25

    @property
    def all_n(self) -> int:
        """Responses the all-n test needs: the least n with 2^-n <= alpha."""
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
    """Responses that support it."""
    reason: str


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


def _set_ok(counts: Counts | None, n: int, settings: ProposalSettings) -> bool:
    if counts is None or not counts or n <= 0:
        return False
    draws = sum(c for _, c in counts)
    singletons = sum(1 for _, c in counts if c == 1)
    q = max(new_value_chance(len(counts), draws), singletons / draws)
    per_response: float = 1 - (1 - q) ** (draws / n)
    return per_response <= settings.alpha


def _shown(values: Iterable[str], limit: int = 6) -> str:
    found = list(values)
    head = ", ".join(found[:limit])
    return head + (f" and {len(found) - limit} more" if len(found) > limit else "")


def _strings(s: StringStats, settings: ProposalSettings) -> list[Candidate]:
    n = s.responses
    if _set_ok(s.values, n, settings):
        assert s.values is not None
        values = tuple(v for v, _ in s.values)
        seen = _shown(f"{v!r} ({c})" for v, c in s.values)
        return [Candidate(OracleKind.STRING_SPECIFIC_VALUES, values, n,
                          f"observed: only {_plural(len(values), 'value')} in {n} responses: {seen}")]
    out: list[Candidate] = []
    if n < settings.all_n:
        return out
    for name, _ in FORMATS:
        if s.format_count(name) == n and not (name == "date" and s.time == n):
            out.append(Candidate(_FORMAT_KINDS[name], None, n,
                                 f"observed: {_FORMAT_WORDS[name]} in all {n} responses"))
    varied = s.values is None or len(s.values) >= settings.min_distinct_lengths
    if s.min_length == s.max_length and s.min_length > 0 and varied:
        out.append(Candidate(OracleKind.STRING_FIXED_LENGTH, s.min_length, n,
                             f"observed: {s.min_length} characters in all {n} responses"))
    return out


def _as_number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)


def _truncated(counts: Counts | None, low: bool, n: int, settings: ProposalSettings) -> int:
    """The responses at the smallest (`low`) or largest value when values pile up there (see the module
    docstring), else 0."""
    if counts is None or len(counts) < 2:
        return 0
    ordered = sorted(((_as_number(v), c) for v, c in counts), reverse=not low)
    at, inward = ordered[0][1], ordered[1][1]
    return at if at >= settings.min_at_bound and at >= settings.bound_share * n and at > inward else 0


def _numbers(s: NumberStats, settings: ProposalSettings) -> list[Candidate]:
    n = s.responses
    if _set_ok(s.values, n, settings):
        assert s.values is not None
        values = tuple(sorted(_as_number(v) for v, _ in s.values))
        seen = _shown(f"{v} ({c})" for v, c in s.values)
        return [Candidate(OracleKind.NUMBER_SPECIFIC_VALUES, values, n,
                          f"observed: only {_plural(len(values), 'value')} in {n} responses: {seen}")]
    out: list[Candidate] = []
    low, high = _truncated(s.values, True, n, settings), _truncated(s.values, False, n, settings)
    if s.min != 0 and low:
        out.append(Candidate(OracleKind.NUMBER_MIN_VALUE, s.min, n,
                             f"observed: at least {s.min} in {n} responses, {low} of them with {s.min}"))
    elif s.min >= 0 and n >= settings.all_n:
        out.append(Candidate(OracleKind.NUMBER_MIN_VALUE, 0, n, f"observed: never negative in {n} responses "
                             f"(smallest {s.min})"))
    if high:
        out.append(Candidate(OracleKind.NUMBER_MAX_VALUE, s.max, n,
                             f"observed: at most {s.max} in {n} responses, {high} of them with {s.max}"))
    return out


def _arrays(a: ArrayStats, numeric_items: bool, settings: ProposalSettings) -> list[Candidate]:
    n = a.responses
    out: list[Candidate] = []
    if _set_ok(a.sizes, n, settings):
        assert a.sizes is not None
        sizes = tuple(sorted(int(v) for v, _ in a.sizes))
        seen = _shown(f"{v} ({c})" for v, c in sorted(a.sizes, key=lambda x: int(x[0])))
        out.append(Candidate(OracleKind.ARRAY_SPECIFIC_SIZES, sizes, n,
                             f"observed: only {_plural(len(sizes), 'size')} in {n} responses: {seen}"))
    else:
        low, high = _truncated(a.sizes, True, n, settings), _truncated(a.sizes, False, n, settings)
        if a.min_size > 0 and low:
            out.append(Candidate(OracleKind.ARRAY_MIN_SIZE, a.min_size, n,
                                 f"observed: at least {a.min_size} elements in {n} responses, {low} of them with "
                                 f"{a.min_size}"))
        if a.max_size > 0 and high:
            out.append(Candidate(OracleKind.ARRAY_MAX_SIZE, a.max_size, n,
                                 f"observed: at most {a.max_size} elements in {n} responses, {high} of them with "
                                 f"{a.max_size}"))
    if numeric_items and a.informative >= settings.all_n:
        for count, kind, word in ((a.ascending, OracleKind.ARRAY_NUMBER_ASC_ORDER, "ascending"),
                                  (a.descending, OracleKind.ARRAY_NUMBER_DESC_ORDER, "descending")):
            if count == n:
                out.append(Candidate(kind, None, n,
                                     f"observed: in {word} order in all {n} responses ({a.informative} with "
                                     "distinct numbers)"))
    return out


def field_candidates(found: FieldObservations, field_type: str, items_type: str | None,
                     settings: ProposalSettings = ProposalSettings()) -> list[Candidate]:
    """The invariants one field's observations support (nothing when its values are not all of its type)."""
    family = "number" if field_type in ("number", "integer") else field_type
    if found.families != {family}:
        return []
    if family == "string" and found.string is not None:
        return _strings(found.string, settings)
    if family == "number" and found.number is not None:
        return _numbers(found.number, settings)
    if family == "boolean" and found.boolean is not None:
        b = found.boolean
        if b.responses >= settings.all_n and (b.true == 0 or b.false == 0):
            kind = OracleKind.BOOLEAN_ALWAYS_TRUE if b.false == 0 else OracleKind.BOOLEAN_ALWAYS_FALSE
            return [Candidate(kind, None, b.responses,
                              f"observed: always {'true' if b.false == 0 else 'false'} in {b.responses} responses")]
        return []
    if family == "array" and found.array is not None:
        return _arrays(found.array, items_type in ("number", "integer"), settings)
    return []


def ready(found: OperationObservations, settings: ProposalSettings) -> bool:
    """Whether an operation has enough observed responses, from enough distinct requests, for proposals."""
    return found.responses >= settings.min_responses and len(found.requests) >= settings.min_requests


def propose(store: ObservationStore, fields: Sequence[ResponseField],
            settings: ProposalSettings = ProposalSettings()) -> tuple[Oracle, ...]:
    """The observed oracles the store supports, in field order, disabled until a reviewer accepts them."""
    out: list[Oracle] = []
    operations: dict[OperationKey, bool] = {}
    for field in fields:
        op = store.operation(field.operation)
        if op is None:
            continue
        if field.operation not in operations:
            operations[field.operation] = ready(op, settings)
        found = op.fields.get(field.field)
        if not operations[field.operation] or found is None:
            continue
        for c in field_candidates(found, field.type, field.facts.items_type, settings):
            out.append(Oracle(field.operation, field.field, c.kind, c.value, OBSERVED, c.reason, enabled=False,
                              operation_id=field.operation_id, evidence=c.evidence))
    return tuple(out)
