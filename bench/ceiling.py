"""Ceiling: every GET operation sent with every value the seeded server has, by a crawler outside satori's plan.

A reference yardstick for `bench/reach.py`: it does not use satori's request plan (`satori_ci.plan.chaining`,
`build`, `expand`), only the spec, path templates, the oracle checker and `requests`. It sends GET requests only,
never anything else, and stops at a cap per operation and a global one (it says when a cap was hit).

- A value pool: every non-empty string and integer under any key of any 2XX JSON response body (any depth),
  indexed by the normalized key (lower case, non-alphanumerics dropped), with the path it came from. A
  `Link: <...>; rel="next"` header and `next`-like URL fields (same host) are requested as extra GETs of the
  same operation.
- Every GET operation with a 2XX JSON response in the spec gets its path parameters and its required query and
  header parameters from the pool: values under the parameter's own key, under the key it ends with (`id`,
  `uuid`, `name`, ...: `silenceID` -> `id`), the spec's example/default/enum, and the values the user gives
  (`name=value`). A parameter after a filled one (`/buckets/{bid}/collections/{cid}`) prefers values of
  responses under the filled prefix (`/buckets/b1/...`), else the whole pool. Every combination is tried.
- Rounds repeat until one adds no value a parameter could use (a fixpoint: every id of every list, recursively).

Recorded per operation: requests sent, responses with a 2XX JSON body the spec describes (reached), and the
enabled oracles those responses exercised (the union over responses, as the runners count them).

    python3 bench/ceiling.py --spec FILE --url URL [--header "Name: value"]... [--value name=value]...
"""

from __future__ import annotations

import argparse
import base64
import itertools
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from satori_ci.oracles.check import MAX_DEPTH, exercised_indices
from satori_ci.oracles.model import Oracle
from satori_ci.plan.auth import auth_params
from satori_ci.run.outcome import DEFAULT_MAX_BYTES, body_text, json_body
from satori_ci.spec import Operation, Parameter, Spec
from satori_ci.spec.routes import parse_template

OPERATION_CAP = 500
"""Requests per operation at most (next pages included)."""
GLOBAL_CAP = 20_000
"""Requests in all at most."""
MAX_ROUNDS = 50
"""Rounds at most, should a server keep giving new values."""
MAX_VALUE_CHARS = 200
"""Longer strings are not kept as values (no identifier is that long)."""
SUFFIXES = ("id", "uuid", "name", "slug", "key", "code", "path", "login", "username", "number", "sha")
"""A parameter named `...<suffix>` also takes the values under the key `<suffix>`."""
NEXT_KEYS = frozenset({"next", "nexturl", "nextpage", "nextpageurl", "nextlink", "nexthref"})
"""Body fields (normalized) holding the URL of the next page."""
_LINK_NEXT = re.compile(r"<([^>]*)>\s*;[^,]*\brel\s*=\s*\"?next\"?", re.IGNORECASE)
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def normalize(key: str) -> str:
    """`silenceID` -> `silenceid`, `bucket_id` -> `bucketid`."""
    return _NOT_ALNUM.sub("", key.lower())


ALIASES = {"identifier": ("id", "name"), "ids": ("id",), "names": ("name",), "keys": ("key",)}
"""Suffixes that take the values of other keys (`project_identifier` -> every `id` and `name`)."""
FALLBACK = ("id", "name")
"""The keys a parameter that matches no key takes values from (generous: it is a ceiling)."""


def keys_for(name: str) -> tuple[str, ...]:
    """The pool keys a parameter takes values from: its own, every suffix of `SUFFIXES` it ends with, the keys of
    the `ALIASES` suffix it ends with, then `FALLBACK`."""
    own = normalize(name)
    found = [own, *(s for s in SUFFIXES if own.endswith(s) and own != s)]
    for suffix, keys in ALIASES.items():
        if own.endswith(suffix):
            found.extend(keys)
    found.extend(FALLBACK)
    return tuple(dict.fromkeys(found))


# -- the value pool ------------------------------------------------------------------------------------


