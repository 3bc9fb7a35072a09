"""The hidden marker that identifies the bot's sticky comment for one spec (an HTML comment).

    comment_marker("openapi/api.yaml")  ->  <!-- satori-ci:spec=openapi/api.yaml -->

One convention: the report renders the same marker as the comment's first line
(`satori_ci.report.markdown.marker_for`), whose path is escaped so it can never end the HTML
comment early, and no marker is a substring of another one (`api.yaml` vs `v2/api.yaml`). A comment
is found by its first line only (`marked_by`): a marker quoted further down, by a value of the report,
names nothing.
"""

from __future__ import annotations

from satori_ci.report.markdown import marker_for

MAX_COMMENT_CHARS = 65_536
"""GitHub refuses a comment body longer than this (422 "Body is too long")."""


def comment_marker(key: str) -> str:
    return marker_for(key)


def is_marker(text: str) -> bool:
    """A one-line HTML comment: invisible in the rendered comment, findable in its source."""
    return (text.startswith("<!--") and text.endswith("-->") and len(text) > len("<!---->")
            and "\n" not in text and "\r" not in text and "-->" not in text[4:-3])


def marked_by(body: str, marker: str) -> bool:
    """Whether the comment's first line is `marker` (GitHub may have turned the line break into CRLF)."""
    return body.split("\n", 1)[0].rstrip("\r") == marker


def with_marker(marker: str, body: str) -> str:
    """`body` with `marker` on its first line (added unless it is there already)."""
    if not is_marker(marker):
        raise ValueError(f"a sticky comment marker must be a one-line HTML comment, got {marker[:60]!r}")
    return body if marked_by(body, marker) else f"{marker}\n{body}"
