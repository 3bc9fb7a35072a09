"""A Postman collection (format v2.1) that sends sample requests and asserts the enabled oracles.

`build_collection` is pure: the same spec, oracles, base URL and null-like set give the same
`Collection`, and `Collection.to_json()` the same text. One folder per operation that has a 2XX JSON
response, one or more requests in it (samples.py), `{{baseUrl}}` as a collection variable, credentials
as `{{SATORI_AUTH_...}}` variables whose values the runners take from the environment at run time.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from satori_ci.oracles.model import Oracle
from satori_ci.plan.model import SAFE_METHODS, PlannedOperation, RequestPlan, Skip, SkipKind, matches
from satori_ci.plan.samples import AuthParam, SampleRequest, auth_entry, auth_params, describe, sample_requests
from satori_ci.postman.checker_js import CHECKER_JS, segments_json
from satori_ci.postman.script import CHECKER_VARIABLE, build_prerequest_script, build_test_script
from satori_ci.postman.team import TeamCollection, TeamRequest, assertify, match_request
from satori_ci.spec.model import Operation, OperationKey, Spec
from satori_ci.spec.paths import FieldPathError, parse

SCHEMA_URL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
BASE_URL_VARIABLE = "baseUrl"
DEFAULT_BASE_URL = "http://localhost"
_ID_NAMESPACE = uuid.UUID("5a7e1c2d-8b4f-4c2e-9a61-0d3f6b8e4a10")
_PATH_SAFE = "-._~!$&'()*+,;=:@%"
_VARIABLE_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_TEMPLATE_PART = re.compile(r"\{([^{}/]+)\}")


@dataclass(frozen=True)
class PathPart:
    """One path segment: literal (encoded) text, or a whole-segment path variable `:name`."""

    text: str
    variable: str | None = None


@dataclass(frozen=True)
class HarvestStep:
    """After a 2XX JSON response: fill the slots of a consumer's chain (see `satori_ci.plan.model.Chain`)."""

    target: str
    paths: tuple[str, ...]
    limit: int
    carry: tuple[str, ...]
    """This request's own values (templates) of the parameters the consumer carries over, in slot order."""

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "paths": [segments_json(p) for p in self.paths], "limit": self.limit,
                "carry": list(self.carry)}


