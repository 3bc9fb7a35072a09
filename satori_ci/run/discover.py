"""Before Newman runs: the explorer's choices, learned by sending the producers natively (`discover`).

Newman runs a collection as written, so it cannot choose the next request from a response. The producers (the
operations whose responses give other operations their inputs, and their next pages) are sent here first, with
the native runner's transport, bounds and circuit breaker; every request the explorer then chooses, producers
included, goes into a plain request set that Newman sends and checks. A producer costs the budget twice (sent
here and by Newman). When no producer got an answer, the first safe request is sent here too (a probe: HEAD, retried
as the native runner retries): a staging that does not answer trips the breaker before Newman is started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from satori_ci.plan.explore import Explorer, Send
from satori_ci.plan.model import SAFE_METHODS, Skip, SkipKind
from satori_ci.plan.requests import PlannedRequest, RequestGroup, RequestSet
from satori_ci.run.breaker import Breaker, not_sent, unsent_kind
from satori_ci.run.native import Sending, Session, send_one, watched_session
from satori_ci.run.outcome import Exchange, RunConfig, base_url_of, credentials
from satori_ci.run.pace import Pace


@dataclass(frozen=True)
class Discovery:
    """The plain request set Newman sends, and the request whose attempts tripped the breaker (with its exchange
    and attempts): then Newman is not started."""

    planned: RequestSet
    failure: tuple[PlannedRequest, Exchange, int] | None = None


def discover(planned: RequestSet, config: RunConfig, breaker: Breaker | None = None) -> Discovery:
    """The requests the explorer chooses, as a plain set (no input left to fill), in the order to send them."""
    base_url = base_url_of(config)
    variables, _ = credentials(planned, config)
    budget = planned.budget
    breaker = breaker if breaker is not None else Breaker()
    sending = Sending(base_url, variables, config, time.sleep, Pace(budget.rate, time.sleep), breaker,
                      time.monotonic() + budget.seconds)
    if config.progress is not None:
        progress = config.progress
        sending.tell = lambda text: progress(0, 0, text)
    producers = {feed.producer for explored in planned.explore for feed in explored.feeds}
    explorer = Explorer(planned, base_url, planned.samples, budget.requests,
                        costs=dict.fromkeys(producers, 2))
    chosen: list[Send] = []
    failure: tuple[PlannedRequest, Exchange, int] | None = None
    with watched_session() as session:
        while round_ := explorer.round():
            for send in round_:
                if time.monotonic() > sending.deadline or breaker.tripped:
                    explorer.stop()
                    break
                chosen.append(send)
                if send.operation in producers:
                    result, body = sending.attempt(session, send.request)
                    failure = (send.request, result, 1) if breaker.tripped and failure is None else failure
                    explorer.feed(send, result.status if result.is_json else None, body, result.link)
                else:  # Newman sends it: taken as answered, so the operation gets `samples` requests
                    explorer.assume_answered(send)
            if explorer.stopped:
                break
        failure = failure or _probe(session, chosen, sending)
    trip = breaker.tripped
    by_label: dict[str, list[Send]] = {}
    for send in chosen:
        by_label.setdefault(send.operation, []).append(send)
    groups = tuple(replace(g, requests=tuple(s.request for s in by_label.pop(g.name, ()))) for g in planned.groups)
    groups = tuple(g for g in groups if g.requests) + tuple(
        RequestGroup(label, "", tuple(s.request for s in sends)) for label, sends in by_label.items())
    unsent = tuple(Skip(*_split(u.operation), unsent_kind(trip), not_sent(trip)) if trip and u.kind is SkipKind.BUDGET
                   else Skip(*_split(u.operation), u.kind, u.detail) for u in explorer.unsent())
    found = replace(planned, groups=groups, explore=(), skipped=(*planned.skipped, *unsent))
    return Discovery(found, failure if trip is not None else None)


Failure = tuple[PlannedRequest, Exchange, int]


def _probe(session: Session, chosen: list[Send], sending: Sending) -> Failure | None:
    """When staging has not answered yet: the first safe request chosen, sent (and retried) here; the request, its
    exchange and attempts when the breaker tripped on it."""
    if sending.breaker.tripped or sending.breaker.answered(sending.base_url):
        return None
    first = next((s.request for s in chosen if s.request.method in SAFE_METHODS and not s.request.requires), None)
    if first is None:
        return None
    result, _, attempts = send_one(session, replace(first, method="HEAD"), sending)  # any answer will do
    return (first, result, attempts) if sending.breaker.tripped else None


def _split(label: str) -> tuple[str, str]:
    method, _, path = label.partition(" ")
    return method, path
