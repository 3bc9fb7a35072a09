"""The strict models both pull-request file readers build on."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BeforeValidator, Field, ValidationError

from satori_ci.strict import EntryKeys, Str, StrictModel, as_pairs


class Thing(StrictModel):
    name: Str
    tags: Annotated[list[tuple[Str, int]], Field(fail_fast=True), BeforeValidator(as_pairs)] = ()  # type: ignore[assignment]


def test_a_string_is_taken_as_it_is_lone_surrogates_included() -> None:
    assert Thing.model_validate({"name": "\udc80"}).name == "\udc80"


def test_a_non_string_is_refused() -> None:
    with pytest.raises(ValidationError) as err:
        Thing.model_validate({"name": 5})
    assert [e["type"] for e in err.value.errors()] == ["string_type"]


def test_unknown_keys_are_one_error_however_many() -> None:
    with pytest.raises(ValidationError) as err:
        Thing.model_validate({"name": "a", **{f"extra{i}": i for i in range(1000)}})
    assert [e["type"] for e in err.value.errors()] == ["unknown_key"]


def test_a_mapping_read_as_pairs_stops_at_its_first_wrong_entry() -> None:
    with pytest.raises(ValidationError) as err:
        Thing.model_validate({"name": "a", "tags": {f"t{i}": "x" for i in range(1000)}})
    assert len(err.value.errors()) == 1
    assert Thing.model_validate({"name": "a", "tags": {"b": 1, "a": 2}}).tags == [("b", 1), ("a", 2)]


def test_an_entry_is_named_by_its_key() -> None:
    mapping = {"b": 1, "a": 2}
    keys = EntryKeys()
    assert keys.entry(mapping, "1") == "a"
    assert keys.keys_of(mapping) is keys.keys_of(mapping)
