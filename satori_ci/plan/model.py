"""The request plan: which operations are sent, with which inputs, in which order, and what is not sent and why."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from enum import StrEnum

from satori_ci.spec.model import Operation

SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Sent without asking: they do not change the server's state."""
DEFAULT_CHAIN = 3
"""Values harvested from a list response, so that its detail operation is called this many times."""
MAX_PAGES = 10
"""Next pages of one list followed at the most (within the budget)."""


def matches(patterns: tuple[str, ...], method: str, path: str) -> bool:
    """Whether `METHOD /path` matches one of the globs (`GET /internal/*`, `POST /things`)."""
    return any(fnmatch.fnmatchcase(f"{method} {path}", pattern) for pattern in patterns)


@dataclass(frozen=True)
class PlanSettings:
    """What the trusted config says about requests (values already read from the environment)."""

    unsafe: tuple[str, ...] = ()
    """Globs over `METHOD /path`: non-safe operations the user opted in to sending."""
    ignore: tuple[str, ...] = ()
    """Globs over `METHOD /path`: operations never sent."""
    values: tuple[tuple[str, str], ...] = ()
    """Parameter name -> value, for every operation."""
    operation_values: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    """`METHOD /path` -> (parameter name -> value): wins over `values`."""
    chain: int = DEFAULT_CHAIN
    """Values harvested per producer (0: no chaining)."""
    config_name: str = ".satori.yml"
    """Where the hints tell the user to write a value or an opt-in."""
    budget: Budget = field(default_factory=lambda: Budget())

    def values_for(self, operation: Operation) -> dict[str, str]:
        """The values of an operation's parameters: `values` for its path and required parameters (an optional
        query parameter of the same name is often a filter: it takes a value only from `operation_values`),
        then the operation's own."""
        wanted = {p.name for p in operation.parameters if p.location == "path" or p.required}
        found = {name: value for name, value in self.values if name in wanted}
        for key, values in self.operation_values:
            if key == f"{operation.method} {operation.path}":
                found.update(values)
        return found


DEFAULT_BUDGET = 1000
"""Requests one run sends at the most, unless the config says otherwise."""
DEFAULT_TIME_BUDGET = 600.0
"""Seconds one run spends sending at the most, unless the config says otherwise."""


