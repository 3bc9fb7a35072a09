"""The native runner: the collection's requests sent with `requests`, the oracles checked in Python."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests

from satori_ci.oracles.check import exercised_indices
from satori_ci.postman.collection import Collection, RequestItem
from satori_ci.run.model import ProblemKind, RunResult
from satori_ci.run.outcome import (
    Exchange,
    RunConfig,
    Tally,
    apply_harvests,
    base_url_of,
    body_text,
    findings_of,
    parse_json,
    prepare,
    request_ref,
)

Sleep = Callable[[float], None]


def classify_exception(exc: requests.RequestException) -> tuple[ProblemKind, str]:
    """The infrastructure problem behind a `requests` exception."""
    if isinstance(exc, requests.exceptions.SSLError):
        return ProblemKind.TLS, f"TLS error: {exc}"
    if isinstance(exc, requests.exceptions.Timeout):
        return ProblemKind.TIMEOUT, f"timed out: {exc}"
    return ProblemKind.CONNECTION, f"connection failed: {exc}"


def exchange(session: requests.Session, item: RequestItem, base_url: str, variables: dict[str, str],
             config: RunConfig) -> tuple[Exchange, Any]:
    """Send one request and check its response: the exchange, and the parsed body of a checked response."""
    url = item.url(base_url, variables)
    headers = dict(item.headers(variables))
    body = item.body.encode("utf-8") if item.body is not None else None
    try:
        response = session.request(item.method, url, headers=headers, data=body, timeout=config.timeout_s,
                                   verify=not config.insecure, allow_redirects=True)
        data = response.content
    except requests.RequestException as exc:
        kind, detail = classify_exception(exc)
        return Exchange(problem=kind, detail=detail), None
    status = response.status_code
    key = item.status_key(status)
    if key is None:
        return Exchange(status=status), None
    ok, parsed = parse_json(body_text(data, response.headers.get("Content-Type")))
    if not ok:
        return Exchange(status=status, detail=f"the body of {item.label} is not JSON"), None
    oracles = item.oracles_for(key)
    findings = findings_of(oracles, parsed, item.null_like)
    return Exchange(status=status, is_json=True, findings=findings,
                    exercised=exercised_indices(oracles, parsed, item.null_like)), parsed


def run_native(collection: Collection, config: RunConfig, sleep: Sleep = time.sleep) -> RunResult:
    """Every request of the collection, `config.iterations` times, each retried on infrastructure problems
    (a 5XX once); chained requests take the values earlier responses gave, and are not sent without them."""
    started = time.monotonic()
    collection, variables, notes = prepare(collection, config)
    base_url = base_url_of(config)
    tally = Tally("native", collection, config)
    chain: dict[str, str] = {}
    with requests.Session() as session:
        session.headers["User-Agent"] = "satori-ci"
        for iteration in range(config.iterations):
            for item in collection.items():
                if any(name not in chain for name in item.requires):
                    tally.add(item, request_ref(item, iteration, base_url), Exchange(skipped=item.skip_reason))
                    continue
                if item.team is not None and item.team.unresolved:
                    names = ", ".join("{{" + n + "}}" for n in item.team.unresolved)
                    tally.add(item, request_ref(item, iteration, base_url), Exchange(
                        skipped=f"{item.team.label} needs {names}, which the collection's scripts set: "
                                "run it with --runner newman"))
                    continue
                known = {**variables, **chain}
                attempts = 1
                result, body = exchange(session, item, base_url, known, config)
                while result.retryable(attempts, config.retries):
                    sleep(config.backoff_s * attempts)
                    attempts += 1
                    result, body = exchange(session, item, base_url, known, config)
                used = tuple((name, chain[name]) for name in item.requires)
                tally.add(item, request_ref(item, iteration, base_url, used), result, attempts)
                if result.is_json and result.status is not None and 200 <= result.status < 300:
                    apply_harvests(item, body, chain)
    scripted = sum(1 for i in collection.items() if i.team is not None and i.team.scripts)
    if scripted:
        notes = (*notes, f"the native runner does not run the team collection's scripts ({scripted} request(s) "
                         "have some): use --runner newman to run them")
    return tally.result(time.monotonic() - started, (*collection.notes, *notes), collection)
