"""A shard job's part of one spec's check (`check_shard`): prepared as an unsharded check prepares it, then only
the requests of the operations this shard owns sent (and the producers their chained ids come from: sent, not
checked), and its own part of the run kept, with what the merge needs to conclude (`ShardSpec`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from satori_ci.check.conclude import FieldKey, located, secret_value, wanted_locations
from satori_ci.check.frame import CheckFrame, observable, prepare
from satori_ci.check.spec_check import execute, requests_for
from satori_ci.check.target import CheckOptions, SpecTarget
from satori_ci.observe.store import ObservationStore
from satori_ci.observe.summary import without_values
from satori_ci.oracles.diff import diff_oracle_files
from satori_ci.oracles.model import OBSERVED
from satori_ci.plan import plan_requests
from satori_ci.plan.requests import RequestSet
from satori_ci.report.model import FieldLocation
from satori_ci.run.model import RunResult
from satori_ci.shard.binding import SpecBinding, bind_spec
from satori_ci.shard.errors import ShardError
from satori_ci.shard.runs import RunOrder, own_part, run_order
from satori_ci.shard.slice import Shard, slice_plan, unshardable
from satori_ci.spec import ResponseField
from satori_ci.spec.model import FieldFacts, SourceLocation


@dataclass(frozen=True)
class ShardSpec:
    """One spec's part of a sharded check (`check_shard`): the frame (the same in every shard), the order of a run
    of the whole request set, this shard's part of the run, what `conclude` needs of the spec for the fields that
    part observed, and what the part is bound to."""

    frame: CheckFrame
    order: RunOrder | None = None
    """None when nothing was run (no staging URL, or the spec could not be read)."""
    run: RunResult | None = None
    """What the operations this shard owns gave (`satori_ci.shard.runs.own_part`)."""
    fields: tuple[tuple[int, ResponseField], ...] = ()
    """(index, field) of the observable fields of the operations that the store or this part observed."""
    locations: tuple[tuple[int, FieldKey, FieldLocation], ...] = ()
    """(index in the spec, key, location) of every field the merged report may locate, as far as this shard
    knows (field diff, oracle changes, suggestions, stored and observed fields, its violations)."""
    inputs: str = ""
    """A digest of what the run sends and how (requests, chain seeds, staging origin, header names, runner,
    bounds): shards that would send different things do not merge."""
    binding: SpecBinding | None = None
    """The spec's files, oracle file and store as this shard read them (`bind_spec`)."""


def _scrubbed(store: ObservationStore | None, secret: Callable[[str], bool]) -> ObservationStore | None:
    """The store without the string sets that hold a secret (a run's `held` kept: the merge still needs it)."""
    if store is None:
        return None
    return replace(store, operations={
        k: replace(op, fields={p: without_values(f, secret) for p, f in op.fields.items()})
        for k, op in store.operations.items()})


def _proposable(field: ResponseField) -> ResponseField:
    """The field as far as observation reads it (`observe.propose`: operation, path, type, item type,
    operationId): what a partial report carries of it."""
    return replace(field, facts=FieldFacts(items_type=field.facts.items_type), api_title="",
                   location=SourceLocation("", ""), fingerprint="", notes=())


def _observed_keys(store: ObservationStore | None) -> set[FieldKey]:
    if store is None:
        return set()
    return {(op.method, op.path, op.status, path) for op, found in store.operations.items() for path in found.fields}


def _inputs_digest(planned: RequestSet, target: SpecTarget, options: CheckOptions, staging_url: str) -> str:
    parts = urlsplit(staging_url)
    origin = f"{parts.scheme}://{parts.hostname or ''}{'' if parts.port is None else f':{parts.port}'}{parts.path}"
    data = {"url": origin, "headers": [h for h, _ in target.headers], "runner": options.runner,
            "timeout_s": options.timeout_s, "retries": options.retries, "max_bytes": options.max_response_bytes,
            "min_exercised": target.min_exercised, "server_errors": target.fail_on_server_errors,
            "seeds": [list(s) for s in planned.chain_seeds],
            "items": [[i.id, i.name, i.method, i.path, list(i.requires)] for i in planned.requests()]}
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_shard(target: SpecTarget, options: CheckOptions, shard: Shard) -> ShardSpec:
    """One spec's part of a sharded check: everything before the run as `check_spec` does it, then only the
    requests of the operations this shard owns (and the producers their chained ids come from: sent, not
    checked). Writes nothing; `satori_ci.shard.merge.merge_shards` makes the check out of every shard's part.
    ShardError when the plan cannot be split (opted-in writes, a team collection)."""
    prepared = prepare(target, options)
    frame, head = prepared.frame, prepared.head
    documents = head.documents.files if head is not None and head.documents is not None else ()
    binding = bind_spec(target.head, target.settings.path, target.oracle_file, documents)
    if frame.final or head is None:
        return ShardSpec(frame, binding=binding)
    frame = replace(frame, stored=_scrubbed(frame.stored, secret_value))
    order, part, inputs = None, None, ""
    if target.staging_url:
        plan = plan_requests(head, target.plan)
        why = unshardable(plan, target.team is not None)
        if why is not None:
            raise ShardError(f"{target.settings.path}: cannot be sharded: {why}")
        sliced = slice_plan(plan, shard)
        planned = requests_for(head, prepared.checked, target, target.staging_url, plan)
        order = run_order(planned)
        inputs = _inputs_digest(planned, target, options, target.staging_url)
        slice_set = replace(planned.only(sliced.own, sliced.support), budget=planned.budget.share(shard.count))
        result = execute(slice_set, len(prepared.checked), target, options,
                         target.staging_url, f"shard {shard}: ")
        part = own_part(result, order, shard.owns)
        part = replace(part, observed=_scrubbed(part.observed, secret_value))
    fields = observable(head.fields, target.settings)
    observed_ops = {k for store in (frame.stored, part.observed if part else None) if store is not None
                    for k in store.operations}
    mine = tuple((n, _proposable(f)) for n, f in enumerate(fields) if f.operation in observed_ops)
    inferred = frame.inferred
    assert inferred is not None  # a frame that is not final has its inferred file
    wanted = wanted_locations(frame.check.field_diff, diff_oracle_files(frame.previous, inferred), part)
    wanted |= {e.key for e in inferred.entries if any(o.source == OBSERVED for o in e.oracles)}
    wanted |= _observed_keys(frame.stored) | _observed_keys(part.observed if part else None)
    return ShardSpec(frame, order, part, mine, tuple(located(head, wanted)), inputs, binding)
