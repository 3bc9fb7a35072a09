"""The team's requests tied to the spec operations they call, as the plan's `GivenRequests`. Pure.

`match_request` strips a base URL's prefix from a request's URL and binds the rest to the operations' path
templates (`satori_ci.spec.routes`); `given_requests` gives every request of the collection as the plan takes it:
as it is sent, with the operation it calls.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from satori_ci.plan.expand import base_url_for
from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.postman.read import TeamCollection, TeamRequest
from satori_ci.postman.urls import SCHEME, split_origin
from satori_ci.spec.model import Operation, Spec
from satori_ci.spec.routes import PathTemplate, parse_template

_DEFAULT_PORTS = {"http": "80", "https": "443"}

Pairs = tuple[tuple[str, str], ...]


def match_request(request: TeamRequest, operations: Sequence[Operation],
                  base_urls: Sequence[str]) -> tuple[Operation, Pairs] | None:
    """The spec operation `request` calls and its path parameter values (percent-decoded), or None.

    A prefix of `base_urls` is stripped first (same origin or none, longest first; then other origins; then
    none). Literal segments must be equal once percent-decoded, `{param}` takes one non-empty segment; among
    operations of the request's method, the template with the most literal segments wins (then spec order).
    """
    for segments in _candidate_paths(request.url, base_urls):
        found = _best_operation(request.method, segments, operations)
        if found:
            return found
    return None


def _origin_key(origin: str) -> str:
    """The origin compared case-insensitively, `http` assumed, credentials and default port dropped."""
    if not origin:
        return ""
    scheme = SCHEME.match(origin)
    name = scheme.group(1).lower() if scheme else "http"
    host = origin[scheme.end():] if scheme else origin
    host = host.rpartition("@")[2].lower()
    port = _DEFAULT_PORTS.get(name)
    if port and host.endswith(":" + port):
        host = host[: -len(port) - 1]
    return f"{name}://{host}"


def _path_segments(rest: str) -> tuple[str, ...]:
    """The path's segments, query, fragment and trailing slash dropped (not yet decoded)."""
    path = re.split(r"[?#]", rest, maxsplit=1)[0].strip("/")
    return tuple(path.split("/")) if path else ()


def _base_parts(base: str) -> tuple[str, tuple[str, ...]]:
    origin, rest = split_origin(base.strip())
    return _origin_key(origin), tuple(unquote(s) for s in _path_segments(rest))


def _candidate_paths(url: str, base_urls: Sequence[str]) -> list[tuple[str, ...]]:
    """The request's decoded path segments with each matching base path stripped, best guess first."""
    origin, rest = split_origin(url)
    own, segments = _origin_key(origin), tuple(unquote(s) for s in _path_segments(rest))
    bases = [_base_parts(b) for b in base_urls if b.strip()]
    ordered = sorted(bases, key=lambda b: (bool(b[0]) and b[0] != own, -len(b[1])))
    out: list[tuple[str, ...]] = []
    for _, prefix in ordered:
        if segments[: len(prefix)] == prefix and segments[len(prefix):] not in out:
            out.append(segments[len(prefix):])
    if segments not in out:
        out.append(segments)
    return out


def _template(operation: Operation) -> PathTemplate:
    """The operation's path template (anything from a `?` or `#` on left out)."""
    return parse_template(re.split(r"[?#]", operation.path, maxsplit=1)[0])


def _best_operation(method: str, segments: tuple[str, ...],
                    operations: Sequence[Operation]) -> tuple[Operation, Pairs] | None:
    best: tuple[Operation, tuple[int, int], Pairs] | None = None
    for operation in operations:
        if operation.method.upper() != method:
            continue
        template = _template(operation)
        values = template.bind(segments)
        if values is not None and (best is None or template.score > best[1]):
            best = operation, template.score, values
    return (best[0], best[2]) if best else None


def given_requests(team: TeamCollection, spec: Spec, base_url: str | None = None) -> GivenRequests:
    """Every request of the team's collection as the plan takes it: as it is sent (its auth applied), with the spec
    operation it calls, matched under the server requests go to (`base_url`, else the spec's) and the spec's
    servers."""
    bases = [base_url_for(spec, base_url), *spec.servers]
    return GivenRequests(team.source, team.name, tuple(_given(r, spec.operations, bases) for r in team.requests))


def _given(request: TeamRequest, operations: Sequence[Operation], bases: Sequence[str]) -> GivenRequest:
    found = match_request(request, operations, bases)
    url, headers = request.prepared()
    path = found[0].path if found else (urlsplit(request.url).path or "/")
    return GivenRequest(id=request.id, label=request.label, method=request.method, url=url, headers=headers,
                        body=request.body, path=path, calls=(found[0].method, found[0].path) if found else None,
                        params=found[1] if found else (), unresolved=request.unresolved, scripted=request.scripts)
