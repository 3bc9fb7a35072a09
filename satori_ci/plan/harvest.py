"""Values harvested from a response for later requests: the Python twin of the checker's `harvest` (JavaScript)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from satori_ci.oracles.check import locate, to_json
from satori_ci.spec.paths import Segment, parse

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
