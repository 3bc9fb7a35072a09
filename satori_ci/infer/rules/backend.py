"""The `rules` backend: declared oracles plus what names, descriptions and examples imply."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence

from satori_ci.infer.declared import declared_oracles, restate
from satori_ci.infer.interface import BackendRun, Inferred, OnInferred
from satori_ci.infer.rules.base import evidence_key
from satori_ci.infer.rules.context import Context
from satori_ci.infer.rules.merge import Named, combine, reconcile, screen
from satori_ci.infer.rules.registry import CONTEXT_RULES, REQUEST_RULES, rules_for
from satori_ci.infer.rules.request import Request, requests_of
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey, ResponseField, Spec
from satori_ci.spec.paths import ITEMS, MAP_VALUES, FieldPathError, parse, render


def field_oracles(field: ResponseField, notes: list[str], exclude: frozenset[str] = frozenset()
                  ) -> tuple[Oracle, ...]:
    """The oracles of one field from its own facts: declared first, then the rules' (screened, reconciled).

    Rules named in `exclude` are not run (the leave-one-API-out bench leaves out rules fitted to an API).
    """
    declared = declared_oracles(field)
    found: list[Named] = [(rule.name, o) for rule in rules_for(field.type) if rule.name not in exclude
                          for o in rule.apply(field)]
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


def context_groups(fields: Sequence[ResponseField]) -> tuple[dict[tuple[OperationKey, str], list[int]],
                                                            dict[tuple[str, str], list[int]]]:
    """Indexes of fields by enclosing object (siblings) and by API and name (namesakes)."""
    by_parent: dict[tuple[OperationKey, str], list[int]] = {}
    by_name: dict[tuple[str, str], list[int]] = {}
    for i, field in enumerate(fields):
        parent = parent_of(field.field)
        if parent is not None:
            by_parent.setdefault((field.operation, parent), []).append(i)
        by_name.setdefault((field.api_title, field.name), []).append(i)
    return by_parent, by_name


def related(field: ResponseField, context: Sequence[ResponseField],
            groups: tuple[dict[tuple[OperationKey, str], list[int]], dict[tuple[str, str], list[int]]]
            ) -> tuple[list[int], list[int]]:
    """Indexes in `context` of the field's siblings and namesakes (itself excluded)."""
    by_parent, by_name = groups
    parent = parent_of(field.field)
    same_object = by_parent.get((field.operation, parent), []) if parent is not None else []
    same_name = by_name.get((field.api_title, field.name), [])
    own = (field.operation, field.field)
    return ([j for j in same_object if (context[j].operation, context[j].field) != own],
            [j for j in same_name if (context[j].operation, context[j].field) != own])


def wants_context(field: ResponseField, exclude: frozenset[str] = frozenset()) -> bool:
    return any(r.wants(field) for r in CONTEXT_RULES if r.name not in exclude)


class _OwnOracles:
    """Each field's oracles from its own facts, computed once (equal evidence shares the work)."""

    def __init__(self, exclude: frozenset[str] = frozenset()) -> None:
        self._by_evidence: dict[Hashable, tuple[tuple[Oracle, ...], list[str]]] = {}
        self._exclude = exclude

    def of(self, field: ResponseField) -> tuple[tuple[Oracle, ...], list[str]]:
        key = evidence_key(field)
        if key is not None and key in self._by_evidence:
            known, known_notes = self._by_evidence[key]
            return tuple(restate(o, field) for o in known), list(known_notes)
        notes: list[str] = []
        oracles = field_oracles(field, notes, self._exclude)
        if key is not None:
            self._by_evidence[key] = (oracles, notes)
        return oracles, list(notes)


class RulesBackend:
    """The default offline backend: deterministic rules over each field's name, description and examples.

    Two rules also read other fields (siblings in the same object, same-name fields of the API).
    `context` is the whole spec's field list, so that inferring a few changed fields sees the same
    neighbours as a full run; without it, the fields passed to `infer` are the context. With `spec`, the
    request rules also read each operation's parameters (a page-size `limit` bounds the response's list),
    and `context` defaults to the spec's fields. Rules named in `exclude` are not run (for benches that
    measure a rule set without some rules).
    """

    name = "rules"

    def __init__(self, context: Sequence[ResponseField] | None = None, exclude: frozenset[str] = frozenset(),
                 spec: Spec | None = None) -> None:
        self.context = context if context is not None or spec is None else spec.fields
        self.exclude = exclude
        self.spec = spec

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        """Each field finished (own, context and request rules) and handed to `on_inferred` before the next one is
        started: an interrupted run keeps the fields done, with the oracles a whole run gives them."""
        own = _OwnOracles(self.exclude)
        context = self.context if self.context is not None else fields
        around = _Around(self, context, own)
        out: list[Inferred] = []
        for field in fields:
            oracles, notes = own.of(field)
            oracles = around.with_context(field, oracles, notes)
            oracles = around.with_request(field, oracles, notes)
            inferred = Inferred(field=field, oracles=oracles, notes=tuple(notes))
            out.append(inferred)
            if on_inferred is not None:
                on_inferred(inferred)
        return BackendRun(results=tuple(out))


