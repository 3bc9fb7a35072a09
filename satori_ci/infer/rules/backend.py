"""The `rules` backend: declared oracles plus what names, descriptions and examples imply."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from satori_ci.infer.declared import declared_oracles, restate
from satori_ci.infer.interface import BackendRun, Inferred, OnInferred
from satori_ci.infer.rules.base import evidence_key
from satori_ci.infer.rules.context import Context
from satori_ci.infer.rules.merge import Named, combine, reconcile, screen
from satori_ci.infer.rules.registry import CONTEXT_RULES, rules_for
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey, ResponseField
from satori_ci.spec.paths import ITEMS, MAP_VALUES, FieldPathError, parse, render


def field_oracles(field: ResponseField, notes: list[str]) -> tuple[Oracle, ...]:
    """The oracles of one field from its own facts: declared first, then the rules' (screened, reconciled)."""
    declared = declared_oracles(field)
    found: list[Named] = [(rule.name, o) for rule in rules_for(field.type) for o in rule.apply(field)]
    if not found:
        return declared
    derived = reconcile(screen(field, found, notes), notes)
    return combine(declared, derived, notes)


def parent_of(path: str) -> str | None:
    """The path of the object holding the field (`a[].b.c` -> `a[].b`); None for the body itself."""
    if "\\" in path:
        return _parent_parsed(path)
    bare = path
    while bare.endswith(("[]", "{}")):
        bare = bare[:-2]
    if not bare:
        return None
    cut = bare.rfind(".")
    return bare[:cut] if cut >= 0 else ""


def _parent_parsed(path: str) -> str | None:
    try:
        segments = list(parse(path))
    except FieldPathError:
        return None
    while segments and segments[-1] in (ITEMS, MAP_VALUES):
        segments.pop()
    if not segments:
        return None
    return render(tuple(segments[:-1]))


def _with_context(fields: Sequence[ResponseField], results: list[tuple[tuple[Oracle, ...], list[str]]]) -> None:
    """Run the context rules on the fields they may apply to, with the oracles other fields already have."""
    candidates = [i for i, f in enumerate(fields) if any(r.wants(f) for r in CONTEXT_RULES)]
    if not candidates:
        return
    by_parent: dict[tuple[OperationKey, str], list[int]] = {}
    by_name: dict[tuple[str, str], list[int]] = {}
    for i, field in enumerate(fields):
        parent = parent_of(field.field)
        if parent is not None:
            by_parent.setdefault((field.operation, parent), []).append(i)
        by_name.setdefault((field.api_title, field.name), []).append(i)
    first_pass = list(results)
    for i in candidates:
        field = fields[i]
        parent = parent_of(field.field)
        same_object = by_parent.get((field.operation, parent), []) if parent is not None else []
        same_name = by_name.get((field.api_title, field.name), [])
        context = Context(
            siblings=[(fields[j], first_pass[j][0]) for j in same_object if j != i],
            namesakes=[(fields[j], first_pass[j][0]) for j in same_name if j != i],
        )
        found: list[Named] = [(r.name, o) for r in CONTEXT_RULES if r.wants(field) for o in r.apply(field, context)]
        if found:
            oracles, notes = results[i]
            derived = reconcile(screen(field, found, notes), notes)
            results[i] = (combine(oracles, derived, notes), notes)


class RulesBackend:
    """The default offline backend: deterministic rules over each field's name, description and examples."""

    name = "rules"

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        results: list[tuple[tuple[Oracle, ...], list[str]]] = []
        seen: dict[Hashable, tuple[tuple[Oracle, ...], list[str]]] = {}
        for field in fields:
            key = evidence_key(field)
            if key is not None and key in seen:
                oracles, notes = seen[key]
                results.append((tuple(restate(o, field) for o in oracles), list(notes)))
                continue
            notes = []
            oracles = field_oracles(field, notes)
            results.append((oracles, notes))
            if key is not None:
                seen[key] = (oracles, notes)
        _with_context(fields, results)
        out: list[Inferred] = []
        for field, (oracles, notes) in zip(fields, results, strict=True):
            inferred = Inferred(field=field, oracles=oracles, notes=tuple(notes))
            out.append(inferred)
            if on_inferred is not None:
                on_inferred(inferred)
        return BackendRun(results=tuple(out))

