"""Repairing and reading model answers: each class of broken answer, coercions and drops."""

from __future__ import annotations

from typing import Any

import pytest

from satori_ci.infer.llm import LLMBackend, LLMConfig, extract_object, interpret
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.kinds import kinds_for_type
from tests.infer.conftest import FieldFactory, StubFallback
from tests.servers.openai_server import FakeOpenAIServer, Reply

STRING = kinds_for_type("string")
NUMBER = kinds_for_type("number")
BOOLEAN = kinds_for_type("boolean")
ARRAY = kinds_for_type("array", "number")
PRICE = {"string_specific_values": ["$", "$$"], "string_is_url": False}


# ---------------------------------------------------------------------------------------------
# Finding the object


@pytest.mark.parametrize(("text", "note"), [
    ('{"string_specific_values": ["$", "$$"], "string_is_url": false}', None),
    ('```json\n{"string_specific_values": ["$", "$$"], "string_is_url": false}\n```', "code fences"),
    ('```\n{"string_specific_values": ["$", "$$"], "string_is_url": false}\n```', "code fences"),
    ('```json\n{"string_specific_values": ["$", "$$"], "string_is_url": false}', "unclosed code fence"),
    ('Here are the oracles:\n{"string_specific_values": ["$", "$$"], "string_is_url": false}\nHope it helps {:}',
     "text around"),
    ('Sure! ```json\n{"string_specific_values": ["$", "$$"], "string_is_url": false}\n``` Done.', "code fences"),
    ("{'string_specific_values': ['$', '$$'], 'string_is_url': False}", "repaired"),
    ('{"string_specific_values": ["$", "$$",], "string_is_url": false,}', "repaired"),
    ('{"string_specific_values": ["$", "$$"], "string_is_url": False, }', "repaired"),
    ('{"string_is_url": false, "string_specific_values": ["$", "$$"], "string_is_ema', "truncated"),
    ('{"string_is_url": false, "string_specific_values": ["$", "$$"', "truncated"),
])
def test_the_object_is_found_and_repaired(text: str, note: str | None) -> None:
    extracted = extract_object(text)
    assert extracted.obj is not None
    assert {k: extracted.obj[k] for k in PRICE} == PRICE
    if note is None:
        assert extracted.notes == ()
    else:
        assert any(note in n for n in extracted.notes), extracted.notes


def test_several_objects_are_merged_and_the_first_wins() -> None:
    extracted = extract_object('{"string_is_url": true}\n{"string_is_url": false, "string_is_email": true}')
    assert extracted.obj == {"string_is_url": True, "string_is_email": True}
    assert any("merged 2 JSON objects" in n for n in extracted.notes)


def test_braces_inside_strings_do_not_confuse_the_scan() -> None:
    extracted = extract_object('note {x} then {"string_specific_values": ["{", "}"], "reasons": {"a": "}{"}}')
    assert extracted.obj == {"string_specific_values": ["{", "}"], "reasons": {"a": "}{"}}


@pytest.mark.parametrize("text", [None, "", "   ", "I cannot answer that.", "[1, 2, 3]", "{not json at all"])
def test_no_object_means_none(text: str | None) -> None:
    extracted = extract_object(text)
    assert extracted.obj is None and extracted.notes


# ---------------------------------------------------------------------------------------------
# Reading it


def read(obj: dict[str, Any], kinds: tuple[K, ...] = STRING) -> tuple[dict[K, Any], tuple[str, ...]]:
    found = interpret(obj, kinds)
    return found.values, found.notes


def test_a_clean_answer() -> None:
    values, notes = read({"string_is_url": False, "string_is_numeric": False,
                          "string_specific_values": ["$", "$$", "$$$", "$$$$"], "string_is_email": False,
                          "string_is_date": False, "string_fixed_length": None, "string_is_time": False})
    assert values == {K.STRING_SPECIFIC_VALUES: ("$", "$$", "$$$", "$$$$")}
    assert notes == ()


