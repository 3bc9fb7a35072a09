"""Rules for closed value sets written in prose: "one of 'album', 'single', or 'compilation'"."""

from __future__ import annotations

import re

from satori_ci.infer.rules.base import NUMBERS, STRING, Rule, is_number, make, number, sentence, texts
from satori_ci.oracles import predicates as checks
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

K = OracleKind
_I = re.IGNORECASE

_QUOTED_ITEM = r"""(?:'[^'\n]{1,60}'|"[^"\n]{1,60}"|`[^`\n]{1,60}`|“[^”\n]{1,60}”|‘[^’\n]{1,60}’)"""
_BARE_ITEM = r"""[^\s,;:()'"`“”‘’|/]{1,40}"""
_SEP = r"(?:\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|\s*/\s*|\s*\|\s*)"
_TRIGGER = (
    r"(?:\bone\s+of(?:\s+the\s+following)?(?:\s+values)?|\bpossible\s+values\s+(?:are|is)|\bpossible\s+values|"
    r"\bvalid\s+values\s+(?:are|is)|\bvalid\s+values|\ballowed\s+values\s+(?:are|is)|\ballowed\s+values|"
    r"\b(?:is|be|are|either)\s+either|\beither|\bvalues?\s+(?:is|are))"
)
_QUOTED_LIST = re.compile(rf"{_TRIGGER}\s*:?\s*({_QUOTED_ITEM}(?:{_SEP}{_QUOTED_ITEM})+)(?=\s*(?:[.;)]|$))", _I)
_BARE_LIST = re.compile(
    rf"(?:\bone\s+of|\bpossible\s+values\s+are|\bvalid\s+values\s+are|\ballowed\s+values\s+are|\bis\s+either)"
    rf"\s*:?\s*({_BARE_ITEM}(?:{_SEP}{_BARE_ITEM})+?)(?=\.?\s*(?:[;)]|\.\s|\.$|$))",
    _I,
)
_SPLIT = re.compile(_SEP, _I)
_QUOTED = re.compile(_QUOTED_ITEM)
_OPEN_SET = re.compile(
    r"\b(?:e\.g\.?|eg\.|for example|for instance|such as|including|includes?|like|among others|etc\.?|"
    r"and more|or more|and so on|not limited to|examples?|sample|typically|usually|may also|other values|"
    r"future|new values|could be added|non-exhaustive|at least)\b|\.\.\.|…",
    _I,
)
_CONDITIONAL = re.compile(r"\b(?:if|when|after|once|unless|while|before|until|whenever|only|except)\b", _I)
"""A list that holds only under a condition ('After setup, either ...') is not the field's whole set."""
_EXPLAINED = re.compile(r"=>|->|=|:\s|\s-\s")
"""An item that glosses a value ('a => ACTIVE') rather than being one."""
_VAGUE_ITEMS = frozenset({"null", "empty", "none", "blank", "omitted", "missing", "absent", "undefined",
                          "nil", "the", "a", "an", "any", "other", "more", "others", "etc", "not", "both"})


def _items(raw: str) -> tuple[str, ...] | None:
    """The listed values; None when an item is vague ('null', 'other') or glosses a value ('a => ACTIVE')."""
    raw = raw.strip()
    if raw[:1] in "'\"`“‘":
        items = [q[1:-1] for q in _QUOTED.findall(raw)]
    else:
        items = [p.strip() for p in _SPLIT.split(raw) if p.strip()]
        if any(item.lower() in _VAGUE_ITEMS for item in items):
            return None
    if any(_EXPLAINED.search(item) for item in items):
        return None
    unique = tuple(dict.fromkeys(items))
    return unique if len(unique) >= 2 else None


def _sentence(text: str, start: int) -> str:
    """The list's own sentence (an 'e.g.' may end it early: that only makes the veto stricter elsewhere)."""
    begin = text.rfind(". ", 0, start)
    end = text.find(". ", start)
    return text[begin + 1 if begin >= 0 else 0 : end if end >= 0 else len(text)]


def _around(text: str, start: int) -> str:
    """The list's sentence, and up to 60 characters before it (an 'e.g.' there ends no sentence)."""
    end = text.find(". ", start)
    return text[max(0, start - 60) : end if end >= 0 else len(text)]


def _find_list(text: str) -> tuple[tuple[str, ...], int] | None:
    for pattern in (_QUOTED_LIST, _BARE_LIST):
        for m in pattern.finditer(text):
            raw = m.group(1)
            if pattern is _BARE_LIST:
                raw = raw.rstrip(".")
            if _OPEN_SET.search(_around(text, m.start())) or _CONDITIONAL.search(_sentence(text, m.start())):
                continue
            items = _items(raw)
            if items is not None:
                return items, m.start()
    return None


def values_description(field: ResponseField) -> list[Oracle]:
    """'one of 'album', 'single', or 'compilation'' / 'Value is one of $, $$, $$$' (not 'e.g.' lists)."""
    if field.type != "string" and not is_number(field):
        return []
    for where, text in texts(field):
        found = _find_list(text)
        if found is None:
            continue
        items, start = found
        reason = f"{where} {sentence(text, start, 140)}: a closed set of values"
        if field.type == "string":
            return [make(field, K.STRING_SPECIFIC_VALUES, items, reason)]
        if not all(checks.is_numeric(v) for v in items):
            return []
        return [make(field, K.NUMBER_SPECIFIC_VALUES, tuple(number(v) for v in items), reason)]
    return []


RULES = (
    Rule(
        "values-description",
        STRING | NUMBERS,
        "string/number_specific_values from 'one of a, b or c' (not 'e.g.' lists)",
        values_description,
    ),
)