class Pool:
    """Values by normalized key, each with the (relative) paths of the responses that gave it, in order found."""

    def __init__(self, wanted: frozenset[str]) -> None:
        self.wanted = wanted
        """The keys some parameter takes values from (others are not kept)."""
        self.values: dict[str, dict[str, set[str]]] = {}

    def add(self, key: str, value: str, source: str) -> bool:
        """Remember a value; True when it is new under its key."""
        if key not in self.wanted:
            return False
        sources = self.values.setdefault(key, {})
        new = value not in sources
        sources.setdefault(value, set()).add(source)
        return new

    def harvest(self, body: Any, source: str) -> int:
        """Every scalar of a JSON body under its key (list items under the list's key); the new values."""
        new = 0
        for key, value in scalars(body):
            new += self.add(key, value, source)
        return new

    def candidates(self, keys: Sequence[str], prefix: str | None) -> list[str]:
        """The values under `keys`: those of responses under `prefix` when there are any, else all of them."""
        everything: dict[str, None] = {}
        under: dict[str, None] = {}
        for key in keys:
            for value, sources in self.values.get(key, {}).items():
                everything[value] = None
                if prefix is not None and any(_under(s, prefix) for s in sources):
                    under[value] = None
        return list(under or everything)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def scalars(body: Any, key: str = "", depth: int = 0) -> Iterator[tuple[str, str]]:
    """(normalized key, value) of every non-empty string and integer of a JSON value."""
    if depth > MAX_DEPTH:
        return
    if isinstance(body, dict):
        for k, v in body.items():
            yield from scalars(v, normalize(str(k)), depth + 1)
    elif isinstance(body, list):
        for v in body:
            yield from scalars(v, key, depth + 1)
    elif not key or isinstance(body, bool):
        return
    elif isinstance(body, int) or (isinstance(body, str) and body and len(body) <= MAX_VALUE_CHARS):
        yield key, str(body)


def next_links(body: Any, link_header: str | None, depth: int = 0) -> list[str]:
    """The next-page URLs (as written) of a response: its `Link: <...>; rel="next"` and `next`-like fields."""
    found = [m.group(1) for m in _LINK_NEXT.finditer(link_header or "")] if depth == 0 else []
    if depth > MAX_DEPTH:
        return found
    if isinstance(body, dict):
        for k, v in body.items():
            if isinstance(v, str) and v and normalize(str(k)) in NEXT_KEYS and ("/" in v or "?" in v):
                found.append(v)
            elif isinstance(v, dict | list):
                found.extend(next_links(v, None, depth + 1))
    elif isinstance(body, list):
        for v in body:
            found.extend(next_links(v, None, depth + 1))
    return found


# -- parameters ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One parameter the ceiling fills: where it goes, which keys feed it, the values it has without the pool."""

    name: str
    location: str
    """`path`, `query` or `header`."""
    keys: tuple[str, ...]
    given: tuple[str, ...]
    """The user's value, then the spec's example, examples, default and enum."""
    after: tuple[str, ...] = ()
    """For a parameter after a filled one: the template segments up to that one (`buckets`, `{bid}`)."""


def spec_values(spec: Spec, param: Parameter) -> list[str]:
    """The parameter's example, examples, default, enum and const, as text."""
    schema = spec.resolve(param.schema) if param.schema is not None else None
    schema = schema if isinstance(schema, dict) else {}
    raw: list[Any] = [param.example, schema.get("example"), schema.get("default"), schema.get("const")]
    for many in (schema.get("examples"), schema.get("enum")):
        if isinstance(many, list):
            raw.extend(many)
    out: dict[str, None] = {}
    for value in raw:
        if isinstance(value, bool):
            out["true" if value else "false"] = None
        elif isinstance(value, int | float | str) and str(value):
            out[str(value)] = None
    return list(out)


def slots_of(spec: Spec, operation: Operation, given: Mapping[str, str]) -> list[Slot]:
    """The path parameters in template order, then the required query and header parameters."""
    params = {(p.location, p.name): p for p in operation.parameters}
    template = parse_template(operation.path)
    out: list[Slot] = []
    last_filled: int | None = None
    for index, segment in enumerate(template.segments):
        for name in segment.names:
            if any(s.name == name for s in out):
                continue
            param = params.get(("path", name)) or Parameter(name, "path", True, None)
            after = tuple(s.text for s in template.segments[:last_filled + 1]) if last_filled is not None else ()
            out.append(_slot(spec, param, given, after))
        if segment.names:
            last_filled = index
    after = tuple(s.text for s in template.segments[:last_filled + 1]) if last_filled is not None else ()
    for param in operation.parameters:
        if param.required and param.location in ("query", "header"):
            out.append(_slot(spec, param, given, after))
    return out


def _slot(spec: Spec, param: Parameter, given: Mapping[str, str], after: tuple[str, ...]) -> Slot:
    own = [given[param.name]] if param.name in given else []
    values = tuple(dict.fromkeys([*own, *spec_values(spec, param)]))
    return Slot(param.name, param.location, keys_for(param.name), values, after)


