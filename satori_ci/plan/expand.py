"""`build_requests`: a spec, its oracles and the plan expanded into the requests a run sends (pure).

The same spec, oracles, base URL, null-like set and plan give the same `RequestSet`. One group per operation that has
a 2XX JSON response, one or more requests in it (`samples`), credentials as `{{SATORI_AUTH_...}}` variables whose
values the runners take from the environment at run time. The team's own requests (`given`), when there are, come
first: those that call a spec operation carry its oracles, and the plan's requests remain for the operations they
do not call.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from urllib.parse import quote, unquote, urlsplit

from satori_ci.oracles.model import Oracle
from satori_ci.plan.auth import auth_params
from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.plan.model import (
    DEFAULT_CHAIN,
    SAFE_METHODS,
    Budget,
    PlannedOperation,
    RequestPlan,
    Skip,
    SkipKind,
    matches,
)
from satori_ci.plan.requests import (
    ID_NAMESPACE,
    ExploredOperation,
    HarvestStep,
    PlannedRequest,
    RequestGroup,
    RequestSet,
    path_parts,
)
from satori_ci.plan.samples import SampleRequest, describe, sample_requests
from satori_ci.spec.model import Operation, OperationKey, Spec
from satori_ci.spec.paths import FieldPathError, parse

DEFAULT_BASE_URL = "http://localhost"

ByStatus = dict[str, tuple[Oracle, ...]]


def base_url_for(spec: Spec, base_url: str | None = None) -> str:
    """The server requests go to: the one given, else the spec's first http(s) server, else `DEFAULT_BASE_URL`."""
    return base_url or next((s for s in spec.servers if s.startswith(("http://", "https://"))), DEFAULT_BASE_URL)


def _item_name(operation: Operation, sample: SampleRequest) -> str:
    text = unquote("".join(describe(operation.path, sample)))
    text = text.replace("\n", " ")
    return f"{operation.method} {text if len(text) <= 120 else text[:119] + '…'}"


def _item_id(title: str, operation: Operation, index: int) -> str:
    seed = f"{title}\n{operation.operation_id or ''}\n{operation.method} {operation.path} #{index}"
    return str(uuid.uuid5(ID_NAMESPACE, seed))


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
        unseeded = {i.name: i.variable for i in planned.inputs if not i.seeds}
        chained = {name: "{{" + variable + "}}" for name, variable in unseeded.items()}
        reason = (f"needs a value for {{{next(iter(unseeded))}}}: the runners find one on staging "
                  "(satori-ci run, check)") if unseeded else ""
        return [(sample, tuple(unseeded.values()), reason)
                for sample in sample_requests(spec, operation, values, chained)]
    out = []
    for slot in range(chain.limit):
        names = tuple(chain.variable(slot, i) for i in range(len(chain.params)))
        chained = {p: "{{" + n + "}}" for p, n in zip(chain.params, names, strict=True)}
        sample = sample_requests(spec, operation, values, chained)[0]
        reason = (f"no input for {{{chain.params[-1]}}}: {chain.producer} gave no value" if slot == 0 else
                  f"{chain.producer} gave fewer than {slot + 1} values")
        out.append((sample, names, reason))
    return out


def _optional_query(operation: Operation) -> tuple[str, ...]:
    return tuple(p.name for p in operation.parameters if p.location == "query" and not p.required)


GivenCalls = dict[tuple[str, str], list[GivenRequest]]
_PLACEHOLDER = re.compile(r"\{\{[^{}]+\}\}")


def _param_text(value: str) -> str:
    """A team request's path parameter as the requests fed from it carry it: percent-encoded, but a `{{variable}}`
    its scripts set kept as it is, for Newman to fill when it sends them."""
    return value if _PLACEHOLDER.fullmatch(value) else quote(value, safe="")
OraclesByOperation = dict[tuple[str, str], dict[str, list[Oracle]]]


def _given_calls(given: GivenRequests, unsafe: Sequence[str]) -> tuple[GivenCalls, tuple[str, ...], tuple[Skip, ...]]:
    """The team requests that call a spec operation (by operation), the ids of those left out (non-safe, not opted
    in), and why they are left out."""
    calls: GivenCalls = {}
    removed: list[str] = []
    skips: list[Skip] = []
    for request in given.requests:
        if request.method not in SAFE_METHODS and not matches(tuple(unsafe), request.method, request.path):
            removed.append(request.id)
            skips.append(Skip(request.method, request.path, SkipKind.UNSAFE_METHOD,
                              f"{request.label} in {given.source}: not a safe method: opt in with requests: "
                              f"unsafe: [\"{request.method} {request.path}\"]"))
            continue
        if request.calls is not None:
            calls.setdefault(request.calls, []).append(request)
    return calls, tuple(removed), tuple(skips)


