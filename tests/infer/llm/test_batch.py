"""The Batch API's pure part: the input file, result lines, and the replay of answers to the LLM backend."""

from __future__ import annotations

import dataclasses
import json

import pytest

from satori_ci.infer.llm import LLMBackend, LLMConfig, build_prompt
from satori_ci.infer.llm.batch import (
    MAX_BATCH_BYTES,
    MAX_BATCH_REQUESTS,
    NOT_SENT,
    BatchError,
    BatchErrorKind,
    BatchStatus,
    Failure,
    ReplayClient,
    ResultLine,
    build_input,
    custom_ids,
    ended_early,
    fallback_summary,
    outcome,
    parse_results,
    request_body,
    request_digest,
    split_lines,
    total_line,
)
from satori_ci.infer.llm.errors import CallError, Completion
from satori_ci.oracles.kinds import OracleKind as K
from tests.infer.conftest import FieldFactory, StubFallback
from tests.servers.openai_server import FakeOpenAIServer

CONFIG = LLMConfig(model="gpt-4o-mini")


def _lines(jsonl: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in jsonl.splitlines()]


def test_a_repeated_fingerprint_gets_a_numbered_custom_id() -> None:
    assert custom_ids(["a", "b", "a", "a", "b"]) == ("a", "b", "a#2", "a#3", "b#2")


def test_one_line_per_field_asked_with_the_request_body_the_client_sends(make_field: FieldFactory) -> None:
    fields = [make_field("total", "integer"), make_field("meta", "object"), make_field("items[].total", "integer")]
    fields[2] = dataclasses.replace(fields[2], fingerprint=fields[0].fingerprint)
    built = build_input(fields, CONFIG)
    lines = _lines(built.jsonl)
    assert [line["custom_id"] for line in lines] == ["fp-total", "fp-total#2"]  # `meta` takes no question
    assert all(list(line) == ["custom_id", "method", "url", "body"] for line in lines)
    assert {(line["method"], line["url"]) for line in lines} == {("POST", "/v1/chat/completions")}
    body = request_body(build_prompt(fields[0]), CONFIG)
    assert lines[0]["body"] == body
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    assert [(r.custom_id, r.fingerprint, r.operation, r.field) for r in built.requests] == [
        ("fp-total", "fp-total", "GET /businesses/search 200", "total"),
        ("fp-total#2", "fp-total", "GET /businesses/search 200", "items[].total")]
    assert built.requests[0].digest == request_digest(body)
    assert build_input(fields, CONFIG) == built  # byte-identical text, same requests


def test_the_call_budget_holds_fields_back(make_field: FieldFactory) -> None:
    fields = [make_field(f"f{i}", "integer") for i in range(5)]
    built = build_input(fields, LLMConfig(model="m", max_calls=2))
    assert [r.field for r in built.requests] == ["f0", "f1"] and built.held_back == 3


def test_lines_are_split_in_order_at_the_count_and_the_byte_limits() -> None:
    assert split_lines([], max_requests=3, max_bytes=100) == ()
    assert split_lines([10] * 7, max_requests=3, max_bytes=100) == (3, 3, 1)
    assert split_lines([40, 40, 40, 10, 50, 60], max_requests=10, max_bytes=100) == (2, 3, 1)
    assert split_lines([100, 1, 100], max_requests=10, max_bytes=100) == (1, 1, 1)  # exactly at the limit fits
    assert split_lines([30] * 5, max_requests=2, max_bytes=70) == (2, 2, 1)
    with pytest.raises(ValueError, match="line 2 is larger than a part"):
        split_lines([10, 101, 10], max_requests=3, max_bytes=100)
    assert (MAX_BATCH_REQUESTS, MAX_BATCH_BYTES) == (50_000, 190 * 1024 * 1024)


def test_the_input_is_split_into_parts_of_consecutive_requests(make_field: FieldFactory) -> None:
    fields = [make_field(f"f{i}", "integer") for i in range(7)]
    whole = build_input(fields, CONFIG)
    assert len(whole.parts) == 1 and whole.parts[0].jsonl == whole.jsonl
    by_count = build_input(fields, CONFIG, max_requests=3)
    assert [[r.field for r in part.requests] for part in by_count.parts] == [
        ["f0", "f1", "f2"], ["f3", "f4", "f5"], ["f6"]]
    assert by_count.jsonl == whole.jsonl and by_count.requests == whole.requests  # the same lines, in order
    for part in by_count.parts:
        assert [line["custom_id"] for line in _lines(part.jsonl)] == [r.custom_id for r in part.requests]
    assert build_input(fields, CONFIG, max_requests=3) == by_count  # deterministic
    sizes = [len(line.encode()) + 1 for line in whole.jsonl.splitlines()]
    by_bytes = build_input(fields, CONFIG, max_bytes=sum(sizes[:2]) + 10)
    assert [len(part.requests) for part in by_bytes.parts] == [2, 2, 2, 1]
    assert all(len(part.jsonl.encode()) <= sum(sizes[:2]) + 10 for part in by_bytes.parts)
    assert by_bytes.jsonl == whole.jsonl
    capped = build_input(fields, LLMConfig(model="gpt-4o-mini", max_calls=5), max_requests=2)
    assert [len(part.requests) for part in capped.parts] == [2, 2, 1] and capped.held_back == 2


def test_a_request_larger_than_a_whole_input_file_is_an_input_error(make_field: FieldFactory) -> None:
    fields = [make_field("total", "integer"), make_field("count", "integer", description="x" * 5000)]
    with pytest.raises(BatchError) as raised:
        build_input(fields, CONFIG, max_bytes=4000)
    assert raised.value.kind is BatchErrorKind.INPUT
    message = raised.value.message
    assert message.startswith("the request for GET /businesses/search 200 count is ") and "\n" not in message
    assert message.endswith("bytes, more than the 4,000 bytes a batch input file may hold: infer without --batch")


