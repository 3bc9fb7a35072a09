"""The opt-in LLM inference backend (SATORI): one prompt per response field, sent to any
OpenAI-compatible chat endpoint, answers repaired and checked, the rest left to a fallback."""

from .backend import InferenceInterrupted, LLMBackend, ProgressCallback
from .breaker import CircuitBreaker, backoff_delay
from .budget import KNOWN_PRICES_PER_1K, Budget, Pricing, pricing_for
from .config import LLMConfig
from .parse import Extracted, Interpretation, extract_object, interpret
from .prompt import SYSTEM_PROMPT, Prompt, build_prompt

__all__ = [
    "KNOWN_PRICES_PER_1K",
    "SYSTEM_PROMPT",
    "Budget",
    "CircuitBreaker",
    "Extracted",
    "InferenceInterrupted",
    "Interpretation",
    "LLMBackend",
    "LLMConfig",
    "Pricing",
    "ProgressCallback",
    "Prompt",
    "backoff_delay",
    "build_prompt",
    "extract_object",
    "interpret",
    "pricing_for",
]