@dataclass(frozen=True)
class RequestItem:
    """One request of a folder, with its test script and what the runners need to read its results."""

    id: str
    name: str
    method: str
    path: str
    """The operation's path template, as in the spec."""
    operation_id: str | None
    statuses: tuple[str, ...]
    """The 2XX statuses with a JSON body: any other status is reported, not checked."""
    oracles: tuple[tuple[str, tuple[Oracle, ...]], ...]
    """The enabled oracles by status, in the order of `statuses`; a finding's index points into these."""
    sample: SampleRequest
    parts: tuple[PathPart, ...]
    auth: tuple[AuthParam, ...]
    null_like: tuple[str, ...]
    """Strings skipped as "no value" when checking (the spec's null-like set)."""
    script: tuple[str, ...]
    extra_headers: tuple[tuple[str, str], ...] = ()
    """Headers added by the runner for every request (values are `{{variable}}` references); they replace
    headers of the same name."""
    requires: tuple[str, ...] = ()
    """Chain variables that must be set (by earlier responses) for this request to be sent."""
    skip_reason: str = ""
    """Why it is not sent when one of `requires` is unset."""
    harvests: tuple[HarvestStep, ...] = ()
    prerequest: tuple[str, ...] = ()
    team: TeamRequest | None = None
    """The team collection's request this item is (its URL, headers, body and auth are sent as written)."""
    observed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The fields whose values a 2XX JSON response is summarized for (`satori_ci.observe`), by status."""

    @property
    def body(self) -> str | None:
        return self.team.body if self.team is not None else self.sample.body

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    def status_key(self, code: int) -> str | None:
        """The response (of `statuses`) a status code belongs to: `200`, or a range like `2XX`; else None."""
        return match_status(str(code), self.statuses)

    def oracles_for(self, status: str) -> tuple[Oracle, ...]:
        return next((found for s, found in self.oracles if s == status), ())

    def observed_for(self, status: str) -> tuple[str, ...]:
        return next((found for s, found in self.observed if s == status), ())

    def operation_key(self, status: str) -> OperationKey:
        return OperationKey(self.method, self.path, status)

    def url(self, base_url: str, variables: Mapping[str, str] | None = None) -> str:
        """The URL the request goes to (what Postman sends once `{{baseUrl}}` and the variables are set)."""
        known = variables or {}
        if self.team is not None:
            return substitute(self.team.prepared()[0], known)
        values = dict(self.sample.path_params)
        path = "/".join(substitute(values.get(p.variable, ""), known) if p.variable else p.text for p in self.parts)
        query = [*self.sample.query, *self._auth_query(known)]
        text = base_url.rstrip("/") + ("/" + path if self.parts else "")
        return text + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")

    def _auth_query(self, variables: Mapping[str, str]) -> list[tuple[str, str]]:
        out = []
        for param in self.auth:
            if param.location == "query":
                key, value = auth_entry(param)
                out.append((key, substitute(value, variables)))
        return out

    def header_templates(self) -> tuple[tuple[str, str], ...]:
        """Headers as the collection writes them (auth values as `{{variable}}` references)."""
        headers = list(self.sample.headers)
        cookies = [f"{p.name}={{{{{p.variable}}}}}" for p in self.auth if p.location == "cookie"]
        for param in self.auth:
            if param.location == "header":
                headers.append(auth_entry(param))
        if cookies:
            existing = next((i for i, (k, _) in enumerate(headers) if k == "Cookie"), None)
            if existing is None:
                headers.append(("Cookie", "; ".join(cookies)))
            else:
                headers[existing] = ("Cookie", "; ".join([headers[existing][1], *cookies]))
        if self.extra_headers:
            replaced = {k.lower() for k, _ in self.extra_headers}
            headers = [h for h in headers if h[0].lower() not in replaced] + list(self.extra_headers)
        return tuple(headers)

    def headers(self, variables: Mapping[str, str]) -> list[tuple[str, str]]:
        """Headers with the variables substituted (what Postman sends)."""
        if self.team is not None:
            own = list(self.team.prepared()[1])
            replaced = {k.lower() for k, _ in self.extra_headers}
            own = [h for h in own if h[0].lower() not in replaced] + list(self.extra_headers)
            return [(k, substitute(v, variables)) for k, v in own]
        return [(k, substitute(v, variables)) for k, v in self.header_templates()]

    def to_dict(self) -> dict[str, Any]:
        values = dict(self.sample.path_params)
        query = [*self.sample.query, *((k, v) for k, v in (auth_entry(p) for p in self.auth if p.location == "query"))]
        path = [f":{p.variable}" if p.variable else p.text for p in self.parts]
        raw = "{{" + BASE_URL_VARIABLE + "}}" + ("/" + "/".join(path) if path else "")
        if query:
            raw += "?" + "&".join(f"{k}={v}" for k, v in query)
        url: dict[str, Any] = {"raw": raw, "host": ["{{" + BASE_URL_VARIABLE + "}}"], "path": path}
        if query:
            url["query"] = [{"key": k, "value": v} for k, v in query]
        variables = [{"key": p.variable, "value": values.get(p.variable, "")} for p in self.parts if p.variable]
        if variables:
            url["variable"] = variables
        request: dict[str, Any] = {
            "method": self.method,
            "header": [{"key": k, "value": v} for k, v in self.header_templates()],
            "url": url,
        }
        if self.sample.body is not None:
            request["body"] = {"mode": "raw", "raw": self.sample.body, "options": {"raw": {"language": "json"}}}
        events = [{"listen": "test", "script": {"type": "text/javascript", "exec": list(self.script)}}]
        if self.prerequest:
            events.insert(0, {"listen": "prerequest", "script": {"type": "text/javascript",
                                                                 "exec": list(self.prerequest)}})
        return {"id": self.id, "name": self.name, "request": request, "response": [], "event": events}


@dataclass(frozen=True)
class Folder:
    name: str
    description: str
    items: tuple[RequestItem, ...]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        out["item"] = [item.to_dict() for item in self.items]
        return out


@dataclass(frozen=True)
class Collection:
    """The collection value; `to_json()` is its file."""

    name: str
    description: str
    base_url: str
    null_like: tuple[str, ...]
    folders: tuple[Folder, ...]
    notes: tuple[str, ...] = ()
    """What could not be put in the collection (oracles without an operation, unsupported auth...)."""
    skipped: tuple[Skip, ...] = ()
    """Operations the plan does not send, and why."""
    oracle_counts: tuple[tuple[str, int], ...] = ()
    """`METHOD /path` -> enabled oracles, for every operation with oracles (sent or not)."""
    header_variables: tuple[str, ...] = ()
    """Variables the extra headers read (declared empty in the file: values are never written)."""
    team: TeamCollection | None = None
    """The team's own collection: its matched requests (first folder) carry the assertions; the file is theirs
    with the test scripts added, then the generated requests of the operations it does not call."""
    team_removed: tuple[str, ...] = ()
    """Ids of team requests left out of the run (non-safe methods not opted in)."""
    chain_seeds: tuple[tuple[str, str], ...] = ()
    """Chain variables set before the run: slot 0 of a consumer holds the spec's example until a list fills it."""
    whole_auth: tuple[AuthParam, ...] | None = None
    """A shard's slice (`only`): the credential variables of the whole collection, so that the run's notes and
    the credential headers it names are those of the whole run."""

    def items(self) -> Iterator[RequestItem]:
        for folder in self.folders:
            yield from folder.items

    def item(self, item_id: str) -> RequestItem | None:
        return next((i for i in self.items() if i.id == item_id), None)

    @property
    def auth_variables(self) -> tuple[AuthParam, ...]:
        if self.whole_auth is not None:
            return self.whole_auth
        seen: dict[str, AuthParam] = {}
        for item in self.items():
            for param in item.auth:
                seen.setdefault(param.variable, param)
        return tuple(seen[k] for k in sorted(seen))

    def subset(self, copies: Iterable[tuple[str, str]]) -> Collection:
        """A collection of copies of some requests, each under a new id: (original id, new id) pairs."""
        by_id = {i.id: i for i in self.items()}
        chosen = [replace(by_id[old], id=new) for old, new in copies]
        return replace(self, folders=(Folder("retry", "", tuple(chosen)),), notes=(), skipped=())

    def only(self, own: frozenset[str], support: frozenset[str]) -> Collection:
        """A shard's slice (`satori_ci.plan.shards`): the requests of the `own` operations as they are, those of
        the `support` operations (producers of chained ids) without their assertions nor observed fields (sent
        for their values only), no others. Notes, skips, oracle counts, chain seeds and credential variables stay
        the whole collection's."""
        if self.team is not None:
            raise ValueError("a collection with a team collection is not sliced")
        folders = []
        for folder in self.folders:
            items = tuple(i if i.label in own else _support_item(i) for i in folder.items
                          if i.label in own or i.label in support)
            if items:
                folders.append(replace(folder, items=items))
        return replace(self, folders=tuple(folders), whole_auth=self.auth_variables)

    def with_headers(self, headers: Sequence[tuple[str, str]], variables: Sequence[str] = ()) -> Collection:
        """Every request also sends these (header, `{{variable}}` template) pairs, replacing same-named ones;
        `variables` are declared (empty, secret) in the collection for a user to set."""
        if not headers:
            return self
        extra = tuple(headers)
        folders = tuple(replace(f, items=tuple(replace(i, extra_headers=extra) for i in f.items))
                        for f in self.folders)
        return replace(self, folders=folders, header_variables=tuple(dict.fromkeys(variables)))

    def merged(self, others: Sequence[Collection], name: str | None = None) -> Collection:
        """One collection holding the folders of several (e.g. specs served side by side by one server)."""
        everything = (self, *others)
        folders: list[Folder] = []
        seen: set[str] = set()
        for n, collection in enumerate(everything):
            for folder in collection.folders:
                items = tuple(i if i.id not in seen else replace(i, id=str(uuid.uuid5(_ID_NAMESPACE, f"{n}:{i.id}")))
                              for i in folder.items)
                seen.update(i.id for i in items)
                folders.append(replace(folder, items=items))
        return replace(self, name=name or self.name, folders=tuple(folders),
                       notes=tuple(n for c in everything for n in c.notes),
                       skipped=tuple(k for c in everything for k in c.skipped),
                       oracle_counts=tuple(k for c in everything for k in c.oracle_counts),
                       chain_seeds=tuple(k for c in everything for k in c.chain_seeds))

    def to_dict(self) -> dict[str, Any]:
        if self.team is not None:
            return self._team_dict(self.team)
        variables: list[dict[str, Any]] = [
            {"key": BASE_URL_VARIABLE, "value": self.base_url, "type": "string",
             "description": "Where the API under test runs (satori-ci run --base-url sets it)."},
            {"key": CHECKER_VARIABLE, "value": CHECKER_JS, "type": "string",
             "description": "satori-ci's response checker; the test scripts evaluate it."},
        ]
        variables.extend({"key": name, "value": value, "type": "string"} for name, value in self.chain_seeds)
        for name in self.header_variables:
            variables.append({"key": name, "value": "", "type": "secret",
                              "description": "A header value: set it in your environment; never stored here."})
        for param in self.auth_variables:
            variables.append({
                "key": param.variable, "value": "", "type": "secret",
                "description": f"Set from the environment variable {param.variable} at run time; never stored here.",
            })
        return {
            "info": {"_postman_id": str(uuid.uuid5(_ID_NAMESPACE, self.name)), "name": self.name,
                     "description": self.description, "schema": SCHEMA_URL},
            "item": [folder.to_dict() for folder in self.folders],
            "variable": variables,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    def _team_dict(self, team: TeamCollection) -> dict[str, Any]:
        """The team's collection with the assertions added, what it must not send removed, and the generated
        requests (operations it does not call) in a folder of their own at the end."""
        own = [i for i in self.items() if i.team is not None]
        generated = [Folder(f.name, f.description, tuple(i for i in f.items if i.team is None)) for f in self.folders]
        variables = [(CHECKER_VARIABLE, CHECKER_JS), *self.chain_seeds]
        defined = {k for k, _ in (*team.variables, *team.environment)}
        if any(f.items for f in generated) and BASE_URL_VARIABLE not in defined:
            variables.append((BASE_URL_VARIABLE, self.base_url))
        out = assertify(team, {i.id: i.script for i in own}, variables)
        _drop_items(out, set(self.team_removed))
        extra = own[0].extra_headers if own else ()
        if extra:
            _add_headers(out, {i.id for i in own}, extra)
        folders = [f.to_dict() for f in generated if f.items]
        if folders:
            out["item"].append({"name": "satori-ci: operations this collection does not call", "item": folders})
        return out


def _support_item(item: RequestItem) -> RequestItem:
    """The request sent only for the values it gives to a chain: no oracle, no observed field."""
    empty: dict[str, tuple[Oracle, ...]] = {status: () for status in item.statuses}
    script = build_test_script(item.label, item.statuses, dict(empty), item.null_like,
                               [h.to_json() for h in item.harvests], item.requires, {})
    return replace(item, oracles=tuple(empty.items()), script=script, observed=())


def _drop_items(raw: dict[str, Any], ids: set[str]) -> None:
    """Remove the request items with these ids from a collection's item tree."""
    if not ids:
        return

    def walk(items: list[Any]) -> list[Any]:
        kept = []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("item"), list):
                item["item"] = walk(item["item"])
            if isinstance(item, dict) and item.get("id") in ids:
                continue
            kept.append(item)
        return kept

    raw["item"] = walk(raw["item"])


