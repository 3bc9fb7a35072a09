"""The `declared` backend: oracles that the schema's own keywords state (enum, const, format, bounds)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from satori_ci.infer.interface import BackendRun, Inferred, OnInferred
from satori_ci.oracles.kinds import OracleKind, kinds_for_type
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import FieldFacts, ResponseField

SOURCE = "declared"
K = OracleKind

_FORMATS = {
    "uri": K.STRING_IS_URL,
    "url": K.STRING_IS_URL,
    "email": K.STRING_IS_EMAIL,
    "idn-email": K.STRING_IS_EMAIL,
    "date": K.STRING_IS_DATE,
    "date-time": K.STRING_IS_TIME,
    "time": K.STRING_IS_TIME,
}
_NUMERIC_STRING_FORMATS = frozenset({"int32", "int64", "uint32", "uint64", "integer", "decimal"})

_CLASSES = r"(?:\\d|\\w|\[(?:[A-Za-z0-9_]-[A-Za-z0-9_]|\\d|\\w|[A-Za-z0-9_])+\])"
"""ASCII character classes only: `.` or a negated class could match half of a UTF-16 surrogate pair in JS."""
_FIXED = re.compile(rf"\^({_CLASSES})\{{([0-9]+)\}}\$")
_DIGITS = re.compile(r"\^(?:\[\+-\]\?|-\?|\\-\?)?(?:\\d|\[0-9\])(?:\+|\{([0-9]+)\}|\{[0-9]+,[0-9]*\})\$")
_ALTERNATION = re.compile(r"\^\((?:\?:)?([A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)+)\)\$")


def _is_number(v: Any) -> bool:
    """A finite number: a bound or enum value of infinity or NaN (`1e400`, `.inf`, `NaN` in a spec) states no
    oracle any file could hold."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def show(value: Any) -> str:
    """A keyword value as the reasons quote it: `[True, False]`, `5`, `'x'`."""
    if isinstance(value, list | tuple):
        items = [str(v) for v in value]
        body = ", ".join(items[:12]) + (f", … ({len(items)} values)" if len(items) > 12 else "")
        return f"[{body}]"
    return f"'{value}'" if isinstance(value, str) else str(value)


_KIND_ORDER = {kind: i for i, kind in enumerate(OracleKind)}


def oracle_sort_key(oracle: Oracle) -> tuple[int, str]:
    """Kind order of OracleKind, then value."""
    value = "" if oracle.value is None else json.dumps(oracle.value, sort_keys=True, default=str)
    return (_KIND_ORDER[oracle.kind], value)


@lru_cache(maxsize=256)
def allowed_kinds(field_type: str, items_type: str | None) -> frozenset[OracleKind]:
    """The kinds that apply to a field of this type (cached `kinds_for_type`)."""
    return frozenset(kinds_for_type(field_type, items_type))


def ordered(oracles: Iterable[Oracle]) -> tuple[Oracle, ...]:
    return tuple(sorted(oracles, key=oracle_sort_key))


_NO_FACTS = FieldFacts()


class _Builder:
    def __init__(self, field: ResponseField) -> None:
        self.field = field
        self.out: list[Oracle] = []

    def add(self, kind: OracleKind, value: Any, reason: str) -> None:
        self.out.append(
            Oracle(
                operation=self.field.operation,
                field=self.field.field,
                kind=kind,
                value=value,
                source=SOURCE,
                reason=reason,
                operation_id=self.field.operation_id,
            )
        )


def _values(field: ResponseField, b: _Builder, values: tuple[Any, ...], keyword: str) -> None:
    """Enum or const values, nulls dropped; nothing when an item's type does not match the field's."""
    items = tuple(dict.fromkeys(v for v in values if v is not None))
    if not items:
        return
    reason = f"spec: {keyword} {show(list(values)) if keyword == 'enum' else show(values[0])}"
    if field.type == "string" and all(isinstance(v, str) for v in items):
        b.add(K.STRING_SPECIFIC_VALUES, items, reason)
    elif field.type in ("number", "integer") and all(_is_number(v) for v in items):
        b.add(K.NUMBER_SPECIFIC_VALUES, items, reason)
    elif field.type == "boolean" and len(items) == 1 and isinstance(items[0], bool):
        b.add(K.BOOLEAN_ALWAYS_TRUE if items[0] else K.BOOLEAN_ALWAYS_FALSE, None, reason)


def _bound(field: ResponseField, plain: Any, exclusive: Any, lower: bool) -> tuple[Any, str] | None:
    """The >= / <= bound stated by minimum/maximum and their exclusive forms, when it is exact."""
    word = "minimum" if lower else "maximum"
    xword = "exclusiveMinimum" if lower else "exclusiveMaximum"
    step = 1 if lower else -1
    integer = field.type == "integer"
    candidates: list[tuple[Any, str]] = []
    if isinstance(exclusive, bool):
        if _is_number(plain) and not exclusive:
            candidates.append((plain, f"spec: {word} {plain}"))
        elif _is_number(plain) and integer and float(plain).is_integer():
            candidates.append((int(plain) + step, f"spec: {word} {plain} with {xword}: true (integer)"))
    else:
        if _is_number(plain):
            candidates.append((plain, f"spec: {word} {plain}"))
        if _is_number(exclusive) and integer and float(exclusive).is_integer():
            candidates.append((int(exclusive) + step, f"spec: {xword} {exclusive} (integer)"))
    if not candidates:
        return None
    return max(candidates, key=lambda c: c[0]) if lower else min(candidates, key=lambda c: c[0])


