"""The opt-in LLM backend: one chat completion per response field (SATORI), with retries,
a per-run budget, and a fallback backend for every field the LLM could not answer.

Threads: requests run on a pool of `concurrency` worker threads; `on_inferred`, the progress
callback and the fallback backend are only ever called from the thread that called `infer`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Final, Protocol

from satori_ci.infer.interface import NOT_ASKED, BackendRun, BackendStats, InferenceBackend, Inferred, OnInferred
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

from .breaker import CircuitBreaker, backoff_delay, failure_of, pause, server_name
from .budget import Budget, pricing_for
from .config import LLMConfig
from .errors import (
    BadRequest,
    CallError,
    Completion,
    ConnectFailed,
    FatalError,
    MissingCredentials,
    TransientError,
)
from .outcomes import (
    BUDGET,
    CALL_FAILED,
    NO_CLIENT,
    NO_KEY,
    RATE_LIMITED,
    REFUSED,
    SERVER_FAILED,
    SKIPPED,
    STEP_FAILED,
    UNREACHABLE,
    UNUSABLE,
    Again,
    Done,
    Fallback,
    Outcome,
    Unreachable,
    answered_by,
)
from .parse import Interpretation, extract_object, interpret
from .prompt import Prompt, build_prompt


class CompletionClient(Protocol):
    """Where answers come from: `client.ChatClient` (a server), or `batch.ReplayClient` (a collected batch)."""

    @property
    def base_url(self) -> str:
        """Where the answers come from, for messages."""
        ...

    def complete(self, prompt: Prompt, *, json_mode: bool) -> Completion:
        """The completion of one prompt; raises `CallError` (or a subclass) instead."""
        ...

    def close(self) -> None:
        ...


ProgressCallback = Callable[[int, int], None]
"""`progress(done, total)`: called with (0, total) at the start and after every finished field."""


class InferenceInterrupted(KeyboardInterrupt):
    """Raised by `infer` on Ctrl-C (a KeyboardInterrupt, so code that does not know it still stops).

    `partial` holds every field finished before the interruption, in input order (the fields
    not finished are simply missing) and the run's stats so far. Each of them was also passed to
    `on_inferred` already.
    """

    def __init__(self, partial: BackendRun) -> None:
        super().__init__("inference interrupted")
        self.partial = partial


BREAKER_POLL_S: Final = 0.05
"""How often a backoff wait looks whether the breaker opened meanwhile."""



@dataclass
class _Run:
    """The mutable state of one `infer` call."""

    budget: Budget
    json_mode: bool
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    warnings: list[str] = field(default_factory=list)
    fatal: str | None = None
    requested: bool = False
    budget_warned: bool = False
    fallback_stats: list[BackendStats] = field(default_factory=list)
    fallbacks: int = 0
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    failed_calls: int = 0
    answered_by: Counter[str] = field(default_factory=Counter)

    def warn(self, message: str) -> None:
        with self.lock:
            if message not in self.warnings:
                self.warnings.append(message)

    def call_failed(self) -> None:
        with self.lock:
            self.failed_calls += 1


class LLMBackend:
    """`InferenceBackend` asking an LLM about each field; `fallback` answers what it cannot.

    Fields go to the fallback backend when there is no API key or the server cannot be reached
    on the first request (all fields, with a warning), once the budget is used up or the server
    refuses the key or model (the remaining fields, with a warning), and for a single field whose
    retries are exhausted or whose answer holds no JSON object (with a note on that field).
    `client`: answers from elsewhere than a server (a collected batch); no key is needed then.
    """

    name = "llm"

    def __init__(self, config: LLMConfig, fallback: InferenceBackend, *,
                 progress: ProgressCallback | None = None,
                 sleep: Callable[[float], None] | None = None,
                 client: CompletionClient | None = None) -> None:
        self.config = config
        self.fallback = fallback
        self.progress = progress
        self._sleep = sleep
        self._client = client
        self._pricing = pricing_for(config.model, config.price_per_1k_prompt,
                                    config.price_per_1k_completion).scaled(config.price_factor)

    # ---------------------------------------------------------------------------------------
    # The run

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        """Oracles for each field, in the order of `fields`.

        Raises `InferenceInterrupted` (with the finished fields) on KeyboardInterrupt.
        """
        fields = list(fields)
        total = len(fields)
        results: list[Inferred | None] = [None] * total
        cfg = self.config
        run = _Run(budget=Budget(cfg.max_calls, cfg.max_tokens), json_mode=cfg.json_mode,
                   breaker=CircuitBreaker(cfg.breaker_after))
        done = 0

        def finish(index: int, inferred: Inferred) -> None:
            nonlocal done
            if results[index] is not None:
                return
            results[index] = inferred
            done += 1
            if on_inferred is not None:
                on_inferred(inferred)
            if self.progress is not None:
                self.progress(done, total)

        try:
            if self.progress is not None:
                self.progress(0, total)
            client, why_not = self._open_client(run, total)
            if client is None:
                reason = Fallback((f"llm not used: {why_not}",), why_not)
                self._run_fallback(run, fields, dict.fromkeys(range(total), reason), finish)
            else:
                try:
                    self._run_llm(run, client, fields, finish)
                finally:
                    if not run.stop.is_set():  # workers may still be using it after an interruption
                        client.close()
        except KeyboardInterrupt as interrupt:
            run.stop.set()
            partial = BackendRun(tuple(r for r in results if r is not None), self._stats(run))
            raise InferenceInterrupted(partial) from interrupt
        finished = tuple(r for r in results if r is not None)
        assert len(finished) == total, "every field is settled by the LLM or the fallback"
        return BackendRun(finished, self._stats(run))

    def _open_client(self, run: _Run, total: int) -> tuple[CompletionClient | None, str]:
        """The client, or None and why not (after a warning)."""
        if self._client is not None:
            return self._client, ""
        cfg = self.config
        key = cfg.resolved_api_key()
        if key is None:
            run.warn(f"no API key for the LLM (give one or set OPENAI_API_KEY; any non-empty value for "
                     f"servers that need none, such as Ollama): all {total} fields use the "
                     f"{self.fallback.name} backend")
            return None, NO_KEY
        from .client import ChatClient  # imports openai: only when the LLM is used

        try:
            client = ChatClient(model=cfg.model, api_key=key, base_url=cfg.base_url, timeout=cfg.timeout,
                                temperature=cfg.temperature, max_output_tokens=cfg.max_output_tokens,
                                connect_timeout=cfg.connect_timeout)
        except MissingCredentials as err:
            run.warn(f"the LLM client could not start ({err.message}): all {total} fields use the "
                     f"{self.fallback.name} backend")
            return None, NO_CLIENT
        return client, ""

    def _run_llm(self, run: _Run, client: CompletionClient, fields: list[ResponseField],
                 finish: Callable[[int, Inferred], None]) -> None:
        pending: dict[int, Fallback] = {}
        index = 0
        # Fields go one at a time until a request has been sent: a server that refuses the first connection is
        # taken as down. A first request that fails otherwise (5XX, timeout) goes again with the others, at once.
        again: Again | None = None
        while index < len(fields) and not run.requested:
            outcome = self._attempt(run, client, index, fields[index], probe=True)
            if isinstance(outcome, Again):
                again = outcome
                break
            if isinstance(outcome, Unreachable):
                run.warn(f"cannot reach the LLM server at {client.base_url} ({outcome.message}): all "
                         f"{len(fields) - index} remaining fields use the {self.fallback.name} backend")
                for rest in range(index, len(fields)):
                    pending[rest] = Fallback(("llm not used: server unreachable",), UNREACHABLE)
                self._run_fallback(run, fields, pending, finish)
                return
            self._settle(run, index, outcome, pending, finish)
            index += 1
        if index < len(fields):
            pool = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="satori-llm")
            futures: dict[Future[Outcome], int] = {}
            try:
                for i in range(index, len(fields)):
                    futures[pool.submit(self._attempt, run, client, i, fields[i], False,
                                        again if i == index else None)] = i
                for future in as_completed(futures):
                    self._settle(run, futures[future], future.result(), pending, finish)
            except BaseException:
                run.stop.set()
                self._harvest(futures, finish)
                raise
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
        if pending:
            self._run_fallback(run, fields, pending, finish)

    def _harvest(self, futures: dict[Future[Outcome], int], finish: Callable[[int, Inferred], None]) -> None:
        """On an interruption: keep the fields whose answer arrived but was not settled yet."""
        for future, index in futures.items():
            if not future.done() or future.cancelled() or future.exception() is not None:
                continue
            outcome = future.result()
            if isinstance(outcome, Done):
                with contextlib.suppress(KeyboardInterrupt):
                    finish(index, outcome.inferred)

    def _settle(self, run: _Run, index: int, outcome: Outcome, pending: dict[int, Fallback],
                finish: Callable[[int, Inferred], None]) -> None:
        if isinstance(outcome, Done):
            run.answered_by[self.name if outcome.asked else NOT_ASKED] += 1
            finish(index, outcome.inferred)
        elif isinstance(outcome, Fallback):
            pending[index] = outcome

    def _run_fallback(self, run: _Run, fields: list[ResponseField], outcomes: dict[int, Fallback],
                      finish: Callable[[int, Inferred], None]) -> None:
        """Let the fallback backend do the fields in `outcomes`, prefixing each one's notes."""
        notes = {index: outcome.notes for index, outcome in outcomes.items()}
        run.answered_by.update(f"{self.fallback.name}, {outcome.reason}" for outcome in outcomes.values())
        indices = sorted(notes)
        by_identity: dict[int, list[int]] = {}
        for i in indices:
            by_identity.setdefault(id(fields[i]), []).append(i)
        used = f"inferred by the {self.fallback.name} backend instead"

        def relabel(index: int, inferred: Inferred) -> Inferred:
            return dataclasses.replace(inferred, notes=(*notes[index], used, *inferred.notes))

        def on_fallback(inferred: Inferred) -> None:
            waiting = by_identity.get(id(inferred.field))
            if waiting:
                index = waiting.pop(0)
                finish(index, relabel(index, inferred))

        run.fallbacks += len(indices)
        result = self.fallback.infer([fields[i] for i in indices], on_fallback)
        run.fallback_stats.append(result.stats)
        for index, inferred in zip(indices, result.results, strict=False):
            finish(index, relabel(index, inferred))

    # ---------------------------------------------------------------------------------------
    # One field

    def _attempt(self, run: _Run, client: CompletionClient, index: int, field: ResponseField,
                 probe: bool, carried: Again | None = None) -> Outcome:
        try:
            return self._ask(run, client, index, field, probe, carried)
        except Exception as err:  # a bug here must not lose the run: the field falls back
            return Fallback((f"llm step failed: {type(err).__name__}: {err}",), STEP_FAILED)

    def _ask(self, run: _Run, client: CompletionClient, index: int, field: ResponseField,
             probe: bool, carried: Again | None = None) -> Outcome:
        cfg = self.config
        prompt = build_prompt(field, ask_reasons=cfg.ask_reasons)
        if not prompt.kinds:
            why = f"no oracle kind applies to a field of type {field.type!r}"
            return Done(Inferred(field, (), (why,)), asked=False)
        rng = random.Random(f"{cfg.seed}:{index}") if cfg.seed is not None else random.Random()
        notes: list[str] = list(carried.notes) if carried else []
        failures = carried.failures if carried else 0
        responded = False
        without_json = False
        while True:
            if run.stop.is_set():
                return SKIPPED
            if run.fatal is not None:
                return Fallback((*notes, f"llm not used: {run.fatal}"), REFUSED)
            if run.breaker.is_open:
                return Fallback((*notes, f"llm not used: the LLM server failed ({run.breaker.cause})"),
                                 SERVER_FAILED)
            refused = run.budget.start_call()
            if refused is not None:
                with run.lock:
                    first = not run.budget_warned
                    run.budget_warned = True
                if first:
                    run.warn(f"LLM budget exhausted ({refused}): the remaining fields use the "
                             f"{self.fallback.name} backend")
                return Fallback((*notes, f"llm not used: {refused}"), BUDGET)
            json_mode = run.json_mode and not without_json
            run.requested = True
            try:
                completion = client.complete(prompt, json_mode=json_mode)
            except ConnectFailed as err:
                run.call_failed()
                if probe and not responded:
                    return Unreachable(err.message)
                failure: TransientError = err
            except TransientError as err:
                run.call_failed()
                responded = responded or err.status is not None
                failure = err
            except BadRequest as err:
                run.call_failed()
                responded = True
                if json_mode:
                    without_json = True
                    notes.append(f"the server refused response_format json_object ({err.message}); "
                                 "asked again without it")
                    continue
                return Fallback((*notes, f"llm request refused: {err.message}"), REFUSED)
            except FatalError as err:
                run.call_failed()
                with run.lock:
                    if run.fatal is None:
                        run.fatal = f"the LLM server refused the request ({err.message})"
                run.warn(f"the LLM server refused the request ({err.message}): the remaining fields use "
                         f"the {self.fallback.name} backend")
                return Fallback((*notes, f"llm call failed: {err.message}"), REFUSED)
            except CallError as err:
                run.call_failed()
                return Fallback((*notes, f"llm call failed: {err.message}"), CALL_FAILED)
            else:
                run.breaker.success()
                if without_json and run.json_mode:
                    with run.lock:
                        run.json_mode = False
                    run.warn("the LLM server does not support response_format json_object: JSON is asked "
                             "for in the prompt only for the rest of the run")
                return self._read(run, field, prompt.kinds, completion.text, completion.prompt_tokens,
                                  completion.completion_tokens, completion.finish_reason,
                                  completion.usage_reported, notes)
            failures += 1
            if self._breaker_opened(run, client, failure):
                return Fallback((*notes, f"llm call failed: {failure.message}",
                                  f"llm stopped: the LLM server failed ({run.breaker.cause})"), SERVER_FAILED)
            counted = failure_of(failure, cfg.timeout) is not None
            if probe and counted and failures < cfg.max_attempts:
                return Again(failures, (*notes, f"retried after {failure.message}"))
            if failures >= cfg.max_attempts:
                why = RATE_LIMITED if failure.status == 429 else SERVER_FAILED
                return Fallback((*notes, f"llm gave up after {failures} attempts: {failure.message}"), why)
            notes.append(f"retried after {failure.message}")
            delay = backoff_delay(failures, base=cfg.backoff_base, maximum=cfg.backoff_max,
                                  jitter=cfg.jitter, rng=rng, retry_after=failure.retry_after)
            if self._sleep is not None:
                self._sleep(delay)
            elif pause(run.stop, run.breaker, delay, poll=BREAKER_POLL_S):
                return SKIPPED

    def _breaker_opened(self, run: _Run, client: CompletionClient, failure: TransientError) -> bool:
        """Count the failure (a warning naming host and cause when it opens the breaker); True when it is open."""
        what = failure_of(failure, self.config.timeout)
        if what is not None and run.breaker.failure(what):
            run.warn(f"the LLM server {server_name(client.base_url)} failed ({run.breaker.cause}): no more calls "
                     f"to it in this run, the remaining fields use the {self.fallback.name} backend")
        return run.breaker.is_open


    def _read(self, run: _Run, field: ResponseField, kinds: tuple[OracleKind, ...], text: str | None,
              prompt_tokens: int, completion_tokens: int, finish_reason: str | None,
              usage_reported: bool, notes: list[str]) -> Outcome:
        run.budget.record(prompt_tokens, completion_tokens)
        if not usage_reported:
            run.warn("the LLM server reports no token usage: the token budget and the cost are not tracked")
        if finish_reason == "length":
            notes.append("the answer was cut at the output token limit")
        extracted = extract_object(text)
        notes.extend(extracted.notes)
        if extracted.obj is None:
            return Fallback((*notes, "llm answer unusable"), UNUSABLE)
        found = interpret(extracted.obj, kinds)
        oracles = tuple(self._oracle(field, kind, value, found) for kind, value in found.values.items())
        return Done(Inferred(field, oracles, (*notes, *found.notes)))

    def _oracle(self, field: ResponseField, kind: OracleKind, value: object, found: Interpretation) -> Oracle:
        why = found.reasons.get(kind)
        reason = f"llm: {why}" if why else f"llm: answer of {self.config.model} to the {kind.value} question"
        return Oracle(operation=field.operation, field=field.field, kind=kind, value=value,
                      source=self.config.source, reason=reason, operation_id=field.operation_id)

    # ---------------------------------------------------------------------------------------

    def _stats(self, run: _Run) -> BackendStats:
        budget = run.budget
        warnings = list(run.warnings)
        calls, prompt, completion = budget.calls, budget.prompt_tokens, budget.completion_tokens
        cost = self._pricing.cost(prompt, completion)
        for stats in run.fallback_stats:
            calls += stats.calls
            prompt += stats.prompt_tokens
            completion += stats.completion_tokens
            cost += stats.cost_usd
            warnings.extend(w for w in stats.warnings if w not in warnings)
        return BackendStats(calls=calls, prompt_tokens=prompt, completion_tokens=completion,
                            cost_usd=round(cost, 6), warnings=tuple(warnings), fallbacks=run.fallbacks,
                            failed_calls=run.failed_calls, answered_by=answered_by(run.answered_by, self.name))
