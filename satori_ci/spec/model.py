"""Frozen values the spec stage hands to the rest of the pipeline."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

JSON = Any


@dataclass(frozen=True, order=True)
class OperationKey:
    """An operation response as the contract names it: `GET /businesses/search 200`."""

    method: str
    path: str
    status: str

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.status}"


@dataclass(frozen=True)
class SourceLocation:
    """Where a schema node stands: its file (relative to the spec's root) and JSON pointer there."""

    file: str
    pointer: str


@dataclass(frozen=True)
class FieldFacts:
    """Everything inference may read about a field besides its name and type.

    Only keywords present in the schema are set; `None` means absent.
    """

    description: str | None = None
    title: str | None = None
    example: JSON = None
    examples: tuple[JSON, ...] | None = None
    enum: tuple[JSON, ...] | None = None
    const: JSON = None
    format: str | None = None
    pattern: str | None = None
    minimum: float | int | None = None
    maximum: float | int | None = None
    exclusive_minimum: float | int | bool | None = None
    exclusive_maximum: float | int | bool | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool | None = None
    default: JSON = None
    nullable: bool | None = None
    items_type: str | None = None

    def as_dict(self) -> dict[str, JSON]:
        """The facts present, under their OpenAPI keyword names, in a fixed order."""
        out: dict[str, JSON] = {}
        state = self.__dict__  # read directly: 12,000 calls on GitHub's spec
        for attr, key in FACT_KEYWORDS:
            value = state[attr]
            if value is not None:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


FACT_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("description", "description"),
    ("title", "title"),
    ("example", "example"),
    ("examples", "examples"),
    ("enum", "enum"),
    ("const", "const"),
    ("format", "format"),
    ("pattern", "pattern"),
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusive_minimum", "exclusiveMinimum"),
    ("exclusive_maximum", "exclusiveMaximum"),
    ("min_length", "minLength"),
    ("max_length", "maxLength"),
    ("min_items", "minItems"),
    ("max_items", "maxItems"),
    ("unique_items", "uniqueItems"),
    ("default", "default"),
    ("nullable", "nullable"),
    ("items_type", "items_type"),
)


@dataclass(frozen=True)
class ResponseField:
    """One leaf or array of a 2XX JSON response body (contract §1)."""

    operation: OperationKey
    operation_id: str | None
    field: str
    """The field path in the contract's syntax, e.g. `businesses[].coordinates.latitude`."""
    name: str
    """The last segment of the path, with its `[]`/`{}` markers: `latitude`, `transactions[]`."""
    type: str
    facts: FieldFacts
    api_title: str
    location: SourceLocation
    fingerprint: str
    notes: tuple[str, ...] = ()

    def interchange_key(self) -> dict[str, str]:
        return {
            "method": self.operation.method,
            "path": self.operation.path,
            "status": self.operation.status,
            "field": self.field,
        }


FieldState = dict[str, Any]
"""The `ResponseField` attributes that do not depend on where a schema subtree is used (name, type, facts,
api_title, location, fingerprint, notes): one dict shared by every use of the subtree, never changed."""

FieldTree = tuple[int, int, tuple[tuple[str, "FieldState | FieldTree"], ...]]
"""The fields of a schema subtree, relative to it: (how many, their size, entries). The size is the characters
of their paths relative to the subtree and of their facts. Each entry is a suffix to append to the path so far
(`` for the subtree itself, `.name`, `[]`, `{}`, or several of them for a nested subtree of one entry, entered as
that entry) and either one field's `FieldState` or the tree of a nested subtree. A subtree used in several places
is one tree, shared: GitHub's spec has 77,000 fields but 6,000 field states."""


@dataclass(frozen=True)
class ResponseBody:
    """The response fields of one operation response as the walker found them: a tree sharing its subtrees."""

    operation: OperationKey
    operation_id: str | None
    tree: FieldTree = field(repr=False)

    @property
    def field_count(self) -> int:
        return self.tree[0]

    def fields(self) -> tuple[ResponseField, ...]:
        return fields_of_bodies((self,))


