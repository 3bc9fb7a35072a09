"""The team's requests tied to the spec operations they call, as the plan's `GivenRequests`. Pure.

`find_match` strips a base URL's prefix from a request's URL and binds the rest to the operations' path
templates (`satori_ci.spec.routes`): a variable that is empty before the scripts run still fills its segment (it is
read as `{{name}}`), and a whole-segment parameter may take several segments (a file path) where its schema says so
or where nothing else matches; `given_requests` gives every request of the collection as the plan takes it: as it is
sent, with the operation it calls.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from urllib.parse import unquote, urlsplit

from satori_ci.plan.expand import base_url_for
from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.postman.borrow import credential_names, team_auth
from satori_ci.postman.read import TeamCollection, TeamRequest
from satori_ci.postman.urls import SCHEME, split_origin
from satori_ci.spec.model import Operation, Spec
from satori_ci.spec.routes import PathTemplate, parse_template

_DEFAULT_PORTS = {"http": "80", "https": "443"}

Pairs = tuple[tuple[str, str], ...]


_PATH_FORMATS = frozenset({"path", "file-path", "filepath", "uri-reference", "iri-reference", "relative-path"})
_SLASH_HINT = re.compile(r"slash|multi.?segment|greedy|wildcard|catch.?all|rest.?of.?path", re.IGNORECASE)


@dataclass(frozen=True)
class Match:
    """The spec operation a request calls, its path parameters' values and how its path was read."""

    operation: Operation
    params: Pairs
    """Percent-decoded; an empty or unknown variable's value is its `{{name}}`."""
    base: str
    """The base path stripped before matching (`/api/v1`), "" for none."""
    greedy: str | None = None
    """The parameter that took several segments, if any."""
    hinted: bool = False
    """Whether its schema says it may hold slashes (else it took them because nothing else matched)."""


def match_request(request: TeamRequest, operations: Sequence[Operation],
                  base_urls: Sequence[str]) -> tuple[Operation, Pairs] | None:
    """The spec operation `request` calls and its path parameter values (percent-decoded), or None (`find_match`)."""
    found = find_match(request.method, request.match_url, operations, base_urls)
    return (found.operation, found.params) if found else None


def find_match(method: str, url: str, operations: Sequence[Operation], base_urls: Sequence[str]) -> Match | None:
    """The operation `method url` calls, or None.

    A prefix of `base_urls` is stripped first (same origin or none, longest first; then other origins; then
    none). Literal segments must be equal once percent-decoded, `{param}` takes one non-empty segment, or several
    when its schema allows slashes (`may_hold_slashes`); only when no operation matches so, several for any
    whole-segment parameter. Among the operations of the method, the most specific template wins: the most literal
    segments, then mixed ones, then no parameter taking several segments, then the most segments, then spec order.
    """
    candidates = _candidate_paths(url, base_urls)
    for fallback in (False, True):
        for base, segments in candidates:
            found = _best_operation(method, segments, operations, fallback)
            if found:
                return Match(found[0], found[1], base, found[2], found[2] is not None and not fallback)
    return None


def best_match(method: str, segments: tuple[str, ...],
               operations: Sequence[Operation]) -> tuple[Operation, Pairs, str | None] | None:
    """The operation of `method` whose template binds the decoded `segments`, as `find_match` picks it, no base
    stripped: (operation, parameters, the parameter that took several segments)."""
    return _best_operation(method, segments, operations, False) or _best_operation(method, segments, operations, True)


def may_hold_slashes(operation: Operation, name: str) -> bool:
    """Whether the spec says the path parameter may hold slashes: a path-like `format`, a `pattern` that admits
    one, or an `x-` key such as `x-allow-slashes: true` in its schema."""
    param = next((p for p in operation.parameters if p.location == "path" and p.name == name), None)
    schema = param.schema if param is not None and isinstance(param.schema, dict) else {}
    fmt, pattern = schema.get("format"), schema.get("pattern")
    if isinstance(fmt, str) and fmt.lower() in _PATH_FORMATS:
        return True
    if isinstance(pattern, str) and "/" in pattern:
        try:
            if re.search(pattern, "a/b"):
                return True
        except re.error:
            pass
    return any(isinstance(k, str) and k.startswith("x-") and _SLASH_HINT.search(k) and v is True
               for k, v in schema.items())


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


