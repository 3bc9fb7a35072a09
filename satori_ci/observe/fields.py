"""Which response fields are observed: every leaf and array of the spec's 2XX JSON responses."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from satori_ci.spec.model import OperationKey, ResponseField

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
