"""Bounds stated in prose: ranges, 'up to N', 'at least N', non-negative, array sizes and order."""

from __future__ import annotations

import pytest

from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, found, make_field

POSITIVE: list[tuple[str, ResponseField, Found]] = [
    ("bounds-description", make_field("rating", "number", description="The rating ranges from 1 to 5."),
     {("number_min_value", 1), ("number_max_value", 5)}),
    ("bounds-description", make_field("score", "number", description="A confidence between 0.0 and 1.0."),
     {("number_min_value", 0.0), ("number_max_value", 1.0)}),
    ("bounds-description", make_field("level", "integer", description="The level of the division (1-5)"),
     {("number_min_value", 1), ("number_max_value", 5)}),
    ("bounds-description", make_field("x", "number", description="Currently bounded on [0,1]."),
     {("number_min_value", 0), ("number_max_value", 1)}),
    ("bounds-description", make_field("wait", "integer", description="Minutes, between 0 and 43,200 (30 days)."),
     {("number_min_value", 0), ("number_max_value", 43200)}),
    ("bounds-description", make_field("lat", "number", description="Degrees from -90 to 90."),
     {("number_min_value", -90), ("number_max_value", 90)}),
    ("bounds-description", make_field("returned", "integer",
                                      description="The number of creators returned in this collection (up to 20)."),
     {("number_max_value", 20)}),
    ("bounds-description", make_field("ttl", "integer", description="The maximum value is 3600, or 1 hour."),
     {("number_max_value", 3600)}),
    ("bounds-description", make_field("n", "integer", description="Must be at least 1."), {("number_min_value", 1)}),
    ("non-negative", make_field("tasks", "integer", description="The number should be non-negative."),
     {("number_min_value", 0)}),
    ("non-negative", make_field("shards", "integer", description="This must always be a positive number."),
     {("number_min_value", 1)}),
    ("array-size-description", make_field("tags", "array", description="A set of tags (up to 50)."),
     {("array_max_size", 50)}),
    ("array-size-description", make_field("tags", "array", description="You can specify up to 5 tags per item."),
     {("array_max_size", 5)}),
    ("array-size-description", make_field("apps", "array", description="This can have at most 3,000 elements."),
     {("array_max_size", 3000)}),
    ("array-size-description", make_field("ids", "array", description="Contains at least 1 item."),
     {("array_min_size", 1)}),
    ("order-description", make_field("levels", "array", items_type="integer",
                                     description="Levels, sorted in ascending order."),
     {("array_number_asc_order", None)}),
    ("order-description", make_field("scores", "array", items_type="number",
                                     description="Scores in descending order."),
     {("array_number_desc_order", None)}),
]

NEGATIVE: list[tuple[str, ResponseField]] = [
    ("bounds-description", make_field("name", "string", description="Between 1 and 5 words.")),
    ("bounds-description", make_field("delay", "integer", description="A delay between 1 and 5 seconds.")),
    ("bounds-description", make_field("month", "integer",
                                      description="Must be from 1 to 12, or 0 to specify a year without a month.")),
    ("bounds-description", make_field("r", "integer", description="Between 1 and 5, or -1 if unknown.")),
    ("bounds-description", make_field("pct", "number", description="A variation, e.g (0 - 100).")),
    ("bounds-description", make_field("start", "integer", description="Each range must contain at least 40 ports.")),
    ("bounds-description", make_field("code", "integer", description="At most 20 apps may specify a code.")),
    ("bounds-description", make_field("delay", "integer", description="The default minimum value is 1000 (1 s).")),
    ("bounds-description", make_field("total", "integer", description="Returns up to 100 per page.")),
    ("bounds-description", make_field("id", "integer", description="An ID of up to 10 digits.")),
    ("non-negative", make_field("delta", "integer", description="Non-negative, or negative when reversed.")),
    ("non-negative", make_field("ratio", "number", description="Always positive.")),
    ("non-negative", make_field("label", "string", description="A non-negative number.")),
    ("array-size-description", make_field("names", "array", description="Names, each up to 20 characters.")),
    ("array-size-description", make_field("hits", "array", description="List of up to 10 matching places")),
    ("array-size-description", make_field("status", "array", description="At least 90% successful.")),
    ("array-size-description", make_field("queries", "array",
                                          description="Customers can create up to 500 dynamic groups.")),
    ("array-size-description", make_field("ips", "array",
                                          description="For example, a pool would need at least 3 IPs.")),
    ("order-description", make_field("names", "array", items_type="string", description="Sorted ascending.")),
    ("order-description", make_field("xs", "array", items_type="number",
                                     description="Ascending or descending order, as asked.")),
]


@pytest.mark.parametrize(("rule", "field", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, expected: Found) -> None:
    assert found(rule, field) == expected


@pytest.mark.parametrize(("rule", "field"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField) -> None:
    assert found(rule, field) == set()
