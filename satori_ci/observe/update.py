"""One step of observation, shared by `check`, `run` and `verify`: a run's observations into the store, the
store's proposals into the oracle file, and the suspects a trusted store names."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from satori_ci.observe.apply import apply_proposals
from satori_ci.observe.keys import SuspectKey, suspect_key
from satori_ci.observe.propose import ProposalSettings, propose
from satori_ci.observe.store import ObservationStore, merge_stores, pruned, scrubbed
from satori_ci.oracles.file import OracleFile
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField


@dataclass(frozen=True)
class Observed:
    file: OracleFile
    """The oracle file with the proposals merged in."""
    store: ObservationStore
    """The store to write back: what it held, and this run's observations, pruned to the spec."""
    responses: int
    """Responses this run observed."""


def observe_update(file: OracleFile, before: ObservationStore | None, run: ObservationStore | None,
                   fields: Sequence[ResponseField], settings: ProposalSettings,
                   secret: Callable[[str], bool] = lambda _: False) -> Observed:
    """Merge a run's observations into the store, prune it to the spec's fields and the file's oracles, drop
    the string sets that hold a known secret, and merge what the store supports into the oracle file.
    `fields`: the observed fields (config's ignored ones left out) in spec order."""
    store = merge_stores(before or ObservationStore(file.spec), run or ObservationStore(file.spec))
    oracles = [o for e in file.entries for o in e.oracles]
    store = scrubbed(pruned(store, ((f.operation, f.field) for f in fields), oracles), secret)
    store = ObservationStore(file.spec or store.spec, store.operations)
    responses = sum(op.responses for op in run.operations.values()) if run is not None else 0
    return Observed(apply_proposals(file, propose(store, fields, settings)), store, responses)


def suspects(trusted: ObservationStore | None, oracles: Iterable[Oracle]) -> dict[SuspectKey, int]:
    """The oracles that observed responses in the trusted store violated, and how many responses did."""
    if trusted is None:
        return {}
    out: dict[SuspectKey, int] = {}
    for oracle in oracles:
        count = trusted.violations(oracle)
        if count:
            out[suspect_key(oracle)] = count
    return out
