"""Producers and consumers: which earlier response gives a path parameter its values.

A consumer `GET /things/{thing_id}` takes `thing_id` from its producer, the operation on the path before the
parameter (`GET /things`), and from the field of the producer's list items that the parameter names
(`thing_id`, else `id` for `*_id`/`*Id`, `name` for `*_name`, then the usual identifiers). An OpenAPI `link`
from a response to the consumer (`parameters: {thing_id: $response.body#/id}`) wins over those guesses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from satori_ci.plan.samples import raw_operation
from satori_ci.spec.model import Operation, OperationKey, ResponseField, Spec
from satori_ci.spec.paths import Items, MapValues, Prop, escape_name, parse
from satori_ci.spec.routes import Segment, parse_template

IDENTIFIERS = ("id", "uuid", "name", "slug", "key", "code", "path", "login", "username", "number", "sha")
"""Fields that usually name one resource of a list, most specific first."""
_SUFFIXES = ("id", "uuid", "name", "slug", "key", "code", "path", "login", "username", "number", "sha")
CONTAINERS = ("", "items", "data", "results", "content", "value", "records", "entries", "objects", "list")
"""Where lists usually sit in a body (`[]`, `items[]`, ...): tried when the spec does not describe the list."""


_NOT_ALNUM = re.compile(r"[^a-z0-9]")


@lru_cache(maxsize=65536)
def _norm(name: str) -> str:
    return _NOT_ALNUM.sub("", name.lower())


def singular(word: str) -> str:
    """`things` -> `thing`, `categories` -> `category`, `boxes` -> `box` (good enough for matching names)."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 3:
        return w[:-3] + "y"
    if w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def candidate_names(param: str, collection: str | None) -> tuple[str, ...]:
    """Field names that may hold `param`'s values in the producer's items, best first."""
    names = [param]
    n = _norm(param)
    for suffix in _SUFFIXES:
        if n.endswith(suffix) and n != suffix:
            names.append(suffix)
            break
    if collection is not None and n in (_norm(singular(collection)), _norm(collection)):
        names.extend(IDENTIFIERS)
    names.extend(IDENTIFIERS)
    seen: dict[str, None] = {}
    for name in names:
        seen.setdefault(name, None)
    return tuple(seen)


@dataclass(frozen=True)
class Producer:
    """Where a consumer's last path parameter comes from."""

    operation: Operation
    param: str
    """The consumer's parameter filled from the producer's body."""
    paths: tuple[str, ...]
    carry: tuple[tuple[str, str], ...]
    """(consumer parameter, producer parameter) taken from the producer's own request."""


ListIndex = dict[str, list[tuple[int, str]]]
"""A producer's `<container>[].<name>` fields (the items of a list, then one of their properties) by normalized
name: (segments, field path), in spec order."""


def _list_index(fields: Sequence[ResponseField]) -> ListIndex:
    by_name: ListIndex = {}
    for f in fields:
        if f.type in ("object", "array", "boolean"):
            continue
        # such a field's path holds `[]` once, then `.` and the name, and no `{}` (an escaped name holds neither):
        # the others (deep in lists of lists: most of an AWS spec's fields) are not parsed
        if f.field.count("[]") != 1 or "[]." not in f.field or "{}" in f.field:
            continue
        try:
            parts = parse(f.field)
        except ValueError:
            continue
        if len(parts) < 2 or not isinstance(parts[-1], Prop) or not isinstance(parts[-2], Items):
            continue
        if any(isinstance(p, Items | MapValues) for p in parts[:-2]):
            continue
        by_name.setdefault(_norm(parts[-1].name), []).append((len(parts), f.field))
    return by_name


