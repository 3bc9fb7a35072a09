"""The requests a run sends, as values every runner and the export read: `RequestSet` of `PlannedRequest`s.

`build_requests` (`satori_ci.plan.expand`) makes them from a spec, its oracles and the plan. A request carries what
is sent (method, path parts, sample inputs, credential slots as `{{SATORI_AUTH_*}}` variables, chained values as
`{{satori_*}}` variables), and what its responses are checked against and summarized for; never a script. The
slices a run needs (a shard's, `only`; the retries', `subset`) and several sets run as one (`merged`) are here too.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from satori_ci.oracles.model import Oracle
from satori_ci.plan.auth import AuthParam, auth_entry
from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.plan.model import Budget, Feed, Input, Skip
from satori_ci.plan.samples import SampleRequest
from satori_ci.spec.model import OperationKey
from satori_ci.spec.routes import parse_template

FINDINGS_PER_ORACLE = 100
"""Findings of one oracle a checked response lists (the rest counted), in every runner (the test scripts print as
many): a run's results stay small however many values fail."""
ID_NAMESPACE = uuid.UUID("5a7e1c2d-8b4f-4c2e-9a61-0d3f6b8e4a10")
"""The namespace of the requests' uuid5 ids (and of the exported collection's)."""
_VARIABLE_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_REFERENCE = re.compile(r"\{\{([^{}]+)\}\}")

Pairs = tuple[tuple[str, str], ...]


def substitute(template: str, variables: Mapping[str, str]) -> str:
    """`{{name}}` replaced by its value; unknown names are left as they are (as Postman does)."""
    return _REFERENCE.sub(lambda m: variables.get(m.group(1), m.group(0)), template)


def match_status(code: str, statuses: Sequence[str]) -> str | None:
    """`code` itself when it is one of `statuses`, else the range (`2XX`) among them that holds it."""
    if code in statuses:
        return code
    return next((s for s in statuses if len(code) == 3 and s.upper() == code[0] + "XX"), None)


@dataclass(frozen=True)
class PathPart:
    """One path segment: literal (encoded) text, or a whole-segment parameter `variable` filled when sent."""

    text: str
    variable: str | None = None


def path_parts(template: str, values: Mapping[str, str] | None = None) -> tuple[PathPart, ...]:
    """The template's segments: `{name}` alone in a segment (a name of letters, digits, `_` and `-`) is a
    variable, other text is encoded with `values` (encoded already) in place of its parameters."""
    parsed = parse_template(template)
    known = values or {}
    parts = [PathPart("", s.whole) if s.whole and _VARIABLE_NAME.match(s.whole) else PathPart(s.encoded(known))
             for s in parsed.segments]
    if parsed.trailing_slash:
        parts.append(PathPart(""))
    return tuple(parts)


@dataclass(frozen=True)
class HarvestStep:
    """After a 2XX JSON response: fill the slots of a consumer's chain (see `satori_ci.plan.model.Chain`)."""

    target: str
    paths: tuple[str, ...]
    limit: int
    carry: tuple[str, ...]
    """This request's own values (templates) of the parameters the consumer carries over, in slot order."""


