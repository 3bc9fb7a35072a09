"""Per-run limits on LLM use, token accounting and a cost estimate."""

from __future__ import annotations

import threading
from dataclasses import dataclass

# USD per 1,000 tokens (prompt, completion): list prices of a few well-known models, used only
# for the run's cost estimate. Anything else is priced at 0 unless the caller gives a price.
KNOWN_PRICES_PER_1K: dict[str, tuple[float, float]] = {
    "gpt-4o": (0.0025, 0.01),
    "gpt-4o-mini": (0.00015, 0.0006),
    "gpt-4.1": (0.002, 0.008),
    "gpt-4.1-mini": (0.0004, 0.0016),
    "gpt-4.1-nano": (0.0001, 0.0004),
    "gpt-3.5-turbo": (0.0005, 0.0015),
}


BATCH_PRICE_FACTOR = 0.5
"""The Batch API bills half the synchronous price."""


@dataclass(frozen=True)
class Pricing:
    prompt_per_1k: float = 0.0
    completion_per_1k: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens / 1000 * self.prompt_per_1k + completion_tokens / 1000 * self.completion_per_1k

    def scaled(self, factor: float) -> Pricing:
        """Both prices times `factor` (e.g. `BATCH_PRICE_FACTOR`)."""
        return Pricing(self.prompt_per_1k * factor, self.completion_per_1k * factor)


def pricing_for(model: str, prompt_per_1k: float | None = None,
                completion_per_1k: float | None = None) -> Pricing:
    """Explicit prices win; then the known list (dated snapshots such as `gpt-4o-2024-08-06`
    match their family); then 0."""
    known = KNOWN_PRICES_PER_1K.get(model)
    if known is None:
        family = max((name for name in KNOWN_PRICES_PER_1K if model.startswith(name + "-")
                      and model[len(name) + 1:][:1].isdigit()), key=len, default=None)
        known = KNOWN_PRICES_PER_1K[family] if family else (0.0, 0.0)
    return Pricing(known[0] if prompt_per_1k is None else prompt_per_1k,
                   known[1] if completion_per_1k is None else completion_per_1k)


class Budget:
    """Counts the requests sent and tokens used in one run; thread-safe.

    A request is allowed while fewer than `max_calls` were sent and fewer than `max_tokens` were
    used. Requests already in flight may overshoot the token limit by their own usage.
    """

    def __init__(self, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._lock = threading.Lock()

    def exhausted(self) -> str | None:
        """Why no more requests may be sent, or None."""
        with self._lock:
            return self._exhausted()

    def _exhausted(self) -> str | None:
        if self.max_calls is not None and self.calls >= self.max_calls:
            return f"the budget of {self.max_calls} LLM calls is used up"
        used = self.prompt_tokens + self.completion_tokens
        if self.max_tokens is not None and used >= self.max_tokens:
            return f"the budget of {self.max_tokens} LLM tokens is used up ({used} used)"
        return None

    def start_call(self) -> str | None:
        """Reserve one request: None when granted, else the reason it is refused."""
        with self._lock:
            reason = self._exhausted()
            if reason is None:
                self.calls += 1
            return reason

    def record(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.prompt_tokens += max(0, prompt_tokens)
            self.completion_tokens += max(0, completion_tokens)