def _add_headers(raw: dict[str, Any], ids: set[str], headers: Sequence[tuple[str, str]]) -> None:
    """Every request item with one of `ids` also sends `headers` (replacing same-named ones)."""
    names = {k.lower() for k, _ in headers}

    def walk(items: list[Any]) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("item"), list):
                walk(item["item"])
            request = item.get("request")
            if item.get("id") in ids and isinstance(request, dict):
                found = request.get("header")
                existing: list[Any] = found if isinstance(found, list) else []
                kept = [h for h in existing if not (isinstance(h, dict) and str(h.get("key", "")).lower() in names)]
                request["header"] = [*kept, *({"key": k, "value": v} for k, v in headers)]

    walk(raw["item"])


def match_status(code: str, statuses: Sequence[str]) -> str | None:
    """`code` itself when it is one of `statuses`, else the range (`2XX`) among them that holds it."""
    if code in statuses:
        return code
    return next((s for s in statuses if len(code) == 3 and s.upper() == code[0] + "XX"), None)


def substitute(template: str, variables: Mapping[str, str]) -> str:
    """`{{name}}` replaced by its value; unknown names are left as they are (as Postman does)."""
    return re.sub(r"\{\{([^{}]+)\}\}", lambda m: variables.get(m.group(1), m.group(0)), template)


