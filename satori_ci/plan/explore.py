"""Exploring staging: which request to send next, given the responses so far (pure: responses in, requests out).

Both runners drive an `Explorer`: the native runner sends and checks what it gives; the Newman runner sends the
producers to learn their values, then hands Newman every request as a plain value. The explorer:

- sends in rounds, breadth-first: a round holds one request of every operation that can be sent, chosen from the
  responses of the rounds before, so every operation is sent once before any is sent twice, and what is chosen
  for an operation depends only on its producers' responses (a shard chooses what the whole run chooses);
- fills an explored operation's inputs (`Input`) from its feeds (`Feed`): values harvested from its producers'
  2XX JSON responses, carried with the producer's own inputs; when none came, from the spec's seeds; never a
  placeholder;
- picks values spread over what it has seen: across the producer requests they came from, the values of the
  items' enum-like fields (`type`, `kind`, `state`, `status`, `category`, or one with a few values) and the
  list's quarters, not the first N;
- follows a producer's next pages (a `Link: <...>; rel="next"` header, a `next` URL in the body, or a next-page
  token into the operation's cursor parameter) on the same server only, up to `MAX_PAGES`;
- when observing (`RequestSet.evidence`), once no other safe request is left (before any opted-in write), goes
  on sending the safe operations that answered, with values not tried yet, round after round, up to `evidence`
  requests each: the observations observed oracles are proposed from (a list's own come from its pages);
- stops at the budget's request count (the runner watches time and rate), and says why each operation it never
  sent was not sent (`unsent`).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from satori_ci.plan.harvest import encode_segment, values_with_kinds
from satori_ci.plan.model import MAX_PAGES, SAFE_METHODS, Feed, Input, SkipKind
from satori_ci.plan.pages import TOKEN_PARAMS, next_counted, next_token, next_url
from satori_ci.plan.requests import ID_NAMESPACE, ExploredOperation, PathPart, PlannedRequest, RequestSet
from satori_ci.plan.samples import describe, encode

Pairs = tuple[tuple[str, str], ...]
MAX_TRIES_PER_SAMPLE = 4
EVIDENCE_PHASE = 3
"""An explored operation is sent up to this many times `samples` while it (or an operation it feeds) is not
reached."""


@dataclass(frozen=True)
class Send:
    """One request the explorer chose, and what it was filled with."""

    request: PlannedRequest
    operation: str
    """`METHOD /path` of the operation it sends (for a team request: the operation it calls, else its label)."""
    bindings: Pairs = ()
    """Input name -> the raw value it was sent with."""
    page: int = 0
    """The page of a list (0: the first)."""
    tags: tuple[str, ...] = ()
    """What the value it was filled with tells apart (where it came from, its item's kind): later sends of the
    operation prefer values with other tags."""


@dataclass(frozen=True)
class Unsent:
    """An operation the explorer never sent, and why."""

    operation: str
    kind: SkipKind
    detail: str


@dataclass
class _Entry:
    values: dict[str, str]
    tags: tuple[str, ...]


@dataclass
class _Explored:
    spec: ExploredOperation
    pools: dict[str, list[_Entry]] = field(default_factory=dict)
    pooled: set[Pairs] = field(default_factory=set)
    """The values of every entry of `pools` (sorted pairs): a value a second response gives is not pooled twice."""
    tried: set[Pairs] = field(default_factory=set)
    used_tags: Counter[str] = field(default_factory=Counter)


class Explorer:
    """The exploration of one run (see the module docstring); `samples`: sends per explored operation."""

    def __init__(self, requests: RequestSet, base_url: str, samples: int, budget: int,
                 costs: Mapping[str, int] | None = None) -> None:
        self.base = urlsplit(base_url.rstrip("/") + "/")
        self.base_url = base_url.rstrip("/")
        self.samples = max(samples, 1)
        self.evidence = requests.evidence
        self.budget = budget
        self.spent = 0
        self.stopped = False
        self.costs = dict(costs or {})
        self.order: list[str] = []
        self.fixed: dict[str, list[PlannedRequest]] = {}
        self.explored: dict[str, _Explored] = {}
        for group in requests.groups:
            for request in group.requests:
                label = request.label
                if label in requests.explored_labels:
                    continue
                self.fixed.setdefault(label, []).append(request)
                if label not in self.order:
                    self.order.append(label)
        for explored in requests.explore:
            self.explored[explored.label] = _Explored(explored)
            if explored.label not in self.order:
                self.order.append(explored.label)
        self.sent: Counter[str] = Counter()
        self.before: Counter[str] = Counter()
        """What was sent before the round being chosen (a producer counts as sent once its answer is in)."""
        self.waiting: set[str] = set()
        self.reached: set[str] = set()
        self.feeds: dict[str, list[tuple[str, Feed]]] = {}
        for explored in requests.explore:
            for feed in explored.feeds:
                self.feeds.setdefault(feed.producer, []).append((explored.label, feed))
        self.pages: dict[str, list[Send]] = {}

    # -- choosing ------------------------------------------------------------------------------------------

    def round(self) -> list[Send]:
        """The next round: one request of every operation that can be sent now, in plan order, chosen from the
        responses of the rounds before (so a shard, which sends the producers its operations need, chooses what
        the whole run chooses); empty when nothing is left or the budget is spent. Safe operations come first,
        round after round, then the evidence rounds, then opted-in writes, deletions last."""
        self.before = Counter(self.sent)
        reserved = self._reserved()
        for phase in (0, EVIDENCE_PHASE, 1, 2):
            chosen: list[Send] = []
            for label in self.order:
                found = self._for_evidence(label, reserved) if phase == EVIDENCE_PHASE else (
                    self._ready(label) if _phase(label) == phase else None)
                if found is None:
                    continue
                if self.spent + self.costs.get(found.operation, 1) > self.budget:
                    self.stopped = True
                    return chosen
                self.sent[found.operation] += 1
                self.spent += self.costs.get(found.operation, 1)
                self._take(found)
                chosen.append(found)
            if chosen:
                return chosen
        return []

    def _for_evidence(self, label: str, reserved: int) -> Send | None:
        """A further request of a safe explored operation that answered, with values not tried yet, while it has
        sent fewer than `evidence` and the budget keeps `reserved` for the opted-in writes still to come."""
        explored = self.explored.get(label)
        if explored is None or _phase(label) != 0 or label not in self.reached or self.sent[label] >= self.evidence:
            return None
        if self.spent + self.costs.get(label, 1) + reserved > self.budget:
            return None
        return self._binding(explored)

    def _reserved(self) -> int:
        """The requests the opted-in writes still have to send (the evidence rounds leave them the budget); once
        one was sent, the whole budget (no evidence is gathered after a write)."""
        writes = [label for label in self.order if _phase(label) != 0]
        if any(self.sent[label] for label in writes):
            return self.budget
        return (sum(len(self.fixed.get(label, ())) for label in writes)
                + sum(max(0, self.samples - self.sent[label]) for label in writes if label in self.explored))

    def estimate(self) -> int:
        """About how many requests the run sends (for a progress bar): within the budget."""
        fixed = sum(len(v) for v in self.fixed.values())
        return max(1, min(self.budget, fixed + max(self.samples, self.evidence) * len(self.explored)))

    def _ready(self, label: str) -> Send | None:
        pages = self.pages.get(label)
        fixed = self.fixed.get(label)
        if fixed:
            return Send(fixed[0], label)
        if pages:
            return pages[0]
        explored = self.explored.get(label)
        if explored is None or not self._wants_more(label):
            return None
        return self._binding(explored)

    def _wants_more(self, label: str) -> bool:
        """`samples` requests; more (up to `MAX_TRIES_PER_SAMPLE` times as many) while the operation has no 2XX
        answer yet, or while it produces for an operation that has no value yet (the first values tried were
        items without children, say)."""
        sent = self.sent[label]
        if sent < self.samples:
            return True
        if sent >= self.samples * MAX_TRIES_PER_SAMPLE:
            return False
        if label not in self.reached:
            return True
        return any(not self.explored[consumer].pools.get(feed.param) and consumer != label
                   for consumer, feed in self.feeds.get(label, ()))

    def _take(self, send: Send) -> None:
        fixed = self.fixed.get(send.operation)
        if fixed and fixed[0] is send.request:
            fixed.pop(0)
            return
        pages = self.pages.get(send.operation)
        if pages and pages[0] is send:
            pages.pop(0)
            return
        explored = self.explored[send.operation]
        explored.tried.add(send.bindings)
        explored.used_tags.update(send.tags)

    def _binding(self, explored: _Explored) -> Send | None:
        inputs = explored.spec.inputs
        first, rest = inputs[0], inputs[1:]
        for entry in self._candidates(explored, first, {}):
            values = dict(entry.values)
            complete = True
            for other in rest:
                if other.name in values:
                    continue
                found = next(iter(self._candidates(explored, other, values)), None)
                if found is None:
                    complete = False
                    break
                values.update(found.values)
            key = tuple((i.name, values[i.name]) for i in inputs if i.name in values)
            if complete and len(key) == len(inputs) and key not in explored.tried:
                return self._send(explored, key, entry.tags)
        return None

    def _candidates(self, explored: _Explored, wanted: Input, known: Mapping[str, str]) -> list[_Entry]:
        """The entries that give `wanted` a value consistent with `known`, best first; seeds and values of the same
        when the producers gave none."""
        pool = [e for e in explored.pools.get(wanted.name, ()) if _fits(e.values, known)]
        if not pool and self._producers_done(explored, wanted):
            pool = [_Entry({wanted.name: s}, ("seed",)) for s in wanted.seeds]
        used = explored.used_tags
        ranked = sorted(enumerate(pool), key=lambda p: (sum(used[t] for t in p[1].tags), p[0]))
        return [e for _, e in ranked]

    def _producers_done(self, explored: _Explored, wanted: Input) -> bool:
        """Whether every producer of `wanted` other than the operation itself was sent (or can never be)."""
        for feed in explored.spec.feeds:
            if feed.param != wanted.name or feed.producer == explored.spec.label:
                continue
            if self.before[feed.producer] == 0 and feed.producer in self.order and self._could_send(feed.producer):
                return False
        return True

    def _could_send(self, label: str) -> bool:
        """Whether a producer not sent yet may still be (it is ready, or waits for its own producers)."""
        if label in self.waiting:
            return True
        self.waiting.add(label)  # a cycle of producers waits for none of them
        try:
            if self._ready(label) is not None:
                return True
            explored = self.explored.get(label)
            return explored is not None and any(not self._producers_done(explored, i) for i in explored.spec.inputs)
        finally:
            self.waiting.discard(label)

    def _send(self, explored: _Explored, key: Pairs, tags: tuple[str, ...]) -> Send:
        template = explored.spec.template
        by_name = {i.name: i for i in explored.spec.inputs}
        variables = {}
        for name, value in key:
            item = by_name[name]
            variables[item.variable] = (encode_segment(value) if item.location == "path" else
                                        encode(value) if item.location == "query" else value)
        return Send(bind(template, variables, key), explored.spec.label, key, tags=tags)

    # -- learning ------------------------------------------------------------------------------------------

    def assume_answered(self, send: Send) -> None:
        """A request another runner sends later (Newman): taken as reached, so it is not tried further."""
        self.reached.add(send.operation)

    def feed(self, send: Send, status: int | None, body: Any, link: str | None = None) -> None:
        """What a sent request was answered: a 2XX JSON body feeds the consumers' pools and the next page."""
        if status is None or not 200 <= status < 300:
            return
        self.reached.add(send.operation)
        consumers = self.feeds.get(send.operation, ())
        if not consumers:
            return
        own = _own_values(send)
        items = max(self._harvest(self.explored[consumer], feed, body, own, send) for consumer, feed in consumers)
        if send.page < MAX_PAGES:
            self._next_page(send, body, link, items)

    def _harvest(self, explored: _Explored, feed: Feed, body: Any, own: Mapping[str, str], send: Send) -> int:
        """The values the body gives the consumer's pool; how many were new to it."""
        carried = {mine: own[theirs] for mine, theirs in feed.carry if theirs in own}
        if len(carried) < len(feed.carry):
            return 0
        pool = explored.pools.setdefault(feed.param, [])
        seen = explored.pooled
        origin = f"from:{send.request.url('')}"
        for path in feed.paths:
            found = values_with_kinds(body, path)
            if not found:
                continue
            before = len(pool)
            for position, (value, tags) in enumerate(found):
                values = {**carried, feed.param: value}
                key = tuple(sorted(values.items()))
                if key in seen:
                    continue
                seen.add(key)
                quarter = f"quarter:{4 * position // len(found)}"
                pool.append(_Entry(values, (origin, quarter, *tags)))
            return len(pool) - before
        return 0

    def _next_page(self, send: Send, body: Any, link: str | None, items: int) -> None:
        """The producer's next page, when the response names it (a link, a token), or, for a page or offset
        parameter, when this page gave new values (a server that ignores the parameter is not paged on)."""
        target = next_url(body, link)
        request = send.request
        page: PlannedRequest | None = None
        token = next_token(body) if target is None else None
        counted = next_counted(request.query_names, dict(request.sample.query), items) if items else None
        if target is not None:
            page = self._page_at(request, target)
        elif token is not None and (param := next((p for p in TOKEN_PARAMS if p in request.query_names), None)):
            page = _with_query(request, param, encode(token), f"page {token}")
        elif counted is not None:
            page = _with_query(request, *counted, f"{counted[0]}={counted[1]}")
        if page is not None and page.url("") != request.url(""):
            self.pages.setdefault(send.operation, []).append(Send(page, send.operation, send.bindings,
                                                                  send.page + 1))

    def _page_at(self, request: PlannedRequest, target: str) -> PlannedRequest | None:
        """The request of a next-page URL, when it is on the server under test (below the base URL)."""
        absolute = urlsplit(urljoin(request.url(self.base_url), target))
        if (absolute.scheme, absolute.netloc) != (self.base.scheme, self.base.netloc):
            return None
        if not (absolute.path + "/").startswith(self.base.path):
            return None
        rest = absolute.path[len(self.base.path):]
        parts = tuple(PathPart(p) for p in rest.split("/")) if rest else ()
        query = tuple((k, v) for k, _, v in (pair.partition("=") for pair in absolute.query.split("&") if pair))
        sample = replace(request.sample, path_params=(), query=query)
        return _renamed(replace(request, parts=parts, sample=sample), unquote(absolute.path)[:80])

    # -- what was left -------------------------------------------------------------------------------------

    def unsent(self) -> tuple[Unsent, ...]:
        """The explored operations never sent, and why: the budget, or no value for an input."""
        out = []
        for label, explored in self.explored.items():
            if self.sent[label]:
                continue
            if self.stopped and self._could_send(label):
                out.append(Unsent(label, SkipKind.BUDGET, "left out: the run's budget (requests.budget, "
                                                         "requests.time_budget) ran out first"))
                continue
            out.append(Unsent(label, SkipKind.NO_INPUT, self._why_no_value(explored)))
        for label, left in self.fixed.items():
            if left and not self.sent[label] and self.stopped:
                out.append(Unsent(label, SkipKind.BUDGET, "left out: the run's budget (requests.budget, "
                                                         "requests.time_budget) ran out first"))
        return tuple(out)

    def stop(self) -> None:
        """The runner stopped early (time budget): what is left is left out by the budget."""
        self.stopped = True

    def _why_no_value(self, explored: _Explored) -> str:
        spec = explored.spec
        wanted = next((i for i in spec.inputs if not explored.pools.get(i.name)), spec.inputs[0])
        producers = sorted({f.producer for f in spec.feeds if f.param == wanted.name and f.producer != spec.label})
        named = ", ".join(producers[:3])
        if not producers:
            said = "no operation lists its values"
        elif not any(p in self.reached for p in producers):
            said = f"{named} answered no 2XX JSON response to give one"
        else:
            said = f"{named} gave no value for it"
        return (f"needs a value for {{{wanted.name}}} ({wanted.location}): {said}; add it to {spec.config_name}: "
                f"requests: operations: {{\"{spec.label}\": {{{wanted.name}: ...}}}}")


def bind(template: PlannedRequest, variables: Mapping[str, str], key: Pairs) -> PlannedRequest:
    """The template with its `{{variable}}` inputs filled (values encoded already), under an id of its own."""

    def filled(pairs: Sequence[tuple[str, str]]) -> Pairs:
        return tuple((k, _fill(v, variables)) for k, v in pairs)

    sample = replace(template.sample, path_params=filled(template.sample.path_params),
                     query=filled(template.sample.query), headers=filled(template.sample.headers))
    values = dict(sample.path_params)
    parts = tuple(PathPart(values.get(p.variable, "")) if p.variable else p for p in template.parts)
    request = replace(template, sample=sample, parts=parts, requires=(), skip_reason="", harvests=())
    name = f"{template.method} {unquote(''.join(describe(template.path, sample)))}".replace("\n", " ")
    return replace(request, id=f"{template.id}~{uuid.uuid5(ID_NAMESPACE, repr(key)).hex[:12]}",
                   name=name if len(name) <= 120 else name[:119] + "…")


def base_id(request_id: str) -> str:
    """The id of the planned request a chosen one was made from (`id~suffix` -> `id`)."""
    return request_id.partition("~")[0]


def _fill(text: str, variables: Mapping[str, str]) -> str:
    if text.startswith("{{") and text.endswith("}}") and text[2:-2] in variables:
        return variables[text[2:-2]]
    return text


def _with_query(request: PlannedRequest, param: str, value: str, what: str) -> PlannedRequest:
    """The request with one query parameter set (replaced when it is there)."""
    query = (*((k, v) for k, v in request.sample.query if k != param), (param, value))
    return _renamed(replace(request, sample=replace(request.sample, query=query)), what)


def _renamed(request: PlannedRequest, what: str) -> PlannedRequest:
    return replace(request, id=f"{base_id(request.id)}~p{uuid.uuid5(ID_NAMESPACE, request.id + what).hex[:12]}",
                   name=f"{request.name} ({what})"[:120])


def _phase(label: str) -> int:
    """Safe operations first (breadth-first among them), then opted-in writes, deletions last."""
    method = label.partition(" ")[0]
    return 0 if method in SAFE_METHODS else 2 if method == "DELETE" else 1


def _own_values(send: Send) -> dict[str, str]:
    """The inputs a request was sent with (its bindings, and its path parameters decoded)."""
    own = {k: unquote(v) for k, v in send.request.sample.path_params if "{{" not in v}
    own.update(send.bindings)
    return own


def _fits(values: Mapping[str, str], known: Mapping[str, str]) -> bool:
    return all(known.get(k, v) == v for k, v in values.items())


