"""The per-field prompt: structure, one question per applicable kind, facts, determinism,
and what actually reaches an OpenAI-compatible server."""

from __future__ import annotations

import json
import re

import pytest

from satori_ci.infer.llm import SYSTEM_PROMPT, LLMBackend, LLMConfig, build_prompt
from satori_ci.oracles.kinds import OracleKind, kinds_for_type
from tests.infer.conftest import FieldFactory, StubFallback
from tests.servers.openai_server import FakeOpenAIServer

QUESTION = re.compile(r"^(\d+)\. .* JSON property \"([a-z_]+)\", of type ([a-z ]+); (false|null) if not\.$",
                      re.M)


def test_system_message_sets_the_role_and_asks_for_json_only(make_field: FieldFactory) -> None:
    prompt = build_prompt(make_field("price"))
    assert prompt.system == SYSTEM_PROMPT
    assert "testing REST APIs" in prompt.system and "test oracles" in prompt.system
    assert "JSON object only" in prompt.system


def test_user_message_has_context_properties_and_oracles_parts_in_order(make_field: FieldFactory) -> None:
    user = build_prompt(make_field("businesses[].price", description="Price level.")).user
    heads = [user.index(h) for h in ("# Context", "# Properties", "# Oracles", "# Answer format")]
    assert heads == sorted(heads)
    context = user[: heads[1]]
    assert 'API: "Yelp Fusion"' in context
    assert "getBusinesses (GET /businesses/search, response status 200)" in context
    assert 'Response field: "price", of type string' in context
    assert 'path in the response body is "businesses[].price"' in context


@pytest.mark.parametrize(("type_", "items_type"), [
    ("string", None), ("boolean", None), ("number", None), ("integer", None),
    ("array", "string"), ("array", "number"), ("array", "integer"), ("array", None),
])
def test_one_numbered_question_per_applicable_kind(make_field: FieldFactory, type_: str,
                                                   items_type: str | None) -> None:
    prompt = build_prompt(make_field("f", type_, items_type=items_type))
    expected = kinds_for_type(type_, items_type)
    assert prompt.kinds == expected
    questions = QUESTION.findall(prompt.user)
    assert [int(q[0]) for q in questions] == list(range(1, len(expected) + 1))
    assert [q[1] for q in questions] == [k.value for k in expected]
    for _, kind_name, json_type, default in questions:
        kind = OracleKind(kind_name)
        assert default == ("null" if kind.takes_value else "false")
        assert json_type.startswith("array of") == kind.value.endswith(("specific_values", "specific_sizes"))
        assert (json_type == "boolean") == (not kind.takes_value)
    answer_format = prompt.user[prompt.user.index("# Answer format"):]
    assert ", ".join(k.value for k in expected) in answer_format
    other = [k for k in OracleKind if k not in expected]
    assert not any(f'"{k.value}"' in prompt.user for k in other)


def test_array_type_names_its_items(make_field: FieldFactory) -> None:
    user = build_prompt(make_field("distances", "array", items_type="number")).user
    assert 'Response field: "distances", of type array of number' in user


def test_every_fact_of_the_field_is_in_the_properties_part(make_field: FieldFactory) -> None:
    field = make_field(
        "rating", "number", description="Rating from 1 to 5.", title="Rating", example=4.5,
        examples=(1, 2.5), enum=(1, 1.5, 2), format="float", minimum=1, maximum=5,
        exclusive_minimum=False, default=3, nullable=True,
    )
    user = build_prompt(field).user
    props = user[user.index("# Properties"):user.index("# Oracles")]
    assert '"name": "rating"' in props and '"type": "number"' in props
    for key, value in field.facts.as_dict().items():
        assert f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False, sort_keys=True)}" in props


def test_prompt_is_deterministic(make_field: FieldFactory) -> None:
    a = make_field("location", "string", description="Ünïcode ok", example={"b": 1, "a": [2, {"z": 0, "y": 1}]})
    b = make_field("location", "string", description="Ünïcode ok", example={"a": [2, {"y": 1, "z": 0}], "b": 1})
    first = build_prompt(a)
    assert build_prompt(a) == first
    assert build_prompt(b).user.encode() == first.user.encode()
    assert "Ünïcode ok" in first.user


def test_reasons_are_asked_for_only_when_configured(make_field: FieldFactory) -> None:
    field = make_field("price")
    assert '"reasons"' in build_prompt(field).user
    assert '"reasons"' not in build_prompt(field, ask_reasons=False).user


def test_field_without_operation_id(make_field: FieldFactory) -> None:
    user = build_prompt(make_field("price", operation_id=None)).user
    assert "Operation: (no operationId) (GET /businesses/search, response status 200)" in user


def test_server_receives_the_prompt_with_temperature_zero_and_json_mode(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fields = [make_field("total", "integer", minimum=0), make_field("businesses[].price", enum=("$", "$$"))]
    backend = LLMBackend(LLMConfig(model="fake-model", base_url=fake_openai.base_url, api_key="sk-test"),
                         fallback)
    backend.infer(fields)
    assert len(fake_openai.requests) == 2
    for field in fields:
        (request,) = fake_openai.requests_for(field.field)
        prompt = build_prompt(field)
        assert request.path == "/v1/chat/completions"
        assert request.messages == [{"role": "system", "content": prompt.system},
                                    {"role": "user", "content": prompt.user}]
        assert request.body["model"] == "fake-model"
        assert request.body["temperature"] == 0
        assert request.body["response_format"] == {"type": "json_object"}
        assert request.headers["authorization"] == "Bearer sk-test"


def test_the_same_fields_give_byte_identical_requests(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fields = [make_field(f"items[].v{i}", "number", maximum=i) for i in range(3)]
    config = LLMConfig(model="fake-model", base_url=fake_openai.base_url, api_key="k", concurrency=3)
    LLMBackend(config, fallback).infer(fields)
    LLMBackend(config, fallback).infer(fields)
    first = {r.field_path: json.dumps(r.body, sort_keys=True) for r in fake_openai.requests[:3]}
    second = {r.field_path: json.dumps(r.body, sort_keys=True) for r in fake_openai.requests[3:]}
    assert first == second and len(first) == 3


def test_unset_options_are_left_out_of_the_request(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    config = LLMConfig(model="llama3", base_url=fake_openai.base_url, api_key="ollama", temperature=None,
                       max_output_tokens=300, json_mode=False)
    LLMBackend(config, fallback).infer([make_field("price")])
    (request,) = fake_openai.requests
    assert "temperature" not in request.body and "response_format" not in request.body
    assert request.body["max_tokens"] == 300 and request.body["model"] == "llama3"


def test_the_path_without_v1_is_served_too(make_field: FieldFactory, fallback: StubFallback,
                                           fake_openai: FakeOpenAIServer) -> None:
    base = fake_openai.base_url.removesuffix("/v1")
    LLMBackend(LLMConfig(model="m", base_url=base, api_key="k"), fallback).infer([make_field("price")])
    assert fake_openai.requests[0].path == "/chat/completions"
