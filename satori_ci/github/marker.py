"""The hidden marker that identifies the bot's sticky comment for one spec (an HTML comment).

    comment_marker("openapi/api.yaml")  ->  <!-- satori-ci:spec=openapi/api.yaml -->

One convention: the report renders the same marker as the comment's first line
(`satori_ci.report.markdown.marker_for`), whose path is escaped so it can never end the HTML
comment early, and no marker is a substring of another one (`api.yaml` vs `v2/api.yaml`).
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


def with_marker(marker: str, body: str) -> str:
    """`body` with `marker` on its first line, unless it already contains the marker."""
    if not is_marker(marker):
        raise ValueError(f"a sticky comment marker must be a one-line HTML comment, got {marker[:60]!r}")
    return body if marker in body else f"{marker}\n{body}"