@pytest.mark.parametrize(("obj", "kinds", "expected"), [
    ({"string_fixed_length": "5"}, STRING, {K.STRING_FIXED_LENGTH: 5}),
    ({"string_fixed_length": 5.0}, STRING, {K.STRING_FIXED_LENGTH: 5}),
    ({"number_min_value": "0", "number_max_value": "99.5"}, NUMBER,
     {K.NUMBER_MIN_VALUE: 0, K.NUMBER_MAX_VALUE: 99.5}),
    ({"string_is_url": "true", "string_is_email": "FALSE"}, STRING, {K.STRING_IS_URL: None}),
    ({"string_specific_values": "open"}, STRING, {K.STRING_SPECIFIC_VALUES: ("open",)}),
    ({"boolean_always_true": True, "boolean_always_false": "false"}, BOOLEAN, {K.BOOLEAN_ALWAYS_TRUE: None}),
    ({"string_specific_values": [1, "2", 2.5]}, STRING, {K.STRING_SPECIFIC_VALUES: ("1", "2", "2.5")}),
    ({"number_specific_values": 3}, NUMBER, {K.NUMBER_SPECIFIC_VALUES: (3,)}),
    ({"number_specific_values": ["1", 2, "2"]}, NUMBER, {K.NUMBER_SPECIFIC_VALUES: (1, 2)}),
    ({"array_specific_sizes": "3", "array_min_size": "1"}, ARRAY,
     {K.ARRAY_MIN_SIZE: 1, K.ARRAY_SPECIFIC_SIZES: (3,)}),
    ({"array_number_asc_order": "True"}, ARRAY, {K.ARRAY_NUMBER_ASC_ORDER: None}),
])
def test_wrong_types_are_coerced_where_unambiguous(obj: dict[str, Any], kinds: tuple[K, ...],
                                                   expected: dict[K, Any]) -> None:
    values, notes = read(obj, kinds)
    assert values == expected
    if any(isinstance(v, str) or not isinstance(v, list | float) for v in obj.values()):
        assert notes  # reading text as a number or boolean, or one value as a list, is told


@pytest.mark.parametrize("nullish", [None, "null", "None", "", "  ", False, []])
def test_null_like_answers_are_absent(nullish: Any) -> None:
    values, _ = read({"string_specific_values": nullish, "string_fixed_length": nullish,
                      "string_is_url": nullish if nullish != [] else None})
    assert values == {}


@pytest.mark.parametrize(("obj", "kinds", "expected", "why"), [
    ({"string_is_url": True, "colour": "blue"}, STRING, {K.STRING_IS_URL: None}, "unknown property"),
    ({"number_min_value": 1}, STRING, {}, "not asked"),
    ({"string_fixed_length": -3}, STRING, {}, "negative"),
    ({"array_max_size": -1, "array_min_size": 2}, ARRAY, {K.ARRAY_MIN_SIZE: 2}, "negative"),
    ({"array_specific_sizes": [1, -2]}, ARRAY, {}, "negative"),
    ({"number_min_value": 10, "number_max_value": 1}, NUMBER, {}, "minimum above maximum"),
    ({"array_min_size": 5, "array_max_size": 2}, ARRAY, {}, "minimum above maximum"),
    ({"string_is_url": ["http://a"]}, STRING, {}, "takes no value"),
    ({"string_is_email": "sometimes"}, STRING, {}, "takes no value"),
    ({"string_fixed_length": True}, STRING, {}, "expected a value"),
    ({"string_fixed_length": "five"}, STRING, {}, "expected an integer"),
    ({"string_fixed_length": 2.5}, STRING, {}, "expected an integer"),
    ({"number_max_value": {"value": 3}}, NUMBER, {}, "expected a number"),
    ({"number_max_value": True}, NUMBER, {}, "expected a value"),
    ({"number_specific_values": [1, True]}, NUMBER, {}, "wrong type"),
    ({"string_specific_values": ["a", {"b": 1}]}, STRING, {}, "wrong type"),
    ({"string_is_date": True, "string_is_time": True}, STRING, {K.STRING_IS_TIME: None}, "date-time"),
    ({"boolean_always_true": True, "boolean_always_false": True}, BOOLEAN, {}, "both cannot hold"),
    ({"string_fixed_length": 0}, STRING, {}, "no constraint"),
    ({"array_min_size": 0}, ARRAY, {}, "no constraint"),
])
def test_impossible_values_are_dropped_with_a_reason(obj: dict[str, Any], kinds: tuple[K, ...],
                                                     expected: dict[K, Any], why: str) -> None:
    values, notes = read(obj, kinds)
    assert values == expected
    assert any(why in n for n in notes), notes


