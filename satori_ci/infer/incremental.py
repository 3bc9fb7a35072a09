"""Incremental inference: reuse reviewed oracles by fingerprint, infer only new or changed fields."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from satori_ci.infer.interface import BackendStats, InferenceBackend, Inferred
from satori_ci.oracles.diff import oracle_identity
from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.spec.model import OperationKey, ResponseField

Key = tuple[str, str, str, str]
REVIEW_CHANGED = "needs review: the field changed in the spec since this decision"


def _key(field: ResponseField) -> Key:
    return (field.operation.method, field.operation.path, field.operation.status, field.field)


@dataclass(frozen=True)
class Plan:
    """What to do with each field: reuse (same fingerprint), move (same fingerprint elsewhere), infer."""

    reused: dict[Key, FieldEntry]
    moved: dict[Key, FieldEntry]
    """New key -> the entry it moved from (its oracles are re-keyed, decisions kept)."""
    to_infer: tuple[ResponseField, ...]
    changed: dict[Key, FieldEntry]
    """Fields re-inferred because their fingerprint changed: the previous entry, for human decisions."""


Contexts = dict[tuple[OperationKey, str], str]
"""Context digests of the fields whose inference also reads neighbouring fields."""


def plan_inference(fields: Sequence[ResponseField], previous: OracleFile | None,
                   contexts: Contexts | None = None) -> Plan:
    """Reuse needs the same fingerprint and, where a rule reads neighbours, the same context digest."""
    contexts = contexts or {}
    old = previous.by_key() if previous else {}
    head_keys = {_key(f) for f in fields}
    pool: dict[tuple[str, str | None], list[FieldEntry]] = defaultdict(list)
    for old_key, old_entry in old.items():
        if old_key not in head_keys:
            pool[(old_entry.fingerprint, old_entry.context)].append(old_entry)
    reused: dict[Key, FieldEntry] = {}
    moved: dict[Key, FieldEntry] = {}
    changed: dict[Key, FieldEntry] = {}
    to_infer: list[ResponseField] = []
    for field in fields:
        key = _key(field)
        entry = old.get(key)
        context = contexts.get((field.operation, field.field))
        if entry is not None and entry.fingerprint == field.fingerprint and entry.context == context:
            reused[key] = entry
            continue
        if entry is None:
            candidates = pool.get((field.fingerprint, context))
            if candidates:
                same_path = [c for c in candidates if c.field == field.field]
                source = (same_path or candidates)[0]
                candidates.remove(source)
                moved[key] = source
                continue
        else:
            changed[key] = entry
        to_infer.append(field)
    return Plan(reused, moved, tuple(to_infer), changed)


def rekey(entry: FieldEntry, field: ResponseField) -> FieldEntry:
    """The entry of a moved field, under its new operation and path."""
    oracles = tuple(replace(o, operation=field.operation, field=field.field, operation_id=field.operation_id)
                    for o in entry.oracles)
    return FieldEntry(field.operation, field.field, field.fingerprint, oracles, entry.context)


def carry_decisions(inferred: tuple[Oracle, ...], previous: FieldEntry) -> tuple[Oracle, ...]:
    """New oracles of a changed field, with the humans' earlier decisions kept and flagged for review (waiting
    observed suggestions are left out: the next observation proposes them again if they still hold)."""
    disabled = {oracle_identity(o) for o in previous.oracles
                if not o.enabled and o.source not in ("manual", OBSERVED)}
    out: list[Oracle] = []
    seen: set[tuple[object, object]] = set()
    for oracle in inferred:
        ident = oracle_identity(oracle)
        seen.add(ident)
        out.append(replace(oracle, enabled=False, review=REVIEW_CHANGED) if ident in disabled else oracle)
    for oracle in previous.oracles:
        ident = oracle_identity(oracle)
        if oracle.is_decision and ident not in seen:
            out.append(replace(oracle, review=REVIEW_CHANGED))
    return tuple(out)


@dataclass(frozen=True)
class UpdateResult:
    """The new oracle file and what happened to each field."""

    file: OracleFile
    reused: int
    moved: int
    inferred: int
    pending: int
    """Fields left to infer because the run was interrupted (kept with their previous entry, if any)."""
    stats: BackendStats
    dropped: tuple[FieldEntry, ...] = ()
    """Entries of the previous file whose field the spec no longer has (not moved elsewhere)."""

    @property
    def dropped_decisions(self) -> tuple[Oracle, ...]:
        """The people's decisions (own oracles, silenced ones, accepted suggestions) dropped with their field."""
        return tuple(o for e in self.dropped for o in e.oracles if o.is_decision)


def update_oracle_file(
    spec_name: str,
    fields: Sequence[ResponseField],
    previous: OracleFile | None,
    backend: InferenceBackend,
    on_inferred: Callable[[Inferred], None] | None = None,
    contexts: Contexts | None = None,
) -> UpdateResult:
    """Reuse what the previous file holds, infer the rest; `KeyboardInterrupt` keeps finished work.

    The interrupted result is returned, not raised, with `pending` > 0: the caller writes it.
    """
    contexts = contexts or {}
    plan = plan_inference(fields, previous, contexts)
    done: dict[Key, tuple[Oracle, ...]] = {}

    def record(result: Inferred) -> None:
        done[_key(result.field)] = result.oracles
        if on_inferred is not None:
            on_inferred(result)

    stats = BackendStats()
    interrupted = False
    if plan.to_infer:
        try:
            run = backend.infer(plan.to_infer, record)
            stats = run.stats
            for result in run.results:
                done.setdefault(_key(result.field), result.oracles)
        except KeyboardInterrupt as exc:  # the LLM backend's InferenceInterrupted carries its stats
            interrupted = True
            partial = getattr(exc, "partial", None)
            if partial is not None:
                stats = partial.stats
                for result in partial.results:
                    done.setdefault(_key(result.field), result.oracles)
    entries: list[FieldEntry] = []
    pending = 0
    for field in fields:
        key = _key(field)
        if key in plan.reused:
            entries.append(plan.reused[key])
        elif key in plan.moved:
            entries.append(rekey(plan.moved[key], field))
        elif key in done:
            oracles = done[key]
            if key in plan.changed:
                oracles = carry_decisions(oracles, plan.changed[key])
            entries.append(FieldEntry(field.operation, field.field, field.fingerprint, oracles,
                                      contexts.get((field.operation, field.field))))
        else:
            pending += 1
            if key in plan.changed:
                entries.append(plan.changed[key])  # old fingerprint: inferred again next run
    if interrupted and pending == 0:
        pending = 1
    ids = {_key(f): f.operation_id for f in fields}
    entries = [_with_operation_id(e, ids.get(e.key)) for e in entries]
    used = {e.key for e in entries} | {e.key for e in plan.moved.values()}
    dropped = tuple(e for e in (previous.entries if previous else ()) if e.key not in used)
    return UpdateResult(OracleFile(spec_name, tuple(entries)), len(plan.reused), len(plan.moved),
                        len(done), pending, stats, dropped)


def _with_operation_id(entry: FieldEntry, operation_id: str | None) -> FieldEntry:
    if all(o.operation_id == operation_id for o in entry.oracles):
        return entry
    oracles = tuple(replace(o, operation_id=operation_id) for o in entry.oracles)
    return FieldEntry(entry.operation, entry.field, entry.fingerprint, oracles, entry.context)
