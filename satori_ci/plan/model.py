"""The request plan: which operations are sent, with which inputs, in which order, and what is not sent and why."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from enum import StrEnum

from satori_ci.spec.model import Operation

SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Sent without asking: they do not change the server's state."""
DEFAULT_CHAIN = 3
"""Values harvested from a list response, so that its detail operation is called this many times."""


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


class SkipKind(StrEnum):
    UNSAFE_METHOD = "unsafe_method"
    IGNORED = "ignored"
    NO_INPUT = "no_input"
    """A path parameter has no value (nothing in the config, no producer, no example)."""
    NOTHING_TO_CHECK = "nothing_to_check"
    """Opted in, but without a 2XX JSON response in the spec: no oracle could be checked."""


ON_PURPOSE = frozenset({SkipKind.UNSAFE_METHOD, SkipKind.IGNORED, SkipKind.NOTHING_TO_CHECK})
"""Operations left out by decision, not for want of an input: their oracles are not counted as missed."""


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

    @property
    def label(self) -> str:
        return f"{self.operation.method} {self.operation.path}"


@dataclass(frozen=True)
class RequestPlan:
    operations: tuple[PlannedOperation, ...]
    """In the order they are sent: every producer before its consumers."""
    skipped: tuple[Skip, ...]
