"""The encoder made once writes what `json.JSONEncoder.encode` writes, for every JSON-like value a spec can hold."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satori_ci.spec import json_encode
from satori_ci.spec.json_encode import json_encoder

SETTINGS = [{}, {"sort_keys": True, "separators": (",", ":")}]
"""`fields --json`'s facts, and the fingerprints' canonical text (`dumps_stable`)."""

_TEXT = st.text(st.characters(blacklist_categories=()))  # lone surrogates too
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | _TEXT | st.dates() | st.datetimes()
_KEYS = _TEXT | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(_TEXT, inner, max_size=4), max_leaves=20)


def _plain(value: Any, options: dict[str, Any]) -> str:
    return json.JSONEncoder(ensure_ascii=False, default=str, **options).encode(value)


@pytest.mark.parametrize("options", SETTINGS)
@settings(max_examples=150, deadline=None)
@given(value=VALUES)
def test_the_text_is_json_encoders(options: dict[str, Any], value: Any) -> None:
    assert json_encoder(**options)(value) == _plain(value, options)


@given(keys=st.dictionaries(_KEYS, st.integers(), max_size=5))
def test_keys_of_other_types_are_written_as_json_encoder_writes_them(keys: dict[Any, int]) -> None:
    assert json_encoder()(keys) == _plain(keys, {})


def test_what_json_encoder_refuses_it_refuses_too() -> None:
    mixed = {1: "a", "b": 2}  # keys that cannot be sorted together
    options = SETTINGS[1]
    with pytest.raises(TypeError):
        _plain(mixed, options)
    with pytest.raises(TypeError):
        json_encoder(**options)(mixed)
    assert json_encoder()({"d": datetime.date(2026, 11, 27)}) == '{"d": "2026-11-27"}'  # others as text


def test_cpython_gets_the_encoder_made_once() -> None:
    for options in SETTINGS:
        assert not hasattr(json_encoder(**options), "__self__")  # not `JSONEncoder.encode`: the start-up check held


def test_without_the_c_encoder_it_is_json_encoders_own_method(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_encode._json, "c_make_encoder", None)
    encode = json_encoder()
    assert getattr(encode, "__self__", None).__class__ is json.JSONEncoder  # the bound method itself
    assert encode({"a": [1, "é"]}) == '{"a": [1, "é"]}'
