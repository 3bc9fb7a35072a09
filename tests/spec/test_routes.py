"""Path templates: parsed once, filled, encoded, bound to concrete paths, turned into a regex."""

from __future__ import annotations

import pytest

from satori_ci.spec.routes import PARAMETER, PathTemplate, Segment, parse_template


def test_segments_hold_literal_text_and_parameters_alternating() -> None:
    template = parse_template("/files/{name}.{ext}/raw/")
    assert [s.pieces for s in template.segments] == [("files",), ("", "name", ".", "ext", ""), ("raw",)]
    assert [s.text for s in template.segments] == ["files", "{name}.{ext}", "raw"]
    assert template.names == ("name", "ext")
    assert template.trailing_slash and not parse_template("/files").trailing_slash
    assert parse_template("/").segments == () and parse_template("").segments == ()


def test_a_whole_segment_parameter_is_one_parameter_and_nothing_else() -> None:
    whole = [s.whole for s in parse_template("/a/{id}/{a}{b}/x{c}/{{d}}/{}").segments]
    assert whole == [None, "id", None, None, None, None]


def test_parsing_is_memoized() -> None:
    assert parse_template("/things/{id}") is parse_template("/things/{id}")


def test_fill_puts_values_in_and_keeps_unknown_parameters() -> None:
    template = parse_template("/users/{user}/files/{name}.{ext}")
    assert template.fill({"user": "u%201", "name": "a", "ext": "json"}) == "/users/u%201/files/a.json"
    assert template.fill({"user": "7"}) == "/users/7/files/{name}.{ext}"
    assert parse_template("//a//{x}/").fill({"x": "1"}) == "//a//1/"


@pytest.mark.parametrize(("segment", "values", "encoded"), [
    ("sp ace", {}, "sp%20ace"),
    ("b:c", {}, "b:c"),
    (":literal", {}, "%3Aliteral"),  # a leading colon would read as a variable
    ("{x}.json", {"x": "a%2Fb"}, "a%2Fb.json"),
    ("{x}.json", {}, "{x}.json"),
    ("{a}.{b}", {"a": ":1", "b": "2"}, ":1.2"),  # only literal text is encoded: values are encoded already
    ("ü/100%", {}, "%C3%BC%2F100%"),
])
def test_encoded_segments(segment: str, values: dict[str, str], encoded: str) -> None:
    assert Segment(tuple(PARAMETER.split(segment))).encoded(values) == encoded


def test_bind_matches_decoded_segments_and_gives_the_values() -> None:
    template = parse_template("/files/{name}.{ext}")
    assert template.bind(("files", "report.final.pdf")) == (("name", "report"), ("ext", "final.pdf"))
    assert template.bind(("files", "noext")) is None
    assert template.bind(("files",)) is None
    assert parse_template("/a%20b/{id}").bind(("a b", "x/y")) == (("id", "x/y"),)
    assert parse_template("/things/{id}").bind(("things", "")) is None  # a parameter takes one character at least
    assert parse_template("/").bind(()) == ()
    assert parse_template("/things/").bind(("things",)) == ()  # the trailing slash is not a segment


def test_score_prefers_literal_then_mixed_segments() -> None:
    mine, anyone = parse_template("/things/mine"), parse_template("/things/{id}")
    assert mine.score > anyone.score
    assert parse_template("/things/{id}.json").score > anyone.score


def test_pattern_matches_concrete_paths_as_written() -> None:
    pattern = parse_template("/books/{isbn}/pages/{n}.{fmt}").pattern()
    assert pattern.match("/books/978-0/pages/3.pdf")
    assert not pattern.match("/books/978/0/pages/3.pdf")
    assert not pattern.match("/books/978-0/pages/3")
    assert parse_template("/a.b").pattern().match("/a.b") and not parse_template("/a.b").pattern().match("/axb")


def test_a_template_is_a_plain_value() -> None:
    assert parse_template("/x/{y}") == PathTemplate("/x/{y}", (Segment(("x",)), Segment(("", "y", ""))))
