"""Field path syntax of the contract (§1): `a.b`, `a[]`, `a[].b`, `m{}`, `[]`, escaped names."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_SPECIAL = re.compile(r"[.\[\]{}\\]")
_NAME = re.compile(r"(?:[^.\[\]{}\\]++|\\.)++", re.DOTALL)
"""A property name as written: characters other than `.[]{}\\`, and any character escaped with a backslash."""
_ESCAPED_CHAR = re.compile(r"\\(.)", re.DOTALL)


@dataclass(frozen=True)
class Prop:
    """Step into the property `name` of an object."""

    name: str


@dataclass(frozen=True)
class Items:
    """Step into every element of an array (`[]`)."""


@dataclass(frozen=True)
class MapValues:
    """Step into every value of a map (`{}`, an `additionalProperties` schema)."""


Segment = Prop | Items | MapValues
ITEMS = Items()
MAP_VALUES = MapValues()


class FieldPathError(ValueError):
    """A string that is not a field path of the contract."""


def escape_name(name: str) -> str:
    """A property name as it is written in a path: `a.b` becomes `a\\.b`."""
    if _SPECIAL.search(name) is None:
        return name
    return _SPECIAL.sub(r"\\\g<0>", name)


def join_prop(prefix: str, name: str) -> str:
    escaped = escape_name(name)
    return f"{prefix}.{escaped}" if prefix and not prefix.endswith(".") else prefix + escaped


@functools.lru_cache(maxsize=8192)
def parse(path: str) -> tuple[Segment, ...]:
    """Split a field path into segments; the empty path is the body itself (remembered: a check parses each field's
    path many times, once per stage)."""
    segments: list[Segment] = []
    i, n = 0, len(path)
    expect_name = True
    while i < n:
        ch = path[i]
        if path.startswith("[]", i):
            segments.append(ITEMS)
            i += 2
            expect_name = False
        elif path.startswith("{}", i):
            segments.append(MAP_VALUES)
            i += 2
            expect_name = False
        elif ch == ".":
            if expect_name:
                raise FieldPathError(f"empty property name at offset {i} in {path!r}")
            i += 1
            expect_name = True
            if i == n:
                raise FieldPathError(f"path {path!r} ends with '.'")
        else:
            if not expect_name:
                raise FieldPathError(f"expected '.', '[]' or '{{}}' at offset {i} in {path!r}")
            run = _NAME.match(path, i)
            end = run.end() if run else i
            if end < n and path[end] == "\\":  # a backslash with a character after it is part of the run
                raise FieldPathError(f"dangling backslash in {path!r}")
            name = path[i:end]
            i = end
            if i < n and path[i] in "]}":
                raise FieldPathError(f"unbalanced {path[i]!r} at offset {i} in {path!r}")
            if i < n and path[i] in "[{" and not (path.startswith("[]", i) or path.startswith("{}", i)):
                raise FieldPathError(f"unbalanced {path[i]!r} at offset {i} in {path!r}")
            segments.append(Prop(_ESCAPED_CHAR.sub(r"\1", name) if "\\" in name else name))
            expect_name = False
    return tuple(segments)


def render(segments: tuple[Segment, ...]) -> str:
    out = ""
    for seg in segments:
        if isinstance(seg, Prop):
            out = join_prop(out, seg.name)
        elif isinstance(seg, Items):
            out += "[]"
        else:
            out += "{}"
    return out
