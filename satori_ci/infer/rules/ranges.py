"""Rules for bounds stated in prose: 'ranges from 1 to 5', 'between X and Y', 'up to N', 'non-negative'."""

from __future__ import annotations

import re
from typing import Any

from satori_ci.infer.rules.base import ARRAY, NUMBERS, Rule, is_number, make, number, sentence, texts, words
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

K = OracleKind
_I = re.IGNORECASE

NUM = r"(?<![\w.])(-?[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|-?[0-9]+(?:\.[0-9]+)?)(?![0-9]|\.[0-9]|,[0-9]{3}(?![0-9]))"
"""A decimal literal, thousands separators allowed ('43,200'), never the head of a longer number."""
_PLAIN = r"(-?[0-9]+(?:\.[0-9]+)?)"
_UNIT_WORDS = """
character characters char chars digit digits letter letters byte bytes kb mb gb tb bit bits decimal decimals
place places word words line lines second seconds sec secs s ms millisecond milliseconds minute minutes min
mins hour hours hr hrs h day days week weeks month months year years km m meter meters metre metres mile
miles mi ft feet foot cm mm kg g lb lbs times per of x px pixels kbps mbps
"""
UNITS = frozenset(_UNIT_WORDS.split())

_RANGES = (
    re.compile(rf"\b(?:between|from|ranges?\s+(?:from|between)|in\s+the\s+range(?:\s+of)?|range\s+of)\s+{NUM}"
               rf"(?:\s+(?:and|to|through)\s+|\s*[-–]\s*){NUM}", _I),
    re.compile(rf"\(\s*{NUM}\s*(?:-|–|to|\.\.)\s*{NUM}\s*\)", _I),
    re.compile(rf"(?:^|\s)\[\s*{_PLAIN}\s*(?:,|\.\.)\s*{_PLAIN}\s*\]"),
)
_MAX = re.compile(rf"(?:\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|maximum\s+(?:value\s+)?"
                  rf"(?:is|of)|cannot\s+exceed|must\s+not\s+exceed|never\s+exceeds?|less\s+than\s+or\s+equal\s+to|"
                  rf"up\s+to)|<=|≤)\s*{NUM}", _I)
_MIN = re.compile(rf"(?:\b(?:at\s+least|no\s+less\s+than|not\s+less\s+than|a\s+minimum\s+of|minimum\s+(?:value\s+)?"
                  rf"(?:is|of)|greater\s+than\s+or\s+equal\s+to)|>=|≥)\s*{NUM}", _I)
_BOUND_END = re.compile(r"\s*(?:[().,;:]|$|(?:inclusive|and|or)\b)", _I)
"""What may follow a bound on a number: the end of a clause, not a noun that says what is counted."""
_NON_NEGATIVE = re.compile(r"\b(?:non-?negative|non negative|zero or (?:more|greater|positive))\b", _I)
_POSITIVE = re.compile(r"\b(?:(?:always|is|be|must be)\s+positive|positive\s+(?:integer|number|whole number|"
                       r"count)|greater than zero|natural number)\b", _I)
_NEGATIVE = re.compile(r"\b(?:negative|non-?positive)\b", _I)
_OTHER_VALUES = (
    re.compile(rf"{NUM}\s+(?:if|when|means|indicates|denotes|for\s+unknown|is\s+returned|to\s+(?:specify|indicate|"
               rf"disable|mean))\b", _I),
    re.compile(rf"\bor\s+{NUM}(?=\s|[.,;)]|$)", _I),
    re.compile(rf"\bdefaults?\s+(?:value\s+)?(?:is\s+|of\s+|to\s+)?{NUM}", _I),
)
"""Values the prose allows besides a stated range: '0 if unknown', 'or -1', 'defaults to 0'."""
_EXAMPLE_CUE = re.compile(r"\b(?:e\.\s?g|for example|for instance|such as|default)\b", _I)
_NEXT_WORD = re.compile(r"\s*([A-Za-z]+)")
_NEXT_WORDS = re.compile(r"\s*(?:([A-Za-z][\w-]*)\s*){1,4}")

