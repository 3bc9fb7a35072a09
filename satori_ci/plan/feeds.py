"""Producers found by meaning: which operations' responses can give a consumer's required input its values.

For each path parameter, and each required query or header parameter the spec suggests no value for, the rules
are tried in this order (`bench/producers.py` counts how many specs of the APIs.guru corpus have each pattern):

- `link`: an OpenAPI link from a response to the consumer that names the parameter;
- `path prefix`: the GET on the path before the parameter (`/things/{id}` <- `/things`), carrying the earlier
  parameters (`/a/{x}/b/{y}` <- `/a/{x}/b`);
- `sibling path`: the GET on the singular/plural sibling (`/thing/{id}` <- `/things`), or on the prefix plus one
  literal segment (`/things/{id}` <- `/things/search`);
- `same schema`: a GET list whose items are the consumer's 2XX response (the same `$ref`, or the same set of at
  least three property names);
- `same name`: a parameter `thing_id`/`thingIds` <- a GET list of `things` (or items with a `thing_id`
  property); else the feeds of a path parameter of the same name in another operation;
- `recursive listing`: the operation itself, when its list items have a property of the parameter's name (a
  folder listing whose entries' `path` are valid `{path}` values), seeded from the spec or the empty value.

Every feed is static, so a shard sends exactly the producers its operations need (`satori_ci.shard.slice`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from satori_ci.plan.chaining import Lookup, _guessed_paths, _norm, candidate_names, singular
from satori_ci.plan.model import Feed
from satori_ci.plan.samples import _fallback, _resolve, explicit_examples, raw_operation, scalar_text
from satori_ci.spec.model import Operation, Parameter, Spec
from satori_ci.spec.routes import Segment, parse_template

GENERIC = frozenset({"id", "uuid", "name", "key", "code", "path", "slug", "type", "value", "number", "q", "query",
                     "search", "filter", "token", "version", "apiversion"})
"""Parameter names too common to be matched to a list by name alone (most lists have such a property)."""
PATH_LIKE = frozenset({"path", "dir", "directory", "folder", "prefix", "key", "filepath", "filename"})
"""Parameters that name a place in a tree: an operation answering a resource with such a property may list its
children (`GET /contents/{path}`)."""
MIN_SHARED_PROPERTIES = 3
"""Properties two schemas must share (all of them) to be taken as the same resource without a common `$ref`."""


def _label(operation: Operation) -> str:
    return f"{operation.method} {operation.path}"


def _carry(consumer: Sequence[Segment], producer: Sequence[Segment], upto: int) -> tuple[tuple[str, str], ...]:
    """(consumer parameter, producer parameter) for the parameters both paths hold at the same place before
    `upto`."""
    return tuple((str(consumer[i].whole), str(producer[i].whole)) for i in range(min(upto, len(producer)))
                 if consumer[i].whole and producer[i].whole)


def _plural_forms(word: str) -> set[str]:
    w = word.lower()
    forms = {w, singular(w), w + "s", w + "es"}
    if w.endswith("y"):
        forms.add(w[:-1] + "ies")
    return forms


class FeedFinder:
    """The feeds of every input of the operations that are sent (`candidates`)."""

    def __init__(self, spec: Spec, candidates: Sequence[Operation]) -> None:
        self.spec = spec
        self.candidates = [c for c in candidates if c.method == "GET" and c.statuses]
        self.lookup = Lookup(spec, self.candidates)
        self.templates = {id(c): parse_template(c.path).segments for c in self.candidates}
        self.shapes = {id(c): _shape(self.templates[id(c)]) for c in self.candidates}
        self._position = {id(c): i for i, c in enumerate(self.candidates)}
        self._by_shape: dict[tuple[str, ...], list[Operation]] = {}
        """The candidates by their path's shape, and (with the key `("..", *parent)`) by their parent's shape."""
        self._siblings: dict[tuple[tuple[str, ...], str], list[Operation]] = {}
        """The candidates ending in a literal segment, by their parent's shape and that segment in lower case."""
        for c in self.candidates:
            shape, segments = self.shapes[id(c)], self.templates[id(c)]
            self._by_shape.setdefault(shape, []).append(c)
            if shape:
                self._by_shape.setdefault(("..", *shape[:-1]), []).append(c)
                if not segments[-1].whole:
                    self._siblings.setdefault((shape[:-1], segments[-1].text.lower()), []).append(c)
        self._collections: dict[int, tuple[str | None, str, str]] = {}
        self._holding: dict[str, list[Operation]] = {}
        """The candidates by the parameters their path holds as a whole segment."""
        self._by_thing: dict[str, list[Operation]] = {}
        """The candidates on a literal collection, by the thing it lists (`things` and `parent_things`)."""
        for c in self.candidates:
            for name in dict.fromkeys(s.whole for s in self.templates[id(c)] if s.whole):
                self._holding.setdefault(name, []).append(c)
            collection, thing, parent = self._collection(c)
            if collection:
                for key in dict.fromkeys((thing, parent + thing)):
                    self._by_thing.setdefault(key, []).append(c)
        self._by_items: dict[object, list[Operation]] | None = None
        self._items: dict[int, tuple[str | None, frozenset[str]]] = {}
        self._found: dict[tuple[int, str], tuple[Feed, ...]] = {}

    def path_feeds(self, consumer: Operation, param: str) -> tuple[Feed, ...]:
        found = self._path_feeds(consumer, param)
        if not any(f.why != "recursive listing" for f in found):
            found = _ranked([*found, *self._elsewhere(consumer, param)])
        return found

    def _list_fields(self, producer: Operation, names: Sequence[str], guess: bool = True) -> tuple[str, ...]:
        found = self.lookup.list_paths(producer, names)
        if not found and guess:
            found = _guessed_paths(names)
        return tuple(found)

    def _elsewhere(self, consumer: Operation, param: str) -> list[Feed]:
        """The feeds of a path parameter of the same name in another operation (`/repos/{owner}/x` takes the
        `owner` values `/users/{owner}` gets from `/users`), when they need nothing carried."""
        out: list[Feed] = []
        for other in self._holding.get(param, ()):
            if other is consumer:
                continue
            out.extend(replace(f, why="same name") for f in self._path_feeds(other, param)
                       if not f.carry and f.why != "same name")
        return out

    def _path_feeds(self, consumer: Operation, param: str) -> tuple[Feed, ...]:
        """The feeds found for the parameter on the operation's own path (each asked for once)."""
        key = (id(consumer), param)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._find_path_feeds(consumer, param)
        return found

    def _find_path_feeds(self, consumer: Operation, param: str) -> tuple[Feed, ...]:
        parts = parse_template(consumer.path).segments
        index = next((i for i, s in enumerate(parts) if s.whole == param), None)
        if index is None:
            return ()
        feeds: list[Feed] = []
        linked = self.lookup.linked(consumer, param)
        if linked is not None:
            feeds.append(Feed(_label(linked.operation), param, linked.paths, (), "link"))
        prefix = parts[:index]
        collection = next((s.text for s in reversed(prefix) if not s.whole), None)
        names = candidate_names(param, collection)
        mine = _shape(prefix)
        for producer in self._related(prefix, mine):
            if producer is consumer:
                continue
            theirs = self.templates[id(producer)]
            why = self._path_relation(prefix, mine, theirs, self.shapes[id(producer)])
            if why is None:
                continue
            feeds.append(Feed(_label(producer), param, self._list_fields(producer, names),
                              _carry(parts, theirs, index), why))
        feeds.extend(self._same_schema(consumer, param, names))
        if not feeds:
            feeds.extend(self._named(consumer, param))
        feeds.extend(self._itself(consumer, param))
        return _ranked(feeds)

    def _related(self, prefix: Sequence[Segment], mine: tuple[str, ...]) -> list[Operation]:
        """The candidates whose path may relate to the prefix (of shape `mine`) as `_path_relation` says, in their
        order: the same shape; after a literal segment, a child of the prefix or a sibling named as its singular
        or plural."""
        related = list(self._by_shape.get(mine, ()))
        if prefix and not prefix[-1].whole:
            last = prefix[-1].text
            related += self._by_shape.get(("..", *mine), ())
            for form in _plural_forms(last) | {singular(last)}:
                if form != last.lower():
                    related += self._siblings.get((mine[:-1], form), ())
        return self._in_order(related)

    def _in_order(self, operations: Sequence[Operation]) -> list[Operation]:
        """The candidates among `operations`, once each, in the candidates' order."""
        return sorted({id(c): c for c in operations}.values(), key=lambda c: self._position[id(c)])

    def query_feeds(self, consumer: Operation, parameter: Parameter) -> tuple[Feed, ...]:
        """Feeds of a required query or header parameter: links, lists named like it, lists whose items have it."""
        feeds: list[Feed] = []
        linked = self.lookup.linked(consumer, parameter.name)
        if linked is not None:
            feeds.append(Feed(_label(linked.operation), parameter.name, linked.paths, (), "link"))
        feeds.extend(self._named(consumer, parameter.name))
        if not feeds:
            feeds.extend(self._elsewhere(consumer, parameter.name))
        return _ranked(feeds)

    def _named(self, consumer: Operation, param: str) -> list[Feed]:
        """Lists that name the parameter: `thing_id`/`thingIds` <- a list on `/.../things` (its items' `id`;
        `prompt_version_id` <- `/prompts/{p}/versions`), or a list whose items have a property of the
        parameter's exact name (not a generic one like `id`)."""
        stem, norm = _stem(param), _norm(param)
        generic = norm in GENERIC
        pool = [*self._by_thing.get(stem, ()), *(() if generic else self.lookup.listing(norm))] if stem else (
            [] if generic else self.lookup.listing(norm))
        out = []
        for producer in self._in_order(pool):  # the others give nothing: neither named nor listing the name
            if producer is consumer:
                continue
            collection, thing, parent = self._collection(producer)
            named = bool(collection and stem and stem in (thing, parent + thing))
            if named:
                paths = self._list_fields(producer, candidate_names(singular(param), collection), guess=True)
            elif not generic:
                paths = self._list_fields(producer, (param,), guess=False)
            else:
                paths = ()
            if paths:
                out.append(Feed(_label(producer), param, paths, (), "same name"))
        return out

    def _collection(self, producer: Operation) -> tuple[str | None, str, str]:
        """The literal last segment of the producer's path (None if a parameter ends it), that segment
        singular and normalized, and the literal before it, the same (`/prompts/{p}/versions`: `versions`,
        `version`, `prompt`)."""
        found = self._collections.get(id(producer))
        if found is None:
            segments = self.templates[id(producer)]
            literal = [s.text for s in segments if not s.whole]
            collection = literal[-1] if literal and segments and not segments[-1].whole else None
            parent = _norm(singular(literal[-2])) if len(literal) > 1 else ""
            found = self._collections[id(producer)] = (
                collection, _norm(singular(collection)) if collection else "", parent)
        return found

    def _path_relation(self, prefix: Sequence[Segment], mine: tuple[str, ...], theirs: Sequence[Segment],
                       other: tuple[str, ...]) -> str | None:
        """How a producer's path (`theirs`, of shape `other`) relates to the consumer's before its parameter."""
        if other == mine:
            return "path prefix"
        if not prefix or prefix[-1].whole:
            return None
        last = prefix[-1].text
        if (len(other) == len(mine) and other[:-1] == mine[:-1] and not theirs[-1].whole
                and theirs[-1].text.lower() != last.lower()
                and theirs[-1].text.lower() in _plural_forms(last) | {singular(last)}):
            return "sibling path"
        if (len(other) == len(mine) + 1 and other[:-1] == mine and not theirs[-1].whole
                and self._items_of_known(theirs)):
            return "sibling path"
        return None

    def _items_of_known(self, segments: Sequence[Segment]) -> bool:
        """Whether the operation on these segments answers a list the spec describes (a `/things/search` sibling
        counts only then: `bench/producers.py` finds many literal siblings that are not lists)."""
        producer = self.lookup.get_on(tuple(segments))
        return producer is not None and self._items_of(producer) != (None, frozenset())

    def _same_schema(self, consumer: Operation, param: str, names: Sequence[str]) -> list[Feed]:
        ref, props = self._schema_of(consumer)
        if ref is None and len(props) < MIN_SHARED_PROPERTIES:
            return []
        if self._by_items is None:
            self._by_items = {}
            for c in self.candidates:
                their_ref, their_props = self._items_of(c)
                for key in (their_ref, their_props):
                    self._by_items.setdefault(key, []).append(c)
        pool = [*(self._by_items.get(ref, ()) if ref is not None else ()),
                *(self._by_items.get(props, ()) if len(props) >= MIN_SHARED_PROPERTIES else ())]
        out = []
        for producer in self._in_order(pool):
            if producer is consumer:
                continue
            their_ref, their_props = self._items_of(producer)
            same = (ref is not None and their_ref == ref) or (
                len(props) >= MIN_SHARED_PROPERTIES and their_props == props)
            if same:
                paths = self._list_fields(producer, names, guess=False)
                if paths:
                    out.append(Feed(_label(producer), param, paths, (), "same schema"))
        return out

    def _itself(self, consumer: Operation, param: str) -> list[Feed]:
        """The operation as its own producer, when the parameter is its last segment: its list items have the
        parameter (a folder listing; `path`/`name` for a path-like one), or it answers
        a resource named by a path-like parameter it holds (`{path}` answered with a `path`), whose listing the
        spec leaves undescribed (then the usual places of a list are tried)."""
        segments = parse_template(consumer.path).segments
        if not segments or segments[-1].whole != param:  # `/things/{id}/parts` does not list things
            return []
        wanted = (param, *(("path", "name") if _norm(param) in PATH_LIKE else ()))
        paths = self._list_fields(consumer, wanted, guess=False)
        if not paths and _norm(param) in PATH_LIKE and _norm(param) in {_norm(p) for p in self._schema_of(consumer)[1]}:
            paths = tuple(_guessed_paths(wanted))
        return [Feed(_label(consumer), param, paths, (), "recursive listing")] if paths else []

    def _response_schema(self, operation: Operation) -> Any:
        responses = raw_operation(self.spec, operation).get("responses")
        if not isinstance(responses, dict) or not operation.statuses:
            return None
        response = self.spec.resolve(responses.get(operation.statuses[0]))
        if not isinstance(response, dict):
            return None
        content = response.get("content")
        if isinstance(content, dict):
            media = next((v for k, v in content.items() if "json" in str(k)), None)
            return media.get("schema") if isinstance(media, dict) else None
        return response.get("schema")

    def _schema_of(self, operation: Operation) -> tuple[str | None, frozenset[str]]:
        node = self._response_schema(operation)
        ref = node.get("$ref") if isinstance(node, dict) else None
        resolved = self.spec.resolve(node)
        props = resolved.get("properties") if isinstance(resolved, dict) else None
        return (ref if isinstance(ref, str) else None), frozenset(props) if isinstance(props, dict) else frozenset()

    def _items_of(self, operation: Operation) -> tuple[str | None, frozenset[str]]:
        """The `$ref` and property names of a list response's items (the body, or its one array property)."""
        key = id(operation)
        if key not in self._items:
            self._items[key] = self._find_items(operation)
        return self._items[key]

    def _find_items(self, operation: Operation) -> tuple[str | None, frozenset[str]]:
        schema = self.spec.resolve(self._response_schema(operation))
        if not isinstance(schema, dict):
            return None, frozenset()
        items = schema.get("items") if schema.get("type") == "array" else None
        if items is None and isinstance(schema.get("properties"), dict):
            arrays = [p for p in (self.spec.resolve(v) for v in schema["properties"].values())
                      if isinstance(p, dict) and p.get("type") == "array"]
            items = arrays[0].get("items") if len(arrays) == 1 else None
        if not isinstance(items, dict):
            return None, frozenset()
        ref = items.get("$ref")
        resolved = self.spec.resolve(items)
        props = resolved.get("properties") if isinstance(resolved, dict) else None
        return (ref if isinstance(ref, str) else None), frozenset(props) if isinstance(props, dict) else frozenset()


