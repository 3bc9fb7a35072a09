"""Value sets in prose, and date/time rules."""

from __future__ import annotations

import pytest

from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, found, make_field

DATE: Found = {("string_is_date", None)}
TIME: Found = {("string_is_time", None)}

POSITIVE: list[tuple[str, ResponseField, Found]] = [
    ("values-description", make_field("album_type",
                                      description="The type of the album: one of 'album', 'single', or 'compilation'."),
     {("string_specific_values", ("album", "single", "compilation"))}),
    ("values-description", make_field("price", description="Price level. Value is one of $, $$, $$$, $$$$."),
     {("string_specific_values", ("$", "$$", "$$$", "$$$$"))}),
    ("values-description", make_field("state", description="State of the issue; either 'open' or 'closed'"),
     {("string_specific_values", ("open", "closed"))}),
    ("values-description", make_field("state", description="Can be one of: `open`, `closed`, or `all`."),
     {("string_specific_values", ("open", "closed", "all"))}),
    ("values-description", make_field("version", "integer", description="Valid values are `0`, `1`, and `3`."),
     {("number_specific_values", (0, 1, 3))}),
    ("values-description", make_field("Lifecycle", description="Valid values are <code>OLD</code>, <code>NEW</code>."),
     {("string_specific_values", ("OLD", "NEW"))}),
    ("time-example", make_field("modified", example="2018-05-16T00:00:00-0400"), TIME),
    ("time-example", make_field("opens", example="10:30 am"), TIME),
    ("time-example", make_field("start_time", example="14:30"), TIME),
    ("date-example", make_field("Released", example="12 Jun 2013"), DATE),
    ("date-example", make_field("DVD", example="01 Oct 2013"), DATE),
    ("date-example", make_field("day", example="2013-06-12"), DATE),
    ("moment-prose-example", make_field("lastUpdateDate", description="Date on which the collection was last updated "
                                                                      "in ISO 8601 format, for example "
                                                                      '"2020-01-02T09:00:00+01:00".'), TIME),
    ("moment-prose-example", make_field("CreatedDate", description="The date the version was created. For example, "
                                                                   "<code>2018-11-27T15:10:45.123+0000</code>."), TIME),
    ("moment-prose-example", make_field("holidays[].date", description='Date of the holiday, in ISO 8601 format. E.g. '
                                                                       '"2016-12-25" for Christmas 2016.'), DATE),
    ("moment-prose-example", make_field("refundDate", description="The date when the refund takes effect, in "
                                                                  "`yyyy-mm-dd` format. For example, 2017-03-01."),
     DATE),
    ("time-description", make_field("created", description="Creation time, an ISO 8601 timestamp."), TIME),
    ("time-description", make_field("updateTime", description="A timestamp in RFC3339 UTC \"Zulu\" format."), TIME),
    ("time-description", make_field("end", description="Format: YYYY-MM-DDTHH:MM:SSZ"), TIME),
    ("date-description", make_field("day", description="The day, formatted YYYY-MM-DD."), DATE),
    ("date-description", make_field("birthday", description="RFC 3339 full-date"), DATE),
    ("time-name", make_field("created_at"), TIME),
    ("time-name", make_field("updatedAt"), TIME),
    ("time-name", make_field("modified", description="The date the resource was most recently modified."), TIME),
    ("time-name", make_field("last_modified"), TIME),
]

NEGATIVE: list[tuple[str, ResponseField]] = [
    ("values-description", make_field("format", description="The publication format e.g. comic, hardcover, trade.")),
    ("values-description", make_field("type", description="The type of the story (interior or cover).")),
    ("values-description", make_field("type", description="One of 'a', 'b', etc.")),
    ("values-description", make_field("type", description="Possible values include 'a', 'b'.")),
    ("values-description", make_field("status", description="Can be null or empty.")),
    ("values-description", make_field("status", description='One of "a => ACTIVE", "i => INACTIVE".')),
    ("values-description", make_field("size", "integer", description="One of small, large.")),
    ("values-description", make_field("flag", "boolean", description="Either 'yes' or 'no'.")),
    ("time-example", make_field("Year", example="2008–2013")),
    ("time-example", make_field("modified", example="-0001-11-30T00:00:00-0500")),
    ("time-example", make_field("dateOfBirth", example="2025-10-15T13:51:14.334Z")),
    ("time-example", make_field("duration", example="01:30")),
    ("time-example", make_field("aspect_ratio", example="16:10")),
    ("date-example", make_field("Year", example=2013)),
    ("date-example", make_field("release_date", example="1981-12-15", description="Depends on the precision.")),
    ("date-example", make_field("expiry", example="12/25")),
    ("moment-prose-example", make_field("startDateTime", description="Time the event will start. For example: "
                                                                     "2013-01-30 11:01:01")),
    ("moment-prose-example", make_field("duration", description="Duration in ISO 8601, e.g. PT2H10M")),
    ("moment-prose-example", make_field("expiryDate", description="Expiry date (YYYY-MM format, e.g. 2012-08)")),
    ("moment-prose-example", make_field("link_expires_time", example="1494888499",
                                        description="When the link expires, e.g. 2017-05-16T11:21:39Z.")),
    ("moment-prose-example", make_field("ownerDateOfBirth", description="Date of birth, e.g. 2000-01-31T00:00:00Z.")),
    ("moment-prose-example", make_field("created", description="The creation date in ISO 8601.")),
    ("moment-prose-example", make_field("count", "integer", description="e.g. 2016-12-25")),
    ("time-description", make_field("runtime", description="An ISO 8601 duration.")),
    ("time-description", make_field("ts", description="A Unix timestamp, in seconds since the epoch (ISO 8601).")),
    ("time-description", make_field("start", description="Use timecode format (HH:MM:SS:FF).")),
    ("time-description", make_field("time_of_day", description="any / HH:MM (24-hour format).")),
    ("date-description", make_field("released", description="YYYY-MM-DD, or YYYY when only the year is known.")),
    ("date-description", make_field("at", description="YYYY-MM-DD hh:mm")),
    ("time-name", make_field("created_at", "integer")),
    ("time-name", make_field("created_at", description="Seconds since the Unix epoch.")),
    ("time-name", make_field("date")),
    ("time-name", make_field("look")),
]


@pytest.mark.parametrize(("rule", "field", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, expected: Found) -> None:
    assert found(rule, field) == expected


@pytest.mark.parametrize(("rule", "field"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField) -> None:
    assert found(rule, field) == set()
