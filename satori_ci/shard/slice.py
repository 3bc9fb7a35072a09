"""Shards of a request plan: which operations one job of a CI matrix checks (pure: plan and shard in, slice out).

An operation belongs to shard `1 + sha256("METHOD /path") mod N`: its own identity decides, so adding or
removing an operation never moves another one to a different shard. Everything else of a check (the spec
diff, inference, the oracle changes) is the same in every shard; only the requests are sliced.

Chaining: a detail operation takes its ids from its list operation (`Chain.producer`), which may belong to
another shard. A shard also sends the producers its operations depend on, transitively (a nested list's
producer too), as *support* requests: sent for the values they give, never checked nor reported by this shard
(their owner checks and reports them). So a detail operation gets the same ids in its shard as in a run of the
whole plan, and every operation is reported exactly once.

What cannot be split: opted-in writes (POST, PUT, PATCH, DELETE run after every read of one run, an order that
shards running side by side cannot keep) and a team collection (its scripts may pass values from any request
to any later one). `unshardable` names them; a sharded check refuses them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from satori_ci.plan.model import SAFE_METHODS, RequestPlan
from satori_ci.shard.errors import ShardError

MAX_SHARDS = 256
_SHARD = re.compile(r"^\s*(\d{1,4})\s*/\s*(\d{1,4})\s*$")


@dataclass(frozen=True, order=True)
class Shard:
    """Shard `index` of `count` (1-based, as a CI matrix counts)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, label: str) -> bool:
        """Whether the operation `METHOD /path` is checked and reported by this shard."""
        return shard_of(label, self.count) == self.index


def parse_shard(text: str) -> Shard:
    """`I/N` with 1 <= I <= N <= MAX_SHARDS (ShardError otherwise)."""
    found = _SHARD.match(text or "")
    if found is None:
        raise ShardError(f"a shard is written I/N, e.g. 2/4 (got {text[:20]!r})")
    index, count = int(found.group(1)), int(found.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise ShardError(f"the number of shards must be between 1 and {MAX_SHARDS} (got {count})")
    if not 1 <= index <= count:
        raise ShardError(f"shard {index}/{count}: the index must be between 1 and {count}")
    return Shard(index, count)


def shard_of(label: str, count: int) -> int:
    """The shard (1..count) of the operation `METHOD /path`: a stable hash of its identity."""
    digest = hashlib.sha256(label.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class PlanSlice:
    """What one shard sends: its own operations (checked, reported) and the producers they need (sent only)."""

    shard: Shard
    own: frozenset[str]
    """`METHOD /path` of the planned operations this shard checks and reports."""
    support: frozenset[str]
    """`METHOD /path` of the producers of `own` (transitively) that other shards own: sent, not checked."""


def slice_plan(plan: RequestPlan, shard: Shard) -> PlanSlice:
    """The shard's operations of the plan and the producers their chained ids come from."""
    producers = {p.label: {*(f.producer for f in p.feeds), *((p.chain.producer,) if p.chain else ())}
                 for p in plan.operations}
    own = frozenset(p.label for p in plan.operations if shard.owns(p.label))
    support: set[str] = set()
    pending = [producer for label in own for producer in producers.get(label, ())]
    while pending:
        producer = pending.pop()
        if producer in own or producer in support:
            continue
        support.add(producer)
        pending.extend(producers.get(producer, ()))
    return PlanSlice(shard, own, frozenset(support))


def unshardable(plan: RequestPlan, team: bool) -> str | None:
    """Why this plan cannot be split across shards (None: it can)."""
    if team:
        return ("a team Postman collection is used (its scripts may pass values between any requests): run this "
                "check unsharded")
    writes = [p.label for p in plan.operations if p.operation.method not in SAFE_METHODS]
    if writes:
        return (f"{writes[0]} is opted in: writes run after every read of one run, an order that shards running "
                "side by side cannot keep; run this check unsharded")
    return None
