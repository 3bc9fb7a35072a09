"""Facts of a field from its merged schema keywords, and the fingerprint over them."""

from __future__ import annotations

import hashlib
from typing import Any

from satori_ci.spec.documents import dumps_stable
from satori_ci.spec.model import FieldFacts

FINGERPRINT_VERSION = "1"
"""Bump when what the fingerprint covers changes: every oracle is then re-inferred once."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def _exclusive(value: Any) -> int | float | bool | None:
    return value if isinstance(value, int | float) else None


def _values(value: Any) -> tuple[Any, ...] | None:
    return tuple(value) if isinstance(value, list) else None


def facts_from_keywords(keywords: dict[str, Any], nullable: bool, items_type: str | None) -> FieldFacts:
    """The facts inference may read, from a schema's keywords (refs and composition merged)."""
    get = keywords.get
    example = get("example", get("x-example"))
    unique_items = get("uniqueItems")
    # GitHub's spec has 6,000 field states: their facts are filled directly, in field order, rather than
    # through the frozen dataclass's generated __init__ (twenty object.__setattr__ calls each)
    facts: FieldFacts = object.__new__(FieldFacts)
    facts.__dict__.update(  # most keywords are absent: their readers are called only for those present
        description=None if (v := get("description")) is None else _text(v),
        title=None if (v := get("title")) is None else _text(v),
        example=example,
        examples=None if (v := get("examples")) is None else _values(v),
        enum=None if (v := get("enum")) is None else _values(v),
        const=get("const"),
        format=None if (v := get("format")) is None else _text(v),
        pattern=None if (v := get("pattern")) is None else _text(v),
        minimum=None if (v := get("minimum")) is None else _number(v),
        maximum=None if (v := get("maximum")) is None else _number(v),
        exclusive_minimum=None if (v := get("exclusiveMinimum")) is None else _exclusive(v),
        exclusive_maximum=None if (v := get("exclusiveMaximum")) is None else _exclusive(v),
        min_length=None if (v := get("minLength")) is None else _count(v),
        max_length=None if (v := get("maxLength")) is None else _count(v),
        min_items=None if (v := get("minItems")) is None else _count(v),
        max_items=None if (v := get("maxItems")) is None else _count(v),
        unique_items=unique_items if isinstance(unique_items, bool) else None,
        default=get("default"),
        nullable=True if nullable else None,
        items_type=items_type,
    )
    return facts


def fingerprint(name: str, field_type: str, facts: FieldFacts) -> str:
    """A stable hash of exactly what inference reads about a field.

    Covers the field's own name (last path segment with its `[]`/`{}` markers), its type and
    every fact (description, examples, enum, format, bounds, lengths, sizes, default, nullable,
    item type). Leaves out the API title, the operation, the path to the field and the source
    location: a renamed API or a field moved to another operation keeps its reviewed oracles,
    while any change to what the field says about itself asks for inference again.
    """
    return fingerprint_of(fingerprint_payload(name, field_type, facts))


def fingerprint_payload(name: str, field_type: str, facts: FieldFacts) -> str:
    """The text `fingerprint` hashes: the field's name, type and facts as canonical JSON."""
    return dumps_stable([FINGERPRINT_VERSION, name, field_type, facts.as_dict()])


def fingerprint_of(payload: str) -> str:
    """The fingerprint of a `fingerprint_payload`."""
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]
