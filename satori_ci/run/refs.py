"""Which request a result belongs to (`RequestRef`), and its JSON form: shared by every result of a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class RequestRef:
    """Which request a result belongs to: the collection item, the iteration, and what was sent."""

    item: str
    """The collection item's id (or `line N` for recorded responses)."""
    iteration: int
    method: str
    url: str
    name: str = ""


def request_dict(ref: RequestRef) -> dict[str, Any]:
    """The reference as the JSON reports write it."""
    return {"item": ref.item, "name": ref.name, "iteration": ref.iteration, "method": ref.method, "url": ref.url}
