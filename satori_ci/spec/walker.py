"""Operations and response fields of a loaded OpenAPI document, in spec order."""

from __future__ import annotations

import re
from typing import Any

from satori_ci.spec.documents import DocumentSet, escape_token
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.facts import facts_from_keywords, fingerprint
from satori_ci.spec.model import (
    Operation,
    OperationKey,
    Parameter,
    ResponseField,
    SourceLocation,
)
from satori_ci.spec.paths import escape_name
from satori_ci.spec.schema_view import Part, SchemaView, build_view, build_view_or_cut

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
LEAF_TYPES = frozenset({"string", "number", "integer", "boolean"})
_SUCCESS = re.compile(r"2(\d\d|XX|xx)\Z")
_JSON_MEDIA = re.compile(
    r"\s*(application/(json|[^;\s]*\+json)|\*/\*|application/\*|text/json)\s*(;.*)?\Z", re.IGNORECASE
)
MAX_FIELDS = 2_000_000
MAX_SCHEMA_VISITS = 10_000_000


_SharedState = dict[str, Any]
"""The `ResponseField` attributes that do not depend on where a subtree is used (name, type, facts,
api_title, location, fingerprint, notes): shared by every use of the subtree."""

_Tree = tuple[int, tuple[tuple[str, "_SharedState | _Tree"], ...]]
"""The fields of a schema subtree, relative to it: (how many, entries). Each entry is a suffix to
append to the path so far (`` for the subtree itself, `.name`, `[]`, `{}`) and either one field or
the tree of a nested subtree. Memoized subtrees are shared, not copied, by the trees that use them."""

_EMPTY: _Tree = (0, ())
_MemoKey = tuple[str, tuple[int, ...]]


class _FieldCollector:
    """Walks response body schemas, emitting `ResponseField`s.

    A schema subtree's fields depend on where it is used only through which of the nodes it meets
    are on the path there (a schema is cut where it would contain itself again), and of those only
    through the ones that can be entered other than through their parent (`DocumentSet.targets`):
    if a node on the path met again is not one of these, its parent is on the path too and is met
    first. So each subtree is walked once per set of such nodes it meets that are ancestors, almost
    always the empty set, and memoized. Without this, a dense knot of mutually recursive schemas
    (an office document model) is walked once per path through it: exponentially often. A
    subtree's fields are counted before they are listed, so one that expands past the budget
    fails at once.
    """

    def __init__(self, documents: DocumentSet, title: str, out: list[ResponseField]) -> None:
        self.documents = documents
        self.title = title
        self.out = out
        self.visits = 0
        self._memo: dict[_MemoKey, list[tuple[frozenset[int], dict[frozenset[int], _Tree]]]] = {}
        """memo key -> [(the targets met inside, {those that are ancestors: tree})]"""
        self._generation = documents.generation
        self._deps: set[int] = set()
        """The targets (`DocumentSet.targets`) met inside the subtree being walked."""

    def body(self, key: OperationKey, operation_id: str | None, part: Part) -> None:
        tree = self._walk([part], name="", ancestors=set())
        if len(self.out) + tree[0] > MAX_FIELDS:
            raise self._too_large()
        _emit(self.out.append, key, operation_id, "", tree)

    def _too_large(self) -> SpecError:
        return SpecError(SpecErrorKind.TOO_LARGE, f"{self.documents.reader.display_entry}: response schemas "
                         f"expand past {MAX_FIELDS:,} fields (refs nested too many times?)")

    def _walk(self, parts: list[Part], name: str, ancestors: set[int]) -> _Tree:
        generation = self.documents.generation
        if generation != self._generation:  # a document loaded since: more targets, memo void
            self._memo.clear()
            self._generation = generation
        memo_key = (name, tuple(id(node) for node, _, _ in parts))
        variants = self._memo.get(memo_key)
        if variants is not None:
            for known, table in variants:
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
        by_context = next((table for known, table in variants if known == deps), None)
        if by_context is None:
            by_context = {}
            variants.append((deps, by_context))
        by_context[deps & ancestors] = result
        return result

    def _walk_fresh(self, parts: list[Part], name: str, ancestors: set[int]) -> _Tree:
        self.visits += 1
        if self.visits > MAX_SCHEMA_VISITS:
            raise self._too_large()
        view, complete = build_view_or_cut(self.documents, parts, ancestors)
        self._deps |= view.ids & self.documents.targets
        if not complete:
            return _EMPTY  # the schema contains itself again on this path
        json_type = view.json_type()
        _, file, pointer = parts[0]
        if json_type is None:
            return (1, (("", self._field(name, "unknown", view, None, file, pointer)),)) if view.notes else _EMPTY
        if json_type not in ("object", "array"):
            return (1, (("", self._field(name, json_type, view, None, file, pointer)),))
        entries: list[tuple[str, _SharedState | _Tree]] = []
        count = 0
        ancestors |= view.ids
        try:
            if json_type == "object":
                for prop, prop_parts in view.properties.items():
                    child = self._walk(prop_parts, prop, ancestors)
                    if child[0]:
                        entries.append(("." + escape_name(prop), child))
                        count += child[0]
                if view.additional:
                    child = self._walk(view.additional, name + "{}", ancestors)
                    if child[0]:
                        entries.append(("{}", child))
                        count += child[0]
            else:
                items_view = build_view(self.documents, view.items, ancestors) if view.items else None
                items_type = items_view.json_type() if items_view is not None else None
                entries.append(("", self._field(name, "array", view, items_type, file, pointer)))
                count = 1
                if view.items:
                    child = self._walk(view.items, name + "[]", ancestors)
                    if child[0]:
                        entries.append(("[]", child))
                        count += child[0]
        finally:
            ancestors -= view.ids
        if count > MAX_FIELDS:
            raise self._too_large()
        return (count, tuple(entries))

    def _field(self, name: str, json_type: str, view: SchemaView, items_type: str | None,
               file: str, pointer: str) -> _SharedState:
        facts = facts_from_keywords(view.keywords, view.nullable, items_type)
        return {"name": name, "type": json_type, "facts": facts, "api_title": self.title,
                "location": SourceLocation(file, pointer), "fingerprint": fingerprint(name, json_type, facts),
                "notes": tuple(view.notes)}


