"""`LLMConfig`: the model, where it is served, and how much of it a run may use (retries, budget, prices)."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_MODEL = "gpt-4o"
"""The model when no flag, config or action input names one."""


@dataclass(frozen=True)
class LLMConfig:
    """How to reach the model and how much of it a run may use."""

    model: str
    base_url: str | None = None
    """Any OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama). None: the
    `OPENAI_BASE_URL` environment variable, else OpenAI's API."""
    api_key: str | None = None
    """None: `OPENAI_API_KEY`. Servers that need no key (Ollama, vLLM) still need a non-empty one."""
    concurrency: int = 4
    timeout: float = 15.0
    """Seconds a request waits for its answer (each read). With `breaker_after` failures in a row the run stops
    calling the server: a server that never answers costs at most about three times this (and the backoff)."""
    connect_timeout: float = 5.0
    """Seconds a request waits for its connection; past it the server counts as unreachable."""
    breaker_after: int = 3
    """5XX answers, timeouts or connection errors in a row (across fields) after which the run stops calling the
    server and the rules infer the remaining fields."""
    max_attempts: int = 4
    """Attempts per field on 429, 5xx, timeouts and connection errors (the first one included)."""
    backoff_base: float = 1.0
    """Delay before the first retry; it doubles on each further retry."""
    backoff_max: float = 30.0
    """Upper bound of a delay, `retry-after` included."""
    jitter: float = 0.25
    """Each delay is scaled by a random factor in [1 - jitter, 1 + jitter]."""
    seed: int | None = None
    """Seed of the jitter (per field), for reproducible delays; None: random."""
    max_calls: int | None = None
    """Requests a run may send (retries included); None: no limit."""
    max_tokens: int | None = None
    """Prompt + completion tokens a run may use; None: no limit."""
    price_per_1k_prompt: float | None = None
    """USD per 1,000 prompt tokens for the cost estimate; None: known list price, else 0."""
    price_per_1k_completion: float | None = None
    price_factor: float = 1.0
    """Multiplies both prices (`BATCH_PRICE_FACTOR` for answers from the Batch API)."""
    temperature: float | None = 0.0
    """None: not sent (for models that only accept their default)."""
    max_output_tokens: int | None = None
    """`max_tokens` of each request; None: not sent."""
    json_mode: bool = True
    """Ask for `response_format: json_object` (dropped for the run if the server refuses it)."""
    ask_reasons: bool = True
    """Ask for an optional one-line reason per oracle (costs a few output tokens)."""

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("an LLM model name is required")
        if self.concurrency < 1 or self.max_attempts < 1 or self.breaker_after < 1:
            raise ValueError("concurrency, max_attempts and breaker_after must be at least 1")
        if self.price_factor < 0:
            raise ValueError("price_factor must not be negative")
        if min(self.timeout, self.connect_timeout) <= 0 or self.backoff_base < 0 or self.backoff_max < 0 \
                or not 0 <= self.jitter <= 1:
            raise ValueError("timeouts must be positive, delays non-negative and jitter within [0, 1]")
        for name in ("max_calls", "max_tokens"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must not be negative")

    @property
    def source(self) -> str:
        return f"llm:{self.model}"

    def resolved_api_key(self) -> str | None:
        return self.api_key or os.environ.get("OPENAI_API_KEY") or None
