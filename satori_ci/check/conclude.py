"""The check of one spec from its frame and its run (`conclude`, pure): the run's observations into the store
and its suggestions into the oracle file, the oracle diff, the pre-existing violations, the fields located."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from satori_ci.check.frame import CheckFrame
from satori_ci.check.target import SpecOutcome
from satori_ci.config import SpecConfig
from satori_ci.observe.apply import pending
from satori_ci.observe.propose import ready
from satori_ci.observe.update import observe_update
from satori_ci.oracles.check import complaint
from satori_ci.oracles.diff import OracleDiff, diff_oracle_files
from satori_ci.oracles.file import OracleFile
from satori_ci.oracles.model import Oracle
from satori_ci.redaction import redact
from satori_ci.report.model import FieldLocation, ObservationSummary, identity
from satori_ci.run.model import RunResult
from satori_ci.run.outcome import parse_json
from satori_ci.spec import OperationKey, ResponseField, Spec
from satori_ci.spec.diff import FieldDiff


def preexisting(run: RunResult | None, before: OracleFile | None, new_oracles: frozenset[tuple[str, ...]],
                 settings: SpecConfig) -> frozenset[tuple[str, str, str, str, str, str]]:
    """The violations of added or changed oracles whose offending value an oracle the field had before rejects
    too (a run of the earlier oracles on the same data): re-checked on the value the violation records, so only
    when it was not cut short (at most 200 characters of JSON)."""
    if run is None or before is None:
        return frozenset()
    earlier: dict[tuple[OperationKey, str], list[Oracle]] = {}
    for o in before.enabled_oracles():
        if settings.checks(o):
            earlier.setdefault((o.operation, o.field), []).append(o)
    out: set[tuple[str, str, str, str, str, str]] = set()
    for v in run.violations:
        ident = identity(v.oracle)
        olds = earlier.get((v.operation, v.field), [])
        if ident not in new_oracles or not olds:
            continue
        ok, value = parse_json(v.value)
        if ok and value is not None and any(complaint(o.kind, o.value, value, settings.null_like) is not None
                                            for o in olds):
            out.add((*ident, v.pointer))
    return frozenset(out)


FieldKey = tuple[str, str, str, str]
"""(method, path, status, field)."""


def wanted_locations(field_diff: FieldDiff | None, oracle_diff: OracleDiff | None, run: RunResult | None
                     ) -> set[FieldKey]:
    """The fields a report locates in the spec: those with an oracle change, a violation, or added or changed."""
    wanted: set[FieldKey] = set()
    if oracle_diff is not None:
        for changed in oracle_diff.fields:
            op = changed.operation
            wanted.add((op.method, op.path, op.status, changed.field))
    if run is not None:
        for v in run.violations:
            wanted.add((v.operation.method, v.operation.path, v.operation.status, v.field))
    if field_diff is not None:
        for f in (*field_diff.added, *(c.head for c in field_diff.changed)):
            wanted.add((f.operation.method, f.operation.path, f.operation.status, f.field))
    return wanted


def located(spec: Spec, wanted: AbstractSet[FieldKey]) -> list[tuple[int, FieldKey, FieldLocation]]:
    """(index of the field in the spec, its key, where it is written) of the first field of each wanted key,
    in spec order."""
    out: list[tuple[int, FieldKey, FieldLocation]] = []
    seen: set[FieldKey] = set()
    for n, f in enumerate(spec.fields):
        key = (f.operation.method, f.operation.path, f.operation.status, f.field)
        if key in wanted and key not in seen:
            seen.add(key)
            out.append((n, key, FieldLocation(f.location.file, spec.line_of(f.location))))
    return out


def secret_value(value: str) -> bool:
    """Whether the process's redactor would hide (part of) `value`: such values are never kept in a store."""
    return redact(value) != value


Locate = Callable[[AbstractSet[FieldKey]], Mapping[FieldKey, FieldLocation]]


def conclude(frame: CheckFrame, run: RunResult | None, fields: Sequence[ResponseField], locate: Locate,
             secret: Callable[[str], bool] = secret_value) -> SpecOutcome:
    """The check of one spec from its frame and its run (pure): the run's observations into the store and its
    suggestions into the oracle file, the oracle diff, the pre-existing violations, the fields located.
    `fields`: the observable fields (config's ignored ones left out) in spec order, at least those of every
    operation the store or the run observed; `locate`: where the spec writes the fields of a set of keys."""
    if frame.final or frame.inferred is None:
        return SpecOutcome(frame.check, None)
    updated, store, observation = frame.inferred, None, None
    if frame.observing:
        settings = frame.proposal
        found = observe_update(frame.inferred, frame.stored, run.observed if run is not None else None, fields,
                               settings, secret)
        updated = found.file
        if frame.stored is not None or found.responses:
            store = found.store
        ops = found.store.operations.values()
        observation = ObservationSummary(frame.store_file, found.responses, len(ops),
                                         sum(1 for op in ops if ready(op, settings)), settings.min_responses)
    oracle_diff = diff_oracle_files(frame.previous, updated)
    new_oracles = frozenset(
        identity(o) for f in oracle_diff.fields for o in (*f.added, *(c.new for c in f.changed))
    )
    rules = frame.rules or SpecConfig(path=frame.check.spec)
    changed = frozenset(identity(o) for f in oracle_diff.fields for o in (*f.added, *(c.new for c in f.changed))
                        if o.enabled and rules.checks(o)) if frame.compared else frozenset()
    check = frame.check
    check = replace(
        check, oracle_diff=oracle_diff, run=run, new_oracles=new_oracles, changed=changed,
        locations=dict(locate(wanted_locations(check.field_diff, oracle_diff, run))),
        suggestions=pending(updated), observation=observation,
        preexisting=preexisting(run, frame.previous, new_oracles, rules),
    )
    return SpecOutcome(check, updated, store)
