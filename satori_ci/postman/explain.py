"""`satori-ci collection --explain`: how each request of a team's collection was tied to a spec operation. Pure.

Per request: its URL as matching reads it (an empty variable kept as `{{name}}`; the auth's query parameter left
out, no header), the operation it calls and its path parameters, or why it calls none (no template matches, only
another method, only under another base URL), and its variables that are empty, unknown or set by a script. The
caller redacts the text (URLs may hold secrets) before printing it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from satori_ci.postman.match import Match, base_urls, best_match, find_match, url_segments
from satori_ci.postman.read import TeamCollection, TeamRequest
from satori_ci.postman.urls import split_origin
from satori_ci.spec.model import Operation, Spec

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Variable:
    """A variable of a request that is not simply a value from the collection, the environment or the globals."""

    name: str
    state: str
    """`empty`, `unknown`, `dynamic` (Postman's `$guid` and the like) or "" (it has a value)."""
    set_by: str
    """Where the script that sets it is (`Folder/Name`, "the collection"); "" when no script sets it."""


@dataclass(frozen=True)
class Explained:
    """One request of the team's collection and the operation it calls."""

    id: str
    label: str
    method: str
    url: str
    calls: str | None
    """`METHOD /template`, None when it calls no operation of the spec."""
    params: Pairs
    base: str
    """The base path stripped before matching, "" for none."""
    greedy: str
    """The parameter that took several segments and why, "" for none."""
    why: str
    """Why it calls no operation, "" when it calls one."""
    variables: tuple[Variable, ...]


def explain(team: TeamCollection, spec: Spec, base_url: str | None = None) -> tuple[Explained, ...]:
    """Every request of `team`, in run order, matched as `given_requests` matches it."""
    bases = base_urls(spec, base_url)
    return tuple(_explained(team, r, spec.operations, bases) for r in team.requests)


def _explained(team: TeamCollection, request: TeamRequest, operations: Sequence[Operation],
               bases: Sequence[str]) -> Explained:
    found = find_match(request.method, request.match_url, operations, bases)
    variables = tuple(_variable(team, request, name) for name in request.used)
    return Explained(
        id=request.id, label=request.label, method=request.method, url=request.match_url,
        calls=f"{found.operation.method} {found.operation.path}" if found else None,
        params=found.params if found else (), base=found.base if found else "", greedy=_greedy(found),
        why="" if found else _why(request, operations, bases),
        variables=tuple(v for v in variables if v.state or v.set_by))


def _variable(team: TeamCollection, request: TeamRequest, name: str) -> Variable:
    state = ""
    if name in request.empty:
        state = "empty"
    elif name in request.unresolved:
        state = "dynamic" if name.startswith("$") else "unknown"
    return Variable(name, state, team.setter(name) or "" if name in request.script_set else "")


def _greedy(found: Match | None) -> str:
    if found is None or found.greedy is None:
        return ""
    value = dict(found.params)[found.greedy]
    why = "its schema allows slashes" if found.hinted else "no template matched it otherwise"
    return f"{found.greedy} takes {value.count('/') + 1} segments ({why})"


def _why(request: TeamRequest, operations: Sequence[Operation], bases: Sequence[str]) -> str:
    """Why `request` calls no operation: only another method matches, only another base URL would, or nothing."""
    url, method = request.match_url, request.method
    segments = url_segments(url)
    shown = "/" + "/".join(segments)
    methods = sorted({o.method.upper() for o in operations} - {method})
    others = [found for m in methods if (found := find_match(m, url, operations, bases))]
    if others:
        paths = ", ".join(sorted({f"{o.operation.method} {o.operation.path}" for o in others}))
        return f"method differs: no {method} operation matches {shown}; the spec has {paths}"
    tried = ", ".join(dict.fromkeys(b for b in bases if b.strip())) or "none"
    for cut in range(1, len(segments)):
        other = best_match(method, segments[cut:], operations)
        if other is not None:
            base = split_origin(url)[0] + "/" + "/".join(segments[:cut])
            return (f"matches {other[0].method} {other[0].path} only with a base URL {base} (base URLs tried: "
                    f"{tried}; give it with --base-url or in the spec's servers)")
    return f"no template matched: no path of the spec matches {shown} (base URLs tried: {tried})"


def explain_text(team: TeamCollection, items: Sequence[Explained], spec_source: str,
                 native: Mapping[str, str] | None = None) -> str:
    """The report, one block per request; `native`: by request id, why the native runner does not send it."""
    tied = sum(1 for i in items if i.calls)
    lines = [f"{team.name} ({team.source}): {len(items)} request(s), {tied} tied to an operation of {spec_source}"]
    for item in items:
        lines += ["", item.label, f"  {item.method} {item.url}"]
        if item.calls:
            lines.append(f"  calls {item.calls}" + (f" (base path {item.base} stripped)" if item.base else ""))
        else:
            lines.append(f"  calls no operation: {item.why}")
        if item.params:
            lines.append("  path parameters: " + ", ".join(f"{k}={v}" for k, v in item.params)
                         + (f"; {item.greedy}" if item.greedy else ""))
        for variable in item.variables:
            said = [variable.state] if variable.state else []
            said += [f"set by a script of {variable.set_by}"] if variable.set_by else []
            lines.append(f"  variable {{{{{variable.name}}}}}: {', '.join(said)}")
        if native and item.id in native:
            lines.append(f"  native runner: not sent: {native[item.id]}")
    return "\n".join(lines) + "\n"


def explain_json(team: TeamCollection, items: Sequence[Explained], spec_source: str,
                 native: Mapping[str, str] | None = None) -> str:
    """The report as JSON (keys sorted, deterministic)."""
    requests = [{**asdict(i), "params": [list(p) for p in i.params],
                 "native_unsent": (native or {}).get(i.id)} for i in items]
    data = {"collection": team.source, "name": team.name, "spec": spec_source, "requests": requests}
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