def _elsewhere(given: GivenRequests, base_url: str) -> tuple[str, ...]:
    """A note on the team's requests written with a server of their own (a literal host, not `{{baseUrl}}`): they
    do not go to the base URL given."""
    found = [g.label for g in given.requests if _origin(g.url) not in (None, _origin(base_url))]
    if not found:
        return ()
    return (f"{len(found)} request(s) of {given.source} name a server of their own, not the base URL given: sent "
            f"there as written: {', '.join(found[:5])}{', ...' if len(found) > 5 else ''}",)


def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL, None for another (`{{host}}/users`, unresolved)."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme.lower(), parts.hostname, port or (443 if parts.scheme.lower() == "https" else 80)


def _oracles_by_operation(oracles: Sequence[Oracle], notes: list[str]) -> OraclesByOperation:
    """The enabled oracles by operation and status; one whose field path cannot be read is a note."""
    by_operation: OraclesByOperation = {}
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
    return by_operation


class _Expansion:
    """The state of one `build_requests`: what is left of the oracles, and the notes."""

    def __init__(self, spec: Spec, null_like: tuple[str, ...], plan: RequestPlan | None,
                 observe: Mapping[OperationKey, Sequence[str]] | None, notes: list[str]) -> None:
        self.spec = spec
        self.nulls = null_like
        self.observe = observe or {}
        self.planned = {(p.operation.method, p.operation.path): p for p in plan.operations} if plan else {}
        self.notes = notes
        self.explore: list[ExploredOperation] = []
        self.config_name = plan.config_name if plan else ".satori.yml"

    def observed(self, method: str, path: str, statuses: Sequence[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        found = {st: tuple(self.observe.get(OperationKey(method, path, st), ())) for st in statuses}
        return tuple((st, fields) for st, fields in found.items() if fields)

    def given_group(self, given: GivenRequests, calls: GivenCalls, by_operation: OraclesByOperation,
                    ignored: set[tuple[str, str]]) -> RequestGroup | None:
        """The team's requests that call a spec operation, with its oracles, in the team's order."""
        out: list[PlannedRequest] = []
        unchecked: list[str] = []
        for (method, path), found_calls in calls.items():
            if (method, path) in ignored:
                continue
            operation = next(o for o in self.spec.operations if o.method == method and o.path == path)
            if not operation.statuses:
                unchecked.extend(f"{r.label} ({method} {path})" for r in found_calls)
                continue
            found = by_operation.get((method, path), {})
            by_status = tuple((st, tuple(found.get(st, ()))) for st in operation.statuses)
            planned = self.planned.get((method, path))
            observed = self.observed(method, path, operation.statuses)
            for request in found_calls:
                sample = SampleRequest(tuple((k, _param_text(v)) for k, v in request.params), (), (), None, None)
                out.append(PlannedRequest(
                    id=request.id, name=request.label, method=method, path=path,
                    operation_id=operation.operation_id, statuses=operation.statuses, oracles=by_status,
                    sample=sample, parts=(), auth=(), null_like=self.nulls,
                    harvests=_harvest_steps(planned, sample), given=request, observed=observed))
        if unchecked:
            self.notes.append(f"{len(unchecked)} request(s) of {given.source} call an operation without a 2XX JSON "
                              f"response in the spec: Newman sends them, nothing checks them, the native runner "
                              f"does not send them: {', '.join(unchecked[:5])}{', ...' if len(unchecked) > 5 else ''}")
        order = [r.id for r in given.requests]
        out.sort(key=lambda r: order.index(r.id))
        return RequestGroup(f"{given.name} (team collection)", "", tuple(out)) if out else None

    def operation_group(self, operation: Operation, found: dict[str, list[Oracle]]) -> RequestGroup | None:
        """The plan's requests of one operation, with its oracles; None (and a note) without a 2XX JSON response."""
        if not operation.statuses:
            if found:
                self.notes.append(f"{operation.method} {operation.path}: no 2XX JSON response in the spec; "
                                  f"its {sum(len(v) for v in found.values())} oracle(s) are not checked")
            return None
        for status in sorted(set(found) - set(operation.statuses)):
            self.notes.append(f"{operation.method} {operation.path} {status}: no such JSON response in the spec; "
                              f"{len(found[status])} oracle(s) not checked")
        by_status = tuple((s, tuple(found.get(s, ()))) for s in operation.statuses)
        auth, auth_notes = auth_params(self.spec, operation)
        self.notes.extend(f"{operation.method} {operation.path}: {n}" for n in auth_notes)
        planned = self.planned.get((operation.method, operation.path))
        observed = self.observed(operation.method, operation.path, operation.statuses)
        requests = []
        for k, (sample, requires, reason) in enumerate(_samples(self.spec, operation, planned)):
            requests.append(PlannedRequest(
                id=_item_id(self.spec.title, operation, k), name=_item_name(operation, sample),
                method=operation.method, path=operation.path, operation_id=operation.operation_id,
                statuses=operation.statuses, oracles=by_status, sample=sample,
                parts=path_parts(operation.path, dict(sample.path_params)), auth=auth, null_like=self.nulls,
                requires=requires, skip_reason=reason, harvests=_harvest_steps(planned, sample), observed=observed,
                accepts=_optional_query(operation),
            ))
        description = "\n\n".join(x for x in (operation.summary, operation.operation_id and
                                              f"operationId: {operation.operation_id}") if x)
        if planned is not None and planned.inputs:
            self.explore.append(self._explored(operation, planned, requests[0]))
        return RequestGroup(f"{operation.method} {operation.path}", description, tuple(requests))

    def _explored(self, operation: Operation, planned: PlannedOperation, first: PlannedRequest) -> ExploredOperation:
        """The operation's request with a `{{variable}}` for each input the runners fill at run time."""
        chained = {i.name: "{{" + i.variable + "}}" for i in planned.inputs}
        sample = sample_requests(self.spec, operation, dict(planned.values), chained)[0]
        template = replace(first, name=_item_name(operation, sample),
                           sample=sample, parts=path_parts(operation.path, dict(sample.path_params)), requires=(),
                           skip_reason="", harvests=())
        return ExploredOperation(first.label, template, planned.inputs, planned.feeds, self.config_name)


EVIDENCE_REQUESTS = 25
"""When observing, an explored safe operation is sent up to this many times with distinct values, budget allowing
(the observations of observed oracles: `observe.propose`)."""


def build_requests(spec: Spec, oracles: Sequence[Oracle], base_url: str | None = None,
                   null_like: Sequence[str] = (), plan: RequestPlan | None = None,
                   given: GivenRequests | None = None, unsafe: Sequence[str] = (),
                   observe: Mapping[OperationKey, Sequence[str]] | None = None) -> RequestSet:
    """The requests for the operations the plan sends (without a plan: every operation with a 2XX JSON response,
    in spec order); only enabled oracles are checked. With the team's own requests (`given`), those that call a
    spec operation carry that operation's oracles (and feed chaining), and the plan's requests remain for the
    operations they do not call; their non-safe requests are sent only when `unsafe` opts them in. `observe`: the
    fields whose values each 2XX JSON response is summarized for, by operation and status (the runners feed the
    summaries to the observation store)."""
    notes: list[str] = []
    by_operation = _oracles_by_operation(oracles, notes)
    counts = tuple((f"{m} {p}", sum(len(v) for v in found.values())) for (m, p), found in by_operation.items())
    expansion = _Expansion(spec, tuple(null_like), plan, observe, notes)
    calls, removed, given_skips = _given_calls(given, unsafe) if given else ({}, (), ())
    notes.extend(_elsewhere(given, base_url) if given is not None and base_url else ())
    # an operation the team calls only with values its scripts set keeps the plan's own requests too: a runner
    # without scripts (native) sends those, not the team's
    waiting = {key for key, found in calls.items() if all(r.waits_for_scripts() for r in found)}
    skipped = tuple(k for k in (plan.skipped if plan else ()) if (k.method, k.path) not in calls
                    or (k.method, k.path) in waiting or k.kind is SkipKind.IGNORED) + given_skips
    ignored = {(k.method, k.path) for k in skipped if k.kind is SkipKind.IGNORED}
    skipped_keys = {(k.method, k.path) for k in skipped}
    for operation in spec.operations:
        key = (operation.method, operation.path)
        if key in skipped_keys and (key not in calls or key in ignored):
            by_operation.pop(key, None)
    groups: list[RequestGroup] = []
    if given is not None:
        team_group = expansion.given_group(given, calls, by_operation, ignored)
        if team_group is not None:
            groups.append(team_group)
        for key in calls.keys() - waiting:
            by_operation.pop(key, None)
    operations = [p.operation for p in plan.operations] if plan else list(spec.operations)
    for operation in operations:
        if (operation.method, operation.path) in calls.keys() - waiting:
            continue
        group = expansion.operation_group(operation, by_operation.pop((operation.method, operation.path), {}))
        if group is not None:
            groups.append(group)
    in_spec = {(o.method, o.path) for o in spec.operations}
    for (method, path), left in sorted(by_operation.items()):
        where = "no 2XX JSON response in the spec" if (method, path) in in_spec else "not in the spec"
        notes.append(f"{method} {path}: {where}; its {sum(len(v) for v in left.values())} oracle(s) "
                     "are not checked")
    seeds = tuple((p.chain.variable(0, i), value) for p in (plan.operations if plan else ()) if p.chain is not None
                  for i, value in enumerate(p.chain.seed))
    return RequestSet(title=spec.title or spec.source, source=spec.source,
                      base_url=base_url_for(spec, base_url).rstrip("/"), null_like=tuple(null_like),
                      groups=tuple(groups), notes=tuple(notes), skipped=skipped, oracle_counts=counts, given=given,
                      left_out=removed, chain_seeds=seeds, explore=tuple(expansion.explore),
                      budget=plan.budget if plan else Budget(), samples=plan.samples if plan else DEFAULT_CHAIN,
                      evidence=EVIDENCE_REQUESTS if observe is not None else 0)
