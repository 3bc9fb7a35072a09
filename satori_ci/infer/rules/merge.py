"""How rule-derived oracles are checked against examples, reconciled, and merged with the declared ones."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from satori_ci.infer.declared import allowed_kinds, oracle_sort_key, ordered
from satori_ci.infer.rules.base import examples, prose_examples
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.oracles.predicates import holds, type_ok
from satori_ci.spec.model import ResponseField

K = OracleKind
_LOWER = frozenset({K.NUMBER_MIN_VALUE, K.ARRAY_MIN_SIZE})
_UPPER = frozenset({K.NUMBER_MAX_VALUE, K.ARRAY_MAX_SIZE})
_EXACT = frozenset({K.STRING_SPECIFIC_VALUES, K.STRING_FIXED_LENGTH, K.NUMBER_SPECIFIC_VALUES,
                    K.ARRAY_SPECIFIC_SIZES})
_MOMENTS = frozenset({K.STRING_IS_DATE, K.STRING_IS_TIME})
_FORMATS = frozenset({K.STRING_IS_URL, K.STRING_IS_EMAIL, K.STRING_IS_DATE, K.STRING_IS_TIME})
"""Kinds that an example quoted in the prose ('for example: s3.amazonaws.com') can refute."""
_PAIRS = ((K.NUMBER_MIN_VALUE, K.NUMBER_MAX_VALUE), (K.ARRAY_MIN_SIZE, K.ARRAY_MAX_SIZE))

Named = tuple[str, Oracle]
"""An oracle with the name of the rule that produced it."""


def _show(o: Oracle) -> str:
    return o.kind.value if o.value is None else f"{o.kind.value} {oracle_sort_key(o)[1]}"


def screen(field: ResponseField, found: Iterable[Named], notes: list[str]) -> list[Named]:
    """Drop oracles that do not apply to the field's type or that one of its own examples contradicts.

    For format kinds, examples quoted in the prose count too.
    """
    allowed = allowed_kinds(field.type, field.facts.items_type)
    values = examples(field)
    stated = prose_examples(field) if field.type == "string" else ()
    out: list[Named] = []
    for rule, o in found:
        if o.kind not in allowed:
            continue
        checked = values + stated if o.kind in _FORMATS else values
        bad: list[Any] = [v for v in checked if type_ok(o.kind, v) and not holds(o.kind, o.value, v)]
        if bad:
            notes.append(f"{rule}: dropped {_show(o)}: the example {bad[0]!r} contradicts it")
            continue
        out.append((rule, o))
    return out


def reconcile(found: list[Named], notes: list[str]) -> list[Named]:
    """One oracle per kind: the tightest bound, and nothing where rules disagree on an exact value."""
    by_kind: dict[OracleKind, list[Named]] = {}
    for item in found:
        by_kind.setdefault(item[1].kind, []).append(item)
    out: dict[OracleKind, Named] = {}
    for kind, items in by_kind.items():
        if kind in _LOWER:
            out[kind] = max(items, key=lambda item: item[1].value)
        elif kind in _UPPER:
            out[kind] = min(items, key=lambda item: item[1].value)
        elif kind in _EXACT and len({oracle_sort_key(o)[1] for _, o in items}) > 1:
            notes.append(f"rules disagree on {kind.value}: " + "; ".join(f"{r}: {_show(o)}" for r, o in items))
        else:
            out[kind] = items[0]
    if out.keys() >= _MOMENTS:
        notes.append(f"rules disagree: {out[K.STRING_IS_DATE][0]} says date, {out[K.STRING_IS_TIME][0]} says time")
        del out[K.STRING_IS_DATE], out[K.STRING_IS_TIME]
    _drop_crossed(out, notes)
    return list(out.values())


def _drop_crossed(out: dict[OracleKind, Named], notes: list[str]) -> None:
    for low, high in _PAIRS:
        if low in out and high in out and out[low][1].value > out[high][1].value:
            notes.append(f"dropped crossed bounds {_show(out[low][1])} > {_show(out[high][1])}")
            del out[low], out[high]


def combine(declared: Iterable[Oracle], derived: Iterable[Named], notes: list[str]) -> tuple[Oracle, ...]:
    """Declared oracles, plus the derived ones of kinds the spec does not already state."""
    kept = list(declared)
    kinds = {o.kind for o in kept}
    blocked = kinds | (_MOMENTS if kinds & _MOMENTS else set())
    for rule, o in derived:
        if o.kind in blocked:
            if o.kind in kinds and oracle_sort_key(o)[1] not in {oracle_sort_key(d)[1] for d in kept}:
                notes.append(f"{rule}: {_show(o)} not used: the spec states {o.kind.value}")
            continue
        if _crosses(o, kept):
            notes.append(f"{rule}: {_show(o)} not used: it contradicts a declared bound")
            continue
        kept.append(o)
        kinds.add(o.kind)
    return ordered(kept)


def _crosses(o: Oracle, kept: list[Oracle]) -> bool:
    for low, high in _PAIRS:
        for other in kept:
            if o.kind is low and other.kind is high and o.value > other.value:
                return True
            if o.kind is high and other.kind is low and o.value < other.value:
                return True
    return False
