"""A shard's part of a run, and the parts of every shard as the one run they add up to (pure).

A shard runs a slice of the requests (`RequestSet.only`): its own requests and the support requests that give
them chained ids. `own_part` keeps what its own operations gave; `merge_runs` puts the parts of every shard back
into the order a run of the whole request set has, which `RunOrder` (taken from the whole set, the same in
every shard) records: results in the order of their request (iteration, then item), coverage in the order of
its operations, the skips the request set names first and those of the run after them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from satori_ci.observe.store import ObservationStore, merge_stores
from satori_ci.plan.explore import base_id
from satori_ci.plan.model import Skip
from satori_ci.plan.requests import RequestSet
from satori_ci.run.model import OmittedViolations, RequestRef, RunResult


@dataclass(frozen=True)
class RunOrder:
    """The order of a run of the whole request set, for merging the parts of its shards."""

    items: tuple[tuple[str, str], ...]
    """(request id, `METHOD /path`) of every request of the whole set, in the order they are sent."""
    coverage: tuple[str, ...]
    """`METHOD /path` of the run's coverage entries, in their order."""
    skipped: tuple[Skip, ...]
    """The operations the request set does not send (the run's runtime skips come after them)."""


def run_order(planned: RequestSet) -> RunOrder:
    """The order of a run of `planned` (the whole set, not a shard's slice): as `Tally` lays it out."""
    items = tuple((r.id, r.label) for r in planned.requests())
    labels = list(dict.fromkeys(label for _, label in items))
    labels += [k.label for k in planned.skipped if k.label not in labels]
    labels += [label for label, _ in planned.oracle_counts if label not in labels]
    return RunOrder(items, tuple(dict.fromkeys(labels)), planned.skipped)


def own_part(result: RunResult, order: RunOrder, owns: Callable[[str], bool]) -> RunResult:
    """What the operations this shard owns gave (its support requests left out): the counts, findings,
    problems, coverage, runtime skips and observations of those operations only. `result` is the run of the
    shard's slice, whose skips start with `order.skipped`."""
    label_of = dict(order.items)

    def mine(ref: RequestRef) -> bool:
        return owns(label_of.get(base_id(ref.item), f"{ref.method} ?"))

    coverage = tuple(c for c in result.coverage if owns(c.label))
    observed = None
    if result.observed is not None:
        observed = ObservationStore(result.observed.spec, {
            k: v for k, v in result.observed.operations.items() if owns(f"{k.method} {k.path}")})
    return replace(
        result, requests=sum(c.sent for c in coverage), checked=sum(c.checked for c in coverage),
        violations=tuple(v for v in result.violations if mine(v.request)),
        infrastructure=tuple(p for p in result.infrastructure if mine(p.request)),
        unchecked=tuple(p for p in result.unchecked if mine(p.request)),
        server_errors=tuple(e for e in result.server_errors if mine(e.request)),
        skipped=tuple(k for k in result.skipped[len(order.skipped):] if owns(k.label)),
        coverage=coverage,
        omitted=tuple(o for o in result.omitted if owns(f"{o.operation.method} {o.operation.path}")),
        observed=observed,
    )


def merge_runs(parts: Sequence[RunResult], order: RunOrder) -> RunResult:
    """The run of the whole request set that the shards' parts (`own_part`, in shard order) add up to: results
    in request order, the longest shard's time, the first part's runner, notes and settings."""
    if not parts:
        raise ValueError("no run to merge")
    rank = {item: n for n, (item, _) in enumerate(order.items)}
    first_item: dict[str, int] = {}
    for n, (_, label) in enumerate(order.items):
        first_item.setdefault(label, n)
    covered = {label: n for n, label in enumerate(order.coverage)}

    def at(ref: RequestRef) -> tuple[int, int]:
        return ref.iteration, rank.get(base_id(ref.item), len(rank))

    violations = sorted((v for p in parts for v in p.violations), key=lambda v: at(v.request))
    first_seen: dict[tuple[object, str, str], int] = {}
    for n, v in enumerate(violations):
        first_seen.setdefault((v.operation, v.field, v.oracle.kind.value), n)

    def omitted_at(o: OmittedViolations) -> int:
        return first_seen.get((o.operation, o.field, o.oracle.kind.value), len(violations))

    observed: ObservationStore | None = None
    for part in parts:
        if part.observed is not None:
            observed = part.observed if observed is None else merge_stores(observed, part.observed)
    notes = tuple(dict.fromkeys(n for p in parts for n in p.notes))
    runtime = sorted((k for p in parts for k in p.skipped), key=lambda k: first_item.get(k.label, len(rank)))
    return replace(
        parts[0],
        requests=sum(p.requests for p in parts), checked=sum(p.checked for p in parts),
        violations=tuple(violations),
        infrastructure=tuple(sorted((x for p in parts for x in p.infrastructure), key=lambda x: at(x.request))),
        unchecked=tuple(sorted((x for p in parts for x in p.unchecked), key=lambda x: at(x.request))),
        server_errors=tuple(sorted((x for p in parts for x in p.server_errors), key=lambda x: at(x.request))),
        seconds=max(p.seconds for p in parts), notes=notes,
        skipped=(*order.skipped, *runtime),
        coverage=tuple(sorted((c for p in parts for c in p.coverage),
                              key=lambda c: covered.get(c.label, len(covered)))),
        omitted=tuple(sorted((o for p in parts for o in p.omitted), key=omitted_at)),
        observed=observed,
    )