def path_parts(template: str) -> tuple[PathPart, ...]:
    """The template's segments: `{name}` alone in a segment becomes `:name`, other text is encoded."""
    parts: list[PathPart] = []
    stripped = template.strip("/")
    segments = stripped.split("/") if stripped else []
    for segment in segments:
        whole = _TEMPLATE_PART.fullmatch(segment)
        if whole and _VARIABLE_NAME.match(whole.group(1)):
            parts.append(PathPart("", whole.group(1)))
            continue
        pieces = _TEMPLATE_PART.split(segment)
        literal = [quote(p, safe=_PATH_SAFE) if i % 2 == 0 else "{" + p + "}" for i, p in enumerate(pieces)]
        text = "".join(literal)
        if text.startswith(":"):
            text = "%3A" + text[1:]
        parts.append(PathPart(text))
    if template.endswith("/"):
        parts.append(PathPart(""))
    return tuple(parts)


def _fill_inline(parts: tuple[PathPart, ...], sample: SampleRequest) -> tuple[PathPart, ...]:
    """Path values that share a segment with other text are written into it (Postman variables are whole)."""
    values = dict(sample.path_params)
    return tuple(
        p if p.variable else PathPart(_TEMPLATE_PART.sub(lambda m: values.get(m.group(1), m.group(0)), p.text))
        for p in parts
    )


