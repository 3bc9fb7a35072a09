"""Predicates of the contract's oracle kinds, on the contract's own examples and their near misses."""

from __future__ import annotations

from typing import Any

import pytest

from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.predicates import holds, is_date, is_email, is_numeric, is_time, is_url, order_break


@pytest.mark.parametrize("s", [
    "http://example.com", "https://example.com/a?b=c#d", "HTTP://X", "ftp://user:pw@host:21/file",
    "h1+.-://host", "http://[::1]:8080/", "http://é.example/ü", "https://u@h", "http://a:x",
])
def test_url_ok(s: str) -> None:
    assert is_url(s)


@pytest.mark.parametrize("s", [
    "", "example.com", "//example.com", "1http://x", "ht tp://x", "http:/x", "http:x", "http://",
    "http:///path", "http://user@", "http://:80", "http://u@:80/x", "http://exa mple.com",
    "http://example.com/a b", "http://example.com\n", "http://x\u00a0y", "http://x\ufeff", "mailto:a@b.c",
    "http://?q", "http://#f",
])
def test_url_bad(s: str) -> None:
    assert not is_url(s)


@pytest.mark.parametrize("s", ["42", "-3.5", "+7", "0", "007", "3.14159", "-0.0"])
def test_numeric_ok(s: str) -> None:
    assert is_numeric(s)


@pytest.mark.parametrize("s", ["1e5", "1,000", ".5", "", "5.", "-", "+-1", " 1", "1 ", "1\n", "٣", "0x1F", "1.2.3"])
def test_numeric_bad(s: str) -> None:
    assert not is_numeric(s)


@pytest.mark.parametrize("s", ["a@example.com", "first.last+tag@sub.example.org", "é@bücher.de", "a@b.c"])
def test_email_ok(s: str) -> None:
    assert is_email(s)


@pytest.mark.parametrize("s", [
    "", "a@example", "@example.com", "a@", "a@@example.com", "a@b@example.com", "a b@example.com",
    "a@exa mple.com", "a@example.com\n", "a@.com", "a@com.", "example.com",
])
def test_email_bad(s: str) -> None:
    assert not is_email(s)


@pytest.mark.parametrize("s", [
    "2013-06-12", "2013/06/12", "12/31/2020", "31/12/2020", "05/06/2020", "31-12-2020", "12 Jun 2013",
    "1 Jan 2000", "01 Jan 2000", "Jun 12, 2013", "Feb 29, 2020", "2020-02-29", "2000-02-29",
    "2400-02-29", "0000-02-29", "29/02/2020", "9999-12-31",
])
def test_date_ok(s: str) -> None:
    assert is_date(s)


@pytest.mark.parametrize("s", [
    "2019-02-29", "1900-02-29", "2100-02-29", "2020-13-01", "2020-00-10", "2020-04-31", "2020-01-32",
    "2020-01-00", "13/13/2020", "31/31/2020", "31-02-2020", "12-31-2020", "2020-1-5", "20-1-2020",
    "2020.01.05", "2020-01/05", "12 June 2013", "12 jun 2013", "Jun 12 2013", "June 12, 2013",
    "123 Jun 2013", "12  Jun 2013", "Jun 31, 2013", "2013-06-12T00:00:00Z", "2013-06-12 ", "",
    "-0001-11-30", "٢٠٢٠-01-01",
])
def test_date_bad(s: str) -> None:
    assert not is_date(s)


@pytest.mark.parametrize("s", [
    "7:05", "07:05", "0:00", "23:59", "23:59:59", "23:59:59.123Z", "12:00+05:30", "12:00-0400", "08:30:00Z",
    "11:30 PM", "12:00am", "1:05:07.5 pm", "12:59 Am", "2018-05-16T00:00:00-0400", "2018-05-16 13:45",
    "2018-05-16T13:45:30.123456+05:30", "2020-02-29T23:59:59Z", "2018-05-16T00:00:00",
])
def test_time_ok(s: str) -> None:
    assert is_time(s)


