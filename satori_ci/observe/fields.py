"""Which response fields are observed: every leaf and array of the spec's 2XX JSON responses."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from satori_ci.spec.model import Operation, OperationKey, ResponseField

OBSERVABLE_TYPES = frozenset({"string", "number", "integer", "boolean", "array"})

ObservedFields = dict[OperationKey, tuple[str, ...]]
"""Field paths to summarize, by operation and status, in spec order."""


def observed_fields(fields: Iterable[ResponseField], ignored: Callable[[ResponseField], bool] | None = None
                    ) -> ObservedFields:
    """The fields whose values are observed (of a type some oracle kind checks, not ignored by the config)."""
    out: dict[OperationKey, list[str]] = {}
    for field in fields:
        if field.type in OBSERVABLE_TYPES and not (ignored is not None and ignored(field)):
            out.setdefault(field.operation, []).append(field.field)
    return {op: tuple(paths) for op, paths in out.items()}


def queried_operations(operations: Iterable[Operation]) -> frozenset[tuple[str, str]]:
    """(method, path) of the operations with a query parameter: a search, a filter or a page size decides what
    their lists hold, so no size is proposed for those lists."""
    return frozenset((o.method, o.path) for o in operations if any(p.location == "query" for p in o.parameters))
