"""Requests someone else wrote (a team's own collection), as plain values: what the plan sends of them.

The input adapter (`satori_ci.postman.match.given_requests`) reads the team's file, resolves each request as it is
sent and ties it to the spec operation it calls; the plan takes these values as they are (it adds the operation's
assertions to them and leaves out the writes nobody opted in to) and never reads the file's format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class GivenRequest:
    """One request of the team's collection, resolved as far as is possible before its own scripts run."""

    id: str
    """Its id in the team's collection (unique there)."""
    label: str
    """`Folder/Sub/Name`, for messages."""
    method: str
    url: str
    """As it is sent; `{{variables}}` that only its scripts set are kept as written (see `unresolved`)."""
    headers: Pairs = field(repr=False)
    """As they are sent (its auth applied)."""
    body: str | None = field(repr=False)
    path: str
    """The path of the spec operation it calls, else its URL's own path (what a `requests: unsafe:` opt-in names)."""
    calls: tuple[str, str] | None = None
    """(method, path) of the spec operation it calls; None: it calls none."""
    params: Pairs = ()
    """Its path parameters' values (percent-decoded), when it calls an operation."""
    unresolved: tuple[str, ...] = ()
    """Variables left as `{{name}}` in its URL, headers or body: set by scripts, dynamic or unknown."""
    scripted: bool = False
    """Whether scripts of the team's run apply to it (a runner without them sends it as written)."""


@dataclass(frozen=True)
class GivenRequests:
    """The team's requests, in the order its run sends them."""

    source: str
    """The file they come from (for messages)."""
    name: str
    requests: tuple[GivenRequest, ...]