def _item_name(operation: Operation, sample: SampleRequest) -> str:
    text = unquote("".join(describe(operation.path, sample)))
    text = text.replace("\n", " ")
    return f"{operation.method} {text if len(text) <= 120 else text[:119] + '…'}"


def _item_id(title: str, operation: Operation, index: int) -> str:
    seed = f"{title}\n{operation.operation_id or ''}\n{operation.method} {operation.path} #{index}"
    return str(uuid.uuid5(_ID_NAMESPACE, seed))


def _harvest_steps(planned: PlannedOperation | None, sample: SampleRequest) -> tuple[HarvestStep, ...]:
    if planned is None:
        return ()
    own = dict(sample.path_params)
    return tuple(HarvestStep(h.chain.target, h.paths, h.chain.limit,
                             tuple(own.get(theirs, "") for _, theirs in h.carry)) for h in planned.harvests)


def _samples(spec: Spec, operation: Operation, planned: PlannedOperation | None
             ) -> list[tuple[SampleRequest, tuple[str, ...], str]]:
    """(request, variables it requires, why it is not sent without them) for every request of the operation."""
    if planned is None:
        return [(sample, (), "") for sample in sample_requests(spec, operation)]
    values = dict(planned.values)
    chain = planned.chain
    if chain is None:
        return [(sample, (), "") for sample in sample_requests(spec, operation, values)]
    out = []
    for slot in range(chain.limit):
        names = tuple(chain.variable(slot, i) for i in range(len(chain.params)))
        chained = {p: "{{" + n + "}}" for p, n in zip(chain.params, names, strict=True)}
        sample = sample_requests(spec, operation, values, chained)[0]
        reason = (f"no input for {{{chain.params[-1]}}}: {chain.producer} gave no value" if slot == 0 else
                  f"{chain.producer} gave fewer than {slot + 1} values")
        out.append((sample, names, reason))
    return out


