"""A `RequestSet` exported as a Postman collection (format v2.1) that sends its requests and asserts their oracles.

Pure: the same request set (and team collection, headers) gives the same dict, and `collection_json` the same text.
One folder per group, `{{baseUrl}}` as a collection variable, credentials as `{{SATORI_AUTH_...}}` variables whose
values the runners take from the environment at run time, one test script per request (`script`: the checker in
JavaScript and the request's oracles) and a pre-request script for a request that waits for chained values. With the
team's own collection, the file is theirs with the test scripts added, then the requests of the operations it does
not call. Header values are never written: a header is `{{variable}}` (`header_variables` for a run's headers).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from satori_ci.plan.requests import ID_NAMESPACE, HarvestStep, PlannedRequest, RequestGroup, RequestSet
from satori_ci.postman.assertify import assertify
from satori_ci.postman.borrow import written_auth
from satori_ci.postman.checker_js import CHECKER_JS, segments_json
from satori_ci.postman.read import BASE_URL_VARIABLE as BASE_URL_VARIABLE
from satori_ci.postman.read import TeamCollection
from satori_ci.postman.script import CHECKER_VARIABLE, build_prerequest_script, build_test_script

SCHEMA_URL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
EXTRA_HEADER_PREFIX = "SATORI_HEADER_"
"""The variables a run's own headers are read from (`header_variables`)."""
TEAM_FOLDER = "satori-ci: operations this collection does not call"

Pairs = tuple[tuple[str, str], ...]


def header_variables(headers: Pairs) -> tuple[Pairs, dict[str, str]]:
    """A run's headers as a collection carries them: (header, `{{SATORI_HEADER_n}}`) pairs, and the variables'
    values (for the run's environment, never for the file)."""
    templates = []
    values = {}
    for n, (header, value) in enumerate(headers, start=1):
        name = f"{EXTRA_HEADER_PREFIX}{n}"
        templates.append((header, "{{" + name + "}}"))
        values[name] = value
    return tuple(templates), values


def _harvest_json(step: HarvestStep) -> dict[str, Any]:
    return {"target": step.target, "paths": [segments_json(p) for p in step.paths], "limit": step.limit,
            "carry": list(step.carry)}


def script_for(request: PlannedRequest) -> tuple[str, ...]:
    """The lines of the request's test script: its status, its body, one `pm.test` per oracle."""
    return build_test_script(request.label, request.statuses, dict(request.oracles), request.null_like,
                             [_harvest_json(h) for h in request.harvests], request.requires, dict(request.observed))


def _request_dict(request: PlannedRequest, headers: Pairs) -> dict[str, Any]:
    values = dict(request.sample.path_params)
    query = request.query()
    path = [f":{p.variable}" if p.variable else p.text for p in request.parts]
    raw = "{{" + BASE_URL_VARIABLE + "}}" + ("/" + "/".join(path) if path else "")
    if query:
        raw += "?" + "&".join(f"{k}={v}" for k, v in query)
    url: dict[str, Any] = {"raw": raw, "host": ["{{" + BASE_URL_VARIABLE + "}}"], "path": path}
    if query:
        url["query"] = [{"key": k, "value": v} for k, v in query]
    variables = [{"key": p.variable, "value": values.get(p.variable, "")} for p in request.parts if p.variable]
    if variables:
        url["variable"] = variables
    sent: dict[str, Any] = {
        "method": request.method,
        "header": [{"key": k, "value": v} for k, v in request.header_templates(headers)],
        "url": url,
    }
    if request.sample.body is not None:
        sent["body"] = {"mode": "raw", "raw": request.sample.body, "options": {"raw": {"language": "json"}}}
    events = [{"listen": "test", "script": {"type": "text/javascript", "exec": list(script_for(request))}}]
    if request.requires:
        prerequest = build_prerequest_script(request.requires, request.skip_reason)
        events.insert(0, {"listen": "prerequest", "script": {"type": "text/javascript", "exec": list(prerequest)}})
    return {"id": request.id, "name": request.name, "request": sent, "response": [], "event": events}


def _folder_dict(group: RequestGroup, requests: Sequence[PlannedRequest], headers: Pairs) -> dict[str, Any]:
    out: dict[str, Any] = {"name": group.name}
    if group.description:
        out["description"] = group.description
    out["item"] = [_request_dict(r, headers) for r in requests]
    return out


