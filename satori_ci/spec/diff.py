"""Field-by-field diff of two versions of a spec: added, removed, changed, moved, unchanged."""

from __future__ import annotations

import difflib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from satori_ci.spec.documents import dumps_stable
from satori_ci.spec.model import ResponseField

FieldKey = tuple[str, str, str, str]

DEEPDIFF_MAX_ITEMS = 16
"""Facts DeepDiff compares: no list longer than this, `DEEPDIFF_MAX_VALUES` values in all. Its
order-free pairing is quadratic (an enum of 1,000 values, half of them changed: 80 s); larger
facts are compared value by value as canonical JSON, in linear time."""
DEEPDIFF_MAX_VALUES = 256
DEEPDIFF_MAX_CALLS = 256
"""DeepDiff runs in one diff (each pair of facts once); the other changed fields are compared value by value."""


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
    describe = _Describer()
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
            changed.append(ChangedField(old, field, describe(old, field)))
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


class _Describer:
    """`describe_changes` for one diff: once per pair of facts (fields of one schema share theirs), DeepDiff
    at most `DEEPDIFF_MAX_CALLS` times."""

    def __init__(self) -> None:
        self.known: dict[tuple[int, int, str, str, str, str], tuple[str, ...]] = {}
        self.calls = 0

    def __call__(self, base: ResponseField, head: ResponseField) -> tuple[str, ...]:
        key = (id(base.facts), id(head.facts), base.name, head.name, base.type, head.type)
        found = self.known.get(key)
        if found is None:
            deep = self.calls < DEEPDIFF_MAX_CALLS
            found = self.known[key] = describe_changes(base, head, deep=deep)
            self.calls += deep
        return found


def describe_changes(base: ResponseField, head: ResponseField, deep: bool = True) -> tuple[str, ...]:
    """What differs between two versions of one field, in words a reviewer reads.

    DeepDiff words small facts (`deep`, and within `DEEPDIFF_MAX_ITEMS`); others are compared key by key.
    """
    old, new = _facts_with_type(base), _facts_with_type(head)
    lists = [k for k in old if k in new and isinstance(old[k], list) and isinstance(new[k], list)]
    notes = [note for k in lists for note in _list_notes(k, old[k], new[k])]  # gained and lost, both named
    old = {k: v for k, v in old.items() if k not in lists}
    new = {k: v for k, v in new.items() if k not in lists}
    notes += _deep_notes(old, new) if deep and _small(old) and _small(new) else _plain_notes(old, new)
    if base.name != head.name:
        notes.append(f"name changed from {_short(base.name)} to {_short(head.name)}")
    return tuple(sorted(dict.fromkeys(notes))) or ("fingerprint changed",)


def _deep_notes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    from deepdiff import DeepDiff  # imported when first needed: ~0.1 s of start-up for every command

    # threshold_to_diff_deeper=0: DeepDiff 8 otherwise words a mapping with many new keys as one changed value
    tree = DeepDiff(old, new, ignore_order=True, view="tree", verbose_level=2, threshold_to_diff_deeper=0)
    notes: list[str] = []
    for report, items in tree.items():
        for item in items:
            notes.append(_sentence(report, item.path(output_format="list"), item.t1, item.t2))
    return notes


def _small(value: Any) -> bool:
    """Whether DeepDiff compares `value` quickly: lists of at most `DEEPDIFF_MAX_ITEMS`, few values in all."""
    stack, seen = [value], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > DEEPDIFF_MAX_VALUES or (isinstance(item, list) and len(item) > DEEPDIFF_MAX_ITEMS):
            return False
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return True


def _plain_notes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """DeepDiff's sentences for added, removed and changed keys, in linear time; a list's values
    compared as a multiset (its values gained and lost; counted past three)."""
    notes: list[str] = []
    for key in dict.fromkeys([*old, *new]):
        if key not in old:
            notes.append(_sentence("dictionary_item_added", [key], None, new[key]))
        elif key not in new:
            notes.append(_sentence("dictionary_item_removed", [key], old[key], None))
        elif isinstance(old[key], list) and isinstance(new[key], list):
            notes += _list_notes(key, old[key], new[key])
        elif dumps_stable(old[key]) != dumps_stable(new[key]):
            nested = isinstance(old[key], dict | list) or isinstance(new[key], dict | list)
            notes.append(_sentence("values_changed", [key, 0] if nested else [key], old[key], new[key]))
    return notes


def _list_notes(key: str, old: list[Any], new: list[Any]) -> list[str]:
    before = _multiset(old)
    after = _multiset(new)
    notes: list[str] = []
    for verb, these, those in (("gained", after, before), ("lost", before, after)):
        extra = [(text, value) for text, (count, value) in these.items() if count > those.get(text, (0, None))[0]]
        if len(extra) > 3:
            notes.append(f"{key} {verb} {len(extra):,} values")
        else:
            notes += [f"{key} {verb} {_short(value)}" for _, value in extra]
    return notes


def _multiset(values: list[Any]) -> dict[str, tuple[int, Any]]:
    """Canonical JSON of each value -> (how many times it occurs, the value)."""
    found: dict[str, tuple[int, Any]] = {}
    for value in values:
        text = dumps_stable(value)
        count, _ = found.get(text, (0, value))
        found[text] = (count + 1, value)
    return found


def _sentence(report: str, path: list[Any], old: Any, new: Any) -> str:
    key = str(path[0]) if path else "schema"
    if report == "values_changed" or report == "type_changes":
        if key in ("description", "title") and len(path) == 1 and isinstance(old, str) and isinstance(new, str):
            return f"{key} changed: {_word_diff(old, new)}"
        where = ".".join(str(step) for step in path) or key
        return f"{where} changed from {_short(old)} to {_short(new)}"
    if report == "dictionary_item_added":
        return f"{key} added ({_short(new)})"
    if report == "dictionary_item_removed":
        return f"{key} removed (was {_short(old)})"
    if report == "iterable_item_added":
        return f"{key} gained {_short(new)}"
    if report == "iterable_item_removed":
        return f"{key} lost {_short(old)}"
    return f"{key} changed"


MAX_DIFF_WORDS = 400
"""Texts longer than this (in words) are not diffed word by word (the diff is quadratic)."""


def _word_diff(old: str, new: str, limit: int = 160) -> str:
    """The words a text lost (`-`) and gained (`+`), in order: `-'0 to 5' +'1 to 10'`."""
    a, b = old.split(), new.split()
    if len(a) > MAX_DIFF_WORDS or len(b) > MAX_DIFF_WORDS:
        return f"{len(a):,} words -> {len(b):,} words"
    parts: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            parts.append("-" + _short(" ".join(a[i1:i2]), 50))
        if tag in ("replace", "insert"):
            parts.append("+" + _short(" ".join(b[j1:j2]), 50))
    text = " ".join(parts) or "whitespace only"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
