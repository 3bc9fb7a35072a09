"""The LLM backend against a local fake server: retries, fallbacks, budget, interruption,
concurrency, ordering and accounting."""

from __future__ import annotations

import os
import random
import signal
import socket
import time
from typing import Any

import pytest

from satori_ci.infer.interface import Inferred
from satori_ci.infer.llm import InferenceInterrupted, LLMBackend, LLMConfig, backoff_delay, pricing_for
from satori_ci.oracles.kinds import OracleKind as K
from tests.infer.conftest import FieldFactory, StubFallback
from tests.servers.openai_server import (
    Answer,
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    rate_limited,
    server_error,
    slow,
)

FAST = {"backoff_base": 0.001, "backoff_max": 0.01, "seed": 7}


def config(server: FakeOpenAIServer, **overrides: Any) -> LLMConfig:
    values: dict[str, Any] = {"model": "fake-model", "base_url": server.base_url, "api_key": "sk-test", **FAST}
    values.update(overrides)
    return LLMConfig(**values)


def kinds(result: Inferred) -> list[K]:
    return [o.kind for o in result.oracles]


# ---------------------------------------------------------------------------------------------
# Results


def test_oracles_carry_source_reason_and_operation(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                                   fallback: StubFallback) -> None:
    fake_openai.table["businesses[].url"] = {"string_is_url": True, "reasons": {"string_is_url": "format: uri"}}
    fake_openai.table["total"] = {"number_min_value": 0, "number_max_value": None}
    fields = [make_field("businesses[].url", format="uri"), make_field("total", "integer")]
    run = LLMBackend(config(fake_openai), fallback).infer(fields)
    url, total = (r.oracles[0] for r in run.results)
    assert (url.kind, url.value, url.source, url.reason) == (K.STRING_IS_URL, None, "llm:fake-model",
                                                             "llm: format: uri")
    assert (url.operation, url.field, url.operation_id) == (fields[0].operation, "businesses[].url",
                                                            "getBusinesses")
    assert (total.kind, total.value) == (K.NUMBER_MIN_VALUE, 0)
    assert total.reason == "llm: answer of fake-model to the number_min_value question"
    assert fallback.calls == []
    assert run.stats.warnings == ()


