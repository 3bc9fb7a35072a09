"""Number rules: coordinates, counts, prices, percentages, zero-sentinel ids, HTTP status codes."""

from __future__ import annotations

import pytest

from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, found, make_field

MIN0: Found = {("number_min_value", 0)}

POSITIVE: list[tuple[str, ResponseField, Found]] = [
    ("geo-latitude", make_field("coordinates.latitude", "number"),
     {("number_min_value", -90), ("number_max_value", 90)}),
    ("geo-latitude", make_field("center_lat", "number"), {("number_min_value", -90), ("number_max_value", 90)}),
    ("geo-longitude", make_field("coordinates.longitude", "number"),
     {("number_min_value", -180), ("number_max_value", 180)}),
    ("geo-longitude", make_field("lng", "number"), {("number_min_value", -180), ("number_max_value", 180)}),
    ("geo-longitude", make_field("long", "number"), {("number_min_value", -180), ("number_max_value", 180)}),
    ("count-name", make_field("businesses[].review_count", "integer"), MIN0),
    ("count-name", make_field("pageCount", "integer"), MIN0),
    ("count-name", make_field("total", "integer"), MIN0),
    ("count-name", make_field("num_results", "integer"), MIN0),
    ("count-name", make_field("numberOfItems", "integer"), MIN0),
    ("count-name", make_field("businesses[].distance", "number"), MIN0),
    ("count-name", make_field("data.offset", "integer", description="The requested offset."), MIN0),
    ("count-name", make_field("data.limit", "integer"), MIN0),
    ("count-name", make_field("file_size", "integer"), MIN0),
    ("count-description", make_field("pages", "integer", description="The number of story pages in the comic."),
     MIN0),
    ("count-description", make_field("available", "integer",
                                     description="The number of total available creators in this list."), MIN0),
    ("count-description", make_field("cpus", "integer", description="How many cores are available."), MIN0),
    ("unit-name", make_field("tracks.items[].duration_ms", "integer", description="The track length in ms."), MIN0),
    ("unit-name", make_field("timeoutSeconds", "integer", description="Number of seconds after which the probe "
                                                                      "times out. Defaults to 1 second."), MIN0),
    ("unit-name", make_field("RetentionPeriodInDays", "integer"), MIN0),
    ("unit-name", make_field("size_in_bytes", "integer", description="The size in bytes of the artifact."), MIN0),
    ("unit-name", make_field("diskSizeGb", "integer"), MIN0),
    ("unit-name", make_field("memoryInGB", "number"), MIN0),
    ("unit-name", make_field("images[].height", "integer"), MIN0),
    ("unit-name", make_field("thumbnail_width", "integer"), MIN0),
    ("unit-name", make_field("ElapsedTimeMillis", "integer"), MIN0),
    ("price-name", make_field("prices[].price", "number", description="The price (all prices in USD)."), MIN0),
    ("price-name", make_field("unitPrice", "number"), MIN0),
    ("zero-sentinel-id", make_field("digitalId", "integer", description="Will be 0 if the comic is not available."),
     MIN0),
    ("http-status", make_field("code", "integer", description="The HTTP status code of the returned result."),
     {("number_specific_values", (200,))}),
    ("http-status", make_field("status", "integer", status="201", description="HTTP status code"),
     {("number_specific_values", (201,))}),
    ("http-status", make_field("code", "integer", status="2XX", description="The HTTP status code."),
     {("number_min_value", 200), ("number_max_value", 299)}),
    ("percent-name", make_field("discount_percent", "number"), MIN0),
    ("percent-name", make_field("percentage", "integer"), MIN0),
    ("percent-name", make_field("alert_share", "integer", description="The percentage of all alerts, rounded."),
     {("number_min_value", 0), ("number_max_value", 100)}),
    ("percent-name", make_field("progress", "number", description="Percent complete."),
     {("number_min_value", 0), ("number_max_value", 100)}),
    ("percent-name", make_field("cpu_percent", "number", description="The percentage of CPU used."), MIN0),
]