@dataclass(frozen=True)
class Budget:
    """What a run may spend on staging (`requests.budget`, `time_budget`, `rate`, `concurrency`): requests are
    sent breadth-first (every operation once before any operation twice) until one of them runs out."""

    requests: int = DEFAULT_BUDGET
    seconds: float = DEFAULT_TIME_BUDGET
    rate: float = 0.0
    """Requests per second at the most (0: no limit)."""
    concurrency: int = 1
    """Requests in flight at once."""

    def share(self, parts: int) -> Budget:
        """The budget of one of `parts` shards: the requests split, the rest as they are."""
        return Budget(max(1, -(-self.requests // max(parts, 1))), self.seconds, self.rate / max(parts, 1)
                      if self.rate else 0.0, self.concurrency)


class SkipKind(StrEnum):
    UNSAFE_METHOD = "unsafe_method"
    IGNORED = "ignored"
    NO_INPUT = "no_input"
    """A required parameter has no value (nothing in the config, no producer, no example): it needs one."""
    NOTHING_TO_CHECK = "nothing_to_check"
    """Opted in, but without a 2XX JSON response in the spec: no oracle could be checked."""
    REFUSED = "refused"
    """Sent, and answered 401 or 403 every time."""
    NOT_FOUND = "not_found"
    """Sent, and answered 404 for every value tried."""
    BUDGET = "budget"
    """Not sent: the run's budget ran out first."""
    UNANSWERED = "unanswered"
    """Not sent: staging stopped answering (attempts in a row without an answer: `run.breaker`)."""


ON_PURPOSE = frozenset({SkipKind.UNSAFE_METHOD, SkipKind.IGNORED, SkipKind.NOTHING_TO_CHECK})
"""Operations left out by decision, not for want of an input: their oracles are not counted as missed."""
SENT = frozenset({SkipKind.REFUSED, SkipKind.NOT_FOUND})
"""Operations sent but not reached (no checked 2XX JSON response)."""


@dataclass(frozen=True, order=True)
class Skip:
    """An operation that is not sent, and what would make it sent."""

    method: str
    path: str
    kind: SkipKind
    detail: str

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def on_purpose(self) -> bool:
        return self.kind in ON_PURPOSE

    def to_dict(self) -> dict[str, str]:
        return {"method": self.method, "path": self.path, "kind": self.kind.value, "detail": self.detail}


@dataclass(frozen=True)
class Chain:
    """A consumer's path parameters filled at run time from a producer's responses, up to `limit` requests.

    Slot k of the consumer is request k; its parameter i is the variable `variable(k, i)`; `count` holds how
    many slots are filled. The last parameter is harvested from the producer's body; the others are the
    producer's own values for them (a list under `/users/{user}/posts` belongs to that user).
    """

    target: str
    """The variable prefix of this consumer's slots (`satori_1a2b3c4d`)."""
    producer: str
    """`METHOD /path` of the producer."""
    params: tuple[str, ...]
    limit: int
    seed: tuple[str, ...] = ()
    """Encoded values of `params` from the spec's examples: slot 0 holds them until a producer fills it, so an
    empty or failing list does not leave the consumer unsent."""

    def variable(self, slot: int, index: int) -> str:
        return f"{self.target}_{slot}_{index}"

    @property
    def count(self) -> str:
        return f"{self.target}_n"


@dataclass(frozen=True)
class Harvest:
    """What a producer's 2XX JSON responses fill: the slots of one consumer's chain."""

    chain: Chain
    paths: tuple[str, ...]
    """Field paths tried in order; the first that reaches a value gives the harvested values."""
    carry: tuple[tuple[str, str], ...]
    """(consumer parameter, producer parameter): the producer's own value goes into the consumer's slot."""

    def to_json(self) -> dict[str, object]:
        return {"target": self.chain.target, "paths": list(self.paths), "limit": self.chain.limit,
                "params": list(self.chain.params), "carry": [list(c) for c in self.carry]}


@dataclass(frozen=True)
class PlannedOperation:
    """One operation to send: its inputs and the chains it feeds."""

    operation: Operation
    values: tuple[tuple[str, str], ...]
    """Parameter -> value from the config."""
    chain: Chain | None
    harvests: tuple[Harvest, ...]
    sources: tuple[tuple[str, str], ...]
    """Path parameter -> where its value comes from (`config`, `GET /things`, `spec example`)."""
    inputs: tuple[Input, ...] = ()
    """The required inputs the runners fill at run time (`satori_ci.plan.explore`), the carrying one first."""
    feeds: tuple[Feed, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.operation.method} {self.operation.path}"


@dataclass(frozen=True)
class RequestPlan:
    operations: tuple[PlannedOperation, ...]
    """In the order they are sent: every producer before its consumers."""
    skipped: tuple[Skip, ...]
    budget: Budget = field(default_factory=lambda: Budget())
    samples: int = DEFAULT_CHAIN
    config_name: str = ".satori.yml"


@dataclass(frozen=True)
class Feed:
    """Where a consumer's input gets values at run time: the 2XX JSON responses of a producer operation."""

    producer: str
    """`METHOD /path` of the producer (the consumer itself for a recursive listing)."""
    param: str
    """The consumer's input filled from the producer's body."""
    paths: tuple[str, ...]
    """Field paths tried in order in the producer's body; the first that reaches a value gives the values."""
    carry: tuple[tuple[str, str], ...] = ()
    """(consumer input, producer input): the producer's own value goes with each value it gives."""
    why: str = "path prefix"
    """Which rule found it: `link`, `path prefix`, `sibling path`, `same schema`, `recursive listing`."""


@dataclass(frozen=True)
class Input:
    """A required input of an explored operation that the config does not give: filled at run time."""

    name: str
    location: str
    """`path`, `query` or `header`."""
    variable: str
    """The `{{variable}}` the template request holds in its place."""
    seeds: tuple[str, ...] = ()
    """Values from the spec (`example`, `default`, `enum`; the empty value of a recursive listing), tried first."""
