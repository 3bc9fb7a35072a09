"""Each escape function against hostile strings, checked with GitHub's own Markdown parser."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satori_ci import redaction
from satori_ci.report import escape as esc
from satori_ci.report.escape import BREAK
from tests.report.factory import HOSTILE
from tests.report.gfm import cells, shown, to_html

NOT_RENDERED = ("<a ", "<script", "<details", "<summary", "<img", "<em>", "<strong>", "<del>", "<h1", "<li", "<hr")


def _document(value: str) -> str:
    table = f"| a | b | c |\n|---|---|---|\n| {esc.cell(value)} | {esc.cell_code(value)} | x |"
    return f"Text: {esc.text(value)}\n\n{table}\n\nCode: {esc.code(value)}\n"


@pytest.mark.parametrize("value", HOSTILE)
def test_every_context_shows_the_value_literally(value: str) -> None:
    rendered = to_html(_document(value))
    for tag in NOT_RENDERED:
        assert tag not in rendered, (tag, rendered)
    paragraphs = re.findall(r"<p>(.*?)</p>", rendered, re.S)
    assert shown(paragraphs[0]) == "Text: " + esc.visible(value)
    assert shown(paragraphs[1]) == "Code: " + esc.visible(value)
    head, row = cells(rendered)
    assert len(head) == len(row) == 3
    assert shown(row[0]) == esc.visible(value)
    assert shown(row[1]) == esc.visible(value) and row[1].startswith("<code>")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
       | st.text(alphabet="`|\\*_[]()!#<>&@$~-:/ \nawx1", max_size=40))
def test_any_text_survives_every_context(value: str) -> None:
    rendered = to_html(_document(value))
    _, row = cells(rendered)
    assert len(row) == 3
    expected = esc.visible(redaction.redact(value)).replace(BREAK, "")  # `shown` drops the invisible joiners
    assert shown(row[0]).strip() == expected.strip()
    if value:
        assert shown(row[1]) == expected
    for tag in NOT_RENDERED:
        assert tag not in rendered


def test_mentions_issue_references_and_urls_are_broken() -> None:
    assert esc.text("@octocat") == "@\u200doctocat"
    assert esc.text("a@b.com") == "a@\u200db.com"
    assert esc.text("#123") == "\\#\u200d123"
    assert esc.text("GH-123 and JIRA-7") == "GH-\u200d123 and JIRA-\u200d7"
    assert esc.text("see https://x.io, www.x.io") == "see https:\u200d//x.io, www\u200d.x.io"
    assert esc.html("@team #9") == "@\u200dteam #\u200d9"
    assert "@octocat" in esc.code("@octocat")  # code spans are never linked by GitHub


def test_html_and_markdown_are_escaped() -> None:
    assert esc.text("<script>&amp;") == "&lt;script&gt;&amp;amp;"
    assert esc.text("*a* _b_ [c](d) ![e] `f` ~g~ ${h} |") == (
        "\\*a\\* \\_b\\_ \\[c\\]\\(d\\) \\!\\[e\\] \\`f\\` \\~g\\~ \\$\\{h\\} \\|")
    assert esc.html("</summary><b>") == "&lt;/summary&gt;&lt;b&gt;"


def test_code_spans_outlast_the_backticks_inside() -> None:
    assert esc.code("a`b") == "``a`b``"
    assert esc.code("`x`") == "`` `x` ``"
    assert esc.code("") == "` `"
    assert esc.cell_code("a|b") == "`a\\|b`"
    assert esc.code("a|b") == "`a|b`"


def test_fenced_blocks_outlast_the_fences_inside() -> None:
    block = esc.fenced("x: 1\n````\ny: 2", "yaml")
    assert block.startswith("`````yaml\n") and block.endswith("\n`````")
    assert "<pre" in to_html(block) and "y: 2" in to_html(block)


def test_visible_neutralises_newlines_controls_and_bidi() -> None:
    assert esc.visible("a\nb\r\nc\rd\u2028e\tf") == "a↵b↵c↵d↵e f"
    assert esc.visible("\x1b[31m\x00\u202e") == "\\x1b[31m\\x00\\u202e"
    assert esc.terminal("\x1b]0;title\x07") == "\\x1b]0;title\\x07"


def test_clip_marks_the_cut() -> None:
    assert esc.clip("abcdef", 4) == "abc…"
    assert esc.clip("abc", 4) == "abc"
    assert len(esc.text("x" * 1000, 50)) == 50


@pytest.mark.parametrize("path", ["api/openapi.yaml", "a-->b.yaml", "we ird/<!--x-->.json", "é/ü.yaml", "a--!>b"])
def test_marker_path_cannot_close_a_comment_and_decodes_back(path: str) -> None:
    encoded = esc.marker_path(path)
    assert "-->" not in encoded and ">" not in encoded and "<" not in encoded and "!" not in encoded
    assert re.fullmatch(r"[A-Za-z0-9/._~%-]*", encoded)
    assert unquote(encoded) == path


def test_link_url_only_takes_http_urls() -> None:
    assert esc.link_url("https://github.com/o/r/actions/runs/1") == "https://github.com/o/r/actions/runs/1"
    assert esc.link_url("javascript:alert(1)") is None
    assert esc.link_url("https://x.io/a b") is None
    assert esc.link_url("https://x.io/(a)") == "https://x.io/%28a%29"


def test_workflow_command_escaping() -> None:
    assert esc.command_data("100%\r\nnext::x") == "100%25%0D%0Anext::x"
    assert esc.command_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


MARKER = "<!-- satori-ci:spec=api/other.yaml -->"


@pytest.mark.parametrize("render", [esc.text, esc.cell, esc.html, esc.code, esc.cell_code, esc.fenced])
def test_marker_like_text_is_neutralised_in_every_context(render: object) -> None:
    assert callable(render)
    out = render(f"x {MARKER} y")
    assert "<!--" not in out and MARKER not in out


def test_a_marker_in_a_code_span_still_reads_the_same() -> None:
    rendered = to_html(f"Code: {esc.code(MARKER)}\n\n{esc.fenced(MARKER)}\n")
    assert "<!--" not in rendered
    assert shown(rendered).count(MARKER) == 2


def test_a_cut_never_leaves_part_of_a_secret() -> None:
    secret = "staging-secret-4d1f9a"
    with redaction.installed([secret]):
        for render in (esc.text, esc.code, esc.cell_code, esc.terminal, esc.html):
            out = render("x" * 290 + secret, 300)
            assert "staging" not in out and "***" in out.replace("\\", "")  # text escapes the stars
        assert secret not in esc.fenced(f"a\n{secret}\n") and secret not in esc.command_data(secret)


def test_visible_leaves_printable_text_as_it_is_and_changes_no_printable_character() -> None:
    """Its fast path (`str.isprintable`) is exact: every character its patterns change is unprintable to Python."""
    changed = [c for c in map(chr, range(0x110000)) if esc._NEWLINES.match(c) or esc._CONTROLS.match(c) or c == "\t"]
    assert "\x1b" in changed and "\u2028" in changed and "\t" in changed and "\u202e" in changed
    assert not any(c.isprintable() for c in changed)
    assert all(esc.visible(c) != c for c in changed)
    assert esc.visible("plain · text ✓") == "plain · text ✓"


_OLD_MD_PUNCT = re.compile(r"([\\`*_\[\](){}!#|~$])")
_OLD_ISSUE = re.compile(r"(?<=#)(?=\d)|(?<=[A-Za-z]-)(?=\d)")
_OLD_URL = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE)


def _old_unlink(value: str) -> str:
    """Links broken as `escape` broke them before its patterns matched the characters the joiner follows."""
    return _OLD_URL.sub(BREAK, _OLD_ISSUE.sub(BREAK, esc._MENTION.sub("@" + BREAK, value)))


def _old_entities(value: str) -> str:
    """The entities as `escape` made them before it replaced: a character at a time."""
    flat = esc.clip(esc.visible(redaction.redact(value)), 10_000)
    return "".join({"&": "&amp;", "<": "&lt;", ">": "&gt;"}.get(c, c) for c in flat)


@given(st.text(alphabet=st.sampled_from(list("\\`*_[](){}!#|~$&<>;@-:/wW.a1 \n\t\u200d")), max_size=60)
       | st.text())
def test_text_and_html_escape_as_the_patterns_and_the_per_character_entities_did(value: str) -> None:
    assert esc.text(value, 10_000) == _old_unlink(_OLD_MD_PUNCT.sub(r"\\\1", _old_entities(value)))
    assert esc.html(value, 10_000) == _old_unlink(_old_entities(value))
    assert esc._unlink(value) == _old_unlink(value)
