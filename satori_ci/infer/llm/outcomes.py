"""What one field's LLM attempt comes to (settled on the thread that called `infer`), and why a field went to the
fallback backend: its `answered_by` label is `<fallback>, <why>`, e.g. `rules, the LLM server failed`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Final

from satori_ci.infer.interface import NOT_ASKED, Inferred

NO_KEY: Final = "no API key"
NO_CLIENT: Final = "the LLM client could not start"
UNREACHABLE: Final = "the LLM server could not be reached"
SERVER_FAILED: Final = "the LLM server failed"
RATE_LIMITED: Final = "the LLM server kept rate limiting"
BUDGET: Final = "the LLM budget was used up"
REFUSED: Final = "the LLM server refused the request"
UNUSABLE: Final = "the LLM answer was unusable"
CALL_FAILED: Final = "the LLM call failed"
STEP_FAILED: Final = "an LLM step failed"


@dataclass(frozen=True)
class Done:
    inferred: Inferred
    asked: bool = True
    """False: no oracle kind applies to the field, nothing was asked."""


@dataclass(frozen=True)
class Fallback:
    notes: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Unreachable:
    message: str


@dataclass(frozen=True)
class Again:
    """The first request of the run failed (5XX, timeout): send the field again with the others, at once."""

    failures: int
    notes: tuple[str, ...]


class Skipped:
    pass


SKIPPED: Final = Skipped()
Outcome = Done | Fallback | Unreachable | Again | Skipped


def answered_by(counts: Counter[str], llm: str) -> tuple[tuple[str, int], ...]:
    """The LLM's own count first (even 0), then the fallbacks, most first, then the fields not asked."""
    rest = {label: n for label, n in counts.items() if label not in (llm, NOT_ASKED)}
    not_asked = counts.get(NOT_ASKED, 0)
    ordered = sorted(rest.items(), key=lambda item: (-item[1], item[0]))
    return ((llm, counts.get(llm, 0)), *ordered, *(((NOT_ASKED, not_asked),) if not_asked else ()))
