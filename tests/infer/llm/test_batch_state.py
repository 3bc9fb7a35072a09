"""The state file of pending batches: where it is, deterministic text, version 1 still read, and refusals of a
damaged one."""

from __future__ import annotations

import pytest

from satori_ci.infer.llm.batch import BatchError, BatchErrorKind, BatchRequest
from satori_ci.infer.llm.batch_state import BatchPart, BatchState, dump_state, input_path, load_state, state_path

R1 = BatchRequest("fp1", "fp1", "GET /books 200", "books[].isbn", "d1")
R2 = BatchRequest("fp1#2", "fp1", "GET /books/{isbn} 200", "isbn", "d2")
R3 = BatchRequest("fp3", "fp3", "GET /books 200", "total", "d3")
STATE = BatchState("api/openapi.yaml", "gpt-4o", (
    BatchPart("batch_abc", "file-abc", "0" * 64, (R1, R2)),
    BatchPart("batch_def", "file-def", "1" * 64, (R3,))), held_back=1, not_sent=4)


def test_the_state_sits_next_to_the_oracle_file() -> None:
    assert state_path(".satori/api.openapi.oracles.yaml") == ".satori/api.openapi.batch.json"
    assert input_path(".satori/api.openapi.oracles.yaml") == ".satori/api.openapi.batch.jsonl"
    assert state_path("custom.yaml") == "custom.yaml.batch.json"


def test_the_state_reads_back_and_its_text_is_one_part_or_request_a_line() -> None:
    text = dump_state(STATE)
    assert load_state(text, "s.json") == STATE
    assert dump_state(load_state(text, "s.json")) == text
    assert STATE.requests == (R1, R2, R3) and STATE.batch_ids == ("batch_abc", "batch_def")
    assert text == (
        '{\n  "version": 2,\n  "spec": "api/openapi.yaml",\n  "model": "gpt-4o",\n  "held_back": 1,\n'
        '  "not_sent": 4,\n'
        '  "parts": [\n'
        '    {"batch_id": "batch_abc", "input_file_id": "file-abc", "input_sha256": "' + "0" * 64 + '"},\n'
        '    {"batch_id": "batch_def", "input_file_id": "file-def", "input_sha256": "' + "1" * 64 + '"}\n'
        '  ],\n'
        '  "requests": [\n'
        '    {"part": 1, "custom_id": "fp1", "fingerprint": "fp1", "operation": "GET /books 200", '
        '"field": "books[].isbn", "request": "d1"},\n'
        '    {"part": 1, "custom_id": "fp1#2", "fingerprint": "fp1", "operation": "GET /books/{isbn} 200", '
        '"field": "isbn", "request": "d2"},\n'
        '    {"part": 2, "custom_id": "fp3", "fingerprint": "fp3", "operation": "GET /books 200", '
        '"field": "total", "request": "d3"}\n  ]\n}\n')
    empty = BatchState("a.yaml", "m", (BatchPart("b", "f", "s", ()),))
    assert load_state(dump_state(empty), "s.json") == empty


def test_the_root_field_of_an_array_body_reads_back() -> None:
    """The root field's path is the empty string (a body that is an array): the reader takes what the writer
    writes, in both versions."""
    root = BatchRequest("fp0", "fp0", "GET /tags 200", "", "d0")
    state = BatchState("api.yaml", "gpt-4o", (BatchPart("batch_abc", "file-abc", "0" * 64, (root, R1)),))
    assert load_state(dump_state(state), "s.json") == state
    version_1 = ('{"version": 1, "spec": "api.yaml", "model": "gpt-4o", "batch_id": "batch_abc", '
                 '"input_file_id": "file-abc", "input_sha256": "s", "requests": [{"custom_id": "fp0", '
                 '"fingerprint": "fp0", "operation": "GET /tags 200", "field": "", "request": "d0"}]}')
    assert load_state(version_1, "s.json").requests == (root,)


def test_a_version_1_state_is_read_as_one_part() -> None:
    text = (
        '{\n  "version": 1,\n  "spec": "api/openapi.yaml",\n  "model": "gpt-4o",\n  "batch_id": "batch_abc",\n'
        '  "input_file_id": "file-abc",\n  "input_sha256": "' + "0" * 64 + '",\n  "held_back": 1,\n'
        '  "requests": [\n'
        '    {"custom_id": "fp1", "fingerprint": "fp1", "operation": "GET /books 200", "field": "books[].isbn", '
        '"request": "d1"},\n'
        '    {"custom_id": "fp1#2", "fingerprint": "fp1", "operation": "GET /books/{isbn} 200", "field": "isbn", '
        '"request": "d2"}\n  ]\n}\n')
    assert load_state(text, "s.json") == BatchState(
        "api/openapi.yaml", "gpt-4o", (BatchPart("batch_abc", "file-abc", "0" * 64, (R1, R2)),), held_back=1)


_V2 = '"version": 2, "spec": "a", "model": "m", '
_PART = '{"batch_id": "b", "input_file_id": "f", "input_sha256": "s"}'
_REQ = '"custom_id": "c", "fingerprint": "c", "operation": "o", "field": "f", "request": "d"'


@pytest.mark.parametrize(("text", "why"), [
    ("{", "invalid JSON"), ("[]", "not an object"), ('{"version": 9}', "unsupported version 9"),
    ('{"version": true}', "unsupported version True"),
    ('{"version": 1, "requests": {}}', "requests is not a list"),
    ('{"version": 1, "requests": [], "spec": "a"}', "model is not a non-empty string"),
    ('{"version": 1, "requests": [1]}', "request 1 is not an object"),
    ('{"version": 1, "requests": [], "held_back": -1}', "held_back is not a count"),
    ('{"version": 1, "requests": [], "spec": "a", "model": "m"}', "batch_id is not a non-empty string"),
    ("{" + _V2 + '"requests": []}', "parts is not a list"),
    ("{" + _V2 + '"requests": [], "parts": []}', "parts is empty"),
    ("{" + _V2 + '"requests": [], "parts": [{"batch_id": "b"}]}', "input_file_id is not a non-empty string"),
    ("{" + _V2 + '"requests": [{' + _REQ + '}], "parts": [' + _PART + "]}", "request 1 names no part"),
    ("{" + _V2 + '"requests": [{"part": 2, ' + _REQ + '}], "parts": [' + _PART + "]}", "request 1 names no part"),
    ("{" + _V2 + '"requests": [{"part": 2, ' + _REQ + '}, {"part": 1, ' + _REQ + '}], "parts": [' + _PART + ", "
     + _PART + "]}", "request 2 is out of the order of the parts"),
    ("{" + _V2 + '"requests": [], "parts": [' + _PART + '], "not_sent": "3"}', "not_sent is not a count"),
    ("{" + _V2 + '"requests": [{"part": 1, ' + _REQ.replace('"field": "f"', '"field": null') + '}], "parts": ['
     + _PART + "]}", "field is not a string"),
    ("{" + _V2 + '"requests": [{"part": 1, ' + _REQ.replace('"operation": "o"', '"operation": ""') + '}], '
     '"parts": [' + _PART + "]}", "operation is not a non-empty string"),
])
def test_a_damaged_state_is_an_input_error_naming_the_file(text: str, why: str) -> None:
    with pytest.raises(BatchError) as raised:
        load_state(text, ".satori/x.batch.json")
    assert raised.value.kind is BatchErrorKind.INPUT
    assert raised.value.message.startswith(".satori/x.batch.json: not a batch state file (")
    assert why in raised.value.message