def url_segments(url: str) -> tuple[str, ...]:
    """The URL's path segments, percent-decoded (query, fragment and trailing slash dropped)."""
    return tuple(unquote(s) for s in _path_segments(split_origin(url)[1]))


def _candidate_paths(url: str, base_urls: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(base path stripped, the rest) of the request's decoded path segments for each matching base, best guess
    first, then the whole path."""
    own, segments = _origin_key(split_origin(url)[0]), url_segments(url)
    bases = [_base_parts(b) for b in base_urls if b.strip()]
    ordered = sorted(bases, key=lambda b: (bool(b[0]) and b[0] != own, -len(b[1])))
    out: list[tuple[str, tuple[str, ...]]] = []
    for _, prefix in ordered:
        if segments[: len(prefix)] == prefix and all(s != segments[len(prefix):] for _, s in out):
            out.append(("/" + "/".join(prefix) if prefix else "", segments[len(prefix):]))
    if all(s != segments for _, s in out):
        out.append(("", segments))
    return out


def _template(operation: Operation) -> PathTemplate:
    """The operation's path template (anything from a `?` or `#` on left out)."""
    return parse_template(re.split(r"[?#]", operation.path, maxsplit=1)[0])


def _best_operation(method: str, segments: tuple[str, ...], operations: Sequence[Operation],
                    fallback: bool) -> tuple[Operation, Pairs, str | None] | None:
    """The most specific operation of `method` whose template binds `segments` (`fallback`: only with a parameter
    its schema does not say may hold slashes taking several segments)."""
    best: tuple[tuple[int, ...], Operation, Pairs, str | None] | None = None
    for index, operation in enumerate(operations):
        if operation.method.upper() != method.upper():
            continue
        template = _template(operation)
        for values, greedy in _bindings(operation, template, segments, fallback):
            rank = (*template.score, greedy is None, len(template.segments), -index)
            if best is None or rank > best[0]:
                best = rank, operation, values, greedy
    return (best[1], best[2], best[3]) if best else None


def _bindings(operation: Operation, template: PathTemplate, segments: tuple[str, ...],
              fallback: bool) -> Iterator[tuple[Pairs, str | None]]:
    """The ways `template` binds `segments`: one segment per parameter (not in `fallback`), then with one whole
    parameter taking several, the last first."""
    if not fallback:
        values = template.bind(segments)
        if values is not None:
            yield values, None
    for name in reversed([s.whole for s in template.segments if s.whole]):
        if may_hold_slashes(operation, name) != fallback:
            values = template.bind_greedy(segments, name)
            if values is not None:
                yield values, name


def base_urls(spec: Spec, base_url: str | None = None) -> list[str]:
    """The bases matching strips: the server requests go to (`base_url`, else the spec's), then the spec's servers."""
    return [base_url_for(spec, base_url), *spec.servers]


def given_requests(team: TeamCollection, spec: Spec, base_url: str | None = None) -> GivenRequests:
    """Every request of the team's collection as the plan takes it: as it is sent (its auth applied), with the spec
    operation it calls, matched under the server requests go to (`base_url`, else the spec's) and the spec's
    servers; the auth satori-ci's own requests borrow from it (`borrow.team_auth`)."""
    bases = base_urls(spec, base_url)
    return GivenRequests(team.source, team.name,
                         tuple(_given(team, r, spec.operations, bases) for r in team.requests),
                         auth=team_auth(team, credential_names(spec)))


def _given(team: TeamCollection, request: TeamRequest, operations: Sequence[Operation],
           bases: Sequence[str]) -> GivenRequest:
    found = find_match(request.method, request.match_url, operations, bases)
    if set(request.empty) & set(request.script_set):  # its scripts fill it: `{{kernel_id}}`, not `/api/kernels/`
        request = replace(request, url=request.match_url)
    url, headers = request.prepared()
    path = found.operation.path if found else (urlsplit(request.url).path or "/")
    return GivenRequest(id=request.id, label=request.label, method=request.method, url=url, headers=headers,
                        body=request.body, path=path,
                        calls=(found.operation.method, found.operation.path) if found else None,
                        params=found.params if found else (), unresolved=request.unresolved, scripted=request.scripts,
                        empty=request.empty, set_by=tuple((v, team.setter(v) or "") for v in request.script_set),
                        greedy=found.greedy if found else None)
