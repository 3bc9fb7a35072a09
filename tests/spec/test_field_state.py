"""What the walk builds without the generated `__init__`s, and the walk's shortcuts, are what those would build."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from satori_ci.spec import load_spec
from satori_ci.spec.facts import _count, _exclusive, _number, _text, _values, facts_from_keywords
from satori_ci.spec.model import FieldFacts
from tests.spec.conftest import WriteSpec

KEYWORDS: list[dict[str, Any]] = [
    {},
    {"description": "d", "title": "t", "example": {"a": [1]}, "examples": ["x", 2], "enum": ["a", None],
     "const": 0, "format": "uri", "pattern": "^a$", "minimum": 1, "maximum": 2.5, "exclusiveMinimum": True,
     "exclusiveMaximum": 3, "minLength": 1.0, "maxLength": 4, "minItems": 0, "maxItems": 9, "uniqueItems": True,
     "default": "z"},
    {"x-example": 7, "minimum": True, "minLength": 1.5, "uniqueItems": "yes", "description": 3, "examples": "no"},
    {"example": None, "x-example": "kept?", "enum": [], "default": False},
]


@pytest.mark.parametrize("keywords", KEYWORDS)
@pytest.mark.parametrize(("nullable", "items_type"), [(False, None), (True, "string")])
def test_facts_are_the_dataclass_the_generated_init_builds(keywords: dict[str, Any], nullable: bool,
                                                           items_type: str | None) -> None:
    get = keywords.get
    unique = get("uniqueItems")
    expected = FieldFacts(
        description=_text(get("description")), title=_text(get("title")),
        example=get("example", get("x-example")), examples=_values(get("examples")), enum=_values(get("enum")),
        const=get("const"), format=_text(get("format")), pattern=_text(get("pattern")),
        minimum=_number(get("minimum")), maximum=_number(get("maximum")),
        exclusive_minimum=_exclusive(get("exclusiveMinimum")), exclusive_maximum=_exclusive(get("exclusiveMaximum")),
        min_length=_count(get("minLength")), max_length=_count(get("maxLength")), min_items=_count(get("minItems")),
        max_items=_count(get("maxItems")), unique_items=unique if isinstance(unique, bool) else None,
        default=get("default"), nullable=True if nullable else None, items_type=items_type)
    facts = facts_from_keywords(keywords, nullable, items_type)
    assert facts == expected and repr(facts) == repr(expected)
    assert list(vars(facts)) == [f.name for f in dataclasses.fields(FieldFacts)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.title = "changed"  # type: ignore[misc]


def test_a_lone_nested_field_keeps_its_path(write: WriteSpec) -> None:
    spec = load_spec(str(write("api.yaml", """
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  one: {type: object, properties: {only: {type: object, properties: {leaf: {type: string}}}}}
                  list: {type: array, items: {type: object, properties: {id: {type: integer}}}}
                  map: {type: object, additionalProperties: {type: object, properties: {v: {type: boolean}}}}
""")))
    assert [(f.field, f.name, f.type) for f in spec.fields] == [
        ("one.only.leaf", "leaf", "string"), ("list", "list", "array"), ("list[].id", "id", "integer"),
        ("map{}.v", "v", "boolean")]
