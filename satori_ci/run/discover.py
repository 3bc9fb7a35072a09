"""Before Newman runs: the explorer's choices, learned by sending the producers natively (`discover`).

Newman runs a collection as written, so it cannot choose the next request from a response. The producers (the
operations whose responses give other operations their inputs, and their next pages) are sent here first, with
the native runner's transport and bounds; every request the explorer then chooses, producers included, goes into
a plain request set that Newman sends and checks. A producer costs the budget twice (sent here and by Newman).
"""

from __future__ import annotations

import time
from dataclasses import replace

from satori_ci.plan.explore import Explorer, Send
from satori_ci.plan.model import Skip
from satori_ci.plan.requests import RequestGroup, RequestSet
from satori_ci.run.native import exchange, watched_session
from satori_ci.run.outcome import RunConfig, base_url_of, credentials
from satori_ci.run.pace import Pace


def discover(planned: RequestSet, config: RunConfig) -> RequestSet:
    """The requests the explorer chooses, as a plain set (no input left to fill), in the order to send them."""
    base_url = base_url_of(config)
    variables, _ = credentials(planned, config)
    budget = planned.budget
    started = time.monotonic()
    producers = {feed.producer for explored in planned.explore for feed in explored.feeds}
    explorer = Explorer(planned, base_url, planned.samples, budget.requests,
                        costs=dict.fromkeys(producers, 2))
    chosen: list[Send] = []
    pace = Pace(budget.rate, time.sleep)
    with watched_session() as session:
        while round_ := explorer.round():
            for send in round_:
                if time.monotonic() - started > budget.seconds:
                    explorer.stop()
                    break
                chosen.append(send)
                if send.operation in producers:
                    pace.wait()
                    result, body = exchange(session, send.request, base_url, variables, config)
                    explorer.feed(send, result.status if result.is_json else None, body, result.link)
                else:  # Newman sends it: taken as answered, so the operation gets `samples` requests
                    explorer.assume_answered(send)
            if explorer.stopped:
                break
    by_label: dict[str, list[Send]] = {}
    for send in chosen:
        by_label.setdefault(send.operation, []).append(send)
    groups = tuple(replace(g, requests=tuple(s.request for s in by_label.pop(g.name, ()))) for g in planned.groups)
    groups = tuple(g for g in groups if g.requests) + tuple(
        RequestGroup(label, "", tuple(s.request for s in sends)) for label, sends in by_label.items())
    unsent = tuple(Skip(*_split(u.operation), u.kind, u.detail) for u in explorer.unsent())
    return replace(planned, groups=groups, explore=(), skipped=(*planned.skipped, *unsent))


def _split(label: str) -> tuple[str, str]:
    method, _, path = label.partition(" ")
    return method, path
