"""The state file of a pending batch: where it is, deterministic text, and refusals of a damaged one."""

from __future__ import annotations

import pytest

from satori_ci.infer.llm.batch import BatchError, BatchErrorKind, BatchRequest
from satori_ci.infer.llm.batch_state import BatchState, dump_state, input_path, load_state, state_path

STATE = BatchState("api/openapi.yaml", "gpt-4o", "batch_abc", "file-abc", "0" * 64, (
    BatchRequest("fp1", "fp1", "GET /books 200", "books[].isbn", "d1"),
    BatchRequest("fp1#2", "fp1", "GET /books/{isbn} 200", "isbn", "d2")), held_back=1)


def test_the_state_sits_next_to_the_oracle_file() -> None:
    assert state_path(".satori/api.openapi.oracles.yaml") == ".satori/api.openapi.batch.json"
    assert input_path(".satori/api.openapi.oracles.yaml") == ".satori/api.openapi.batch.jsonl"
    assert state_path("custom.yaml") == "custom.yaml.batch.json"


def test_the_state_reads_back_and_its_text_is_one_request_a_line() -> None:
    text = dump_state(STATE)
    assert load_state(text, "s.json") == STATE
    assert dump_state(load_state(text, "s.json")) == text
    assert text == (
        '{\n  "version": 1,\n  "spec": "api/openapi.yaml",\n  "model": "gpt-4o",\n  "batch_id": "batch_abc",\n'
        '  "input_file_id": "file-abc",\n  "input_sha256": "' + "0" * 64 + '",\n  "held_back": 1,\n'
        '  "requests": [\n'
        '    {"custom_id": "fp1", "fingerprint": "fp1", "operation": "GET /books 200", "field": "books[].isbn", '
        '"request": "d1"},\n'
        '    {"custom_id": "fp1#2", "fingerprint": "fp1", "operation": "GET /books/{isbn} 200", "field": "isbn", '
        '"request": "d2"}\n  ]\n}\n')
    empty = BatchState("a.yaml", "m", "b", "f", "s", ())
    assert load_state(dump_state(empty), "s.json") == empty


@pytest.mark.parametrize(("text", "why"), [
    ("{", "invalid JSON"), ("[]", "not an object"), ('{"version": 9}', "unsupported version 9"),
    ('{"version": 1, "requests": {}}', "requests is not a list"),
    ('{"version": 1, "requests": [], "spec": "a"}', "model is not a non-empty string"),
    ('{"version": 1, "requests": [1]}', "request 1 is not an object"),
    ('{"version": 1, "requests": [], "held_back": -1}', "held_back is not a count"),
])
def test_a_damaged_state_is_an_input_error_naming_the_file(text: str, why: str) -> None:
    with pytest.raises(BatchError) as raised:
        load_state(text, ".satori/x.batch.json")
    assert raised.value.kind is BatchErrorKind.INPUT
    assert raised.value.message.startswith(".satori/x.batch.json: not a batch state file (")
    assert why in raised.value.message
