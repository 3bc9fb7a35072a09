"""Near-miss pieces of the contract's string grammars: exhaustive/pairwise grids and Hypothesis strategies.

A form is a template and its pieces; a piece is (valid choices, near misses).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations, product

from hypothesis import strategies as st

Piece = tuple[tuple[str, ...], tuple[str, ...]]
Form = tuple[Callable[..., str], tuple[Piece, ...]]

ODD_CHARS = (" ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u1680", "\u2003", "\u200a",
             "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u180e", "٣", "é", "😀",
             "@", ".", ":", "/", "-", "+", "~", "\\", '"', "\x00", "\x7f", "0", "9", "Z", "T", "a", "P", "M", ",")

YEAR: Piece = (("2020", "2019", "2000", "1900", "2400", "2100", "0000", "9999"), ("202", "20200", "-0001", "２０２０"))
MONTH: Piece = (("01", "02", "04", "06", "09", "11", "12"), ("13", "00", "1", "2", "1٢"))
DAY: Piece = (("01", "28", "29", "30", "31", "12"), ("32", "00", "1", "9"))
MON: Piece = (("Jan", "Feb", "Apr", "Jun", "Sep", "Nov", "Dec"), ("jun", "JUN", "June", "Sept", "Foo"))
D: Piece = (("1", "9", "01", "28", "29", "30", "31"), ("32", "0", "001", ""))
ISO_DATE: Piece = (("2020-02-29", "2018-05-16", "2000-12-31"),
                   ("2019-02-29", "1900-02-29", "2020-13-01", "202-01-01", "-0001-11-30", "2020-04-31"))

HOUR: Piece = (("0", "00", "7", "07", "1", "11", "12", "23"), ("13", "24", "99", "007", ""))
HOUR2: Piece = (("00", "07", "12", "23"), ("7", "24", "٠٧"))
MINUTE: Piece = (("00", "05", "30", "59"), ("60", "5", "5a"))
SECONDS: Piece = (("", ":00", ":59", ":30.123", ":01.5"), (":60", ":5", ":00.", ".5", ":00.5.5"))
ZONE: Piece = (("", "Z", "+05:30", "-04:00", "-0400", "+2359"),
               ("z", "+2400", "+05:3", "+0560", "-05", " Z", "+05:30Z", "+5:30", "+05:30:00", "UTC"))
AMPM: Piece = (("am", "PM", "pM", " pm", " AM"), ("  am", "a.m.", "m", "pmZ", " PM "))


def fixed(*options: str) -> Piece:
    return (options, ())


DATE_FORMS: tuple[Form, ...] = (
    (lambda y, s, m, d: f"{y}{s}{m}{s}{d}", (YEAR, (("-", "/"), (".", "", " ")), MONTH, DAY)),
    (lambda d, s, m, y: f"{d}{s}{m}{s}{y}", (DAY, (("-", "/"), (".",)), MONTH, YEAR)),
    (lambda m, d, y: f"{m}/{d}/{y}", (MONTH, DAY, YEAR)),
    (lambda d, s, m, y: f"{d}{s}{m}{s}{y}", (D, ((" ",), ("  ", "-", "\xa0")), MON, YEAR)),
    (lambda m, d, c, y: f"{m} {d}{c} {y}", (MON, D, ((",",), ("", " ,", ",,")), YEAR)),
)
TIME_FORMS: tuple[Form, ...] = (
    (lambda h, m, s, z: f"{h}:{m}{s}{z}", (HOUR, MINUTE, SECONDS, ZONE)),
    (lambda h, m, s, a: f"{h}:{m}{s}{a}", (HOUR, MINUTE, SECONDS, AMPM)),
    (lambda d, t, h, m, s, z: f"{d}{t}{h}:{m}{s}{z}",
     (ISO_DATE, (("T", " "), ("t", "  ", "_", "")), HOUR2, MINUTE, SECONDS, ZONE)),
)
URL_FORMS: tuple[Form, ...] = (
    (lambda scheme, sep, user, host, port, path: f"{scheme}{sep}{user}{host}{port}{path}", (
        (("http", "https", "HTTP", "h1+.-", "z"), ("1http", "", "ht tp", "-x", "é", "h_p")),
        (("://",), (":/", ":", "//", ":///", ":// ")),
        (("", "u@", "u:p@", "@@"), ("@", "a@b@", "u @")),
        (("example.com", "a", "[::1]", "é.com"), ("", "ex ample", ":")),
        (("", ":8080", ":", ":x"), (" :80",)),
        (("", "/", "/p", "?x=1", "#f", "/a@b", "/:@"), ("/p q", "\n", "\t", "?\u3000")),
    )),
)
EMAIL_FORMS: tuple[Form, ...] = (
    (lambda local, at, domain: f"{local}{at}{domain}", (
        (("a", "first.last", "é", ".", "a.b+c"), ("", "a b", "a\n")),
        (("@",), ("", "@@", " @", "\uff20")),
        (("example.com", "a.b.c", "x..y", "..b", "b..", "a.b."),
         ("example", ".com", "com.", "", "ex ample.com", "a@b.c", ".")),
    )),
)
NUMERIC_FORMS: tuple[Form, ...] = (
    (lambda sign, digits, frac: f"{sign}{digits}{frac}", (
        (("", "+", "-"), ("--", " ", "\u2212")),
        (("0", "42", "007"), ("", "٣", "1,000", "1_0", "²")),
        (("", ".5", ".25"), (".", ".٣", "e5", ".25.1", "\n", ". 5")),
    )),
)
FORMS = DATE_FORMS + TIME_FORMS + URL_FORMS + EMAIL_FORMS + NUMERIC_FORMS


def _choices(piece: Piece) -> tuple[str, ...]:
    return piece[0] + piece[1]


def grid(form: Form, cap: int = 15000) -> Iterator[str]:
    """Every combination of the pieces if there are at most `cap`, else all pairs over a valid baseline."""
    template, pieces = form
    sizes = [len(_choices(p)) for p in pieces]
    total = 1
    for size in sizes:
        total *= size
    if total <= cap:
        for combo in product(*(_choices(p) for p in pieces)):
            yield template(*combo)
        return
    base = [p[0][0] for p in pieces]
    for i, j in combinations(range(len(pieces)), 2):
        for a, b in product(_choices(pieces[i]), _choices(pieces[j])):
            mixed = list(base)
            mixed[i], mixed[j] = a, b
            yield template(*mixed)


def edits(s: str) -> Iterator[str]:
    """Every one-character insertion (of an odd character) into s and every one-character deletion."""
    for at in range(len(s) + 1):
        for ch in ODD_CHARS:
            yield s[:at] + ch + s[at:]
    for at in range(len(s)):
        yield s[:at] + s[at + 1 :]


SEEDS = ("2013-06-12", "12/31/2020", "12 Jun 2013", "Jun 12, 2013", "23:59:59.123Z", "11:30 PM",
         "2018-05-16T00:00:00-0400", "https://u@example.com:8080/p?q#f", "a.b@example.com", "-3.5")


def all_grid_strings() -> list[str]:
    """Grids of every form plus one-character edits of valid seeds, without duplicates, sorted."""
    out: set[str] = set()
    for form in FORMS:
        out.update(grid(form))
    for seed in SEEDS:
        out.update(edits(seed))
    return sorted(out)


def near(piece: Piece) -> st.SearchStrategy[str]:
    """Mostly a valid choice, sometimes a near miss."""
    good = st.sampled_from(piece[0])
    return st.one_of(good, good, good, st.sampled_from(_choices(piece)))


def form_strategy(forms: tuple[Form, ...]) -> st.SearchStrategy[str]:
    return st.one_of(*(st.builds(template, *(near(p) for p in pieces)) for template, pieces in forms))


@st.composite
def _mutated(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    text = draw(base)
    action = draw(st.sampled_from(["keep", "keep", "insert", "delete"]))
    if action == "insert":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.sampled_from(ODD_CHARS)) + text[at:]
    if action == "delete" and text:
        at = draw(st.integers(0, len(text) - 1))
        return text[:at] + text[at + 1 :]
    return text


DATES = form_strategy(DATE_FORMS)
TIMES = form_strategy(TIME_FORMS)
URLS = form_strategy(URL_FORMS)
EMAILS = form_strategy(EMAIL_FORMS)
NUMERICS = form_strategy(NUMERIC_FORMS)
GRAMMAR_STRINGS = _mutated(st.one_of(DATES, TIMES, URLS, EMAILS, NUMERICS))