def _emit(append: Any, key: OperationKey, operation_id: str | None, prefix: str, tree: _Tree) -> None:
    """Append the fields of `tree` under the path `prefix`, in order.

    A module function, not a closure calling itself: that closure would be a reference cycle holding the
    field list, which only the cyclic collector frees (GitHub's spec: 0.2 s for its first pass).
    """
    new = object.__new__
    for suffix, item in tree[1]:
        path = prefix + suffix
        if isinstance(item, tuple):  # a nested subtree
            _emit(append, key, operation_id, path, item)
            continue
        # GitHub's spec has ~77,000 fields: fill the frozen dataclass's state directly
        # rather than through its generated __init__ (ten object.__setattr__ calls each).
        response_field = new(ResponseField)
        state = response_field.__dict__
        state["operation"] = key
        state["operation_id"] = operation_id
        state["field"] = path[1:] if path[:1] == "." else path
        state.update(item)
        append(response_field)


def collect(documents: DocumentSet, root: dict[str, Any], oas_version: str, title: str
            ) -> tuple[tuple[Operation, ...], tuple[ResponseField, ...]]:
    """Every operation with its 2XX JSON responses, and their response fields in spec order."""
    entry = documents.entry
    paths = root.get("paths")
    if paths is None and not oas_version.startswith(("2", "3.0")):
        paths = {}  # optional since 3.1 (a document of webhooks or components only)
    if not isinstance(paths, dict):
        raise SpecError(SpecErrorKind.MISSING_PATHS, f"{documents.reader.display_entry}: no 'paths' object")
    swagger = oas_version.startswith("2")
    global_produces = root.get("produces")
    operations: list[Operation] = []
    fields: list[ResponseField] = []
    collector = _FieldCollector(documents, title, fields)
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
    return tuple(operations), tuple(fields)


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
