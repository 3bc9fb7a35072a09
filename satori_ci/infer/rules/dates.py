"""Rules for dates and times: examples, ISO 8601 / RFC 3339 wording, and timestamp names."""

from __future__ import annotations

import re

from satori_ci.infer.rules.base import (
    STRING,
    Rule,
    examples,
    make,
    prose,
    prose_examples,
    sentence,
    show_examples,
    string_examples,
    texts,
    words,
)
from satori_ci.oracles import predicates as checks
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

DATE = OracleKind.STRING_IS_DATE
TIME = OracleKind.STRING_IS_TIME
_I = re.IGNORECASE

_NOT_A_MOMENT = re.compile(
    r"\b(?:unix|epoch|(?:milli)?seconds\s+since|number\s+of\s+(?:milli)?seconds|in\s+(?:milli)?seconds|millis|"
    r"duration|interval|period|ago|elapsed|relative|"
    r"human[- ]readable|precision|partial|year only|month only|rfc[- ]?(?:822|1123|2822|7231)|"
    r"http[- ]date|cron|recurrence|timecode|frames?)\b|\bany\s*/|/\s*any\b",
    _I,
)
_NOT_A_MOMENT_WORDS = frozenset({"duration", "elapsed", "runtime", "length", "interval", "period", "offset",
                                 "zone", "timezone", "tz", "ago", "format", "unit", "epoch", "unix", "ms",
                                 "millis", "seconds", "secs", "type", "kind", "precision"})


_BIRTH = frozenset({"birth", "birthday", "birthdate", "dob"})
_BIRTH_PROSE = re.compile(r"\b(?:birth|birthday|birthdate)\b", _I)
"""Birth dates are calendar dates, whatever time a generated example shows."""


_DATED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_CLOCK_WORDS = frozenset({"time", "times", "hour", "hours", "open", "opens", "opening", "close", "closes",
                          "closing", "start", "starts", "end", "ends", "at", "clock", "slot", "from", "to", "until"})
_CLOCK_PROSE = re.compile(r"\b(?:time|hour|o'clock|opens?|closes?|starts?|ends?)\b", _I)
"""A bare '16:10' is a time of day only for a field about times ('opens', 'start_time'), not an aspect ratio."""


def _moment_field(field: ResponseField) -> bool:
    """A string field not described as a duration, an epoch number or a partial date."""
    return (
        field.type == "string"
        and not _NOT_A_MOMENT.search(prose(field))
        and not _NOT_A_MOMENT_WORDS & set(words(field))
    )


def time_example(field: ResponseField) -> list[Oracle]:
    """Every example is a date-time, or a time of day on a field about times; not for birth dates."""
    values = string_examples(field)
    if not values or not _moment_field(field) or not all(checks.is_time(v) for v in values):
        return []
    if _BIRTH & set(words(field)) or _BIRTH_PROSE.search(prose(field)):
        return []
    if not all(_DATED.match(v) for v in values) and not (_CLOCK_WORDS & set(words(field))
                                                         or _CLOCK_PROSE.search(prose(field))):
        return []
    return [make(field, TIME, None, f"{show_examples(values)}: a date-time")]


def date_example(field: ResponseField) -> list[Oracle]:
    """Every example is a calendar date ('12 Jun 2013', '2013-06-12')."""
    values = string_examples(field)
    if not values or not _moment_field(field) or not all(checks.is_date(v) for v in values):
        return []
    return [make(field, DATE, None, f"{show_examples(values)}: a calendar date")]


_TIME_WORDS = frozenset({"time", "times", "datetime", "timestamp", "hour", "hours", "clock"})
_TIME_IN_PROSE = re.compile(r"\b(?:time|times|datetime|date-time|timestamp|hh|hour|hours)\b", _I)


def moment_prose_example(field: ResponseField) -> list[Oracle]:
    """Examples quoted in the prose ('for example "2020-01-02T09:00:00+01:00"') that are all date-times, or
    all calendar dates on a field that never mentions a time of day ('E.g. "2016-12-25" for Christmas').

    corpus (`python3 bench/cues.py rule moment-prose-example`; dev APIs left out): fires on 4,756 string
    fields (427 distinct field evidences, 67 APIs), 390 of them date-times. 40 random distinct date-time hits
    without a format keyword read, 40 right (eBay 'This timestamp is in ISO 8601 format ...
    2015-08-04T19:09:02.768Z', Glacier, Google Wallet and SQL, Lambda, Security Hub). Calendar dates: 37
    distinct, the 20 without a format keyword all read, 20 right (Zuora 'in `yyyy-mm-dd` format. For example,
    2017-05-20', Square, Google holidays). Before the time-of-day veto one more was wrong: 'Time the event
    will start. For example: 2013-01-30 11:01:01' (the quote stops at the space).
    """
    if field.type != "string" or not _moment_field(field) or _BIRTH & set(words(field)):
        return []
    stated = prose_examples(field)
    if not stated:
        return []
    values = tuple(v for v in examples(field) if isinstance(v, str)) + stated
    if len(values) != len(examples(field)) + len(stated):
        return []
    if all(checks.is_time(v) and _DATED.match(v) for v in values):
        return [make(field, TIME, None, f"prose {show_examples(stated)}: a date-time")]
    if all(checks.is_date(v) for v in values) and not (_TIME_WORDS & set(words(field))
                                                        or _TIME_IN_PROSE.search(prose(field))):
        return [make(field, DATE, None, f"prose {show_examples(stated)}: a calendar date")]
    return []