def _prefix(slot: Slot, chosen: Mapping[str, str]) -> str | None:
    """The filled prefix a slot's values should come from (`/buckets/b1`), None when nothing is filled before."""
    if not slot.after:
        return None
    return parse_template("/" + "/".join(slot.after)).fill({k: quote(v, safe="") for k, v in chosen.items()})


def combinations(slots: Sequence[Slot], pool: Pool) -> Iterator[dict[str, str]]:
    """Every choice of one value per slot, depth first (a later slot's values depend on the earlier choices)."""

    def walk(index: int, chosen: dict[str, str]) -> Iterator[dict[str, str]]:
        if index == len(slots):
            yield dict(chosen)
            return
        slot = slots[index]
        values = dict.fromkeys([*slot.given, *pool.candidates(slot.keys, _prefix(slot, chosen))])
        for value in values:
            chosen[slot.name] = value
            yield from walk(index + 1, chosen)
        chosen.pop(slot.name, None)

    yield from walk(0, {})


def missing(slots: Sequence[Slot], pool: Pool) -> list[str]:
    """The slots without a single candidate value (the operation cannot be sent)."""
    return [s.name for s in slots if not s.given and not pool.candidates(s.keys, None)]


# -- credentials ---------------------------------------------------------------------------------------


def credentials(spec: Spec, operation: Operation, environ: Mapping[str, str]
                ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(headers, query) of the operation's credentials, from the `SATORI_AUTH_*` variables as the runners read them."""
    headers: list[tuple[str, str]] = []
    query: list[tuple[str, str]] = []
    for param in auth_params(spec, operation)[0]:
        raw = environ.get(param.variable)
        if not raw:
            continue
        if param.scheme == "basic":
            headers.append((param.name, "Basic " + base64.b64encode(raw.encode("utf-8")).decode("ascii")))
        elif param.scheme == "bearer":
            headers.append((param.name, "Bearer " + raw))
        elif param.location == "query":
            query.append((param.name, raw))
        elif param.location == "header":
            headers.append((param.name, raw))
        else:
            headers.append(("Cookie", f"{param.name}={raw}"))
    return headers, query


# -- results -------------------------------------------------------------------------------------------


@dataclass
class OperationReach:
    """What the ceiling got from one GET operation."""

    label: str
    enabled: int
    sent: int = 0
    reached: int = 0
    """Responses with a 2XX JSON body the spec describes."""
    exercised: set[Oracle] = field(default_factory=set)
    statuses: Counter[str] = field(default_factory=Counter)
    """Every answer, by status (`error` when there was none)."""
    capped: bool = False
    unfilled: tuple[str, ...] = ()
    """Parameters no value was found for (the operation was not sent)."""

    def why_not(self) -> str:
        if self.unfilled:
            return f"no value for {', '.join(self.unfilled)}"
        if not self.sent:
            return "not sent (a cap)"
        answers = ", ".join(f"{n} x {s}" for s, n in self.statuses.most_common(3))
        return f"{self.sent} sent, no 2XX JSON body the spec describes ({answers})"


@dataclass
class Ceiling:
    """Every GET operation's reach, the requests sent, the wall time, and whether a cap stopped the crawl."""

    operations: dict[str, OperationReach]
    requests: int = 0
    seconds: float = 0.0
    rounds: int = 0
    global_cap_hit: bool = False
    operation_cap: int = OPERATION_CAP
    global_cap: int = GLOBAL_CAP

    @property
    def reached(self) -> set[str]:
        return {label for label, op in self.operations.items() if op.reached}

    @property
    def exercised(self) -> set[Oracle]:
        return {o for op in self.operations.values() for o in op.exercised}

    @property
    def enabled(self) -> int:
        return sum(op.enabled for op in self.operations.values())

    @property
    def capped(self) -> list[str]:
        return [label for label, op in self.operations.items() if op.capped]

    def cap_notes(self) -> list[str]:
        notes = []
        if self.global_cap_hit:
            notes.append(f"the global cap ({self.global_cap} requests) was hit: the ceiling is a lower bound")
        if self.capped:
            notes.append(f"the per-operation cap ({self.operation_cap} requests) was hit on: {', '.join(self.capped)}")
        if self.rounds >= MAX_ROUNDS:
            notes.append(f"stopped after {MAX_ROUNDS} rounds without a fixpoint (the server keeps giving new values)")
        return notes


# -- the crawl -----------------------------------------------------------------------------------------


def oracles_by_response(oracles: Sequence[Oracle]) -> dict[tuple[str, str, str], list[Oracle]]:
    """The enabled oracles by (method, path, status), in file order (the order the runners check them in)."""
    out: dict[tuple[str, str, str], list[Oracle]] = {}
    for oracle in oracles:
        if oracle.enabled:
            key = oracle.operation
            out.setdefault((key.method, key.path, key.status), []).append(oracle)
    return out


def status_key(code: int, statuses: Sequence[str]) -> str | None:
    """The spec response (`200`, or a range like `2XX`) a status code belongs to."""
    text = str(code)
    for status in statuses:
        if status == text or (status[1:].upper() == "XX" and status[0] == text[0]):
            return status
    return None


@dataclass
class _Answer:
    status: int | None
    body: Any = None
    is_json: bool = False
    link: str | None = None


class Crawler:
    """One ceiling crawl of one server (see the module's docstring)."""

    def __init__(self, spec: Spec, oracles: Sequence[Oracle], base_url: str, *,
                 headers: Sequence[tuple[str, str]] = (), values: Sequence[tuple[str, str]] = (),
                 environ: Mapping[str, str] | None = None, timeout_s: float = 10.0,
                 operation_cap: int = OPERATION_CAP, global_cap: int = GLOBAL_CAP,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.spec = spec
        self.base_url = base_url.rstrip("/")
        self.base_path = urlsplit(self.base_url).path.rstrip("/")
        self.headers = list(headers)
        self.timeout_s = timeout_s
        self.operation_cap = operation_cap
        self.global_cap = global_cap
        self.max_bytes = max_bytes
        given = dict(values)
        self.operations = [o for o in spec.operations if o.method == "GET" and o.statuses]
        self.slots = {o.path: slots_of(spec, o, given) for o in self.operations}
        self.auth = {o.path: credentials(spec, o, environ or {}) for o in self.operations}
        self.by_response = oracles_by_response(oracles)
        wanted = frozenset(k for slots in self.slots.values() for s in slots for k in s.keys)
        self.pool = Pool(wanted)
        self.sent: set[str] = set()
        self.pages: dict[str, list[str]] = {o.path: [] for o in self.operations}
        enabled = Counter(f"{m} {p}" for (m, p, _), found in self.by_response.items() for _ in found)
        self.result = Ceiling({f"GET {o.path}": OperationReach(f"GET {o.path}", enabled[f"GET {o.path}"])
                               for o in self.operations}, operation_cap=operation_cap, global_cap=global_cap)

    def run(self) -> Ceiling:
        started = time.monotonic()
        with requests.Session() as session:
            session.trust_env = False
            while self.result.rounds < MAX_ROUNDS and not self.result.global_cap_hit:
                self.result.rounds += 1
                if not self.round(session):
                    break
        for operation in self.operations:
            reach = self.result.operations[f"GET {operation.path}"]
            if not reach.sent:
                reach.unfilled = tuple(missing(self.slots[operation.path], self.pool))
        self.result.seconds = time.monotonic() - started
        return self.result

    def round(self, session: requests.Session) -> bool:
        """Every operation with every combination not sent yet; whether the pool or the pages grew."""
        grew = False
        for operation in self.operations:
            reach = self.result.operations[f"GET {operation.path}"]
            for url, headers in itertools.chain(self.urls(operation), self.next_pages(operation)):
                if reach.sent >= self.operation_cap:
                    reach.capped = True
                    break
                if self.result.requests >= self.global_cap:
                    self.result.global_cap_hit = True
                    return False
                grew |= self.send(session, operation, reach, url, headers)
        return grew

    def urls(self, operation: Operation) -> Iterator[tuple[str, list[tuple[str, str]]]]:
        """The URL and headers of every combination of values not sent yet."""
        template = parse_template(operation.path)
        auth_headers, auth_query = self.auth[operation.path]
        slots = self.slots[operation.path]
        for chosen in combinations(slots, self.pool):
            path = template.fill({s.name: quote(chosen[s.name], safe="") for s in slots if s.location == "path"})
            query = [(s.name, chosen[s.name]) for s in slots if s.location == "query"] + auth_query
            url = self.base_url + path + ("?" + urlencode(query) if query else "")
            headers = [*self.headers, *auth_headers, *((s.name, chosen[s.name]) for s in slots
                                                       if s.location == "header")]
            if self._fresh(url, headers):
                yield url, headers

    def next_pages(self, operation: Operation) -> Iterator[tuple[str, list[tuple[str, str]]]]:
        auth_headers = self.auth[operation.path][0]
        while self.pages[operation.path]:
            url = self.pages[operation.path].pop(0)
            headers = [*self.headers, *auth_headers]
            if self._fresh(url, headers):
                yield url, headers

    def _fresh(self, url: str, headers: Sequence[tuple[str, str]]) -> bool:
        return url + "\n" + repr(sorted(headers)) not in self.sent

    def send(self, session: requests.Session, operation: Operation, reach: OperationReach, url: str,
             headers: list[tuple[str, str]]) -> bool:
        """One GET; whether it gave the pool a new value or a next page to follow."""
        self.sent.add(url + "\n" + repr(sorted(headers)))
        self.result.requests += 1
        reach.sent += 1
        answer = self.fetch(session, url, headers)
        reach.statuses["error" if answer.status is None else str(answer.status)] += 1
        if answer.status is None or not 200 <= answer.status < 300 or not answer.is_json:
            return False
        source = self.relative(url)
        grew = self.pool.harvest(answer.body, urlsplit(source).path) > 0
        for link in next_links(answer.body, answer.link):
            target = urljoin(url, link)
            if urlsplit(target).netloc == urlsplit(self.base_url).netloc and self._fresh(target, headers):
                self.pages[operation.path].append(target)
                grew = True
        key = status_key(answer.status, operation.statuses)
        if key is not None:
            reach.reached += 1
            oracles = self.by_response.get(("GET", operation.path, key), [])
            reach.exercised.update(oracles[i] for i in exercised_indices(oracles, answer.body))
        return grew

    def relative(self, url: str) -> str:
        """A URL's path (and query) under the base URL: what the spec's templates describe."""
        parts = urlsplit(url)
        path = parts.path[len(self.base_path):] if parts.path.startswith(self.base_path) else parts.path
        return path + ("?" + parts.query if parts.query else "")

    def fetch(self, session: requests.Session, url: str, headers: list[tuple[str, str]]) -> _Answer:
        """A GET without redirects, its body read up to `max_bytes` (past it the body is not read)."""
        try:
            with session.get(url, headers=dict(headers), timeout=self.timeout_s, allow_redirects=False,
                             stream=True) as response:
                data = bytearray()
                for chunk in response.iter_content(65536):
                    data.extend(chunk)
                    if len(data) > self.max_bytes:
                        return _Answer(response.status_code)
                body, unreadable = json_body(body_text(bytes(data), response.headers.get("Content-Type")))
                return _Answer(response.status_code, body, unreadable is None, response.headers.get("Link"))
        except requests.RequestException:
            return _Answer(None)


def crawl(spec: Spec, oracles: Sequence[Oracle], base_url: str, **options: Any) -> Ceiling:
    """The ceiling of one server: see `Crawler` for the options."""
    return Crawler(spec, oracles, base_url, **options).run()


# -- main ----------------------------------------------------------------------------------------------


def describe(ceiling: Ceiling) -> list[str]:
    """A few lines: the totals, the operations not reached and why, and the caps hit."""
    lines = [f"ceiling: {len(ceiling.reached)}/{len(ceiling.operations)} GET operations reached, "
             f"{len(ceiling.exercised)}/{ceiling.enabled} oracles exercised, {ceiling.requests} requests, "
             f"{ceiling.rounds} rounds, {ceiling.seconds:.2f} s"]
    lines.extend(f"  not reached: {op.label}: {op.why_not()}" for op in ceiling.operations.values() if not op.reached)
    lines.extend(f"  {note}" for note in ceiling.cap_notes())
    return lines


def main(argv: list[str] | None = None) -> int:
    import os
    import tempfile

    from bench.reach import _header, _value, infer_oracles  # one reader of --header and --value
    from satori_ci.spec import load_spec

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--spec", type=Path, required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--header", type=_header, action="append", default=[], metavar="'NAME: VALUE'")
    parser.add_argument("--value", type=_value, action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--ceiling-cap", type=int, default=GLOBAL_CAP, help="requests in all at most")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="satori-ceiling-") as tmp:
        oracles = infer_oracles(args.spec, Path(tmp))
    environ = {k: v for k, v in os.environ.items() if k.startswith("SATORI_AUTH_")}
    ceiling = crawl(load_spec(str(args.spec)), oracles, args.url, headers=args.header, values=args.value,
                    environ=environ, timeout_s=args.timeout, global_cap=args.ceiling_cap)
    print("\n".join(describe(ceiling)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