def _paths_named(by_name: ListIndex, names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        for _, path in sorted(by_name.get(_norm(name), [])):
            if path not in out:
                out.append(path)
    return out


def _guessed_paths(names: Sequence[str]) -> list[str]:
    """Common places of a list's identifiers, for a producer whose spec does not describe its items."""
    out = []
    for name in names[:4]:
        for container in CONTAINERS:
            out.append((f"{escape_name(container)}[]" if container else "[]") + "." + escape_name(name))
    return out


class ListFields:
    """Each operation's `<container>[].<name>` fields by name, read from its first response once."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self._by_operation: dict[int, ListIndex] = {}

    def index(self, producer: Operation) -> ListIndex:
        found = self._by_operation.get(id(producer))
        if found is None:
            status = producer.statuses[0] if producer.statuses else None
            key = OperationKey(producer.method, producer.path, status) if status is not None else None
            fields = self.spec.fields_of(key) if key is not None else ()
            found = self._by_operation[id(producer)] = _list_index(fields)
        return found

    def paths(self, producer: Operation, names: Sequence[str]) -> list[str]:
        """The `<container>[].<name>` fields of the producer's first response for these names, in their order."""
        return _paths_named(self.index(producer), names)


class Lookup:
    """What the plan asks of a spec again and again, each found once: a producer's list fields by name (`lists`,
    which lookups over other candidates may share), its links (in `candidates`, which it may be), the GET on a path
    (a spec of a thousand operations asks for each of them for each parameter: without these, GitHub's spec is
    planned in hours, not seconds)."""

    def __init__(self, spec: Spec, candidates: Sequence[Operation], lists: ListFields | None = None) -> None:
        self.spec = spec
        self.candidates = list(candidates)
        self.lists = lists if lists is not None else ListFields(spec)
        self._links: dict[int, list[Any]] = {}
        self._gets: dict[tuple[Segment, ...], Operation] = {}
        self._linking: list[Operation] | None = None
        """The candidates whose responses have links."""
        self._listing: dict[str, list[Operation]] | None = None
        """The candidates by the normalized names of their list items' fields."""
        for c in reversed(self.candidates):  # the first GET on a path wins
            if c.method == "GET":
                self._gets[parse_template(c.path).segments] = c

    def list_paths(self, producer: Operation, names: Sequence[str]) -> list[str]:
        """`ListFields.paths` of the producer."""
        return self.lists.paths(producer, names)

    def listing(self, name: str) -> list[Operation]:
        """The candidates whose first response lists items with a field of this normalized name."""
        if self._listing is None:
            self._listing = {}
            for c in self.candidates:
                for key in self.lists.index(c):
                    self._listing.setdefault(key, []).append(c)
        return self._listing.get(name, [])

    def get_on(self, segments: tuple[Segment, ...]) -> Operation | None:
        """The first GET among the candidates on the path of these segments."""
        return self._gets.get(segments)

    def linked(self, consumer: Operation, param: str) -> Producer | None:
        """A producer whose response declares a `link` to the consumer that fills `param` from its body."""
        if self._linking is None:
            self._linking = [c for c in self.candidates if self._links_of(c)]
        for producer in self._linking:
            if producer is consumer:
                continue
            for link in self._links_of(producer):
                found = _link_path(self.spec, link, consumer, param)
                if found is not None:
                    return Producer(producer, param, (found,), ())
        return None

    def _links_of(self, producer: Operation) -> list[Any]:
        """The links of the producer's responses (resolved), in the order of its statuses."""
        links = self._links.get(id(producer))
        if links is None:
            links = self._links[id(producer)] = []
            responses = raw_operation(self.spec, producer).get("responses")
            if isinstance(responses, dict):
                for status in producer.statuses:
                    response = self.spec.resolve(responses.get(status))
                    found = response.get("links") if isinstance(response, dict) else None
                    if isinstance(found, dict):
                        links.extend(self.spec.resolve(link) for link in found.values())
        return links


def find_producer(lookup: Lookup, consumer: Operation) -> Producer | None:
    """The producer of the consumer's last path parameter among the lookup's candidates (operations that are
    sent)."""
    parts = parse_template(consumer.path).segments
    index = max((i for i, s in enumerate(parts) if s.whole), default=None)
    if index is None:
        return None
    param = parts[index].whole
    assert param is not None
    linked = lookup.linked(consumer, param)
    if linked is not None:
        return linked
    prefix = parts[:index]
    producer = lookup.get_on(prefix)
    if producer is None or producer is consumer:
        return None
    collection = next((s.text for s in reversed(prefix) if not s.whole), None)
    names = candidate_names(param, collection)
    paths = lookup.list_paths(producer, names) or _guessed_paths(names)
    carry = tuple((str(parts[i].whole), str(prefix[i].whole))
                  for i in range(index) if parts[i].whole and prefix[i].whole)
    return Producer(producer, param, tuple(paths), carry)


def _link_path(spec: Spec, link: Any, consumer: Operation, param: str) -> str | None:
    if not isinstance(link, dict):
        return None
    target = link.get("operationId")
    ref = link.get("operationRef")
    if target is not None and target != consumer.operation_id:
        return None
    if target is None and not (isinstance(ref, str) and _ref_names(ref, consumer)):
        return None
    parameters = link.get("parameters")
    expression = parameters.get(param) if isinstance(parameters, dict) else None
    if not isinstance(expression, str) or not expression.startswith("$response.body#"):
        return None
    return pointer_to_field(expression[len("$response.body#"):])


def _ref_names(ref: str, consumer: Operation) -> bool:
    escaped = consumer.path.replace("~", "~0").replace("/", "~1")
    return ref.endswith(f"/paths/{escaped}/{consumer.method.lower()}")


def pointer_to_field(pointer: str) -> str | None:
    """A JSON pointer as a field path (`/items/0/id` -> `items[].id`); None when it is not one."""
    if pointer and not pointer.startswith("/"):
        return None
    out = ""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if token.isdigit():
            out += "[]"
        else:
            out += ("." if out else "") + escape_name(token)
    return out
