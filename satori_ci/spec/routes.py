"""Path templates (`/things/{id}`, `/files/{name}.{ext}`): the one place their `{name}` parameters are read.

A template is split at its slashes into `Segment`s, each literal text and parameters alternating. The same
template is filled with values (`fill`: a sample request's path), written as URL path segments (`Segment.encoded`:
literal text percent-encoded), bound to a concrete path (`bind`: which values a request's path gives its
parameters) and turned into a regex over concrete paths (`pattern`). Pure; `parse_template` is memoized.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, unquote

PARAMETER = re.compile(r"\{([^{}/]+)\}")
"""A path parameter: `{name}`, the name without braces or slashes."""
PATH_SAFE = "-._~!$&'()*+,;=:@%"
"""Characters a literal path segment keeps as they are (RFC 3986 `pchar`, and `%` of what is encoded already)."""

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Segment:
    """One segment of a template (between two slashes)."""

    pieces: tuple[str, ...]
    """Literal text and parameter names, alternating, literal first and last: `{a}.{b}` is `"", "a", ".", "b", ""`."""

    @property
    def text(self) -> str:
        """The segment as written in the template."""
        return "".join(p if i % 2 == 0 else "{" + p + "}" for i, p in enumerate(self.pieces))

    @property
    def names(self) -> tuple[str, ...]:
        return self.pieces[1::2]

    @property
    def whole(self) -> str | None:
        """The parameter's name when the segment is one parameter and nothing else (`{id}`), else None."""
        if len(self.pieces) == 3 and not self.pieces[0] and not self.pieces[2]:
            return self.pieces[1]
        return None

    def encoded(self, values: Mapping[str, str]) -> str:
        """As a URL path segment: the literal text percent-encoded (`PATH_SAFE` kept, a leading `:` as `%3A`, which
        URL tools read as a variable), the parameters' values (encoded already) in place, `{name}` without one."""
        out = []
        for i, piece in enumerate(self.pieces):
            if i % 2:
                out.append(values.get(piece, "{" + piece + "}"))
                continue
            text = quote(piece, safe=PATH_SAFE)
            out.append("%3A" + text[1:] if i == 0 and text.startswith(":") else text)
        return "".join(out)

    def bind(self, have: str) -> Pairs | None:
        """The parameters' values when the (percent-decoded) segment `have` fits this one, else None: literal text
        compares percent-decoded, a parameter takes one or more characters."""
        if not self.names:
            return () if have == unquote(self.pieces[0]) else None
        found = _segment_regex(self.pieces).fullmatch(have)
        if found is None or not have:
            return None
        return tuple(zip(self.names, found.groups(), strict=True))


@lru_cache(maxsize=4096)
def _segment_regex(pieces: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("".join(re.escape(unquote(p)) if i % 2 == 0 else "(.+?)" for i, p in enumerate(pieces)),
                      re.DOTALL)


@dataclass(frozen=True)
class PathTemplate:
    """An operation's path as the spec writes it."""

    text: str
    segments: tuple[Segment, ...]
    """Between the slashes, a leading and a trailing slash dropped (`/` has none)."""

    @property
    def trailing_slash(self) -> bool:
        return self.text.endswith("/")

    @property
    def names(self) -> tuple[str, ...]:
        """Every parameter, in order."""
        return tuple(n for s in self.segments for n in s.names)

    @property
    def score(self) -> tuple[int, int]:
        """(literal segments, segments mixing a parameter with text or another parameter): the more, the more
        specific the template (`/things/mine` over `/things/{id}`)."""
        literal = sum(1 for s in self.segments if not s.names)
        mixed = sum(1 for s in self.segments if s.names and (len(s.pieces) > 3 or any(s.pieces[::2])))
        return literal, mixed

    def fill(self, values: Mapping[str, str]) -> str:
        """The template with each parameter's value in place (one without a value stays `{name}`)."""
        return PARAMETER.sub(lambda m: values.get(m.group(1), m.group(0)), self.text)

    def bind(self, segments: Sequence[str]) -> Pairs | None:
        """The parameters' values when a concrete path's (percent-decoded) segments fit the template, else None."""
        if len(segments) != len(self.segments):
            return None
        values: list[tuple[str, str]] = []
        for have, want in zip(segments, self.segments, strict=True):
            found = want.bind(have)
            if found is None:
                return None
            values.extend(found)
        return tuple(values)

    def bind_greedy(self, segments: Sequence[str], name: str) -> Pairs | None:
        """As `bind`, but the parameter `name`, a whole segment (`{name}`), takes two or more non-empty segments,
        joined by `/` (a file path in `/files/{path}`); None when the others do not fit or it takes one."""
        at = next((i for i, s in enumerate(self.segments) if s.whole == name), None)
        extra = len(segments) - len(self.segments)
        if at is None or extra < 1:
            return None
        taken = segments[at:at + extra + 1]
        if not all(taken):
            return None
        before = PathTemplate(self.text, self.segments[:at]).bind(segments[:at])
        after = PathTemplate(self.text, self.segments[at + 1:]).bind(segments[at + extra + 1:])
        if before is None or after is None:
            return None
        return (*before, (name, "/".join(taken)), *after)

    def pattern(self) -> re.Pattern[str]:
        """A regex over concrete paths (as written, not decoded): a parameter takes one or more characters other
        than `/`."""
        pieces = PARAMETER.split(self.text)
        return re.compile("^" + "".join("[^/]+" if i % 2 else re.escape(p) for i, p in enumerate(pieces)) + "$")


@lru_cache(maxsize=4096)
def parse_template(text: str) -> PathTemplate:
    """The template's segments (memoized: a spec's paths are parsed once)."""
    stripped = text.strip("/")
    raw = stripped.split("/") if stripped else []
    return PathTemplate(text, tuple(Segment(tuple(PARAMETER.split(s))) for s in raw))
