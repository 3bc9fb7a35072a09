"""The LLM backend against a failing server: the breaker stops calling it after three failures in a row (5XX,
timeouts), the rules infer the rest with one warning, and the stats count fields by who answered."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from satori_ci.infer.interface import NOT_ASKED, inferred_text
from satori_ci.infer.llm import LLMBackend, LLMConfig
from tests.infer.conftest import FieldFactory, StubFallback
from tests.servers.openai_server import (
    Answer,
    BlackHoleServer,
    FakeOpenAIServer,
    RecordedRequest,
    rate_limited,
    server_error,
)

FAST = {"backoff_base": 0.001, "backoff_max": 0.01, "seed": 7}
KEY = "sk-breaker-test-key"
FAILED = "rules, the LLM server failed"


def config(base_url: str, **overrides: Any) -> LLMConfig:
    return LLMConfig(**{"model": "fake-model", "base_url": base_url, "api_key": KEY, **FAST, **overrides})


def test_a_server_answering_503_is_called_three_times_then_the_rules_answer(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.default = server_error(503)
    fields = [make_field(f"f{i}") for i in range(40)]
    run = LLMBackend(config(fake_openai.base_url, concurrency=4), fallback).infer(fields)
    calls = len(fake_openai.requests)  # the first request alone, then four at once (and, with a 1 ms backoff, a
    assert 3 <= calls <= 1 + 2 * 4, calls  # retry or two sent before the third failure was counted)
    assert fallback.fields_seen == [f.field for f in fields]
    (warning,) = run.stats.warnings
    assert warning == (f"the LLM server 127.0.0.1:{fake_openai.port} failed (HTTP 503 three times in a row): no "
                       "more calls to it in this run, the remaining fields use the rules backend")
    assert KEY not in warning
    assert (run.stats.calls, run.stats.failed_calls, run.stats.fallbacks) == (calls, calls, 40)
    assert run.stats.answered_by == (("llm", 0), (FAILED, 40))
    assert inferred_text(40, "llm", run.stats) == "0 inferred (llm), 40 inferred (rules, the LLM server failed)"
    assert any("HTTP 503 three times in a row" in note for note in run.results[-1].notes)


def test_a_server_failing_once_answers_are_under_way_stops_within_the_calls_in_flight(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    served = itertools.count()

    def answer(_: RecordedRequest) -> Answer:
        return {"string_is_url": True} if next(served) < 5 else server_error(500)

    fake_openai.responder = answer
    fields = [make_field(f"f{i}") for i in range(200)]
    run = LLMBackend(config(fake_openai.base_url, concurrency=4), fallback).infer(fields)
    # three in a row, what was in flight then, and a late success that may have started the count again
    assert len(fake_openai.requests) <= 5 + 3 + 2 * 4
    assert run.stats.answered_by == (("llm", 5), (FAILED, 195))
    assert sum("HTTP 500" in w for w in run.stats.warnings) == 1


def test_two_failures_then_answers_trip_nothing(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    served = itertools.count()
    lock = threading.Lock()

    def answer(_: RecordedRequest) -> Answer:
        with lock:
            n = next(served)
        return server_error(502) if n < 2 else {"string_is_url": True}

    fake_openai.responder = answer
    fields = [make_field(f"f{i}") for i in range(10)]
    run = LLMBackend(config(fake_openai.base_url), fallback).infer(fields)
    assert fallback.calls == []
    assert run.stats.warnings == ()
    assert all(o.source == "llm:fake-model" for r in run.results for o in r.oracles)
    assert (run.stats.calls, run.stats.failed_calls, run.stats.fallbacks) == (12, 2, 0)
    assert run.stats.answered_by == (("llm", 10),)
    assert inferred_text(10, "llm", run.stats) == "10 inferred (llm)"


def test_each_success_starts_the_count_again(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                             fallback: StubFallback) -> None:
    fake_openai.default = [server_error(500), server_error(503), {"string_is_url": True}]  # per field
    fields = [make_field(f"f{i}") for i in range(6)]
    run = LLMBackend(config(fake_openai.base_url, concurrency=1), fallback).infer(fields)
    assert len(fake_openai.requests) == 3 * 6  # each field: two failures, then its answer
    assert fallback.calls == [] and run.stats.warnings == ()


def test_rate_limits_do_not_open_it(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                    fallback: StubFallback) -> None:
    fake_openai.default = [rate_limited("0"), rate_limited("0"), rate_limited("0"), {"string_is_url": True}]
    run = LLMBackend(config(fake_openai.base_url, concurrency=1), fallback).infer([make_field("a")])
    assert fallback.calls == [] and run.stats.warnings == ()


def test_a_server_that_never_answers_falls_back_within_three_timeouts(
        make_field: FieldFactory, fallback: StubFallback, clean_openai_env: None) -> None:
    fields = [make_field(f"f{i}") for i in range(30)] + [make_field("meta", "object")]
    with BlackHoleServer() as hole:
        started = time.monotonic()
        run = LLMBackend(config(hole.base_url, timeout=0.3, concurrency=4), fallback).infer(fields)
        elapsed = time.monotonic() - started
        assert hole.connections >= 1
    assert elapsed < 10, elapsed  # two timeouts of 0.3 s (the first request, then four at once), the client's start
    (warning,) = run.stats.warnings
    assert "failed (no answer within 0.3 s three times in a row)" in warning
    assert run.stats.answered_by == (("llm", 0), (FAILED, 30), (NOT_ASKED, 1))
    assert run.stats.failed_calls == run.stats.calls <= 1 + 2 * 4
    assert inferred_text(31, "llm", run.stats).endswith(", 1 not asked (no oracle kind applies)")


def test_a_slow_5xx_server_costs_three_slow_answers(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                                    fallback: StubFallback) -> None:
    reply = server_error(503)
    reply.delay = 0.2
    fake_openai.default = reply
    started = time.monotonic()
    run = LLMBackend(config(fake_openai.base_url), fallback).infer([make_field(f"f{i}") for i in range(50)])
    assert time.monotonic() - started < 5
    assert len(fake_openai.requests) <= 1 + 2 * 4 and run.stats.fallbacks == 50


def test_the_breaker_threshold_is_configurable(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                               fallback: StubFallback) -> None:
    fake_openai.default = server_error(500)
    run = LLMBackend(config(fake_openai.base_url, breaker_after=1, max_attempts=4), fallback).infer(
        [make_field("a"), make_field("b")])
    assert len(fake_openai.requests) == 1
    assert "(HTTP 500)" in run.stats.warnings[0]