_ARRAY_MAX = re.compile(rf"\b(?:up\s+to|at\s+most|no\s+more\s+than|a\s+maximum\s+of|maximum\s+of|max\.?\s+of)\s+{NUM}",
                        _I)
_ARRAY_MIN = re.compile(rf"\b(?:at\s+least|a\s+minimum\s+of|minimum\s+of|no\s+fewer\s+than|no\s+less\s+than)\s+{NUM}",
                        _I)
_ELEMENT_NOUNS = frozenset({"item", "element", "entry", "entrie", "value", "result", "record", "object"})
_ORDER = re.compile(r"\b(?:sorted|ordered|arranged|in)\s+(?:in\s+|by\s+\w+\s+(?:in\s+)?)?(ascending|increasing|"
                    r"descending|decreasing)(?:\s+order)?\b", _I)


def _value(text: str) -> int | float:
    return number(text.replace(",", ""))


def _unit_follows(text: str, end: int) -> bool:
    if text[end : end + 1] == "%":
        return False
    m = _NEXT_WORD.match(text, end)
    return m is not None and m.group(1).lower() in UNITS


def _other_values(text: str) -> list[int | float]:
    return [_value(m.group(1)) for pattern in _OTHER_VALUES for m in pattern.finditer(text)]


def _cued(text: str, start: int) -> bool:
    """The bound sits in an example or a default (same sentence), not in a statement about every value."""
    begin = max(0, start - 80, text.rfind(". ", 0, start) + 1)
    return _EXAMPLE_CUE.search(text, begin, start) is not None


def _range(field: ResponseField) -> list[Oracle]:
    for where, text in texts(field):
        found: dict[tuple[Any, Any], int] = {}
        for pattern in _RANGES:
            for m in pattern.finditer(text):
                lo, hi = _value(m.group(1)), _value(m.group(2))
                if lo < hi and not _unit_follows(text, m.end()) and not _cued(text, m.start()):
                    found.setdefault((lo, hi), m.start())
        if len(found) != 1:
            continue
        (lo, hi), start = next(iter(found.items()))
        if any(v < lo or v > hi for v in _other_values(text)):
            continue
        reason = f"{where} {sentence(text, start)}: the value is in [{lo}, {hi}]"
        return [make(field, K.NUMBER_MIN_VALUE, lo, reason), make(field, K.NUMBER_MAX_VALUE, hi, reason)]
    return []


def _one_bound(field: ResponseField, pattern: re.Pattern[str], lower: bool) -> list[Oracle]:
    kind = K.NUMBER_MIN_VALUE if lower else K.NUMBER_MAX_VALUE
    for where, text in texts(field):
        values: dict[int | float, int] = {}
        for m in pattern.finditer(text):
            if _BOUND_END.match(text, m.end()) and not _cued(text, m.start()):
                values.setdefault(_value(m.group(1)), m.start())
        if len(values) != 1:
            continue
        value, start = next(iter(values.items()))
        if any((v < value) if lower else (v > value) for v in _other_values(text)):
            continue
        word = ">=" if lower else "<="
        return [make(field, kind, value, f"{where} {sentence(text, start)}: the value is {word} {value}")]
    return []


def bounds_description(field: ResponseField) -> list[Oracle]:
    """'ranges from 1 to 5', 'between 0 and 100', '(0-100)', '(up to 20)', 'at least 1.' bound a number."""
    if not is_number(field):
        return []
    found = _range(field)
    kinds = {o.kind for o in found}
    if K.NUMBER_MIN_VALUE not in kinds:
        found += _one_bound(field, _MIN, lower=True)
    if K.NUMBER_MAX_VALUE not in kinds:
        found += _one_bound(field, _MAX, lower=False)
    return found


