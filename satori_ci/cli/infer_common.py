"""What `infer` and `infer --batch` share: the backend flags, the LLM settings they give, the run's summary lines
(here so that `infer_commands` and `infer_batch` both import it, and not each other)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from satori_ci.errors import UsageError
from satori_ci.infer.factory import BACKENDS
from satori_ci.infer.incremental import UpdateResult
from satori_ci.infer.interface import inferred_text
from satori_ci.infer.llm import LLMConfig
from satori_ci.infer.llm.config import DEFAULT_MODEL


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=BACKENDS,
                        help="rules (default, offline, deterministic), llm (opt-in), declared (keywords only); "
                             "default: the config's backend, else rules")
    parser.add_argument("--model", help=f"LLM model name (default: the config's model, else {DEFAULT_MODEL})")
    parser.add_argument("--base-url", help="any OpenAI-compatible endpoint (OpenAI, Azure, Ollama, vLLM); "
                        "default: OPENAI_BASE_URL, else OpenAI")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                        help="environment variable holding the key (default OPENAI_API_KEY)")
    parser.add_argument("--concurrency", type=int, default=4, help="LLM requests at once (default 4)")
    parser.add_argument("--max-calls", type=int, help="LLM request budget for this run")
    parser.add_argument("--max-tokens", type=int, help="LLM token budget for this run")
    parser.add_argument("--llm-timeout", type=float, default=LLMConfig.timeout, metavar="S",
                        help=f"seconds an LLM request waits for its answer (default {LLMConfig.timeout:g}); after "
                             f"{LLMConfig.breaker_after} 5XX answers, timeouts or connection errors in a row the run "
                             "stops calling the server and the rules infer the rest")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary (warnings still shown)")


MAX_LLM_TIMEOUT_S = 3600.0


def llm_config(args: argparse.Namespace) -> LLMConfig | None:
    if args.backend != "llm":
        return None
    timeout = args.llm_timeout
    if not 0 < timeout <= MAX_LLM_TIMEOUT_S:  # NaN fails every comparison
        raise UsageError(f"--llm-timeout must be more than 0 seconds and at most {MAX_LLM_TIMEOUT_S:g}")
    return LLMConfig(model=args.model, base_url=args.base_url, api_key=os.environ.get(args.api_key_env) or None,
                     concurrency=max(1, args.concurrency), max_calls=args.max_calls, max_tokens=args.max_tokens,
                     timeout=timeout)


def dropped_lines(result: UpdateResult, shown: int = 3) -> list[str]:
    """The fields gone from the spec whose oracles left the file; a warning when someone's decisions went too."""
    if not result.dropped:
        return []
    oracles = sum(len(e.oracles) for e in result.dropped)
    lines = [f"{len(result.dropped)} field(s) no longer in the spec: their {oracles} oracle(s) left the file"]
    decisions = result.dropped_decisions
    if decisions:
        named = "; ".join(f"{o.operation} {o.field}: {o.kind.value}" + ("" if o.enabled else " (off)")
                          for o in decisions[:shown])
        more = f" and {len(decisions) - shown} more" if len(decisions) > shown else ""
        lines.append(f"warning: {len(decisions)} reviewed oracle(s) went with them ({named}{more}); "
                     "the previous oracle file in git still has them")
    return lines


def summary_lines(result: UpdateResult, path: Path, backend: str, *, batch_requests: int | None = None) -> list[str]:
    """The run in a few lines; `batch_requests`: the answers came from a batch of that many requests."""
    oracles = sum(len(e.oracles) for e in result.file.entries)
    lines = [f"{len(result.file.entries)} field(s): {result.reused} reused, {result.moved} moved, "
             f"{inferred_text(result.inferred, backend, result.stats)}; {oracles} oracle(s) in {path}"]
    stats = result.stats
    if batch_requests is not None:
        lines.append(f"llm (Batch API, half price): {batch_requests} request(s), {stats.prompt_tokens:,} prompt + "
                     f"{stats.completion_tokens:,} completion tokens, about ${stats.cost_usd:.4f}")
    elif stats.calls:
        failed = f" ({stats.failed_calls} failed)" if stats.failed_calls else ""
        lines.append(f"llm: {stats.calls} call(s){failed}, {stats.prompt_tokens:,} prompt + "
                     f"{stats.completion_tokens:,} completion tokens, about ${stats.cost_usd:.4f}")
    lines.extend(f"warning: {w}" for w in stats.warnings)
    lines.extend(dropped_lines(result))
    if result.pending:
        lines.append(f"interrupted: {result.pending} field(s) left to infer; run again to finish "
                     "(everything inferred so far was written)")
    return lines

