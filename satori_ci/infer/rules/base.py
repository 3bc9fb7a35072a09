"""What every rule shares: the Rule record, oracle construction and the evidence a field offers."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

RuleFn = Callable[[ResponseField], list[Oracle]]

SOURCE = "rules"
NUMBER_TYPES = frozenset({"number", "integer"})
STRING = frozenset({"string"})
NUMBERS = NUMBER_TYPES
ARRAY = frozenset({"array"})

PLACEHOLDERS = frozenset({"", "n/a", "na", "none", "null", "nil", "-", "--", "unknown", "undefined", "string"})
"""Example values that say nothing about a field (null-likes and generator defaults)."""


@dataclass(frozen=True)
class Rule:
    """A named inference rule: `apply(field)` returns the oracles the field's evidence implies."""

    name: str
    types: frozenset[str]
    """The field types the rule can infer something for (it is not run on others)."""
    infers: str
    """One line for people: what the rule infers from what."""
    apply: RuleFn


def make(field: ResponseField, kind: OracleKind, value: Any, reason: str) -> Oracle:
    return Oracle(
        operation=field.operation,
        field=field.field,
        kind=kind,
        value=value,
        source=SOURCE,
        reason=reason,
        operation_id=field.operation_id,
    )


_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@lru_cache(maxsize=65536)
def split_words(name: str) -> tuple[str, ...]:
    """`resourceURI` -> (resource, uri); `image_url[]` -> (image, url); `totalSeasons` -> (total, seasons)."""
    return tuple(w.lower() for w in _WORD.findall(name.replace("\\", "")))


def words(field: ResponseField) -> tuple[str, ...]:
    """The words of the field's own name (array and map markers dropped)."""
    return split_words(field.name)


def is_top_level(field: ResponseField) -> bool:
    """A property of the body object itself (`code`, not `data.code`)."""
    return field.field == field.name


def in_hal_links(field: ResponseField) -> bool:
    """Inside a HAL `_links` object, where hrefs are often relative."""
    return field.field.startswith("_links") or "._links." in field.field


_SIGNED_CONTEXT = frozenset({"offset", "offsets", "zone", "timezone", "utc", "gmt", "tz", "delta", "deltas"})


def in_signed_context(field: ResponseField) -> bool:
    """In an object whose own name makes its numbers signed: `offsetAfter.totalSeconds` (a time-zone offset)."""
    path = field.field
    cut = path.rfind(".")
    if cut <= 0:
        return False
    parent = path[:cut]
    return bool(_SIGNED_CONTEXT.intersection(split_words(parent[parent.rfind(".") + 1 :])))


def evidence_key(field: ResponseField) -> Hashable | None:
    """Everything a rule may read about a field; fields with equal keys get the same oracles.

    Rules read the field's path only through `is_top_level`, `in_hal_links` and `in_signed_context`. None
    when a fact (an example object, say) cannot be hashed.
    """
    key = (field.name, field.type, field.facts, field.operation.status, is_top_level(field), in_hal_links(field),
           in_signed_context(field))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def is_number(field: ResponseField) -> bool:
    return field.type in NUMBER_TYPES


def examples(field: ResponseField) -> tuple[Any, ...]:
    """The field's meaningful examples; numbers on a string field are read as the text they stand for.

    A list given as the example of a non-array field (an array's example copied to its items) counts as
    one example per element; a string example wrapped in its own double quotes ('"2020-07-09T00:17:55Z"')
    is read without them.
    """
    if field.facts.example is None and not field.facts.examples:
        return ()
    raw: list[Any] = []
    if field.facts.example is not None:
        raw.append(field.facts.example)
    if field.facts.examples:
        raw.extend(field.facts.examples)
    if field.type != "array":
        raw = [v for value in raw for v in (value if isinstance(value, list) else [value])]
    out: list[Any] = []
    for value in raw:
        if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if isinstance(value, str) and value.strip().lower() in PLACEHOLDERS:
            continue
        if field.type == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if value is not None:
            out.append(value)
    return tuple(out)


_PROSE_EXAMPLE = re.compile(
    r"\b(?:e\.\s?g\.?|for example|for instance|example|such as)\s*[:,]?\s*[\"'`“]?([^\s\"'`”,;()<>]+)",
    re.IGNORECASE,
)
_VALUE_LIKE = re.compile(r"[0-9.@:/]")
"""A token that looks like a value (a host, a date, an address), not a plain word of the sentence."""


def prose_examples(field: ResponseField) -> tuple[str, ...]:
    """Example values quoted in the prose ('for example: s3.amazonaws.com'), trailing stops dropped."""
    out: list[str] = []
    for _, text in texts(field):
        for m in _PROSE_EXAMPLE.finditer(text):
            value = m.group(1).rstrip(".:")
            if _VALUE_LIKE.search(value) and value.lower() not in PLACEHOLDERS:
                out.append(value)
    return tuple(out)


def string_examples(field: ResponseField) -> tuple[str, ...]:
    """The meaningful examples when every one of them is a string, else ()."""
    found = examples(field)
    return found if found and all(isinstance(v, str) for v in found) else ()


def texts(field: ResponseField) -> tuple[tuple[str, str], ...]:
    """The field's prose as (where, text) pairs: its description, then its title."""
    return _texts(field.facts.description, field.facts.title)


_INLINE_TAG = re.compile(r"</?(?:code|b|i|em|strong|a|span|tt|kbd|var|u)\b[^>]*>", re.IGNORECASE)
_BLOCK_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*\b[^>]*>")


def clean(text: str) -> str:
    """Prose without HTML tags, on one line with single spaces."""
    if "<" in text:
        text = _BLOCK_TAG.sub(" ", _INLINE_TAG.sub("", text))
    return " ".join(text.split())


@lru_cache(maxsize=65536)
def _texts(description: str | None, title: str | None) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for where, text in (("description", description), ("title", title)):
        if isinstance(text, str) and text.strip():
            cleaned = clean(text)
            if cleaned:
                out.append((where, cleaned))
    return tuple(out)


def prose(field: ResponseField) -> str:
    """Description and title in one string, for vetoes that look at all of the prose."""
    return " ".join(text for _, text in texts(field))


def quote(text: str, limit: int = 100) -> str:
    """`text` in single quotes, shortened to `limit` characters."""
    text = text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
    return f"'{text}'"


def sentence(text: str, start: int, limit: int = 100) -> str:
    """The quoted sentence of `text` around offset `start`."""
    cut = text.rfind(". ", 0, start)
    begin = cut + 2 if cut >= 0 else 0
    end = text.find(". ", start)
    return quote(text[begin : end + 1 if end >= 0 else len(text)], limit)


def show_examples(values: tuple[Any, ...]) -> str:
    shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in values[:3])
    return f"example {shown}" if len(values) == 1 else f"examples {shown}"


def number(text: str) -> int | float:
    """A decimal literal from a description: an int when it has no fraction."""
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value
