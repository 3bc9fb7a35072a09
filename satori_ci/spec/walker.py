"""Operations and response fields of a loaded OpenAPI document, in spec order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from satori_ci.spec.documents import DocumentSet, escape_token
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.facts import facts_from_keywords, fingerprint
from satori_ci.spec.model import (
    FieldFacts,
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


@dataclass(frozen=True)
class _FieldInfo:
    """What a field is, apart from where it is used: shared by every use of its subtree."""

    name: str
    type: str
    facts: FieldFacts
    fingerprint: str
    location: SourceLocation
    notes: tuple[str, ...]
    shared: dict[str, Any]
    """The `ResponseField` attributes that do not depend on where the subtree is used."""


_MemoKey = tuple[str, tuple[int, ...]]
_Template = tuple[str, _FieldInfo]
"""A field relative to its subtree: the suffix appended to the subtree's path (`` for the subtree
itself, `.name`, `[]`, `[].name`, `{}`) and the shared field info."""


class _FieldCollector:
    """Walks response body schemas, emitting `ResponseField`s.

    A schema subtree gives the same fields wherever it is used, unless a cycle was cut inside it
    (a recursive schema): then they depend on the path, but only through which of the schema nodes
    looked at inside the subtree (its "dependencies") are ancestors. So subtrees are walked once and
    memoized: without a cut, by the subtree alone; with one, by the subtree and the ancestors among
    its dependencies. Without the second memo, a dense knot of mutually recursive schemas (an
    office document model) is walked once per path through it: exponentially often.
    """

    def __init__(self, documents: DocumentSet, title: str, out: list[ResponseField]) -> None:
        self.documents = documents
        self.title = title
        self.out = out
        self.visits = 0
        self._memo: dict[_MemoKey, tuple[_Template, ...]] = {}
        self._by_context: dict[_MemoKey, list[tuple[frozenset[int], dict[frozenset[int], tuple[_Template, ...]]]]] = {}
        self._deps: set[int] | None = None
        """Dependencies of the subtree being walked; None while no cycle was cut inside it."""
        self._produced = 0

    def body(self, key: OperationKey, operation_id: str | None, part: Part) -> None:
        templates = self._walk([part], name="", ancestors=set())
        append = self.out.append
        new = object.__new__
        for suffix, i in templates:
            # GitHub's spec has ~77,000 fields: fill the frozen dataclass's state directly rather
            # than through its generated __init__ (ten object.__setattr__ calls each); same value.
            response_field = new(ResponseField)
            state = response_field.__dict__
            state["operation"] = key
            state["operation_id"] = operation_id
            state["field"] = suffix[1:] if suffix[:1] == "." else suffix
            state.update(i.shared)
            append(response_field)
        if len(self.out) > MAX_FIELDS:
            raise self._too_large()

    def _too_large(self) -> SpecError:
        return SpecError(SpecErrorKind.TOO_LARGE, f"{self.documents.reader.display_entry}: response schemas "
                         f"expand past {MAX_FIELDS:,} fields (refs nested too many times?)")

    def _walk(self, parts: list[Part], name: str, ancestors: set[int]) -> tuple[_Template, ...]:
        memo_key = (name, tuple(id(node) for node, _, _ in parts))
        cached = self._memo.get(memo_key)
        if cached is not None:
            self._count(len(cached))
            return cached
        variants = self._by_context.get(memo_key)
        if variants is not None:
            for deps, by_context in variants:
                cached = by_context.get(deps & ancestors)
                if cached is not None:
                    self._count(len(cached))
                    self._depend_on(deps)
                    return cached
        outer, self._deps = self._deps, None
        result = self._walk_fresh(parts, name, ancestors)
        inner, self._deps = self._deps, outer
        if inner is None:
            self._memo[memo_key] = result
            return result
        deps = frozenset(inner)
        variants = self._by_context.setdefault(memo_key, [])
        for known, by_context in variants:
            if known == deps:
                break
        else:
            by_context = {}
            variants.append((deps, by_context))
        by_context[deps & ancestors] = result
        self._depend_on(deps)
        return result

    def _depend_on(self, ids: set[int] | frozenset[int]) -> None:
        if self._deps is None:
            self._deps = set(ids)
        else:
            self._deps |= ids

    def _count(self, produced: int) -> None:
        self.visits += 1
        self._produced += produced
        if self.visits > MAX_SCHEMA_VISITS or self._produced > MAX_FIELDS:
            raise self._too_large()

    def _walk_fresh(self, parts: list[Part], name: str, ancestors: set[int]) -> tuple[_Template, ...]:
        self._count(0)
        view, complete = build_view_or_cut(self.documents, parts, ancestors)
        if not complete:
            self._depend_on(view.ids)  # the schema contains itself again on this path
            return ()
        json_type = view.json_type()
        _, file, pointer = parts[0]
        if json_type is None:
            return (self._template(name, "unknown", view, None, file, pointer),) if view.notes else ()
        if json_type not in ("object", "array"):
            return (self._template(name, json_type, view, None, file, pointer),)
        out: list[_Template] = []
        ancestors |= view.ids
        try:
            if json_type == "object":
                for prop, prop_parts in view.properties.items():
                    prefix = "." + escape_name(prop)
                    out.extend(_shifted(prefix, self._walk(prop_parts, prop, ancestors)))
                if view.additional:
                    out.extend(_shifted("{}", self._walk(view.additional, name + "{}", ancestors)))
            else:
                items_view = build_view(self.documents, view.items, ancestors) if view.items else None
                items_type = items_view.json_type() if items_view is not None else None
                out.append(self._template(name, "array", view, items_type, file, pointer))
                if view.items:
                    out.extend(_shifted("[]", self._walk(view.items, name + "[]", ancestors)))
        finally:
            ancestors -= view.ids
        if self._deps is not None:
            self._deps |= view.ids  # a cut inside: whether this schema is itself cut matters too
        return tuple(out)

    def _template(self, name: str, json_type: str, view: SchemaView, items_type: str | None,
                  file: str, pointer: str) -> _Template:
        facts = facts_from_keywords(view.keywords, view.nullable, items_type)
        digest = fingerprint(name, json_type, facts)
        location = SourceLocation(file, pointer)
        notes = tuple(view.notes)
        shared = {"name": name, "type": json_type, "facts": facts, "api_title": self.title, "location": location,
                  "fingerprint": digest, "notes": notes}
        return ("", _FieldInfo(name, json_type, facts, digest, location, notes, shared))


def _shifted(prefix: str, templates: tuple[_Template, ...]) -> list[_Template]:
    return [(prefix + suffix, info) for suffix, info in templates]


def collect(documents: DocumentSet, root: dict[str, Any], oas_version: str, title: str
            ) -> tuple[tuple[Operation, ...], tuple[ResponseField, ...]]:
    """Every operation with its 2XX JSON responses, and their response fields in spec order."""
    entry = documents.entry
    paths = root.get("paths")
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
