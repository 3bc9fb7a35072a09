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
    failed_calls: int = 0
    """Calls that brought no usable completion (5XX, timeouts, connection errors, refusals)."""
    answered_by: tuple[tuple[str, int], ...] = ()
    """Fields by who actually answered, e.g. `("llm", 4), ("rules, the LLM server failed", 372)`; empty: every
    field by the backend the run named."""


NOT_ASKED = "not asked"
"""The `answered_by` label of a field the LLM backend settles without a question (an object, say)."""


def inferred_text(inferred: int, backend: str, stats: BackendStats) -> str:
    """`12 inferred (rules)`; when another backend answered some fields, by who answered:
    `0 inferred (llm), 372 inferred (rules, the LLM server failed), 4 not asked (no oracle kind applies)`."""
    if not stats.fallbacks or not stats.answered_by:
        return f"{inferred} inferred ({backend})"
    return ", ".join(f"{count} not asked (no oracle kind applies)" if label == NOT_ASKED
                     else f"{count} inferred ({label})" for label, count in stats.answered_by)


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


def inferred_count(inferred: int, stats: BackendStats) -> str:
    """`12 inferred` (the reports' wording), by who answered when another backend answered some fields."""
    return inferred_text(inferred, "", stats) if stats.fallbacks and stats.answered_by else f"{inferred} inferred"