def test_short_names_and_wrapped_answers_are_read() -> None:
    values, notes = read({"oracles": {"is_url": True, "specific_values": None}})
    assert values == {K.STRING_IS_URL: None}
    assert any('read the object under "oracles"' in n for n in notes)
    assert any('read "is_url" as string_is_url' in n for n in notes)
    values, _ = read({"String_Is_URL": True})
    assert values == {K.STRING_IS_URL: None}


def test_reasons_are_kept_for_the_oracles_that_hold() -> None:
    found = interpret({"string_is_url": True, "string_is_email": False,
                       "reasons": {"string_is_url": "  format: uri\n and example  ", "string_is_email": "no"}},
                      STRING)
    assert found.reasons == {K.STRING_IS_URL: "format: uri and example"}


def test_max_size_zero_and_order_flags_are_kept() -> None:
    values, _ = read({"array_max_size": 0, "array_number_asc_order": True,
                      "array_number_desc_order": False}, ARRAY)
    assert values == {K.ARRAY_MAX_SIZE: 0, K.ARRAY_NUMBER_ASC_ORDER: None}


# ---------------------------------------------------------------------------------------------
# End to end: what the server says, what the backend returns


@pytest.mark.parametrize(("answer", "expected"), [
    ('```json\n{"string_specific_values": ["$", "$$"]}\n```', ("$", "$$")),
    ('{"string_specific_values": ["$", "$$"]}\n\nThese are the values listed in the description.', ("$", "$$")),
    ("{'string_specific_values': ['$', '$$'], 'string_is_url': False,}", ("$", "$$")),
    ('{"string_specific_values": "$"}', ("$",)),
    ('{"string_specific_values": ["$", "$$"], "string_is_url": "null", "string_fixed_len', ("$", "$$")),
])
def test_broken_answers_from_the_server_are_repaired(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback,
        answer: str, expected: tuple[str, ...]) -> None:
    fake_openai.table["price"] = Reply(content=answer)
    backend = LLMBackend(LLMConfig(model="fake-model", base_url=fake_openai.base_url, api_key="k"), fallback)
    (result,) = backend.infer([make_field("price")]).results
    assert [(o.kind, o.value) for o in result.oracles] == [(K.STRING_SPECIFIC_VALUES, expected)]
    assert fallback.calls == []


def test_an_answer_without_json_falls_back_for_that_field(
        fake_openai: FakeOpenAIServer, make_field: FieldFactory, fallback: StubFallback) -> None:
    fake_openai.table["price"] = "I am sorry, I cannot help with that."
    fake_openai.table["total"] = {"number_min_value": 0}
    fields = [make_field("price"), make_field("total", "integer")]
    run = LLMBackend(LLMConfig(model="fake-model", base_url=fake_openai.base_url, api_key="k"),
                     fallback).infer(fields)
    assert fallback.fields_seen == ["price"]
    price, total = run.results
    assert "llm answer unusable" in price.notes and "stub fallback" in price.notes
    assert [o.kind for o in total.oracles] == [K.NUMBER_MIN_VALUE]
