"""Checking predicates of the 17 oracle kinds (contract §2); mirrored by postman/js/satori_check.js."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any

from satori_ci.oracles.kinds import OracleKind

# Readings of the contract where it leaves room (the JavaScript checker reads it the same way):
# - URL: the authority ends at the first `/`, `?` or `#`; `user@` is everything up to its last `@`,
#   `:port` everything from the first remaining `:` (so `http://[::1]` has host `[`, non-empty).
# - email: at least one character before the `@`, and the domain has a `.` with characters on both sides.
# - dates: `Mon` is case-sensitive; `D Mon YYYY` and `Mon D, YYYY` use single spaces; year 0000 is a leap year.
# - times: minutes and seconds are 00-59 (no leap second); a fraction needs seconds (`12:00.5` fails);
#   the 12-hour form takes no zone; zone hours are 00-23 and zone minutes 00-59; only `T` and `Z` upper case.
# - digits are ASCII only; whitespace is any character of _WS_CLASS below.
# Whitespace is the union of Python's str.isspace() and JavaScript's \s, so both checkers agree.
_WS_CLASS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS = re.compile(f"[{_WS_CLASS}]")
_URL_START = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://([^/?#]*)")
_NUMERIC = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")
_EMAIL = re.compile(r"[^@]+@[^@]+\.[^@]+")

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MON = "(" + "|".join(MONTHS) + ")"
_YMD_DASH = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_YMD_SLASH = re.compile(r"([0-9]{4})/([0-9]{2})/([0-9]{2})")
_XX_SLASH = re.compile(r"([0-9]{2})/([0-9]{2})/([0-9]{4})")
_DMY_DASH = re.compile(r"([0-9]{2})-([0-9]{2})-([0-9]{4})")
_D_MON_Y = re.compile(r"([0-9]{1,2}) " + _MON + r" ([0-9]{4})")
_MON_D_Y = re.compile(_MON + r" ([0-9]{1,2}), ([0-9]{4})")

_SS = r"(?::([0-9]{2})(?:\.[0-9]+)?)?"
_ZONE = r"(?:Z|[+-]([0-9]{2}):?([0-9]{2}))?"
_TIME_24 = re.compile(r"([0-9]{1,2}):([0-9]{2})" + _SS + _ZONE)
_TIME_12 = re.compile(r"([0-9]{1,2}):([0-9]{2})" + _SS + r" ?[aApP][mM]")
_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})" + _SS + _ZONE)


def is_number(v: Any) -> bool:
    """A JSON number: int or float, never bool."""
    return isinstance(v, int | float) and not isinstance(v, bool)


def is_array(v: Any) -> bool:
    """A JSON array (a list; tuples are accepted for values built in Python)."""
    return isinstance(v, list | tuple)


def is_url(s: str) -> bool:
    """An absolute URL `scheme://host...` with a non-empty host and no whitespace."""
    m = _URL_START.match(s)
    if m is None or _WS.search(s):
        return False
    host = m.group(1).rsplit("@", 1)[-1].split(":", 1)[0]
    return host != ""


def is_numeric(s: str) -> bool:
    """A decimal number as text: optional sign, ASCII digits, optional `.digits`."""
    return _NUMERIC.fullmatch(s) is not None


def is_email(s: str) -> bool:
    """`local@domain.tld`: no whitespace, exactly one `@`, a dot inside the domain part."""
    return _EMAIL.fullmatch(s) is not None and not _WS.search(s)


def _days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _valid_date(year: str, month: str | int, day: str) -> bool:
    y, m, d = int(year), int(month), int(day)
    return 1 <= m <= 12 and 1 <= d <= _days_in(y, m)


def is_date(s: str) -> bool:
    """A calendar date in one of the contract's seven formats, valid for its month and year."""
    for pattern in (_YMD_DASH, _YMD_SLASH):
        if m := pattern.fullmatch(s):
            return _valid_date(m.group(1), m.group(2), m.group(3))
    if m := _XX_SLASH.fullmatch(s):
        a, b, y = m.groups()
        return _valid_date(y, b, a) or _valid_date(y, a, b)
    if m := _DMY_DASH.fullmatch(s):
        return _valid_date(m.group(3), m.group(2), m.group(1))
    if m := _D_MON_Y.fullmatch(s):
        return _valid_date(m.group(3), MONTHS.index(m.group(2)) + 1, m.group(1))
    if m := _MON_D_Y.fullmatch(s):
        return _valid_date(m.group(3), MONTHS.index(m.group(1)) + 1, m.group(2))
    return False


