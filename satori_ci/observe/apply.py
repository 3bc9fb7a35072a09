"""Observed proposals into the oracle file, keeping what reviewers decided.

Per field, against the oracles the file already has:
- a proposal whose kind the field already has from another source (declared, rules, LLM, manual; enabled or
  not) is not made: the spec or a person said it first (a `manual` oracle with `enabled: false` is how a
  reviewer dismisses a suggestion for good);
- an accepted observed oracle (`enabled: true`) stays as the reviewer accepted it; a proposal with the same
  kind and value only updates its `evidence`, one with another value is not made;
- a suggestion still waiting (`enabled: false`) is replaced by the proposal of its kind (the same oracle with
  new evidence, or its new value), or removed when the observations no longer support it;
- other proposals are added after the field's oracles, disabled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from satori_ci.oracles.diff import oracle_identity
from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OBSERVED, Oracle


def _merged(entry: FieldEntry, proposals: Sequence[Oracle]) -> tuple[Oracle, ...]:
    by_kind: dict[OracleKind, Oracle] = {}
    for proposal in proposals:
        by_kind.setdefault(proposal.kind, proposal)
    blocked = {o.kind for o in entry.oracles if o.source != OBSERVED or o.enabled}
    placed: set[OracleKind] = set()
    out: list[Oracle] = []
    for oracle in entry.oracles:
        found = by_kind.get(oracle.kind)
        if oracle.source != OBSERVED:
            out.append(oracle)
        elif oracle.enabled:
            same = found is not None and oracle_identity(found) == oracle_identity(oracle)
            out.append(replace(oracle, evidence=found.evidence) if same and found is not None else oracle)
        elif found is not None and oracle.kind not in blocked and oracle.kind not in placed:
            placed.add(oracle.kind)
            out.append(replace(found, operation_id=oracle.operation_id))
    for kind, proposal in by_kind.items():
        if kind not in blocked and kind not in placed:
            out.append(proposal)
    return tuple(out)


def apply_proposals(file: OracleFile, proposals: Sequence[Oracle]) -> OracleFile:
    """The file with the proposals merged in (see the module docstring); fields the file lacks get none."""
    grouped: dict[tuple[str, str, str, str], list[Oracle]] = {}
    for proposal in proposals:
        op = proposal.operation
        grouped.setdefault((op.method, op.path, op.status, proposal.field), []).append(proposal)
    entries = []
    for entry in file.entries:
        mine = grouped.get(entry.key, [])
        if not mine and not any(o.source == OBSERVED and not o.enabled for o in entry.oracles):
            entries.append(entry)
            continue
        entries.append(FieldEntry(entry.operation, entry.field, entry.fingerprint, _merged(entry, mine),
                                  entry.context))
    return OracleFile(file.spec, tuple(entries))


def pending(file: OracleFile) -> tuple[Oracle, ...]:
    """The observed suggestions waiting for a reviewer (disabled), in file order."""
    return tuple(o for e in file.entries for o in e.oracles if o.source == OBSERVED and not o.enabled)
