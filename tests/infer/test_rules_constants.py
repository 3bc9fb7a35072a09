"""Constant rules: a field whose prose names its one value ('always `sql#tier`', 'Always true.')."""

from __future__ import annotations

import pytest

from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, found, make_field

POSITIVE: list[tuple[str, ResponseField, Found]] = [
    ("constant-description", make_field("kind", description="This is always `sql#tier`."),
     {("string_specific_values", ("sql#tier",))}),
    ("constant-description", make_field("kind", description='Identifies what kind of resource this is. Value: the '
                                                             'fixed string "youtube#channel".'),
     {("string_specific_values", ("youtube#channel",))}),
    ("constant-description", make_field("kind", description='Value: the fixed string "`content#posStore`"'),
     {("string_specific_values", ("content#posStore",))}),
    ("constant-description", make_field("kind", description="Value: the fixed string `\"drive#reply\"`."),
     {("string_specific_values", ("drive#reply",))}),
    ("constant-description", make_field("data[].type", description='Always "user"'),
     {("string_specific_values", ("user",))}),
    ("constant-description", make_field("type", description="The type of list returned; will always be `category`"),
     {("string_specific_values", ("category",))}),
    ("constant-description", make_field("source", description="It is always set to 'Azure'. Kept for compatibility."),
     {("string_specific_values", ("Azure",))}),
    ("constant-description", make_field("items[].kind", description="Value is always the fixed string "
                                                                    "`games#category`."),
     {("string_specific_values", ("games#category",))}),
    ("boolean-always", make_field("can_preview", "boolean", description="Defines if the link allows previews. This "
                                                                       "value is always `true`. For folders it also "
                                                                       "applies to the items in the folder."),
     {("boolean_always_true", None)}),
    ("boolean-always", make_field("needs_block_refresh", "boolean", description="Deprecated and will always return "
                                                                                "false."),
     {("boolean_always_false", None)}),
    ("boolean-always", make_field("verified", "boolean", description="Whether the user has set a password (will "
                                                                     "always be false)"),
     {("boolean_always_false", None)}),
    ("boolean-always", make_field("isActive", "boolean", description="**DEPRECATED** - Always true. Inactive "
                                                                     "profiles are no longer returned."),
     {("boolean_always_true", None)}),
]

NEGATIVE: list[tuple[str, ResponseField]] = [
    ("constant-description", make_field("unofficial_currency_code", description="Always `null` if "
                                                                                "`iso_currency_code` is set.")),
    ("constant-description", make_field("kind", description="[Output Only] Type of the resource. Always "
                                                            "`compute#operation` for Operation resources.")),
    ("constant-description", make_field("data", description='Currently, the format will always be "image/png", but '
                                                            "this might change in the future.")),
    ("constant-description", make_field("mode", description='Always "a" when created; after that "b".')),
    ("constant-description", make_field("mode", description='Always "a" for new records. Always "b" otherwise.')),
    ("constant-description", make_field("day", description="The week ending date, which will always be a Friday.")),
    ("constant-description", make_field("kind", "integer", description="This is always `1`.")),
    ("constant-description", make_field("kind", description="This is always `sql#tier`.", enum=("a", "b"))),
    ("constant-description", make_field("name", description='The name, e.g. "always"')),
    ("boolean-always", make_field("hasDrift", "boolean", description="It is always false when d is not 1.")),
    ("boolean-always", make_field("discountable", "boolean", description="If true, discounts apply. Always false "
                                                                         "for prorations.")),
    ("boolean-always", make_field("is_global", "boolean", description="Before project fields, this was always "
                                                                      "true.")),
    ("boolean-always", make_field("jobComplete", "boolean", description="If rows are present, this will always be "
                                                                        "true.")),
    ("boolean-always", make_field("flag", "boolean", description="Always true for now; this may change in the "
                                                                 "future.")),
    ("boolean-always", make_field("flag", "string", description="Always true.")),
    ("boolean-always", make_field("flag", "boolean", description="Whether the flag is set.")),
]


@pytest.mark.parametrize(("rule", "field", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, expected: Found) -> None:
    assert found(rule, field) == expected


@pytest.mark.parametrize(("rule", "field"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField) -> None:
    assert found(rule, field) == set()
