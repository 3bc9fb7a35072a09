"""Oracle diff between two oracle files: added, removed and changed oracles per field."""

from __future__ import annotations

from dataclasses import dataclass

from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey


@dataclass(frozen=True)
class ChangedOracle:
    old: Oracle
    new: Oracle
    what: str
    """`value`, `enabled`, `value, enabled`, ..."""


@dataclass(frozen=True)
class FieldOracleDiff:
    operation: OperationKey
    field: str
    added: tuple[Oracle, ...]
    removed: tuple[Oracle, ...]
    changed: tuple[ChangedOracle, ...]


@dataclass(frozen=True)
class OracleDiff:
    fields: tuple[FieldOracleDiff, ...]

    def counts(self) -> dict[str, int]:
        return {
            "added": sum(len(f.added) for f in self.fields),
            "removed": sum(len(f.removed) for f in self.fields),
            "changed": sum(len(f.changed) for f in self.fields),
            "fields": len(self.fields),
        }

    @property
    def is_empty(self) -> bool:
        return not self.fields


def _value_key(value: object) -> object:
    if isinstance(value, tuple | list):
        return frozenset(float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in value)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def oracle_identity(oracle: Oracle) -> tuple[OracleKind, object]:
    """Oracles are the same one when kind and value match (numbers numerically, lists as sets)."""
    return (oracle.kind, _value_key(oracle.value))


_SINGLE_VALUED = frozenset({OracleKind.NUMBER_MIN_VALUE, OracleKind.NUMBER_MAX_VALUE, OracleKind.ARRAY_MIN_SIZE,
                            OracleKind.ARRAY_MAX_SIZE, OracleKind.STRING_FIXED_LENGTH,
                            OracleKind.STRING_SPECIFIC_VALUES, OracleKind.NUMBER_SPECIFIC_VALUES,
                            OracleKind.ARRAY_SPECIFIC_SIZES})


def _diff_entry(old: FieldEntry | None, new: FieldEntry | None) -> FieldOracleDiff | None:
    before = list(old.oracles) if old else []
    after = list(new.oracles) if new else []
    changed: list[ChangedOracle] = []
    after_ids = {oracle_identity(o): o for o in after}
    before_ids = {oracle_identity(o): o for o in before}
    for ident, oracle in before_ids.items():
        twin = after_ids.get(ident)
        if twin is not None and (twin.enabled != oracle.enabled or twin.source != oracle.source):
            what = ", ".join(w for w, differs in (("enabled", twin.enabled != oracle.enabled),
                                                  ("source", twin.source != oracle.source)) if differs)
            changed.append(ChangedOracle(oracle, twin, what))
    removed = [o for i, o in before_ids.items() if i not in after_ids]
    added = [o for i, o in after_ids.items() if i not in before_ids]
    # the same single-valued kind with a new value is a change, not a removal plus an addition
    for old_oracle in list(removed):
        if old_oracle.kind not in _SINGLE_VALUED:
            continue
        twin = next((a for a in added if a.kind is old_oracle.kind), None)
        if twin is not None:
            removed.remove(old_oracle)
            added.remove(twin)
            changed.append(ChangedOracle(old_oracle, twin, "value"))
    if not (added or removed or changed):
        return None
    anchor = new or old
    assert anchor is not None
    return FieldOracleDiff(anchor.operation, anchor.field, tuple(added), tuple(removed), tuple(changed))


def diff_oracle_files(old: OracleFile | None, new: OracleFile) -> OracleDiff:
    """Per field, in the new file's order (fields only in the old file last)."""
    before = old.by_key() if old else {}
    after = new.by_key()
    out: list[FieldOracleDiff] = []
    for key, entry in after.items():
        result = _diff_entry(before.get(key), entry)
        if result is not None:
            out.append(result)
    for key, entry in before.items():
        if key not in after:
            result = _diff_entry(entry, None)
            if result is not None:
                out.append(result)
    return OracleDiff(tuple(out))