def test_results_come_in_input_order_and_each_is_reported_when_done(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fields = [make_field(f"f{i}", "integer") for i in range(6)]
    for i in range(6):  # the early fields answer last
        fake_openai.table[f"f{i}"] = slow({"number_max_value": i}, 0.02 * (6 - i))
    seen: list[str] = []
    progress: list[tuple[int, int]] = []
    backend = LLMBackend(config(fake_openai, concurrency=6), fallback,
                         progress=lambda done, total: progress.append((done, total)))
    run = backend.infer(fields, on_inferred=lambda inferred: seen.append(inferred.field.field))
    assert [r.field.field for r in run.results] == [f"f{i}" for i in range(6)]
    assert [r.oracles[0].value for r in run.results] == list(range(6))
    assert sorted(seen) == sorted(f.field for f in fields)
    assert progress == [(i, 6) for i in range(7)]


def test_same_answers_give_the_same_run(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                        fallback: StubFallback) -> None:
    fields = [make_field(f"f{i}", "integer") for i in range(5)]
    fake_openai.responder = lambda request: {"number_max_value": len(request.field_path or "") * 10,
                                             "number_min_value": "1"}
    first = LLMBackend(config(fake_openai, concurrency=3), fallback).infer(fields)
    second = LLMBackend(config(fake_openai, concurrency=3), fallback).infer(fields)
    assert first.results == second.results
    assert first.stats == second.stats


def test_a_field_of_no_oracle_type_sends_no_request(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                                    fallback: StubFallback) -> None:
    run = LLMBackend(config(fake_openai), fallback).infer([make_field("meta", "object")])
    assert fake_openai.requests == []
    assert run.results[0].oracles == ()


# ---------------------------------------------------------------------------------------------
# Retries


def test_429_then_success_is_retried_honouring_retry_after(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.table["price"] = [rate_limited("0.05"), rate_limited(None, retry_after_ms="30"),
                                  {"string_is_numeric": True}]
    delays: list[float] = []
    backend = LLMBackend(config(fake_openai, backoff_max=1.0), fallback, sleep=delays.append)
    (result,) = backend.infer([make_field("price")]).results
    assert kinds(result) == [K.STRING_IS_NUMERIC]
    assert len(fake_openai.requests) == 3
    assert delays[0] >= 0.05 and delays[1] >= 0.03
    assert sum("retried after HTTP 429" in n for n in result.notes) == 2
    assert fallback.calls == []


def test_500s_exhausted_fall_back_for_that_field_only(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.table["price"] = server_error(500)
    fake_openai.table["name"] = [server_error(503), {"string_is_email": False}]
    fake_openai.table["total"] = {"number_min_value": 1}
    fields = [make_field("name"), make_field("price"), make_field("total", "integer")]
    # the breaker's count is off here (5 failures in a row would trip it): this is one field giving up, alone
    run = LLMBackend(config(fake_openai, max_attempts=3, breaker_after=5), fallback).infer(fields)
    assert len(fake_openai.requests_for("price")) == 3
    assert len(fake_openai.requests_for("name")) == 2
    assert fallback.fields_seen == ["price"]
    name, price, total = run.results
    assert name.oracles == () and "stub fallback" not in name.notes
    assert any("gave up after 3 attempts: HTTP 500" in n for n in price.notes)
    assert "inferred by the rules backend instead" in price.notes and "stub fallback" in price.notes
    assert kinds(total) == [K.NUMBER_MIN_VALUE]
    assert run.stats.calls == 6


def test_a_timeout_is_retried(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                              fallback: StubFallback) -> None:
    fake_openai.table["price"] = [slow({"string_is_url": True}, 1.0), {"string_is_email": True}]
    (result,) = LLMBackend(config(fake_openai, timeout=0.25), fallback).infer([make_field("price")]).results
    assert kinds(result) == [K.STRING_IS_EMAIL]
    assert any("timed out" in n for n in result.notes)


def test_backoff_is_exponential_capped_jittered_and_seedable() -> None:
    def delays(seed: int, jitter: float) -> list[float]:
        rng = random.Random(seed)
        return [backoff_delay(n, base=1.0, maximum=5.0, jitter=jitter, rng=rng) for n in range(1, 5)]

    assert delays(1, 0.0) == [1.0, 2.0, 4.0, 5.0]
    jittered = delays(1, 0.5)
    assert jittered == delays(1, 0.5) != delays(2, 0.5)
    assert all(0.5 * d <= j <= min(1.5 * d, 5.0) for d, j in zip([1.0, 2.0, 4.0, 5.0], jittered, strict=True))
    rng = random.Random(0)
    assert backoff_delay(1, base=0.1, maximum=5.0, jitter=0, rng=rng, retry_after=2.0) == 2.0
    assert backoff_delay(1, base=0.1, maximum=1.0, jitter=0, rng=rng, retry_after=60.0) == 1.0


# ---------------------------------------------------------------------------------------------
# response_format


def test_a_400_on_response_format_is_retried_without_it_and_remembered(
        make_field: FieldFactory, fallback: StubFallback, clean_openai_env: None) -> None:
    with FakeOpenAIServer(reject_response_format=True) as server:
        server.default = '{"string_is_url": true}'
        fields = [make_field(f"f{i}") for i in range(4)]
        run = LLMBackend(config(server, concurrency=2), fallback).infer(fields)
        with_format = [r for r in server.requests if "response_format" in r.body]
        assert len(with_format) == 1 and with_format[0].field_path == "f0"
        assert len(server.requests) == 5
    assert all(kinds(r) == [K.STRING_IS_URL] for r in run.results)
    assert any("response_format" in w for w in run.stats.warnings)
    assert any("refused response_format" in n for n in run.results[0].notes)


def test_a_400_for_another_reason_falls_back_and_keeps_json_mode(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.table["huge"] = Reply(status=400, error="maximum context length exceeded")
    fake_openai.table["small"] = {"string_is_url": True}
    run = LLMBackend(config(fake_openai, concurrency=1), fallback).infer([make_field("huge"),
                                                                          make_field("small")])
    assert fallback.fields_seen == ["huge"]
    assert any("maximum context length exceeded" in n for n in run.results[0].notes)
    assert "response_format" in fake_openai.requests_for("small")[0].body
    assert run.stats.warnings == ()


# ---------------------------------------------------------------------------------------------
# Budget and accounting


def test_call_budget_exhausted_sends_the_rest_to_the_fallback(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.default = {"string_is_url": True}
    fields = [make_field(f"f{i}") for i in range(5)]
    run = LLMBackend(config(fake_openai, max_calls=2, concurrency=1), fallback).infer(fields)
    assert len(fake_openai.requests) == 2
    assert [kinds(r) for r in run.results] == [[K.STRING_IS_URL]] * 2 + [[]] * 3
    assert fallback.fields_seen == ["f2", "f3", "f4"]
    assert fallback.calls == [fields[2:]]
    assert run.stats.calls == 2
    (warning,) = run.stats.warnings
    assert "budget" in warning and "2 LLM calls" in warning and "rules backend" in warning
    assert any("budget of 2 LLM calls" in n for n in run.results[3].notes)


def test_token_budget_exhausted(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                fallback: StubFallback) -> None:
    fake_openai.default = {"string_is_url": True}
    fields = [make_field(f"f{i}") for i in range(4)]
    run = LLMBackend(config(fake_openai, max_tokens=50, concurrency=1), fallback).infer(fields)
    assert len(fake_openai.requests) == 1
    assert fallback.fields_seen == ["f1", "f2", "f3"]
    assert run.stats.prompt_tokens + run.stats.completion_tokens >= 50
    assert any("LLM tokens" in w for w in run.stats.warnings)


def test_tokens_and_cost_are_accounted(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                       fallback: StubFallback) -> None:
    fallback.warning = "rules: something to say"
    fake_openai.default = {"string_is_url": True}
    fields = [make_field(f"f{i}") for i in range(3)]
    run = LLMBackend(config(fake_openai, price_per_1k_prompt=0.5, price_per_1k_completion=2.0),
                     fallback).infer(fields)
    prompt_tokens = sum(len(r.system) + len(r.user) for r in fake_openai.requests) // 4
    assert run.stats.calls == 3
    assert abs(run.stats.prompt_tokens - prompt_tokens) <= 3 * 9
    assert run.stats.completion_tokens > 0
    expected = run.stats.prompt_tokens / 1000 * 0.5 + run.stats.completion_tokens / 1000 * 2.0
    assert run.stats.cost_usd == pytest.approx(expected, abs=1e-6)
    assert run.stats.warnings == ()  # the fallback was not used, so it said nothing


def test_known_and_unknown_model_prices() -> None:
    assert pricing_for("llama3:8b").cost(10_000, 10_000) == 0.0
    assert pricing_for("gpt-4o-mini-2024-07-18") == pricing_for("gpt-4o-mini")
    assert pricing_for("gpt-4o").prompt_per_1k > pricing_for("gpt-4o-mini").prompt_per_1k
    assert pricing_for("gpt-4o", 1.0, 2.0).cost(1000, 500) == 2.0


def test_a_server_without_usage_is_warned_about(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                                fallback: StubFallback) -> None:
    fake_openai.default = Reply(content='{"string_is_url": true}', usage=False)
    run = LLMBackend(config(fake_openai), fallback).infer([make_field("a")])
    assert kinds(run.results[0]) == [K.STRING_IS_URL]
    assert run.stats.prompt_tokens == 0 and any("no token usage" in w for w in run.stats.warnings)


# ---------------------------------------------------------------------------------------------
# No LLM at all


def test_missing_key_falls_back_for_every_field(make_field: FieldFactory, fallback: StubFallback,
                                                clean_openai_env: None) -> None:
    fields = [make_field("a"), make_field("b", "integer")]
    seen: list[Inferred] = []
    run = LLMBackend(LLMConfig(model="gpt-4o", base_url="http://127.0.0.1:9/v1"), fallback).infer(
        fields, on_inferred=seen.append)
    assert fallback.calls == [fields]
    assert [r.field for r in run.results] == fields and seen == list(run.results)
    (warning,) = run.stats.warnings
    assert "no API key" in warning and "OPENAI_API_KEY" in warning and "all 2 fields" in warning
    assert run.results[0].notes == ("llm not used: no API key", "inferred by the rules backend instead",
                                    "stub fallback")
    assert run.stats.calls == 0


def test_the_key_comes_from_the_environment(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                            fallback: StubFallback, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    LLMBackend(config(fake_openai, api_key=None), fallback).infer([make_field("a")])
    assert fake_openai.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_connection_refused_falls_back_for_every_field(make_field: FieldFactory, fallback: StubFallback,
                                                       clean_openai_env: None) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    fields = [make_field(f"f{i}") for i in range(3)]
    started = time.monotonic()
    run = LLMBackend(LLMConfig(model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k",
                               backoff_base=5.0), fallback).infer(fields)
    assert time.monotonic() - started < 4  # no backoff: one refused connection is enough
    assert fallback.calls == [fields]
    (warning,) = run.stats.warnings
    assert "cannot reach the LLM server" in warning and str(port) in warning
    assert run.stats.calls == 1


def test_a_refused_key_stops_the_llm_for_the_rest_of_the_run(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.default = Reply(status=401, error="Incorrect API key provided")
    fields = [make_field(f"f{i}") for i in range(4)]
    run = LLMBackend(config(fake_openai, concurrency=1), fallback).infer(fields)
    assert len(fake_openai.requests) == 1
    assert fallback.fields_seen == ["f0", "f1", "f2", "f3"]
    assert any("Incorrect API key" in w for w in run.stats.warnings)


# ---------------------------------------------------------------------------------------------
# Interruption and concurrency


def test_interruption_keeps_the_finished_fields(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                                fallback: StubFallback) -> None:
    fake_openai.default = {"string_is_url": True}
    fields = [make_field(f"f{i}") for i in range(8)]
    seen: list[Inferred] = []

    def on_inferred(inferred: Inferred) -> None:
        seen.append(inferred)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(InferenceInterrupted) as caught:
        LLMBackend(config(fake_openai, concurrency=1), fallback).infer(fields, on_inferred=on_inferred)
    partial = caught.value.partial
    assert isinstance(caught.value, KeyboardInterrupt)
    names = [r.field.field for r in partial.results]
    # f3 may have been answered while the interruption was handled: it is kept then too.
    assert names in (["f0", "f1", "f2"], ["f0", "f1", "f2", "f3"])
    assert list(partial.results) == seen
    assert all(kinds(r) == [K.STRING_IS_URL] for r in partial.results)
    assert partial.stats.calls >= 3
    # the one worker may have started the next field before the interruption reached it; its request
    # can land after infer returned, but nothing further is submitted
    time.sleep(0.3)
    sent = len(fake_openai.requests)
    assert sent <= 5
    time.sleep(0.3)
    assert len(fake_openai.requests) == sent
    assert fallback.calls == []


def test_ctrl_c_while_waiting_keeps_every_answer_received(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    def answer(request: RecordedRequest) -> Answer:
        if request.field_path == "f3":  # a real SIGINT, while the caller waits for f3
            os.kill(os.getpid(), signal.SIGINT)
            return slow({"string_is_url": True}, 0.5)
        return {"string_is_url": True}

    fake_openai.responder = answer
    fields = [make_field(f"f{i}") for i in range(6)]
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as the CLI has it, even if inherited ignored
    try:
        with pytest.raises(InferenceInterrupted) as caught:
            LLMBackend(config(fake_openai, concurrency=1), fallback).infer(fields)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert [r.field.field for r in caught.value.partial.results] == ["f0", "f1", "f2"]
    assert len(fake_openai.requests) == 4


@pytest.mark.parametrize("limit", [1, 3])
def test_concurrency_limit_is_respected(fake_openai: FakeOpenAIServer, make_field: FieldFactory,
                                        fallback: StubFallback, limit: int) -> None:
    fake_openai.default = slow({"string_is_url": True}, 0.05)
    fields = [make_field(f"f{i}") for i in range(2 * limit + 1)]
    run = LLMBackend(config(fake_openai, concurrency=limit), fallback).infer(fields)
    assert all(kinds(r) == [K.STRING_IS_URL] for r in run.results)
    assert fake_openai.peak_in_flight == limit


def test_config_is_validated() -> None:
    with pytest.raises(ValueError):
        LLMConfig(model="m", concurrency=0)
    with pytest.raises(ValueError):
        LLMConfig(model="")
    with pytest.raises(ValueError):
        LLMConfig(model="m", max_calls=-1)
    assert LLMConfig(model="gpt-4o").source == "llm:gpt-4o"