def non_negative(field: ResponseField) -> list[Oracle]:
    """'non-negative' -> >= 0; 'positive integer' on an integer -> >= 1."""
    if not is_number(field):
        return []
    for where, text in texts(field):
        m = _NON_NEGATIVE.search(text)
        if m and not _NEGATIVE.search(_NON_NEGATIVE.sub("", text)) and not any(v < 0 for v in _other_values(text)):
            return [make(field, K.NUMBER_MIN_VALUE, 0, f"{where} {sentence(text, m.start())}: the value is >= 0")]
        m = _POSITIVE.search(text)
        if m and field.type == "integer" and not _NEGATIVE.search(text) and not any(v < 1 for v in _other_values(text)):
            return [make(field, K.NUMBER_MIN_VALUE, 1, f"{where} {sentence(text, m.start())}: a positive integer "
                         "is >= 1")]
    return []


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") else word


def _counts_elements(field: ResponseField, text: str, end: int) -> bool:
    """What follows 'up to N' is the end of a clause or names the array's elements ('up to 5 tags' on `tags`)."""
    if _BOUND_END.match(text, end):
        return True
    m = _NEXT_WORDS.match(text, end)
    if m is None:
        return False
    following = [_stem(w) for w in re.findall(r"[A-Za-z][\w-]*", m.group(0))]
    if following and following[0] in UNITS:
        return False
    own = {_stem(w) for w in words(field)}
    return any(w in own or w in _ELEMENT_NOUNS for w in following)


def array_size_description(field: ResponseField) -> list[Oracle]:
    """'(up to 50)', 'up to 5 tags' on `tags`, 'at least 1 item' bound an array's size."""
    if field.type != "array":
        return []
    out: list[Oracle] = []
    for kind, pattern in ((K.ARRAY_MIN_SIZE, _ARRAY_MIN), (K.ARRAY_MAX_SIZE, _ARRAY_MAX)):
        for where, text in texts(field):
            sizes: dict[Any, int] = {}
            for m in pattern.finditer(text):
                if text[m.end() : m.end() + 1] == "%" or "each" in text[max(0, m.start() - 12) : m.start()].lower():
                    continue
                if _counts_elements(field, text, m.end()) and not _cued(text, m.start()):
                    sizes.setdefault(_value(m.group(1)), m.start())
            if len(sizes) != 1:
                continue
            size, start = next(iter(sizes.items()))
            if isinstance(size, int) and (size > 0 or kind is K.ARRAY_MAX_SIZE):
                word = ">=" if kind is K.ARRAY_MIN_SIZE else "<="
                out.append(make(field, kind, size, f"{where} {sentence(text, start)}: the array holds {word} {size}"))
                break
    return out


def order_description(field: ResponseField) -> list[Oracle]:
    """'sorted in ascending order' on an array of numbers."""
    if field.type != "array" or field.facts.items_type not in ("number", "integer"):
        return []
    for where, text in texts(field):
        directions = {m.group(1).lower() for m in _ORDER.finditer(text)}
        up, down = directions & {"ascending", "increasing"}, directions & {"descending", "decreasing"}
        m = _ORDER.search(text)
        if m is not None and bool(up) != bool(down):
            kind = K.ARRAY_NUMBER_ASC_ORDER if up else K.ARRAY_NUMBER_DESC_ORDER
            return [make(field, kind, None, f"{where} {sentence(text, m.start())}: the numbers are in that order")]
    return []


RULES = (
    Rule(
        "bounds-description",
        NUMBERS,
        "number_min_value/number_max_value from 'between X and Y', '(0-100)', '(up to N)', 'at least N.'",
        bounds_description,
    ),
    Rule(
        "non-negative",
        NUMBERS,
        "number_min_value 0 ('non-negative') or 1 ('positive integer')",
        non_negative,
    ),
    Rule(
        "array-size-description",
        ARRAY,
        "array_min_size/array_max_size from 'up to N <elements>', 'at least N <elements>'",
        array_size_description,
    ),
    Rule(
        "order-description",
        ARRAY,
        "array_number_asc_order/desc_order from 'sorted in ascending order'",
        order_description,
    ),
)