def _shape(segments: Sequence[Segment]) -> tuple[str, ...]:
    """The segments with every parameter alike (`/a/{x}` and `/a/{id}` have one shape)."""
    return tuple("{}" if s.whole else s.text for s in segments)


_RANK = {"link": 0, "path prefix": 1, "sibling path": 2, "same schema": 3, "same name": 4, "recursive listing": 5}


def _ranked(feeds: Sequence[Feed]) -> tuple[Feed, ...]:
    seen: set[tuple[str, str]] = set()
    out = []
    for feed in sorted(feeds, key=lambda f: _RANK.get(f.why, 9)):
        if (feed.producer, feed.param) not in seen:
            seen.add((feed.producer, feed.param))
            out.append(feed)
    return tuple(out)


def _stem(name: str) -> str:
    """`thing_id`, `thingIds`, `thing_identifier`, `thing` -> `thing` (normalized)."""
    n = _norm(name)
    for suffix in ("identifiers", "identifier", "ids", "id", "uuids", "uuid", "keys", "key", "names", "name"):
        if n.endswith(suffix) and n != suffix:
            return n[: -len(suffix)]
    return n


def suggestions(spec: Spec, parameter: Parameter) -> tuple[str, ...]:
    """The values the spec suggests for a parameter (`example`, `examples`, `default`, `const`, `enum`), as text."""
    schema = _resolve(spec, parameter.schema)
    found = ([parameter.example] if parameter.example is not None else []) + explicit_examples(schema)
    enum = schema.get("enum")
    if isinstance(enum, list):
        found.extend(v for v in enum if v is not None)
    has, value = _fallback(schema)
    if has:
        found.append(value)
    out: list[str] = []
    for value in found:
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = scalar_text(value)
            if text not in out:
                out.append(text)
    return tuple(out)


def empty_is_a_root(spec: Spec, operation: Operation, parameter: Parameter) -> bool:
    """Whether the empty string can stand for the root of a recursive listing: a value of the parameter's schema (a
    string without a minimum length or a pattern), in the path's last segment, alone there, no slash after
    (`/contents/{path}` -> `/contents/`; `/views/{id}/` would be `/views//`, another path)."""
    template = parse_template(operation.path)
    if not template.segments or template.segments[-1].whole != parameter.name or template.trailing_slash:
        return False
    schema = _resolve(spec, parameter.schema)
    kind = schema.get("type", "string")
    minimum = schema.get("minLength")
    return (kind == "string" and not schema.get("pattern") and not schema.get("enum")
            and not (isinstance(minimum, int) and minimum > 0))