@dataclass(frozen=True)
class PlannedRequest:
    """One request of an operation, and what the runners need to check and read its responses."""

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
    requires: tuple[str, ...] = ()
    """Chain variables that must be set (by earlier responses) for this request to be sent."""
    skip_reason: str = ""
    """Why it is not sent when one of `requires` is unset."""
    harvests: tuple[HarvestStep, ...] = ()
    given: GivenRequest | None = None
    """The team's request this is (its URL, headers and body are sent as written)."""
    observed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The fields whose values a 2XX JSON response is summarized for (`satori_ci.observe`), by status."""
    accepts: tuple[str, ...] = ()
    """The operation's optional query parameters (a next-page token may go in one)."""

    @property
    def body(self) -> str | None:
        return self.given.body if self.given is not None else self.sample.body

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

    @property
    def query_names(self) -> frozenset[str]:
        """The names of the query parameters the operation takes (those sent and the optional ones)."""
        return frozenset(self.accepts) | frozenset(k for k, _ in self.sample.query)

    def query(self) -> Pairs:
        """The query parameters as written (a credential's value as its `{{variable}}`)."""
        return (*self.sample.query, *(auth_entry(p) for p in self.auth if p.location == "query"))

    def url(self, base_url: str, variables: Mapping[str, str] | None = None) -> str:
        """The URL the request goes to, the variables' values in place."""
        known = variables or {}
        if self.given is not None:
            return substitute(self.given.url, known)
        values = dict(self.sample.path_params)
        path = "/".join(substitute(values.get(p.variable, ""), known) if p.variable else p.text for p in self.parts)
        credentials = (auth_entry(p) for p in self.auth if p.location == "query")
        query = [*self.sample.query, *((k, substitute(v, known)) for k, v in credentials)]
        text = base_url.rstrip("/") + ("/" + path if self.parts else "")
        return text + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")

    def header_templates(self, extra: Pairs = ()) -> Pairs:
        """The headers as written (credentials as `{{variable}}` references), then `extra`, which replace headers
        of the same name (case-insensitively)."""
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
        return _replaced(headers, extra)

    def headers(self, variables: Mapping[str, str], extra: Pairs = (), borrowed: Pairs = ()) -> list[tuple[str, str]]:
        """The headers sent, the variables' values in place. A team's request keeps its own: `extra` (the run's
        headers) only adds those it does not send. satori-ci's own requests take `extra` over theirs, then
        `borrowed` (the team's auth, `GivenRequests.auth`) where neither sends that header."""
        if self.given is not None:
            return list(_completed([(k, substitute(v, variables)) for k, v in self.given.headers], extra))
        templates = self.header_templates()
        own = _replaced([(k, substitute(v, variables)) for k, v in templates], extra)
        sent = self.sent_names({n for _, v in templates for n in _REFERENCE.findall(v) if not variables.get(n)}, extra)
        # a borrowed value still holding a `{{variable}}` waits for the team's scripts: not sent
        return list(_replaced(own, tuple(h for h in borrowed if h[0].lower() not in sent
                                         and not _REFERENCE.search(h[1]))))

    def sent_names(self, unset: Collection[str], extra: Pairs = ()) -> frozenset[str]:
        """The lower-case names of the headers satori-ci's own request sends of itself: `extra` (the run's) and its
        own, but not a credential whose variable is in `unset` (`Bearer {{SATORI_AUTH_BEARER}}` with no value)."""
        own = {k.lower() for k, v in self.header_templates() if not any(n in unset for n in _REFERENCE.findall(v))}
        return frozenset({*own, *(k.lower() for k, _ in extra)})


def _completed(headers: Sequence[tuple[str, str]], extra: Pairs) -> Pairs:
    """`headers`, and those of `extra` whose names none of them has."""
    names = {k.lower() for k, _ in headers}
    return (*headers, *(h for h in extra if h[0].lower() not in names))


def _replaced(headers: Sequence[tuple[str, str]], extra: Pairs) -> Pairs:
    if not extra:
        return tuple(headers)
    names = {k.lower() for k, _ in extra}
    return (*(h for h in headers if h[0].lower() not in names), *extra)


@dataclass(frozen=True)
class RequestGroup:
    """The requests of one operation (or the team's own, first)."""

    name: str
    description: str
    requests: tuple[PlannedRequest, ...]


@dataclass(frozen=True)
class ExploredOperation:
    """An operation whose required inputs are filled at run time (`satori_ci.plan.explore`)."""

    label: str
    template: PlannedRequest
    """Its request with `{{variable}}` in place of each input."""
    inputs: tuple[Input, ...]
    """In the order they are filled: the one whose feeds carry the others first."""
    feeds: tuple[Feed, ...]
    config_name: str = ".satori.yml"