class _Around:
    """What the context and request rules read besides the field itself, built once and only when a field
    needs it: the neighbours of each field, the request of each operation."""

    def __init__(self, backend: RulesBackend, context: Sequence[ResponseField], own: _OwnOracles) -> None:
        self.exclude = backend.exclude
        self.spec = backend.spec
        self.context = context
        self.own = own
        self.request_rules = [r for r in REQUEST_RULES if r.name not in self.exclude] if self.spec is not None else []
        self._groups: tuple[dict[tuple[OperationKey, str], list[int]], dict[tuple[str, str], list[int]]] | None = None
        self._requests: dict[OperationKey, Request] | None = None

    def with_context(self, field: ResponseField, oracles: tuple[Oracle, ...], notes: list[str]
                     ) -> tuple[Oracle, ...]:
        """Add what the context rules infer from the field's siblings and namesakes."""
        if not wants_context(field, self.exclude):
            return oracles
        if self._groups is None:
            self._groups = context_groups(self.context)
        context, own = self.context, self.own
        siblings, namesakes = related(field, context, self._groups)
        ctx = Context(siblings=[(context[j], own.of(context[j])[0]) for j in siblings],
                      namesakes=[(context[j], own.of(context[j])[0]) for j in namesakes])
        found: list[Named] = [(r.name, o) for r in CONTEXT_RULES
                              if r.name not in self.exclude and r.wants(field) for o in r.apply(field, ctx)]
        if not found:
            return oracles
        return combine(oracles, reconcile(screen(field, found, notes), notes), notes)

    def with_request(self, field: ResponseField, oracles: tuple[Oracle, ...], notes: list[str]
                     ) -> tuple[Oracle, ...]:
        """Add what the request rules infer from the field's operation (a page size bounds the list)."""
        if self.spec is None or not any(r.wants(field) for r in self.request_rules):
            return oracles
        if self._requests is None:
            self._requests = requests_of(self.spec, self.context)
        request = self._requests.get(field.operation)
        if request is None:
            return oracles
        found: list[Named] = [(r.name, o) for r in self.request_rules if r.wants(field)
                              for o in r.apply(field, request)]
        if not found:
            return oracles
        return combine(oracles, reconcile(screen(field, found, notes), notes), notes)


def _request_items(field: ResponseField, request: Request | None) -> list[tuple[str, str, str]]:
    if request is None or not any(r.wants(field) for r in REQUEST_RULES):
        return []
    sizes = ",".join(f"{p.name}<={p.maximum}" for p in request.page_sizes)
    return [("request", sizes, ",".join(request.outer_arrays))]


def context_digests(fields: Sequence[ResponseField], spec: Spec | None = None) -> dict[tuple[OperationKey, str], str]:
    """For each field a context rule reads neighbours for: a hash of those neighbours' fingerprints.

    With `spec`, also for each field a request rule reads its operation's parameters for: those parameters
    (a page size and its maximum) and the response's outer arrays are part of the hash. The oracle file
    keeps it next to the field's own fingerprint; when a neighbour or the request changes, the digest
    changes and the field is inferred again.
    """
    requests = requests_of(spec, fields) if spec is not None else {}
    wanted = [f for f in fields if wants_context(f) or _request_items(f, requests.get(f.operation))]
    if not wanted:
        return {}
    groups = context_groups(fields)
    out: dict[tuple[OperationKey, str], str] = {}
    for field in wanted:
        siblings, namesakes = related(field, fields, groups) if wants_context(field) else ([], [])
        items = sorted({(str(fields[j].operation), fields[j].field, fields[j].fingerprint)
                        for j in (*siblings, *namesakes)} | set(_request_items(field, requests.get(field.operation))))
        payload = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
        out[(field.operation, field.field)] = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]
    return out
