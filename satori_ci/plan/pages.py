"""Where a list response says its next page is: a `Link` header, a `next` URL in the body, or a next-page token
(`satori_ci.plan.explore` follows them on the server under test only); or, for a page or offset parameter,
the page after this one."""

from __future__ import annotations

import re
from typing import Any

NEXT_FIELDS = ("next", "next_url", "nextUrl", "next_page", "nextPage", "nextLink", "next_link", "@odata.nextLink")
TOKEN_FIELDS = ("nextPageToken", "next_page_token", "next_cursor", "nextCursor", "cursor", "continuation",
                "continuationToken", "next_token", "nextToken", "marker", "next_marker", "NextMarker")
TOKEN_PARAMS = ("pageToken", "page_token", "cursor", "after", "marker", "continuation", "continuationToken",
                "next_token", "nextToken", "starting_after", "start_after", "next_cursor")
PAGE_PARAMS = ("page", "page_number", "pageNumber", "page_no", "pageIndex")
OFFSET_PARAMS = ("offset", "skip", "start", "from")
_LINK_NEXT = re.compile(r"<([^>]*)>\s*;[^,]*rel\s*=\s*\"?next\"?", re.IGNORECASE)


def next_url(body: Any, link: str | None) -> str | None:
    """The next page's URL (as written, maybe relative): the `Link` header's `rel="next"`, else a `next` field."""
    if link:
        found = _LINK_NEXT.search(link)
        if found:
            return found.group(1)
    if not isinstance(body, dict):
        return None
    for holder in (body, body.get("links"), body.get("_links"), body.get("meta"), body.get("pagination")):
        if not isinstance(holder, dict):
            continue
        for key in NEXT_FIELDS:
            value = holder.get(key)
            if isinstance(value, dict):
                value = value.get("href")
            if isinstance(value, str) and value.startswith(("http://", "https://", "/", "?")):
                return value
    return None


def next_token(body: Any) -> str | None:
    """The next page's token or cursor in the body (top level, or under `meta`/`pagination`)."""
    if not isinstance(body, dict):
        return None
    for holder in (body, body.get("meta"), body.get("pagination"), body.get("response_metadata")):
        if not isinstance(holder, dict):
            continue
        for key in TOKEN_FIELDS:
            value = holder.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def next_counted(accepted: frozenset[str], sent: dict[str, str], items: int) -> tuple[str, str] | None:
    """(parameter, value) of the page after one that held `items` values: `page` plus one (from 1 when it was
    not sent), or `offset` plus the items; None when the operation takes neither."""
    for names, step, start in ((PAGE_PARAMS, 1, 1), (OFFSET_PARAMS, items, 0)):
        param = next((p for p in names if p in accepted), None)
        if param is None:
            continue
        try:
            current = int(sent.get(param, start))
        except ValueError:
            return None
        return param, str(current + step)
    return None
