"""The auth satori-ci's own requests (the operations a team's collection does not call) borrow from it. Pure.

`team_auth` decides, variables resolved: the collection's own auth, else the credential headers that every request
of the team sending one sends alike (a Postman `auth` written on each request, or an `Authorization` or spec
credential header written on each); `written_auth` gives the same as the team wrote it (`{{variables}}` kept, no
value resolved), for the collection Newman runs.
"""

from __future__ import annotations

import copy
from typing import Any

from satori_ci.plan.auth import auth_params
from satori_ci.postman.read import TeamCollection, TeamRequest, header_pairs
from satori_ci.spec.model import Spec

Pairs = tuple[tuple[str, str], ...]


def credential_names(spec: Spec) -> frozenset[str]:
    """The lower-case names of the headers that carry a credential: `Authorization` and the spec's header schemes."""
    names = {p.name.lower() for op in spec.operations for p in auth_params(spec, op)[0] if p.location == "header"}
    return frozenset({"authorization", *names})


def team_auth(team: TeamCollection, names: frozenset[str]) -> Pairs:
    """The headers satori-ci's own requests borrow: the collection's own auth's, else the credential headers (`names`
    and each request's auth) that all of the team's requests sending one send alike; () for none, or when they
    differ."""
    if team.auth is not None:
        header = team.auth.header()
        return (header,) if header else ()
    found = [h for h in (_credentials(r, names) for r in team.requests) if h]
    if not found or any(_key(h) != _key(found[0]) for h in found):
        return ()
    return found[0]


def written_auth(team: TeamCollection, borrowed: Pairs) -> tuple[dict[str, Any] | None, Pairs]:
    """`borrowed` (`team_auth`) as the team wrote it: the Postman auth it comes from (None for none, and for the
    collection's own, which the requests of its folders inherit) and the headers written on its first request that
    sends it, as (name, value as written)."""
    wanted = _key(borrowed)
    source = next((r for r in team.requests if wanted <= _key(r.prepared()[1])), None) if wanted else None
    if source is None or team.auth is not None:
        return None, ()
    own = source.auth.header() if source.auth is not None else None
    auth_name = own[0].lower() if own is not None and own[0].lower() in {k for k, _ in wanted} else None
    node: Any = team.raw
    found: Any = None
    for index in source.index_path:
        node = node["item"][index]
        for holder in (node, node.get("request")):
            auth = holder.get("auth") if isinstance(holder, dict) else None
            if isinstance(auth, dict) and isinstance(auth.get("type"), str):
                found = auth
    request = node.get("request")
    headers: dict[str, tuple[str, str]] = {}
    for key, value in header_pairs(request.get("header")) if isinstance(request, dict) else ():
        if key.lower() in {k for k, _ in wanted} - {auth_name}:  # a header named by a variable is not borrowed
            headers.setdefault(key.lower(), (key, value))
    return (copy.deepcopy(found) if auth_name is not None and isinstance(found, dict) else None), \
        tuple(headers.values())


def _credentials(request: TeamRequest, names: frozenset[str]) -> Pairs:
    """The credential headers the request sends: those of `names` and its auth's."""
    own = request.auth.header() if request.auth is not None else None
    wanted = names | ({own[0].lower()} if own is not None else set())
    return tuple(h for h in request.prepared()[1] if h[0].lower() in wanted)


def _key(headers: Pairs) -> frozenset[tuple[str, str]]:
    return frozenset((k.lower(), v) for k, v in headers)
