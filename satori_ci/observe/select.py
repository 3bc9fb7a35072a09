"""Which suggestions still waiting for a reviewer (observed, disabled) a selection names (pure).

Within one criterion any of its values matches (OR), across criteria all must (AND); a selection with no
criterion matches every waiting suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from satori_ci.oracles.edit import OracleRef
from satori_ci.oracles.file import OracleFile
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OBSERVED, Oracle

BODY = "(body)"
"""How the body itself (field path `""`) is shown and may be named."""


@dataclass(frozen=True)
class OperationPattern:
    """`METHOD /path` (every status) or `METHOD /path STATUS`."""

    method: str
    path: str
    status: str | None = None

    def matches(self, oracle: Oracle) -> bool:
        op = oracle.operation
        return (op.method == self.method.upper() and op.path == self.path
                and (self.status is None or op.status == self.status))


@dataclass(frozen=True)
class Selection:
    operations: tuple[OperationPattern, ...] = ()
    fields: tuple[str, ...] = ()
    """Field paths exactly as the oracle file writes them; `""` or `(body)` for the body."""
    kinds: tuple[OracleKind, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.operations or self.fields or self.kinds)

    @cached_property
    def _field_paths(self) -> frozenset[str]:
        return frozenset(self.fields) | ({""} if BODY in self.fields else set())

    def matches(self, oracle: Oracle) -> bool:
        return ((not self.operations or any(p.matches(oracle) for p in self.operations))
                and (not self.fields or oracle.field in self._field_paths)
                and (not self.kinds or oracle.kind in self.kinds))


@dataclass(frozen=True)
class Picked:
    """A waiting suggestion and where it is in the file."""

    ref: OracleRef
    oracle: Oracle


def is_waiting(oracle: Oracle) -> bool:
    """An observed suggestion nobody accepted or dismissed yet."""
    return oracle.source == OBSERVED and not oracle.enabled


def waiting(file: OracleFile) -> tuple[Picked, ...]:
    """Every waiting suggestion of the file, in file order."""
    return tuple(Picked((e, i), o) for e, entry in enumerate(file.entries) for i, o in enumerate(entry.oracles)
                 if is_waiting(o))


def select(file: OracleFile, selection: Selection) -> tuple[Picked, ...]:
    """The waiting suggestions `selection` matches, in file order."""
    return tuple(p for p in waiting(file) if selection.matches(p.oracle))
