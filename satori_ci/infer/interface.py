"""What every inference backend implements, and the values it returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField


@dataclass(frozen=True)
class Inferred:
    """The oracles one backend found for one field (possibly none), with notes for the log."""

    field: ResponseField
    oracles: tuple[Oracle, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BackendStats:
    """Accounting a backend reports at the end of a run (LLM calls, tokens, cost, fallbacks)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    warnings: tuple[str, ...] = ()
    fallbacks: int = 0
    """Fields another backend answered instead (the LLM backend's fallback)."""


@dataclass(frozen=True)
class BackendRun:
    results: tuple[Inferred, ...]
    stats: BackendStats = field(default_factory=BackendStats)


OnInferred = Callable[[Inferred], None]
"""Called as soon as a field is done, so that work survives an interruption."""


class InferenceBackend(Protocol):
    """A source of oracles: `declared`, `rules` or `llm`."""

    name: str

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        """Infer oracles for each field; results come back in the order of `fields`."""
        ...
