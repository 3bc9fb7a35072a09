"""Rules that also read other fields: the field's siblings (same object) and namesakes (same name, same API)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from satori_ci.infer.rules.base import clean, make, prose, quote, words
from satori_ci.infer.rules.urls import NOT_ABSOLUTE, NOT_URL_WORDS
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

Known = tuple[ResponseField, tuple[Oracle, ...]]
"""Another field, with the oracles already inferred for it from its own facts."""


@dataclass(frozen=True)
class Context:
    siblings: Sequence[Known]
    """The other fields of the same object (same operation, same parent path)."""
    namesakes: Sequence[Known]
    """The other fields of the same API with the same name."""


@dataclass(frozen=True)
class ContextRule:
    """A rule that also sees other fields and their oracles."""

    name: str
    wants: Callable[[ResponseField], bool]
    """A cheap test: whether the rule may infer anything for this field (context is gathered only then)."""
    infers: str
    apply: Callable[[ResponseField, Context], list[Oracle]]


_RETURNED_COUNT = re.compile(r"\bnumber\s+of\s+([a-z][\w-]*)\s+returned\b", re.IGNORECASE)
_RETURNED = re.compile(r"\breturned\b", re.IGNORECASE)


def _lists_returned(field: ResponseField) -> bool:
    description = field.facts.description
    return field.type == "array" and isinstance(description, str) and _RETURNED.search(description) is not None


def returned_items_max(field: ResponseField, context: Context) -> list[Oracle]:
    """The list of returned X holds at most N when its sibling 'number of X returned' is at most N."""
    if not _lists_returned(field):
        return []
    text = clean(field.facts.description or "")
    for sibling, oracles in context.siblings:
        desc = clean(sibling.facts.description or "")
        m = _RETURNED_COUNT.search(desc)
        if sibling.type != "integer" or m is None:
            continue
        if not re.search(rf"\breturned\s+{re.escape(m.group(1))}\b", text, re.IGNORECASE):
            continue
        bounds = [o.value for o in oracles if o.kind is OracleKind.NUMBER_MAX_VALUE]
        if len(bounds) == 1 and float(bounds[0]).is_integer():
            reason = (f"sibling '{sibling.name}' {quote(desc)} bounds this list of returned {m.group(1)}: "
                      f"at most {int(bounds[0])} entries")
            return [make(field, OracleKind.ARRAY_MAX_SIZE, int(bounds[0]), reason)]
    return []


def _uri_named(field: ResponseField) -> bool:
    w = words(field)
    return field.type == "string" and bool(w) and w[-1] == "uri"


def uri_namesake(field: ResponseField, context: Context) -> list[Oracle]:
    """A `*URI` field is an absolute URL when a field of the same name in the API is stated to be one.

    URI names alone are not enough: many are paths, URNs or ARNs.
    """
    if not _uri_named(field) or NOT_URL_WORDS & set(words(field)) or NOT_ABSOLUTE.search(prose(field)):
        return []
    for other, oracles in context.namesakes:
        evidence = next((o for o in oracles if o.kind is OracleKind.STRING_IS_URL), None)
        if evidence is not None:
            reason = (f"name '{field.name}': the same name is an absolute URL at {other.field} "
                      f"({evidence.reason})")
            return [make(field, OracleKind.STRING_IS_URL, None, reason)]
    return []


CONTEXT_RULES = (
    ContextRule("returned-items-max", _lists_returned, "array_max_size N for 'the list of returned X' when the "
                "sibling 'number of X returned' is <= N", returned_items_max),
    ContextRule("uri-namesake", _uri_named, "string_is_url for a *URI name that is a URL elsewhere in the API "
                "(by format, description or example)", uri_namesake),
)
