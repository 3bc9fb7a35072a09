"""Strict pydantic models for the files a pull request can bring (`.satori.yml`, an observation store).

What both readers need of pydantic, once: a `str` taken as it is (pydantic's own refuses one that holds a lone
surrogate, which YAML's and JSON's `"\\udc80"` give and which these files have always accepted), objects whose
unknown keys are one error for the whole object (not one per key: a file's errors stay few whatever its size),
and mappings keyed by the file read as (key, value) pairs, so that a list of them stops at its first wrong entry.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, PlainValidator, model_validator
from pydantic_core import PydanticCustomError


def any_string(value: Any) -> str:
    """Any Python str as it is; anything else is pydantic's `string_type` error."""
    if not isinstance(value, str):
        raise PydanticCustomError("string_type", "Input should be a valid string")
    return value


def as_pairs(value: Any) -> Any:
    """A mapping as its (key, value) pairs, in order (aliases that repeat a mapping cannot multiply errors)."""
    if not isinstance(value, dict):
        raise PydanticCustomError("dict_type", "Input should be a valid dictionary")
    return list(value.items())


Str = Annotated[str, PlainValidator(any_string, json_schema_input_type=str)]


class StrictModel(BaseModel):
    """Strict types, frozen, unknown keys refused as one `unknown_key` error (the reader names the first)."""

    _known: ClassVar[frozenset[str]] = frozenset()
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, value: Any) -> Any:
        if isinstance(value, dict) and not value.keys() <= cls._known:
            raise PydanticCustomError("unknown_key", "unknown key")
        return value

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._known = frozenset(cls.model_fields)


class EntryKeys:
    """The keys of a document's mappings, each listed once: a mapping read as pairs names an error's entry by
    its index, and the reader names it by its key."""

    def __init__(self) -> None:
        self._keys: dict[int, list[str]] = {}

    def keys_of(self, container: dict[str, Any]) -> list[str]:
        keys = self._keys.get(id(container))
        if keys is None:
            keys = self._keys[id(container)] = list(container)
        return keys

    def entry(self, container: dict[str, Any], index: int | str) -> str:
        """The key of the entry at `index` of `container`."""
        return self.keys_of(container)[int(index)]
