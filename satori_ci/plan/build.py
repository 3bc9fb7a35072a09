"""`plan_requests`: the request plan of a spec under the trusted settings (pure: spec and settings in, plan out).

Inputs, from the most to the least trusted: values from the config, values harvested from an earlier response
(chaining), the spec's `example`/`examples`/`default`/`enum`, placeholders last. A request whose path would
still carry a placeholder is not sent. Only GET and HEAD are sent unless the config opts an operation in.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from satori_ci.plan.chaining import Lookup, find_producer
from satori_ci.plan.feeds import FeedFinder, empty_is_a_root, suggestions
from satori_ci.plan.model import (
    SAFE_METHODS,
    Chain,
    Feed,
    Harvest,
    Input,
    PlannedOperation,
    PlanSettings,
    RequestPlan,
    Skip,
    SkipKind,
    matches,
)
from satori_ci.plan.samples import sample_requests
from satori_ci.spec.model import Operation, Spec
from satori_ci.spec.routes import parse_template


def chain_target(operation: Operation) -> str:
    digest = hashlib.sha256(f"{operation.method} {operation.path}".encode()).hexdigest()[:8]
    return f"satori_{digest}"


def _value_hint(settings: PlanSettings, operation: Operation, param: str, location: str = "path") -> str:
    return (f"needs a value for {{{param}}} ({location}): no operation lists its values; add it to "
            f"{settings.config_name}: requests: operations: {{\"{operation.method} {operation.path}\": "
            f"{{{param}: ...}}}} (or requests: values: {{{param}: ...}})")


class _Planner:
    def __init__(self, spec: Spec, settings: PlanSettings, candidates: list[Operation]) -> None:
        self.spec = spec
        self.settings = settings
        self.candidates = candidates
        self.finder = FeedFinder(spec, candidates)
        self.lookup = Lookup(spec, candidates, self.finder.lookup.lists)  # a producer's fields are read once
        self.by_label = {_label(c): c for c in candidates}
        self.done: dict[int, PlannedOperation | Skip] = {}
        self.visiting: set[int] = set()

    def plan(self, operation: Operation) -> PlannedOperation | Skip:
        key = id(operation)
        if key in self.done:
            return self.done[key]
        if key in self.visiting:  # a cycle of links: this operation is not a producer here
            return Skip(operation.method, operation.path, SkipKind.NO_INPUT, "cyclic chain")
        self.visiting.add(key)
        try:
            found = self._plan(operation)
        finally:
            self.visiting.discard(key)
        self.done[key] = found
        return found

    def _plan(self, operation: Operation) -> PlannedOperation | Skip:
        values = self.settings.values_for(operation)
        path_params = [s.whole for s in parse_template(operation.path).segments if s.whole]
        chain = self._chain(operation, values) if self.settings.chain > 0 else None
        if chain is not None:
            own = sample_requests(self.spec, operation, values)
            if own and not own[0].placeholders:  # the spec's example: the first request's value until a list gives one
                example = dict(own[0].path_params)
                chain = replace(chain, seed=tuple(example.get(p, "") for p in chain.params))
        filled = self._inputs(operation, values)
        if isinstance(filled, Skip):
            return filled
        inputs, feeds = filled
        sources = []
        for param in path_params:
            fed = next((f.producer for f in feeds if f.param == param), None)
            if param in values:
                sources.append((param, "config"))
            elif chain is not None and param in chain.params:
                sources.append((param, chain.producer))
            elif fed is not None:
                sources.append((param, fed))
            else:
                sources.append((param, "spec example"))
        return PlannedOperation(operation, tuple(sorted(values.items())), chain, (), tuple(sources), inputs, feeds)

    def _inputs(self, operation: Operation, values: dict[str, str]) -> Inputs | Skip:
        """The required inputs filled at run time and their feeds; a `Skip` when one can get no value."""
        target = chain_target(operation)
        path: list[tuple[Input, tuple[Feed, ...]]] = []
        other: list[tuple[Input, tuple[Feed, ...]]] = []
        for param in operation.parameters:
            if param.name in values:
                continue
            if param.location == "path":
                feeds = self._sendable(operation, self.finder.path_feeds(operation, param.name))
                seeds = suggestions(self.spec, param)
                if (not seeds and any(f.producer == _label(operation) for f in feeds)
                        and empty_is_a_root(self.spec, operation, param)):
                    seeds = ("",)
                where = path
            elif param.location in ("query", "header") and param.required:
                if suggestions(self.spec, param) or param.name.lower() in ("accept", "content-type", "authorization"):
                    continue
                feeds, seeds, where = self._sendable(operation, self.finder.query_feeds(operation, param)), (), other
            else:
                continue
            if not feeds and not seeds:
                return Skip(operation.method, operation.path, SkipKind.NO_INPUT,
                            _value_hint(self.settings, operation, param.name, param.location))
            where.append((Input(param.name, param.location, f"{target}_in{len(path) + len(other)}", seeds), feeds))
        ordered = [*reversed(path), *other]
        return tuple(i for i, _ in ordered), tuple(f for _, found in ordered for f in found)

    def _sendable(self, operation: Operation, feeds: tuple[Feed, ...]) -> tuple[Feed, ...]:
        """The feeds whose producer is sent (the operation itself for a recursive listing); none without chaining."""
        if self.settings.chain <= 0:
            return ()
        out = []
        for feed in feeds:
            producer = self.by_label.get(feed.producer)
            if producer is operation or (producer is not None and isinstance(self.plan(producer), PlannedOperation)):
                out.append(feed)
        return tuple(out)

    def _chain(self, operation: Operation, values: dict[str, str]) -> Chain | None:
        producer = find_producer(self.lookup, operation)
        if producer is None or producer.param in values:
            return None
        if not isinstance(self.plan(producer.operation), PlannedOperation):
            return None
        carried = tuple(c for c in producer.carry if c[0] not in values)
        params = (*(c[0] for c in carried), producer.param)
        return Chain(chain_target(operation), f"{producer.operation.method} {producer.operation.path}", params,
                     self.settings.chain)


Inputs = tuple[tuple[Input, ...], tuple[Feed, ...]]


def _label(operation: Operation) -> str:
    return f"{operation.method} {operation.path}"


def _send_order(operation: Operation) -> int:
    """Safe operations first, then opted-in writes, deletions last."""
    if operation.method in SAFE_METHODS:
        return 0
    return 2 if operation.method == "DELETE" else 1


def plan_requests(spec: Spec, settings: PlanSettings | None = None) -> RequestPlan:
    """Which operations with a 2XX JSON response are sent, with which inputs, in which order."""
    settings = settings or PlanSettings()
    skipped: list[Skip] = []
    candidates: list[Operation] = []
    for operation in spec.operations:
        opted_in = matches(settings.unsafe, operation.method, operation.path)
        if not operation.statuses:
            if operation.method not in SAFE_METHODS and not opted_in:
                skipped.append(Skip(operation.method, operation.path, SkipKind.UNSAFE_METHOD,
                                    f"not a safe method: opt in with --unsafe \"{operation.method} {operation.path}\""
                                    f" or requests: unsafe: [\"{operation.method} {operation.path}\"] in "
                                    f"{settings.config_name}"))
            elif opted_in:
                skipped.append(Skip(operation.method, operation.path, SkipKind.NOTHING_TO_CHECK,
                                    "opted in, but the spec gives it no 2XX JSON response: nothing to check, so it "
                                    "is not sent"))
            continue
        if matches(settings.ignore, operation.method, operation.path):
            skipped.append(Skip(operation.method, operation.path, SkipKind.IGNORED,
                                f"ignored (ignore.operations in {settings.config_name})"))
        elif operation.method not in SAFE_METHODS and not opted_in:
            skipped.append(Skip(operation.method, operation.path, SkipKind.UNSAFE_METHOD,
                                f"not a safe method: opt in with --unsafe \"{operation.method} {operation.path}\" or "
                                f"requests: unsafe: [\"{operation.method} "
                                f"{operation.path}\"] in {settings.config_name}"))
        else:
            candidates.append(operation)
    planner = _Planner(spec, settings, candidates)
    planned: dict[int, PlannedOperation] = {}
    for operation in candidates:
        found = planner.plan(operation)
        if isinstance(found, Skip):
            skipped.append(found)
        else:
            planned[id(operation)] = found
    by_label = {p.label: p for p in planned.values()}
    harvests: dict[str, list[Harvest]] = {}
    for consumer in planned.values():
        chain = consumer.chain
        if chain is None:
            continue
        producer = find_producer(planner.lookup, consumer.operation)
        if producer is None:  # pragma: no cover - the chain was made from this producer
            continue
        carry = tuple(c for c in producer.carry if c[0] in chain.params)
        harvests.setdefault(chain.producer, []).append(Harvest(chain, producer.paths, carry))
    with_harvests = {label: replace(p, harvests=tuple(harvests.get(label, ())))
                     for label, p in by_label.items()}
    ordered = _ordered([with_harvests[p.label] for p in sorted(planned.values(), key=lambda p: _send_order(
        p.operation))], with_harvests)
    return RequestPlan(tuple(ordered), tuple(skipped), settings.budget, settings.chain, settings.config_name)


def _ordered(operations: list[PlannedOperation], by_label: dict[str, PlannedOperation]) -> list[PlannedOperation]:
    """The operations with every producer moved before its consumers (otherwise in the given order)."""
    out: list[PlannedOperation] = []
    placed: set[str] = set()

    def place(p: PlannedOperation, depth: int = 0) -> None:
        if p.label in placed or depth > len(by_label):
            return
        if p.chain is not None and p.chain.producer in by_label:
            place(by_label[p.chain.producer], depth + 1)
        if p.label not in placed:
            placed.add(p.label)
            out.append(p)

    for p in operations:
        place(p)
    return out