def build_collection(spec: Spec, oracles: Sequence[Oracle], base_url: str | None = None,
                     null_like: Sequence[str] = (), plan: RequestPlan | None = None,
                     team: TeamCollection | None = None, team_unsafe: Sequence[str] = (),
                     observe: Mapping[OperationKey, Sequence[str]] | None = None,
                     scripts_for: AbstractSet[str] | None = None) -> Collection:
    """The collection for the operations the plan sends (without a plan: every operation with a 2XX JSON
    response, in spec order); only enabled oracles are asserted. With the team's own collection, its requests
    that call a spec operation carry that operation's assertions (and feed chaining), and the plan's requests
    remain for the operations it does not call; its non-safe requests run only when `team_unsafe` opts them in.
    `observe`: the fields whose values each 2XX JSON response is summarized for, by operation and status (the
    runners feed the summaries to the observation store). `scripts_for`: only the requests of these operations
    (`METHOD /path`) get their test scripts, the others none (a shard's slice, see `Collection.only`: the rest
    of the collection is what the whole one is)."""
    def observed_of(method: str, path: str, statuses: Sequence[str]) -> dict[str, Sequence[str]]:
        found = {st: tuple((observe or {}).get(OperationKey(method, path, st), ())) for st in statuses}
        return {st: fields for st, fields in found.items() if fields}

    by_operation: dict[tuple[str, str], dict[str, list[Oracle]]] = {}
    notes: list[str] = []
    for oracle in oracles:
        if not oracle.enabled:
            continue
        try:
            parse(oracle.field)
        except FieldPathError as exc:
            notes.append(f"{oracle.operation}: {exc}; its {oracle.kind.value} oracle is not checked")
            continue
        key = (oracle.operation.method, oracle.operation.path)
        by_operation.setdefault(key, {}).setdefault(oracle.operation.status, []).append(oracle)
    counts = tuple((f"{m} {p}", sum(len(v) for v in found.values()))
                   for (m, p), found in by_operation.items())
    folders: list[Folder] = []
    nulls = tuple(null_like)
    base = base_url or next((s for s in spec.servers if s.startswith(("http://", "https://"))), DEFAULT_BASE_URL)
    planned_by_key = {(p.operation.method, p.operation.path): p for p in plan.operations} if plan else {}
    calls, removed, team_skips = _team_calls(spec, team, base, team_unsafe) if team else ({}, (), ())
    skipped = tuple(k for k in (plan.skipped if plan else ()) if (k.method, k.path) not in calls
                    or k.kind is SkipKind.IGNORED) + team_skips
    ignored = {(k.method, k.path) for k in skipped if k.kind is SkipKind.IGNORED}
    operations = [p.operation for p in plan.operations] if plan else list(spec.operations)
    skipped_keys = {(k.method, k.path) for k in skipped}
    for operation in spec.operations:
        key = (operation.method, operation.path)
        if key in skipped_keys and (key not in calls or key in ignored):
            by_operation.pop(key, None)
    team_items: list[RequestItem] = []
    if team is not None:
        for (method, path), found_calls in calls.items():
            if (method, path) in ignored:
                continue
            operation = next(o for o in spec.operations if o.method == method and o.path == path)
            if not operation.statuses:
                continue
            found = by_operation.get((method, path), {})
            by_status = {st: tuple(found.get(st, ())) for st in operation.statuses}
            planned = planned_by_key.get((method, path))
            observed = observed_of(method, path, operation.statuses)
            for request, params in found_calls:
                sample = SampleRequest(tuple((k, quote(v, safe="")) for k, v in params), (), (), None, None)
                steps = _harvest_steps(planned, sample)
                script = build_test_script(f"{method} {path}", operation.statuses, dict(by_status), nulls,
                                           [h.to_json() for h in steps], observed=observed)
                team_items.append(RequestItem(
                    id=request.id, name=request.label, method=method, path=path,
                    operation_id=operation.operation_id, statuses=operation.statuses,
                    oracles=tuple(by_status.items()), sample=sample, parts=(), auth=(), null_like=nulls,
                    script=script, harvests=steps, team=request,
                    observed=tuple((st, tuple(f)) for st, f in observed.items())))
        team_items.sort(key=lambda i: [r.id for r in team.requests].index(i.id))
        if team_items:
            folders.append(Folder(f"{team.name} (team collection)", "", tuple(team_items)))
        for key in calls:
            by_operation.pop(key, None)
    for operation in operations:
        if (operation.method, operation.path) in calls:
            continue
        found = by_operation.pop((operation.method, operation.path), {})
        if not operation.statuses:
            if found:
                notes.append(f"{operation.method} {operation.path}: no 2XX JSON response in the spec; "
                             f"its {sum(len(v) for v in found.values())} oracle(s) are not checked")
            continue
        for status in sorted(set(found) - set(operation.statuses)):
            notes.append(f"{operation.method} {operation.path} {status}: no such JSON response in the spec; "
                         f"{len(found[status])} oracle(s) not checked")
        by_status = {s: tuple(found.get(s, ())) for s in operation.statuses}
        auth, auth_notes = auth_params(spec, operation)
        notes.extend(f"{operation.method} {operation.path}: {n}" for n in auth_notes)
        label = f"{operation.method} {operation.path}"
        parts = path_parts(operation.path)
        planned = planned_by_key.get((operation.method, operation.path))
        items = []
        observed = observed_of(operation.method, operation.path, operation.statuses)
        for k, (sample, requires, reason) in enumerate(_samples(spec, operation, planned)):
            steps = _harvest_steps(planned, sample)
            script = build_test_script(label, operation.statuses, dict(by_status), nulls,
                                       [h.to_json() for h in steps], requires, observed) \
                if scripts_for is None or label in scripts_for else ()
            items.append(RequestItem(
                id=_item_id(spec.title, operation, k), name=_item_name(operation, sample), method=operation.method,
                path=operation.path, operation_id=operation.operation_id, statuses=operation.statuses,
                oracles=tuple(by_status.items()), sample=sample, parts=_fill_inline(parts, sample), auth=auth,
                null_like=nulls, script=script, requires=requires, skip_reason=reason, harvests=steps,
                prerequest=build_prerequest_script(requires, reason) if requires else (),
                observed=tuple((st, tuple(f)) for st, f in observed.items()),
            ))
        description = "\n\n".join(x for x in (operation.summary, operation.operation_id and
                                              f"operationId: {operation.operation_id}") if x)
        folders.append(Folder(label, description, tuple(items)))
    in_spec = {(o.method, o.path) for o in spec.operations}
    for (method, path), left in sorted(by_operation.items()):
        where = "no 2XX JSON response in the spec" if (method, path) in in_spec else "not in the spec"
        notes.append(f"{method} {path}: {where}; its {sum(len(v) for v in left.values())} oracle(s) "
                     "are not checked")
    description = (f"Generated by satori-ci from {spec.source}: sample requests and the enabled oracles of "
                   "its oracle file. Set baseUrl to the server under test; credentials come from "
                   "SATORI_AUTH_* environment variables at run time.")
    return Collection(name=f"{spec.title or spec.source} (satori-ci)", description=description,
                      base_url=base.rstrip("/"), null_like=nulls, folders=tuple(folders), notes=tuple(notes),
                      skipped=skipped, oracle_counts=counts, team=team, team_removed=removed,
                      chain_seeds=tuple((p.chain.variable(0, i), value) for p in (plan.operations if plan else ())
                                        if p.chain is not None for i, value in enumerate(p.chain.seed)))


TeamCalls = dict[tuple[str, str], list[tuple[TeamRequest, tuple[tuple[str, str], ...]]]]


def _team_calls(spec: Spec, team: TeamCollection, base_url: str, unsafe: Sequence[str]
                ) -> tuple[TeamCalls, tuple[str, ...], tuple[Skip, ...]]:
    """The team requests that call a spec operation (by operation), the ids of those left out (non-safe, not
    opted in), and why they are left out."""
    bases = [base_url, *spec.servers]
    calls: TeamCalls = {}
    removed: list[str] = []
    skips: list[Skip] = []
    for request in team.requests:
        found = match_request(request, spec.operations, bases)
        path = found[0].path if found else (urlsplit(request.url).path or "/")
        if request.method not in SAFE_METHODS and not matches(tuple(unsafe), request.method, path):
            removed.append(request.id)
            skips.append(Skip(request.method, path, SkipKind.UNSAFE_METHOD,
                              f"{request.label} in {team.source}: not a safe method: opt in with requests: "
                              f"unsafe: [\"{request.method} {path}\"]"))
            continue
        if found is not None:
            operation, params = found
            calls.setdefault((operation.method, operation.path), []).append((request, params))
    return calls, tuple(removed), tuple(skips)