_TIME_PROSE = re.compile(
    r"\b(?:ISO[- _]?8601|RFC[- _]?3339)\s*(?:format(?:ted)?\s+|compliant\s+|extended\s+)?(?:UTC\s+)?"
    r"(?:date[- ]?time|datetime|date[- ]and[- ]time|timestamp|time[- ]?stamp|combined)\b"
    r"|\b(?:date[- ]?time|datetime|timestamp|date and time)\s*(?:string\s+)?(?:\(|,\s*|\s+)?(?:in\s+)?"
    r"(?:the\s+)?(?:ISO[- _]?8601|RFC[- _]?3339)\b"
    r"|\bRFC[- _]?3339\b(?![- ](?:full[- ])?date\b)"
    r"|\byyyy-mm-dd['\"]?[T ]['\"]?hh:mm"
    r"|(?<![/|]\s)(?<![/|])\bhh:mm(?::ss)?\b(?![:;]\w)",
    _I,
)
_DATE_PROSE = re.compile(
    r"\b(?:yyyy-mm-dd|yyyy/mm/dd|dd/mm/yyyy|mm/dd/yyyy|dd-mm-yyyy)\b(?![T ]*['\"]?[T ]?['\"]?hh)"
    r"|\bRFC[- _]?3339[- ]full[- ]date\b"
    r"|\bISO[- _]?8601\s+(?:calendar\s+)?date\s+(?:only|without\s+(?:a\s+)?time)",
    _I,
)
_DATE_FORMATS = re.compile(r"\b[yY]{2,4}(?:[-/][mMdD]{1,2}){0,2}\b|\b[mMdD]{2}[-/][mMdD]{2}[-/][yY]{4}\b")
_FULL_DATE_FORMATS = frozenset({"yyyy-mm-dd", "yyyy/mm/dd", "dd/mm/yyyy", "mm/dd/yyyy", "dd-mm-yyyy"})


def time_description(field: ResponseField) -> list[Oracle]:
    """'ISO 8601 timestamp', 'date-time in RFC 3339', 'YYYY-MM-DDTHH:MM:SSZ' (not durations or epochs)."""
    if not _moment_field(field):
        return []
    for where, text in texts(field):
        m = _TIME_PROSE.search(text)
        if m:
            return [make(field, TIME, None, f"{where} {sentence(text, m.start())}: a date-time")]
    return []


def date_description(field: ResponseField) -> list[Oracle]:
    """'YYYY-MM-DD', 'RFC 3339 full-date' (and no other, partial, format mentioned)."""
    if not _moment_field(field):
        return []
    for where, text in texts(field):
        m = _DATE_PROSE.search(text)
        if not m or _TIME_PROSE.search(text):
            continue
        formats = {f.lower() for f in _DATE_FORMATS.findall(text)}
        if formats <= _FULL_DATE_FORMATS:
            return [make(field, DATE, None, f"{where} {sentence(text, m.start())}: a calendar date")]
    return []


_TIMESTAMP_NAMES = frozenset({
    ("created",), ("modified",), ("updated",), ("last", "modified"), ("last", "updated"),
})


def time_name(field: ResponseField) -> list[Oracle]:
    """`created_at`, `updatedAt`, `modified`, `last_modified`: a modification/creation date-time."""
    w = words(field)
    if not w or not _moment_field(field):
        return []
    if (len(w) >= 2 and w[-1] == "at") or w in _TIMESTAMP_NAMES:
        return [make(field, TIME, None, f"name '{field.name}': a creation/modification timestamp (date-time)")]
    return []


RULES = (
    Rule(
        "time-example",
        STRING,
        "string_is_time when every example is a date-time or time of day",
        time_example,
    ),
    Rule(
        "date-example",
        STRING,
        "string_is_date when every example is a calendar date",
        date_example,
    ),
    Rule(
        "moment-prose-example",
        STRING,
        "string_is_time/string_is_date when every example quoted in the prose is a date-time/a calendar date",
        moment_prose_example,
    ),
    Rule(
        "time-description",
        STRING,
        "string_is_time from 'ISO 8601 timestamp'/'RFC 3339'/'YYYY-MM-DDTHH:MM'",
        time_description,
    ),
    Rule(
        "date-description",
        STRING,
        "string_is_date from 'YYYY-MM-DD'/'full-date'",
        date_description,
    ),
    Rule(
        "time-name",
        STRING,
        "string_is_time from *_at, createdAt, modified, updated, last_modified",
        time_name,
    ),
)
