"""Postman's text of a collection's values and URLs: a JSON value as Postman writes it, a request's `url` (string or
object) as Newman builds it, query parameters as Postman encodes them. Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def text_of(value: Any) -> str:
    """A JSON value as Postman turns it into text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def split_origin(url: str) -> tuple[str, str]:
    """(`scheme://host:port` as written, the rest from the first `/`, `?` or `#`); no scheme: the first part is
    the host (as Postman reads `localhost:3000/x` or `{{baseUrl}}/x`), unless the URL starts with `/`."""
    scheme = SCHEME.match(url)
    start = scheme.end() if scheme else 0
    if not scheme and url.startswith("/"):
        return "", url
    ends = [i for i in (url.find(c, start) for c in "/?#") if i >= 0]
    cut = min(ends, default=len(url))
    return url[:cut], url[cut:]


def url_text(url: Any) -> str:
    """The URL as Newman builds it from `request.url`, path variables filled, `{{variables}}` not yet resolved."""
    if isinstance(url, str):
        return url
    if not isinstance(url, dict):
        return ""
    path_values = {text_of(v.get("key", v.get("id"))): text_of(v.get("value"))
                   for v in url.get("variable") or () if isinstance(v, dict)}
    if url.get("host") is None and url.get("path") is None:
        return fill_raw_path(text_of(url.get("raw")), path_values)
    text = ""
    if url.get("protocol"):
        protocol = text_of(url["protocol"])
        text += protocol if protocol.endswith("://") else protocol + "://"
    host = url.get("host")
    text += ".".join(text_of(h) for h in host) if isinstance(host, list) else text_of(host)
    if url.get("port") not in (None, ""):
        text += ":" + text_of(url["port"])
    path = url.get("path")
    if path is not None:
        segments = path if isinstance(path, list) else text_of(path).removeprefix("/").split("/")
        text += "/" + "/".join(_fill_segment(_segment_text(s), path_values) for s in segments)
    query = query_text(url.get("query"))
    if query is not None:
        text += "?" + query
    if isinstance(url.get("hash"), str):
        text += "#" + url["hash"]
    return text


def _segment_text(segment: Any) -> str:
    return text_of(segment.get("value")) if isinstance(segment, dict) else text_of(segment)


def _fill_segment(segment: str, values: Mapping[str, str]) -> str:
    """`:name` (or `:name.suffix`) with the path variable's value, when it has a non-empty one."""
    if not segment.startswith(":"):
        return segment
    key = segment[1:].split(".", 1)[0]
    value = values.get(key)
    return value + segment[1 + len(key):] if key and value else segment


def fill_raw_path(raw: str, values: Mapping[str, str]) -> str:
    if not values:
        return raw
    origin, rest = split_origin(raw)
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    path = "/".join(_fill_segment(s, values) for s in rest[:cut].split("/"))
    return origin + path + rest[cut:]


def query_text(query: Any) -> str | None:
    """The enabled query parameters as Postman writes them; None when there are none at all."""
    if isinstance(query, str):
        return query
    if not isinstance(query, list) or not query:
        return None
    parts = []
    for param in query:
        if not isinstance(param, dict) or param.get("disabled") is True:
            continue
        key, value = param.get("key"), param.get("value")
        text = query_escape(key, True) if isinstance(key, str) else ""
        parts.append(text + ("=" + query_escape(value, False) if isinstance(value, str) else ""))
    return "&".join(parts) if parts else None


def query_escape(text: str, key: bool) -> str:
    """`&` and `#` (and `=` in a key) percent-encoded, as Postman does."""
    text = text.replace("&", "%26").replace("#", "%23")
    return text.replace("=", "%3D") if key else text


def replace_query(url: str, key: str, value: str) -> str:
    """`url` without query parameters named `key`, with `key=value` appended."""
    url, hash_sign, fragment = url.partition("#")
    base, _, query = url.partition("?")
    kept = [p for p in query.split("&") if p and p.split("=", 1)[0] != key] if query else []
    kept.append(query_escape(key, True) + "=" + query_escape(value, False))
    return base + "?" + "&".join(kept) + hash_sign + fragment
