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
from typing import Any

from satori_ci.plan.samples import raw_operation
from satori_ci.spec.model import Operation, OperationKey, ResponseField, Spec
from satori_ci.spec.paths import Items, MapValues, Prop, escape_name, parse
from satori_ci.spec.routes import parse_template

IDENTIFIERS = ("id", "uuid", "name", "slug", "key", "code", "path", "login", "username", "number", "sha")
"""Fields that usually name one resource of a list, most specific first."""
_SUFFIXES = ("id", "uuid", "name", "slug", "key", "code", "path", "login", "username", "number", "sha")
CONTAINERS = ("", "items", "data", "results", "content", "value", "records", "entries", "objects", "list")
"""Where lists usually sit in a body (`[]`, `items[]`, ...): tried when the spec does not describe the list."""


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


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


def _list_paths(fields: Sequence[ResponseField], names: Sequence[str]) -> list[str]:
    """`<container>[].<name>` fields of the producer (the items of a list, then one of their properties)."""
    by_name: dict[str, list[tuple[int, str]]] = {}
    for f in fields:
        try:
            parts = parse(f.field)
        except ValueError:
            continue
        if len(parts) < 2 or not isinstance(parts[-1], Prop) or not isinstance(parts[-2], Items):
            continue
        if any(isinstance(p, Items | MapValues) for p in parts[:-2]):
            continue
        if f.type in ("object", "array", "boolean"):
            continue
        by_name.setdefault(_norm(parts[-1].name), []).append((len(parts), f.field))
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


def find_producer(spec: Spec, consumer: Operation, candidates: Sequence[Operation]) -> Producer | None:
    """The producer of the consumer's last path parameter among `candidates` (operations that are sent)."""
    parts = parse_template(consumer.path).segments
    index = max((i for i, s in enumerate(parts) if s.whole), default=None)
    if index is None:
        return None
    param = parts[index].whole
    assert param is not None
    linked = _linked(spec, consumer, param, candidates)
    if linked is not None:
        return linked
    prefix = parts[:index]
    producer = next((c for c in candidates if c.method == "GET" and c is not consumer
                     and parse_template(c.path).segments == prefix), None)
    if producer is None:
        return None
    collection = next((s.text for s in reversed(prefix) if not s.whole), None)
    names = candidate_names(param, collection)
    status = producer.statuses[0] if producer.statuses else None
    fields = spec.fields_of(OperationKey(producer.method, producer.path, status)) if status is not None else ()
    paths = _list_paths(fields, names) or _guessed_paths(names)
    carry = tuple((str(parts[i].whole), str(prefix[i].whole))
                  for i in range(index) if parts[i].whole and prefix[i].whole)
    return Producer(producer, param, tuple(paths), carry)


def _linked(spec: Spec, consumer: Operation, param: str, candidates: Sequence[Operation]) -> Producer | None:
    """A producer whose response declares a `link` to the consumer that fills `param` from its body."""
    for producer in candidates:
        if producer is consumer:
            continue
        responses = raw_operation(spec, producer).get("responses")
        if not isinstance(responses, dict):
            continue
        for status in producer.statuses:
            response = spec.resolve(responses.get(status))
            links = response.get("links") if isinstance(response, dict) else None
            if not isinstance(links, dict):
                continue
            for link in links.values():
                found = _link_path(spec, spec.resolve(link), consumer, param)
                if found is not None:
                    return Producer(producer, param, (found,), ())
    return None


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