def _pattern(field: ResponseField, b: _Builder, pattern: str) -> None:
    """Only patterns that are trivially an oracle: `^\\d+$`, `^[A-Z]{2}$`, `^(a|b)$`."""
    reason = f"spec: pattern '{pattern}'"
    m = _DIGITS.fullmatch(pattern)
    if m:
        b.add(K.STRING_IS_NUMERIC, None, reason)
        if m.group(1):
            b.add(K.STRING_FIXED_LENGTH, int(m.group(1)), reason)
        return
    m = _FIXED.fullmatch(pattern)
    if m and int(m.group(2)) > 0:
        b.add(K.STRING_FIXED_LENGTH, int(m.group(2)), reason)
        return
    m = _ALTERNATION.fullmatch(pattern)
    if m and not any(o.kind is K.STRING_SPECIFIC_VALUES for o in b.out):
        b.add(K.STRING_SPECIFIC_VALUES, tuple(dict.fromkeys(m.group(1).split("|"))), reason)


def _string(field: ResponseField, b: _Builder) -> None:
    f = field.facts
    fmt = (f.format or "").lower()
    if fmt in _FORMATS:
        b.add(_FORMATS[fmt], None, f"spec: format {f.format}")
    elif fmt in _NUMERIC_STRING_FORMATS:
        b.add(K.STRING_IS_NUMERIC, None, f"spec: format {f.format} on a string")
    if f.min_length is not None and f.min_length == f.max_length and f.min_length > 0:
        b.add(K.STRING_FIXED_LENGTH, f.min_length, f"spec: minLength = maxLength = {f.min_length}")
    if f.pattern:
        _pattern(field, b, f.pattern)


def declared_oracles(field: ResponseField) -> tuple[Oracle, ...]:
    """The oracles the field's schema keywords state, deduplicated and in the canonical order."""
    f = field.facts
    if f == _NO_FACTS:
        return ()
    b = _Builder(field)
    if f.enum is not None:
        _values(field, b, f.enum, "enum")
    if f.const is not None:
        _values(field, b, (f.const,), "const")
    if field.type == "string":
        _string(field, b)
    elif field.type in ("number", "integer"):
        for lower, kind in ((True, K.NUMBER_MIN_VALUE), (False, K.NUMBER_MAX_VALUE)):
            plain = f.minimum if lower else f.maximum
            exclusive = f.exclusive_minimum if lower else f.exclusive_maximum
            bound = _bound(field, plain, exclusive, lower)
            if bound is not None:
                b.add(kind, bound[0], bound[1])
    elif field.type == "array":
        if f.min_items is not None and f.min_items > 0:
            b.add(K.ARRAY_MIN_SIZE, f.min_items, f"spec: minItems {f.min_items}")
        if f.max_items is not None and f.max_items >= 0:
            b.add(K.ARRAY_MAX_SIZE, f.max_items, f"spec: maxItems {f.max_items}")
    return dedupe(field, b.out)


_MOMENTS = frozenset({K.STRING_IS_DATE, K.STRING_IS_TIME})


def dedupe(field: ResponseField, oracles: Iterable[Oracle]) -> tuple[Oracle, ...]:
    """Applicable oracles only, the first of each kind kept (enum before const before pattern), sorted.

    Date and time count as one kind: the first of them is kept (contract §2: never both).
    """
    allowed = allowed_kinds(field.type, field.facts.items_type)
    seen: dict[OracleKind, Oracle] = {}
    for o in oracles:
        if o.kind in allowed and not (o.kind in _MOMENTS and _MOMENTS & seen.keys()):
            seen.setdefault(o.kind, o)
    return ordered(seen.values())


def restate(o: Oracle, field: ResponseField) -> Oracle:
    """An oracle found for an equal field elsewhere, restated for this field."""
    return Oracle(operation=field.operation, field=field.field, kind=o.kind, value=o.value, source=o.source,
                  reason=o.reason, enabled=o.enabled, operation_id=field.operation_id)


def _facts_key(field: ResponseField) -> Hashable | None:
    key = (field.type, field.facts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


class DeclaredBackend:
    """Oracles stated by the schema's keywords only."""

    name = "declared"

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        results: list[Inferred] = []
        seen: dict[Hashable, tuple[Oracle, ...]] = {}
        for field in fields:
            key = _facts_key(field)
            if key is not None and key in seen:
                oracles = tuple(restate(o, field) for o in seen[key])
            else:
                oracles = declared_oracles(field)
                if key is not None:
                    seen[key] = oracles
            inferred = Inferred(field=field, oracles=oracles)
            results.append(inferred)
            if on_inferred is not None:
                on_inferred(inferred)
        return BackendRun(results=tuple(results))
