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
    empty: tuple[str, ...] = ()
    """Variables it uses whose value is empty before any script runs (sent as "")."""
    set_by: Pairs = ()
    """(variable, where) for the variables it uses that a script of the team's run sets (where: `Folder/Name`, or
    "the collection"): a runner without scripts has only their values from before the run."""
    greedy: str | None = None
    """The path parameter that took several segments (a file path with slashes), if any."""

    def waits_for_scripts(self) -> Pairs:
        """(variable, where) for the script-set variables it has no value for before the scripts run (empty or
        unknown): a runner without scripts would send something else."""
        missing = set(self.unresolved) | set(self.empty)
        return tuple((name, where) for name, where in self.set_by if name in missing)


@dataclass(frozen=True)
class GivenRequests:
    """The team's requests, in the order its run sends them."""

    source: str
    """The file they come from (for messages)."""
    name: str
    requests: tuple[GivenRequest, ...]
    auth: Pairs = field(default=(), repr=False)
    """The credential headers satori-ci's own requests (the operations the team's do not call) borrow from the team,
    values resolved: its collection's auth, else the credential its requests send alike (an auth or a header written
    on each); the run's own headers of that name, then satori-ci's credentials that have a value, come first."""
