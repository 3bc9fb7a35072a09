"""Values harvested from a response for later requests: the Python twin of the checker's `harvest` (JavaScript)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from satori_ci.oracles.check import locate, to_json
from satori_ci.spec.paths import FieldPathError, Prop, Segment, parse

MOST = 100
"""Values read from one response at the most."""


def encode_segment(text: str) -> str:
    """One percent-encoded path segment (only A-Z a-z 0-9 - . _ ~ left as they are)."""
    return quote(text, safe="")


@lru_cache(maxsize=1024)
def _segments(path: str) -> tuple[Segment, ...]:
    return parse(path)


def harvest(body: Any, paths: Sequence[str], most: int = MOST) -> list[str]:
    """The distinct identifiers (non-empty strings, numbers) at the first path that reaches any, encoded."""
    for path in paths:
        out: list[str] = []
        for _, v in locate(body, _segments(path)):
            if len(out) >= most:
                break
            if isinstance(v, str):
                text = v
            elif isinstance(v, int | float) and not isinstance(v, bool):
                text = to_json(v)
            else:
                continue
            if not text:
                continue
            try:
                encoded = encode_segment(text)
            except UnicodeEncodeError:
                continue
            if encoded not in out:
                out.append(encoded)
        if out:
            return out
    return []


ENUM_LIKE = ("type", "kind", "state", "status", "category", "class", "role", "level", "format", "mode")
"""Item properties whose values tell kinds of items apart (sampling spreads over them)."""


def values_with_kinds(body: Any, path: str) -> list[tuple[str, tuple[str, ...]]]:
    """The distinct scalar values at `path`, each with the enum-like properties of the item that holds it."""
    try:
        segments = parse(path)
    except FieldPathError:
        return []
    parent = segments[:-1] if segments and isinstance(segments[-1], Prop) else None
    out: list[tuple[str, tuple[str, ...]]] = []
    seen: set[str] = set()
    holders: list[tuple[Any, Any]]
    if parent is None or not isinstance(segments[-1], Prop):
        holders = [(None, v) for _, v in locate(body, segments)]
    else:
        name = segments[-1].name
        holders = [(item, item.get(name)) for _, item in locate(body, parent) if isinstance(item, dict)]
    for item, value in holders:
        text = _scalar(value)
        if text is None or text in seen:
            continue
        seen.add(text)
        out.append((text, _kinds(item)))
        if len(out) >= MOST:
            break
    return out


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return value if value and "\n" not in value and len(value) <= 2048 else None
    if isinstance(value, int | float):
        return to_json(value)
    return None


def _kinds(item: Any) -> tuple[str, ...]:
    if not isinstance(item, dict):
        return ()
    out = []
    for key in ENUM_LIKE:
        value = item.get(key)
        if isinstance(value, str | int | bool) and len(str(value)) <= 64:
            out.append(f"{key}={value}")
    for key, value in item.items():
        if isinstance(value, list | dict):
            out.append(f"has:{key}={bool(value)}")
    return tuple(out)