@pytest.mark.parametrize("s", [
    "-0001-11-30T00:00:00-0500", "24:00", "23:60", "23:59:60", "7:5", "007:05", "12:00.5", "12:00:00.",
    "13:00 pm", "0:30 am", "11:30  PM", "11:30 P.M.", "11:30 PMZ", "12:00z", "12:00+24:00", "12:00+05:60",
    "12:00+05", "12:00+5:30", "12:00 Z", "2019-02-29T00:00:00Z", "2018-05-16T7:00", "2018-05-16t00:00",
    "2018-05-16  00:00", "2018-05-16", "2018-05-16T", "12/31/2020 10:00", "", "noon",
])
def test_time_bad(s: str) -> None:
    assert not is_time(s)


def test_date_and_time_never_both() -> None:
    for s in ("2013-06-12", "2013-06-12T10:00:00Z", "10:00", "12 Jun 2013"):
        assert not (is_date(s) and is_time(s))


@pytest.mark.parametrize(("kind", "value", "v", "expected"), [
    (K.STRING_SPECIFIC_VALUES, ["$", "$$"], "$$", True),
    (K.STRING_SPECIFIC_VALUES, ("$", "$$"), "$$$", False),
    (K.STRING_SPECIFIC_VALUES, ["a"], "A", False),
    (K.STRING_SPECIFIC_VALUES, [1], "1", False),
    (K.STRING_FIXED_LENGTH, 2, "😀é", True),
    (K.STRING_FIXED_LENGTH, 3, "😀é", False),
    (K.STRING_FIXED_LENGTH, 2.0, "ab", True),
    (K.STRING_FIXED_LENGTH, True, "a", False),
    (K.BOOLEAN_ALWAYS_TRUE, None, True, True),
    (K.BOOLEAN_ALWAYS_TRUE, None, 1, False),
    (K.BOOLEAN_ALWAYS_FALSE, None, False, True),
    (K.BOOLEAN_ALWAYS_FALSE, None, 0, False),
    (K.NUMBER_MIN_VALUE, 0, 0, True),
    (K.NUMBER_MIN_VALUE, 0, -0.5, False),
    (K.NUMBER_MIN_VALUE, 0, True, False),
    (K.NUMBER_MIN_VALUE, False, 1, False),
    (K.NUMBER_MAX_VALUE, 5.5, 5.5, True),
    (K.NUMBER_MAX_VALUE, 5, 6, False),
    (K.NUMBER_SPECIFIC_VALUES, [1, 2], 1.0, True),
    (K.NUMBER_SPECIFIC_VALUES, (1.0,), 1, True),
    (K.NUMBER_SPECIFIC_VALUES, [True], 1, False),
    (K.NUMBER_SPECIFIC_VALUES, [1], True, False),
    (K.NUMBER_SPECIFIC_VALUES, [1], "1", False),
    (K.ARRAY_MIN_SIZE, 1, [None], True),
    (K.ARRAY_MIN_SIZE, 1, [], False),
    (K.ARRAY_MAX_SIZE, 1, [1, 2], False),
    (K.ARRAY_SPECIFIC_SIZES, (0, 2), [None, None], True),
    (K.ARRAY_SPECIFIC_SIZES, [1], [], False),
    (K.ARRAY_SPECIFIC_SIZES, [True], [1], False),
    (K.ARRAY_MIN_SIZE, 1, "ab", False),
    (K.ARRAY_NUMBER_ASC_ORDER, None, [1, None, 1.0, 2], True),
    (K.ARRAY_NUMBER_ASC_ORDER, None, [2, None, 1], False),
    (K.ARRAY_NUMBER_ASC_ORDER, None, [], True),
    (K.ARRAY_NUMBER_ASC_ORDER, None, [1, True], False),
    (K.ARRAY_NUMBER_DESC_ORDER, None, [3, 3, -1], True),
    (K.ARRAY_NUMBER_DESC_ORDER, None, [3, 4], False),
    (K.STRING_IS_URL, None, 5, False),
    (K.STRING_IS_NUMERIC, None, 42, False),
])
def test_holds(kind: K, value: Any, v: Any, expected: bool) -> None:
    assert holds(kind, value, v) is expected


def test_order_skips_null_like_strings_only_when_configured() -> None:
    assert holds(K.ARRAY_NUMBER_ASC_ORDER, None, [1, "N/A", 2], null_like={"N/A"})
    assert not holds(K.ARRAY_NUMBER_ASC_ORDER, None, [1, "N/A", 2])
    assert order_break([3, None, 1], ascending=True) == (2, 0)
    assert order_break([1, "x"], ascending=True) == (1, -1)
