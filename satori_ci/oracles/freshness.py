"""Whether an oracle file still matches its spec: fields whose fingerprint changed since it was written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from satori_ci.oracles.file import OracleFile
from satori_ci.spec.model import ResponseField


@dataclass(frozen=True)
class Staleness:
    changed: int
    """Fields of both whose fingerprint differs (an enum value added, a bound changed...)."""
    added: int
    """Fields of the spec the file does not know."""
    removed: int
    """Fields of the file the spec no longer has."""

    @property
    def stale(self) -> bool:
        """Fields the file knows changed or went away (new fields alone may just have no oracle yet)."""
        return bool(self.changed or self.removed)


def staleness(file: OracleFile, fields: Sequence[ResponseField]) -> Staleness:
    recorded = {e.key: e.fingerprint for e in file.entries if e.fingerprint}  # "": written by hand, unknown
    current = {(f.operation.method, f.operation.path, f.operation.status, f.field): f.fingerprint for f in fields}
    changed = sum(1 for key, fp in current.items() if key in recorded and recorded[key] != fp)
    return Staleness(changed, sum(1 for k in current if k not in recorded),
                     sum(1 for k in recorded if k not in current))
