"""Rendering Markdown with GitHub's own parser (cmark-gfm), for tests that check what a reader would see."""

from __future__ import annotations

import html
import re

import pytest

from satori_ci.report.escape import BREAK


def to_html(markdown: str) -> str:
    """GitHub's rendering with raw HTML let through; the calling test is skipped without cmarkgfm."""
    cmark = pytest.importorskip("cmarkgfm", reason="cmarkgfm (GitHub's cmark-gfm) parses the output")
    unsafe = pytest.importorskip("cmarkgfm.cmark").Options.CMARK_OPT_UNSAFE
    result: str = cmark.github_flavored_markdown_to_html(markdown, options=unsafe)
    return result


def shown(fragment: str) -> str:
    """The text a reader sees in an HTML fragment: tags dropped, entities decoded, joiners removed."""
    return html.unescape(re.sub(r"<[^>]*>", "", fragment)).replace(BREAK, "")


def cells(rendered: str) -> list[list[str]]:
    """Each table row's cells (inner HTML)."""
    rows = re.findall(r"<tr>(.*?)</tr>", rendered, re.S)
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S) for row in rows]