@dataclass(frozen=True)
class RequestSet:
    """Everything a run sends, in order, and what it does not send and why."""

    title: str
    """The spec's title (its source when it has none)."""
    source: str
    base_url: str
    """The server the spec names (or the one given): where the requests go unless a run says otherwise."""
    null_like: tuple[str, ...]
    groups: tuple[RequestGroup, ...]
    notes: tuple[str, ...] = ()
    """What could not be sent or checked (oracles without an operation, unsupported auth...)."""
    skipped: tuple[Skip, ...] = ()
    """Operations the plan does not send, and why."""
    oracle_counts: tuple[tuple[str, int], ...] = ()
    """`METHOD /path` -> enabled oracles, for every operation with oracles (sent or not)."""
    given: GivenRequests | None = None
    """The team's own requests: those that call a spec operation carry its assertions (the first group)."""
    left_out: tuple[str, ...] = ()
    """Ids of the team's requests left out of the run (non-safe methods not opted in)."""
    chain_seeds: Pairs = ()
    """Chain variables set before the run: slot 0 of a consumer holds the spec's example until a list fills it."""
    whole_auth: tuple[AuthParam, ...] | None = None
    """A shard's slice (`only`): the credential variables of the whole set, so that the run's notes and the
    credential headers it names are those of the whole run."""
    explore: tuple[ExploredOperation, ...] = ()
    """The operations the runners fill at run time (their requests in `groups` are the exported collection's)."""
    budget: Budget = field(default_factory=Budget)
    samples: int = 3
    """Requests per explored operation (values taken per producer)."""
    evidence: int = 0
    """When observing: requests per explored safe operation once nothing else is left (`EVIDENCE_REQUESTS`)."""

    @property
    def explored_labels(self) -> frozenset[str]:
        return frozenset(e.label for e in self.explore)

    def requests(self) -> Iterator[PlannedRequest]:
        for group in self.groups:
            yield from group.requests

    def request(self, request_id: str) -> PlannedRequest | None:
        return next((r for r in self.requests() if r.id == request_id), None)

    @property
    def auth_variables(self) -> tuple[AuthParam, ...]:
        if self.whole_auth is not None:
            return self.whole_auth
        seen: dict[str, AuthParam] = {}
        for request in self.requests():
            for param in request.auth:
                seen.setdefault(param.variable, param)
        return tuple(seen[k] for k in sorted(seen))

    def subset(self, copies: Iterable[tuple[str, str]]) -> RequestSet:
        """A set of copies of some requests, each under a new id: (original id, new id) pairs."""
        by_id = {r.id: r for r in self.requests()}
        chosen = [replace(by_id[old], id=new) for old, new in copies]
        return replace(self, groups=(RequestGroup("retry", "", tuple(chosen)),), notes=(), skipped=())

    def only(self, own: frozenset[str], support: frozenset[str]) -> RequestSet:
        """A shard's slice (`satori_ci.shard.slice`): the requests of the `own` operations as they are, those of
        the `support` operations (producers of chained ids) without oracles nor observed fields (sent for their
        values only), no others. Notes, skips, oracle counts, chain seeds and credential variables stay the whole
        set's."""
        if self.given is not None:
            raise ValueError("a request set with a team collection is not sliced")
        groups = []
        for group in self.groups:
            kept = tuple(r if r.label in own else _support(r) for r in group.requests
                         if r.label in own or r.label in support)
            if kept:
                groups.append(replace(group, requests=kept))
        explore = tuple(e if e.label in own else replace(e, template=_support(e.template)) for e in self.explore
                        if e.label in own or e.label in support)
        return replace(self, groups=tuple(groups), whole_auth=self.auth_variables, explore=explore)

    def merged(self, others: Sequence[RequestSet]) -> RequestSet:
        """One set holding the groups of several (e.g. specs served side by side by one server); a request whose
        id an earlier set has takes a new one."""
        everything = (self, *others)
        groups: list[RequestGroup] = []
        seen: set[str] = set()
        for n, found in enumerate(everything):
            for group in found.groups:
                kept = tuple(r if r.id not in seen else replace(r, id=str(uuid.uuid5(ID_NAMESPACE, f"{n}:{r.id}")))
                             for r in group.requests)
                seen.update(r.id for r in kept)
                groups.append(replace(group, requests=kept))
        return replace(self, groups=tuple(groups), notes=tuple(n for s in everything for n in s.notes),
                       skipped=tuple(k for s in everything for k in s.skipped),
                       oracle_counts=tuple(k for s in everything for k in s.oracle_counts),
                       chain_seeds=tuple(k for s in everything for k in s.chain_seeds),
                       explore=tuple(e for s in everything for e in s.explore))


def _support(request: PlannedRequest) -> PlannedRequest:
    """The request sent only for the values it gives to a chain: no oracle, no observed field."""
    return replace(request, oracles=tuple((status, ()) for status in request.statuses), observed=())