def test_the_bodies_are_those_the_synchronous_backend_sends(fake_openai: FakeOpenAIServer,
                                                           make_field: FieldFactory, fallback: StubFallback) -> None:
    fields = [make_field("price", enum=["$", "$$"]), make_field("total", "integer", minimum=0)]
    config = LLMConfig(model="fake-model", base_url=fake_openai.base_url, api_key="sk-test", concurrency=1)
    LLMBackend(config, fallback).infer(fields)
    sent = sorted((r.body for r in fake_openai.requests), key=lambda b: json.dumps(b))
    batched = sorted((line["body"] for line in _lines(build_input(fields, config).jsonl)), key=json.dumps)
    assert sent == batched


def test_result_lines_are_read_by_custom_id_and_a_200_wins() -> None:
    output = "\n".join([
        json.dumps({"id": "r1", "custom_id": "a", "response": {"status_code": 200, "body": {"choices": []}},
                    "error": None}),
        "not json",
        json.dumps({"custom_id": "b", "response": {"status_code": 500, "body": {"error": {"message": "boom"}}},
                    "error": None}),
        "", json.dumps(["no", "object"])])
    errors = json.dumps({"custom_id": "c", "response": None,
                         "error": {"code": "batch_expired", "message": "too late"}}) + "\n"
    retried = json.dumps({"custom_id": "b", "response": {"status_code": 200, "body": {"choices": []}}})
    found, unreadable = parse_results(output, errors, retried)
    assert unreadable == 2
    assert found["a"] == ResultLine("a", 200, {"choices": []}, None)
    assert found["b"].status_code == 200
    assert found["c"] == ResultLine("c", None, None, "batch_expired: too late")


def test_the_outcome_of_a_line_is_a_body_or_why_not() -> None:
    assert outcome(ResultLine("a", 200, {"choices": []})) == {"choices": []}
    assert outcome(None) == Failure("missing from the output", "missing from the batch output")
    assert outcome(ResultLine("a", None, None, "request_timeout: slow")) == Failure(
        "request_timeout", "batch error request_timeout: slow")
    assert outcome(ResultLine("a", 429, {"error": {"message": "rate"}})) == Failure("HTTP 429", "HTTP 429: rate")
    assert outcome(ResultLine("a", 200, None)).label == "unreadable answer"  # type: ignore[union-attr]


def test_fallbacks_are_counted_most_frequent_first() -> None:
    assert fallback_summary(["HTTP 500", "batch_expired", "batch_expired", "answer unusable"]) == (
        "2 batch_expired, 1 HTTP 500, 1 answer unusable")
    assert fallback_summary([]) == ""


def test_a_status_is_pending_until_it_ends() -> None:
    for status, pending in [("validating", True), ("in_progress", True), ("finalizing", True),
                            ("cancelling", True), ("some_new_status", True), ("completed", False),
                            ("expired", False), ("cancelled", False), ("failed", False)]:
        assert BatchStatus("b", status).pending is pending, status
    line = BatchStatus("batch_1", "failed", 3, 0, 0, errors=("invalid_request: bad (line 2)",)).line()
    assert line == "batch batch_1: failed, 0 of 3 request(s) done, 0 failed (invalid_request: bad (line 2))"


def test_several_batches_are_summed_up_in_one_line() -> None:
    statuses = [BatchStatus("b1", "completed", 3, 3, 0), BatchStatus("b2", "expired", 3, 1, 2),
                BatchStatus("b3", "completed", 2, 1, 1), BatchStatus("b4", "failed")]
    assert total_line(statuses) == "4 batch(es): 2 completed, 1 expired, 1 failed; 5 of 8 request(s) done, 3 failed"
    assert ended_early(statuses) == "batch b2 expired after 1 of 3 request(s), batch b4 failed"
    assert ended_early(statuses[:1]) == ""


def test_the_replay_answers_each_prompt_from_its_request(make_field: FieldFactory, fallback: StubFallback) -> None:
    fields = [make_field("total", "integer"), make_field("count", "integer"), make_field("other", "integer")]
    prompts = [build_prompt(f) for f in fields]
    digests = [request_digest(request_body(p, CONFIG)) for p in prompts]
    answers: dict[str, Completion | Failure] = {
        digests[0]: Completion('{"number_min_value": 0}', 10, 5),
        digests[1]: Failure("HTTP 500", "HTTP 500: boom")}
    replay = ReplayClient(answers, CONFIG, "batch_1")
    assert replay.complete(prompts[0], json_mode=True).text == '{"number_min_value": 0}'
    with pytest.raises(CallError, match="HTTP 500: boom"):
        replay.complete(prompts[1], json_mode=True)
    with pytest.raises(CallError, match=NOT_SENT):
        replay.complete(prompts[2], json_mode=True)
    with pytest.raises(CallError, match=NOT_SENT):  # another body than the one sent: not this answer
        replay.complete(prompts[0], json_mode=False)
    assert replay.failed == ["HTTP 500", NOT_SENT, NOT_SENT]

    run = LLMBackend(CONFIG, fallback, client=ReplayClient(answers, CONFIG, "batch_1")).infer(fields)
    assert [(o.kind, o.value) for o in run.results[0].oracles] == [(K.NUMBER_MIN_VALUE, 0)]
    assert fallback.fields_seen == ["count", "other"]
    assert run.results[1].notes[0] == "llm call failed: HTTP 500: boom"
    assert (run.stats.fallbacks, run.stats.prompt_tokens, run.stats.completion_tokens) == (2, 10, 5)
