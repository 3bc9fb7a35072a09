"""The hidden marker that identifies the bot's sticky comment for one spec (an HTML comment).

    comment_marker("openapi/api.yaml")  ->  <!-- satori-ci:sticky "openapi/api.yaml" -->

The key is JSON-quoted, so no marker is a substring of another one (`api.yaml` vs `v2/api.yaml`),
and `<`, `>` and `--` are escaped so the key can never end the HTML comment early.
"""

from __future__ import annotations

import json

MARKER_PREFIX = "<!-- satori-ci:sticky "
MARKER_SUFFIX = " -->"
MAX_COMMENT_CHARS = 65_536
"""GitHub refuses a comment body longer than this (422 "Body is too long")."""


def comment_marker(key: str) -> str:
    quoted = json.dumps(key).replace("<", "\\u003c").replace(">", "\\u003e").replace("--", "-\\u002d")
    return f"{MARKER_PREFIX}{quoted}{MARKER_SUFFIX}"


def is_marker(text: str) -> bool:
    """A one-line HTML comment: invisible in the rendered comment, findable in its source."""
    return (text.startswith("<!--") and text.endswith("-->") and len(text) > len("<!---->")
            and "\n" not in text and "\r" not in text and "-->" not in text[4:-3])


def with_marker(marker: str, body: str) -> str:
    """`body` with `marker` on its first line, unless it already contains the marker."""
    if not is_marker(marker):
        raise ValueError(f"a sticky comment marker must be a one-line HTML comment, got {marker[:60]!r}")
    return body if marker in body else f"{marker}\n{body}"