NEGATIVE: list[tuple[str, ResponseField]] = [
    ("unit-name", make_field("utcOffsetMinutes", "integer")),
    ("unit-name", make_field("timeZoneOffsetInMinutes", "integer")),
    ("unit-name", make_field("rules[].offsetAfter.totalSeconds", "integer")),
    ("unit-name", make_field("TimestampDeltaMilliseconds", "integer")),
    ("unit-name", make_field("daysUntilExpiry", "integer")),
    ("unit-name", make_field("upperBoundDays", "integer", description="Range of shift in days. Negative means shift "
                                                                      "to earlier in time.")),
    ("unit-name", make_field("meanTimeToFailureInMinutes", "integer", description="Valid values -2147483648 to "
                                                                                  "2147483647")),
    ("unit-name", make_field("logBackupRetentionHours", "integer", description="A value of -1 indicates that a log "
                                                                               "never expires.")),
    ("unit-name", make_field("Points[].Height", "number")),
    ("unit-name", make_field("seconds", "string")),
    ("unit-name", make_field("x", "integer")),
    ("unit-name", make_field("SoldAmountLast30Days", "number")),
    ("geo-latitude", make_field("latitude", "string")),
    ("geo-latitude", make_field("latitudeE6", "number")),
    ("geo-latitude", make_field("latitude_delta", "number")),
    ("geo-latitude", make_field("latitude_accuracy", "number")),
    ("geo-longitude", make_field("longitudeDelta", "number")),
    ("geo-longitude", make_field("long_name", "number")),
    ("count-name", make_field("discount", "number")),
    ("count-name", make_field("account", "integer")),
    ("count-name", make_field("total", "number")),
    ("count-name", make_field("total_amount", "integer")),
    ("count-name", make_field("utc_offset", "integer")),
    ("count-name", make_field("offset", "integer", description="Offset from UTC in minutes.")),
    ("count-name", make_field("count_delta", "integer")),
    ("count-name", make_field("balance_count", "integer", description="Can be negative when overdrawn.")),
    ("count-description", make_field("issueNumber", "number",
                                     description="The number of the issue in the series (will generally be 0).")),
    ("count-description", make_field("days_left", "integer", description="The number of days until expiry.")),
    ("count-description", make_field("label", "string", description="The number of items.")),
    ("price-name", make_field("price_change", "number")),
    ("price-name", make_field("spot_price", "number", description="May be negative in oversupply.")),
    ("zero-sentinel-id", make_field("id", "integer", description="The unique ID of the comic resource.")),
    ("zero-sentinel-id", make_field("digitalId", "string", description="Will be 0 if not available.")),
    ("http-status", make_field("code", "integer", description="An application-specific error code.")),
    ("http-status", make_field("status_code", "integer", description="HTTP status code received from the hook.")),
    ("http-status", make_field("data.code", "integer", description="The HTTP status code of the result.")),
    ("http-status", make_field("status", "integer", description="The HTTP status code to reply with.")),
    ("percent-name", make_field("percent_change", "number")),
    ("percent-name", make_field("percent", "string")),
    ("percent-name", make_field("ratio", "number", description="A ratio.")),
    ("percent-name", make_field("growth", "number", description="The percentage of growth, can be negative.")),
]


@pytest.mark.parametrize(("rule", "field", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, expected: Found) -> None:
    assert found(rule, field) == expected


@pytest.mark.parametrize(("rule", "field"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField) -> None:
    assert found(rule, field) == set()


def test_a_negative_literal_in_the_prose_blocks_non_negative_rules() -> None:
    field = make_field("limit", "integer", description="The quota; -1 for unlimited.")
    assert found("count-name", field) == set()
    assert found("count-description", make_field("n", "integer", description="Number of seats, or -1.")) == set()