def fields_of_bodies(bodies: Iterable[ResponseBody]) -> tuple[ResponseField, ...]:
    """Every field of `bodies`, in order: each path joined, each field built once."""
    out: list[ResponseField] = []
    with collector_paused():
        for body in bodies:
            _emit(out.append, body.operation, body.operation_id, "", body.tree)
    return tuple(out)


def _emit(append: Callable[[ResponseField], Any], key: OperationKey, operation_id: str | None, prefix: str,
          tree: FieldTree) -> None:
    """Append the fields of `tree` under the path `prefix`, in order.

    A module function, not a closure calling itself: that closure would be a reference cycle holding the
    field list, which only the cyclic collector frees (GitHub's spec: 0.2 s for its first pass).
    """
    new = object.__new__
    for suffix, item in tree[2]:
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


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a spec is loaded (or, by a command, loaded and used).

    A large spec is millions of acyclic dicts and lists; while they and the fields are built, the
    collector's full passes over them find nothing and cost about as much as the parse itself
    (GitHub's spec). Reference counting still frees everything (the stage makes no reference
    cycles); collection resumes afterwards. Its first pass then walks every object allocated while
    paused that is still alive: a command that is done with the spec before resuming skips that too.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True)
class Parameter:
    """An operation parameter (path, query, header, cookie), its schema resolved."""

    name: str
    location: str
    required: bool
    schema: JSON
    example: JSON = None


@dataclass(frozen=True)
class Operation:
    """One method on one path, with what a request needs and its 2XX responses."""

    method: str
    path: str
    operation_id: str | None
    summary: str | None
    parameters: tuple[Parameter, ...]
    request_body: JSON
    """The JSON request body schema (refs resolved lazily by `Spec.resolve`), or None."""
    request_media_type: str | None
    statuses: tuple[str, ...]
    """The 2XX statuses with a JSON body, in spec order."""
    location: SourceLocation


@dataclass(frozen=True)
class Spec:
    """A loaded OpenAPI document: its operations and their response fields."""

    source: str
    oas_version: str
    title: str
    servers: tuple[str, ...]
    operations: tuple[Operation, ...]
    bodies: tuple[ResponseBody, ...] = field(repr=False)
    """The response fields as the walker found them (`fields`, built on first use, lists them)."""
    documents: Any = field(repr=False, compare=False, default=None)
    """The loaded documents (`satori_ci.spec.documents.DocumentSet`), for refs and line numbers."""
    warnings: tuple[str, ...] = ()
    """One line each, naming the file: what was read other than as written (e.g. `openapi: "2.0"` read
    as Swagger 2.0 by its structure). Commands print them on stderr as `satori-ci: warning: ...`."""

    @property
    def file(self) -> str:
        """The spec's path in its repository (without a git revision)."""
        return str(self.documents.entry) if self.documents is not None else self.source

    @cached_property
    def fields(self) -> tuple[ResponseField, ...]:
        """Every response field of every 2XX JSON response, in spec order."""
        return fields_of_bodies(self.bodies)

    @cached_property
    def _fields_by_response(self) -> dict[OperationKey, tuple[ResponseField, ...]]:
        found: dict[OperationKey, list[ResponseField]] = {}
        for f in self.fields:
            found.setdefault(f.operation, []).append(f)
        return {key: tuple(fields) for key, fields in found.items()}

    def fields_of(self, key: OperationKey) -> tuple[ResponseField, ...]:
        """The fields of one operation response (method, path, status), in spec order."""
        return self._fields_by_response.get(key, ())

    def line_of(self, location: SourceLocation) -> int | None:
        """1-based line of the node at `location`, or None when unknown."""
        if self.documents is None:
            return None
        line: int | None = self.documents.line_of(location)
        return line

    def resolve(self, node: JSON) -> JSON:
        """Follow `$ref`s (local and in-repository) until a schema that is not a reference."""
        if self.documents is None:
            return node
        return self.documents.resolve_node(node)
