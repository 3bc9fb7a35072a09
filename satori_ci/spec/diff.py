"""Field-by-field diff of two versions of a spec: added, removed, changed, moved, unchanged."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from satori_ci.spec.model import ResponseField

FieldKey = tuple[str, str, str, str]


def field_key(field: ResponseField) -> FieldKey:
    return (field.operation.method, field.operation.path, field.operation.status, field.field)


@dataclass(frozen=True)
class ChangedField:
    base: ResponseField
    head: ResponseField
    changes: tuple[str, ...]
    """Readable, e.g. `description changed`, `enum gained 'custom'`."""


@dataclass(frozen=True)
class MovedField:
    """Same fingerprint under a new operation or path: its oracles can be reused."""

    base: ResponseField
    head: ResponseField


@dataclass(frozen=True)
class FieldDiff:
    added: tuple[ResponseField, ...]
    removed: tuple[ResponseField, ...]
    changed: tuple[ChangedField, ...]
    moved: tuple[MovedField, ...]
    unchanged: int

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.moved)

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "removed": len(self.removed), "changed": len(self.changed),
                "moved": len(self.moved), "unchanged": self.unchanged}


def diff_fields(base: Iterable[ResponseField], head: Iterable[ResponseField]) -> FieldDiff:
    """Compare two field lists; results follow the head's order (removed: the base's order)."""
    base_by_key = {field_key(f): f for f in base}
    head_list = list(head)
    head_keys = {field_key(f) for f in head_list}
    changed: list[ChangedField] = []
    unchanged = 0
    fresh: list[ResponseField] = []
    for field in head_list:
        old = base_by_key.get(field_key(field))
        if old is None:
            fresh.append(field)
        elif old.fingerprint == field.fingerprint:
            unchanged += 1
        else:
            changed.append(ChangedField(old, field, describe_changes(old, field)))
    gone = [f for k, f in base_by_key.items() if k not in head_keys]
    moved, added, removed = _pair_moves(gone, fresh)
    return FieldDiff(tuple(added), tuple(removed), tuple(changed), tuple(moved), unchanged)


def _pair_moves(gone: list[ResponseField], fresh: list[ResponseField]
                ) -> tuple[list[MovedField], list[ResponseField], list[ResponseField]]:
    """Pair removed and added fields with equal fingerprints, same field path first."""
    pool: dict[str, list[ResponseField]] = defaultdict(list)
    for field in gone:
        pool[field.fingerprint].append(field)
    moved: list[MovedField] = []
    added: list[ResponseField] = []
    taken: set[int] = set()
    for field in fresh:
        candidates = [c for c in pool.get(field.fingerprint, ()) if id(c) not in taken]
        if not candidates:
            added.append(field)
            continue
        same_path = [c for c in candidates if c.field == field.field]
        match = (same_path or candidates)[0]
        taken.add(id(match))
        moved.append(MovedField(match, field))
    removed = [f for f in gone if id(f) not in taken]
    return moved, added, removed


def _facts_with_type(field: ResponseField) -> dict[str, Any]:
    return {"type": field.type, **field.facts.as_dict()}


def describe_changes(base: ResponseField, head: ResponseField) -> tuple[str, ...]:
    """What differs between two versions of one field, in words a reviewer reads."""
    from deepdiff import DeepDiff  # imported when first needed: ~0.1 s of start-up for every command

    old, new = _facts_with_type(base), _facts_with_type(head)
    tree = DeepDiff(old, new, ignore_order=True, view="tree", verbose_level=2)
    notes: list[str] = []
    for report, items in tree.items():
        for item in items:
            notes.append(_sentence(report, item.path(output_format="list"), item.t1, item.t2))
    if base.name != head.name:
        notes.append(f"name changed from {_short(base.name)} to {_short(head.name)}")
    return tuple(sorted(dict.fromkeys(notes))) or ("fingerprint changed",)


def _sentence(report: str, path: list[Any], old: Any, new: Any) -> str:
    key = str(path[0]) if path else "schema"
    if report == "values_changed" or report == "type_changes":
        if key in ("description", "title", "pattern") or len(path) > 1:
            return f"{key} changed"
        return f"{key} changed from {_short(old)} to {_short(new)}"
    if report == "dictionary_item_added":
        return f"{key} added ({_short(new)})"
    if report == "dictionary_item_removed":
        return f"{key} removed (was {_short(old)})"
    if report == "iterable_item_added":
        return f"{key} gained {_short(new)}"
    if report == "iterable_item_removed":
        return f"{key} lost {_short(old)}"
    return f"{key} changed"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