def collection_dict(requests: RequestSet, team: TeamCollection | None = None, headers: Pairs = (),
                    variables: Sequence[str] = (), unset: Collection[str] | None = None) -> dict[str, Any]:
    """The collection: `team` is the collection the set's given requests come from (required with them);
    `headers` are (header, `{{variable}}` template) pairs every request sends, replacing same-named ones (but the
    team's own); `variables` are declared (empty, secret) for a user to set; `unset` (with `team`): the
    credential variables without a value (None: all of them), where satori-ci's own requests borrow the team's auth."""
    if requests.given is not None:
        if team is None or team.source != requests.given.source:
            raise ValueError("the team collection the requests come from is needed to export them")
        return _team_dict(requests, team, headers, unset)
    declared: list[dict[str, Any]] = [
        {"key": BASE_URL_VARIABLE, "value": requests.base_url, "type": "string",
         "description": "Where the API under test runs (satori-ci run --base-url sets it)."},
        {"key": CHECKER_VARIABLE, "value": CHECKER_JS, "type": "string",
         "description": "satori-ci's response checker; the test scripts evaluate it."},
    ]
    declared.extend({"key": name, "value": value, "type": "string"} for name, value in requests.chain_seeds)
    for name in (dict.fromkeys(variables) if headers else ()):
        declared.append({"key": name, "value": "", "type": "secret",
                         "description": "A header value: set it in your environment; never stored here."})
    for param in requests.auth_variables:
        declared.append({
            "key": param.variable, "value": "", "type": "secret",
            "description": f"Set from the environment variable {param.variable} at run time; never stored here.",
        })
    name = f"{requests.title} (satori-ci)"
    description = (f"Generated by satori-ci from {requests.source}: sample requests and the enabled oracles of "
                   "its oracle file. Set baseUrl to the server under test; credentials come from "
                   "SATORI_AUTH_* environment variables at run time.")
    return {
        "info": {"_postman_id": str(uuid.uuid5(ID_NAMESPACE, name)), "name": name, "description": description,
                 "schema": SCHEMA_URL},
        "item": [_folder_dict(g, g.requests, headers) for g in requests.groups],
        "variable": declared,
    }


def collection_json(requests: RequestSet, team: TeamCollection | None = None, headers: Pairs = (),
                    variables: Sequence[str] = (), unset: Collection[str] | None = None) -> str:
    """The collection's file (see `collection_dict`)."""
    return json.dumps(collection_dict(requests, team, headers, variables, unset), ensure_ascii=False,
                      indent=2) + "\n"


def _team_dict(requests: RequestSet, team: TeamCollection, headers: Pairs,
               unset: Collection[str] | None) -> dict[str, Any]:
    """The team's collection with the assertions added, what it must not send removed, and the generated
    requests (operations it does not call) in a folder of their own at the end, with the team's auth (`borrow`)
    where they send no credential of their own (`unset`: the credential variables without a value; None: all)."""
    own = [r for r in requests.requests() if r.given is not None]
    generated = [(g, tuple(r for r in g.requests if r.given is None)) for g in requests.groups]
    variables = [(CHECKER_VARIABLE, CHECKER_JS), *requests.chain_seeds]
    defined = {k for k, _ in (*team.variables, *team.environment)}
    if any(found for _, found in generated) and BASE_URL_VARIABLE not in defined:
        variables.append((BASE_URL_VARIABLE, requests.base_url))
    out = assertify(team, {r.id: script_for(r) for r in own}, variables)
    _drop_items(out, set(requests.left_out))
    if headers and requests.given is not None:  # every request of the team's (those calling no operation too)
        _add_headers(out, {g.id: {k.lower() for k, _ in g.headers} for g in requests.given.requests}, headers)
    folders = [_folder_dict(g, found, headers) for g, found in generated if found]
    if folders:
        folder: dict[str, Any] = {"name": TEAM_FOLDER, "item": folders}
        borrowed = requests.given.auth if requests.given is not None else ()
        auth, written = written_auth(team, borrowed)
        if auth is not None:
            folder["auth"] = auth
        own_ones = {r.id: r for _, found in generated for r in found}
        if unset is None:
            unset = frozenset(p.variable for p in requests.auth_variables)
        for item in (i for f in folders for i in f["item"]):
            _borrow(item, own_ones[item["id"]].sent_names(unset, headers), borrowed, written)
        out["item"].append(folder)
    return out


def _borrow(item: dict[str, Any], sent: frozenset[str], borrowed: Pairs, written: Pairs) -> None:
    """satori-ci's own request `item` sends the team's auth (`borrowed`) where it sends no header of that name itself
    (`sent`: the run's headers and its own credentials that have a value): the headers as the team wrote them
    (`written`) added, and the team's Postman auth (its folder's or the collection's) stopped where it would replace
    a header of its own."""
    request = item["request"]
    added = [(k, v) for k, v in written if k.lower() not in sent]
    if added:
        names = {k.lower() for k, _ in added}
        request["header"] = [*(h for h in request["header"] if h["key"].lower() not in names),
                             *({"key": k, "value": v} for k, v in added)]
    if ({k.lower() for k, _ in borrowed} - {k.lower() for k, _ in written}) & sent:
        request["auth"] = {"type": "noauth"}


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


def _add_headers(raw: dict[str, Any], sent: Mapping[str, set[str]], headers: Sequence[tuple[str, str]]) -> None:
    """Every request item whose id `sent` has also sends those of `headers` it does not send itself (`sent[id]`: the
    lower-case names of the headers it sends, its auth's included): the team's own are kept."""

    def walk(items: list[Any]) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("item"), list):
                walk(item["item"])
            request = item.get("request")
            own = sent.get(str(item.get("id")))
            if own is not None and isinstance(request, dict):
                found = request.get("header")
                existing: list[Any] = found if isinstance(found, list) else []
                added = [{"key": k, "value": v} for k, v in headers if k.lower() not in own]
                request["header"] = [*existing, *added]

    walk(raw["item"])