def _valid_clock(hour: str, minute: str, second: str | None, low: int, high: int) -> bool:
    return low <= int(hour) <= high and int(minute) <= 59 and (second is None or int(second) <= 59)


def _valid_zone(hours: str | None, minutes: str | None) -> bool:
    return hours is None or minutes is None or (int(hours) <= 23 and int(minutes) <= 59)


def is_time(s: str) -> bool:
    """A time of day (24-hour or 12-hour am/pm) or a date-time, per the contract's grammar."""
    if m := _TIME_24.fullmatch(s):
        h, mi, sec, zh, zm = m.groups()
        return _valid_clock(h, mi, sec, 0, 23) and _valid_zone(zh, zm)
    if m := _TIME_12.fullmatch(s):
        h, mi, sec = m.groups()
        return _valid_clock(h, mi, sec, 1, 12)
    if m := _DATE_TIME.fullmatch(s):
        y, mo, d, h, mi, sec, zh, zm = m.groups()
        return _valid_date(y, mo, d) and _valid_clock(h, mi, sec, 0, 23) and _valid_zone(zh, zm)
    return False


_STRING_TESTS: dict[OracleKind, Callable[[str], bool]] = {
    OracleKind.STRING_IS_URL: is_url,
    OracleKind.STRING_IS_NUMERIC: is_numeric,
    OracleKind.STRING_IS_EMAIL: is_email,
    OracleKind.STRING_IS_DATE: is_date,
    OracleKind.STRING_IS_TIME: is_time,
}

LIST_VALUED = frozenset(
    {OracleKind.STRING_SPECIFIC_VALUES, OracleKind.NUMBER_SPECIFIC_VALUES, OracleKind.ARRAY_SPECIFIC_SIZES}
)


def type_ok(kind: OracleKind, v: Any) -> bool:
    """Whether v has the JSON type the kind applies to (string, boolean, number, array)."""
    family = kind.applies_to
    if family == "string":
        return isinstance(v, str)
    if family == "boolean":
        return isinstance(v, bool)
    if family == "number":
        return is_number(v)
    return is_array(v)


def value_ok(kind: OracleKind, value: Any) -> bool:
    """Whether the oracle's own value has the shape its kind needs (a number, a list, or anything)."""
    if kind in LIST_VALUED:
        return is_array(value)
    if kind.takes_value:
        return is_number(value)
    return True


def _one_of_numbers(v: Any, options: Any) -> bool:
    return any(is_number(x) and x == v for x in options)


def order_break(v: Any, ascending: bool, null_like: Collection[str] = ()) -> tuple[int, int] | None:
    """First element breaking the order: (its index, index of the number before it, or -1 if not a number).

    `null` elements and null-like strings are skipped.
    """
    previous = -1
    for i, el in enumerate(v):
        if el is None or (isinstance(el, str) and el in null_like):
            continue
        if not is_number(el):
            return (i, -1)
        if previous >= 0:
            before = v[previous]
            if not (el >= before if ascending else el <= before):
                return (i, previous)
        previous = i
    return None


def holds(kind: OracleKind, value: Any, v: Any, null_like: Collection[str] = ()) -> bool:
    """Whether one located, non-null value v satisfies the oracle (kind, value)."""
    if not type_ok(kind, v) or not value_ok(kind, value):
        return False
    if kind in _STRING_TESTS:
        return _STRING_TESTS[kind](v)
    if kind is OracleKind.STRING_SPECIFIC_VALUES:
        return any(isinstance(x, str) and x == v for x in value)
    if kind is OracleKind.STRING_FIXED_LENGTH:
        return bool(len(v) == value)
    if kind is OracleKind.BOOLEAN_ALWAYS_TRUE:
        return v is True
    if kind is OracleKind.BOOLEAN_ALWAYS_FALSE:
        return v is False
    if kind is OracleKind.NUMBER_MIN_VALUE:
        return bool(v >= value)
    if kind is OracleKind.NUMBER_MAX_VALUE:
        return bool(v <= value)
    if kind is OracleKind.NUMBER_SPECIFIC_VALUES:
        return _one_of_numbers(v, value)
    if kind is OracleKind.ARRAY_MIN_SIZE:
        return bool(len(v) >= value)
    if kind is OracleKind.ARRAY_MAX_SIZE:
        return bool(len(v) <= value)
    if kind is OracleKind.ARRAY_SPECIFIC_SIZES:
        return _one_of_numbers(len(v), value)
    ascending = kind is OracleKind.ARRAY_NUMBER_ASC_ORDER
    return order_break(v, ascending, null_like) is None
