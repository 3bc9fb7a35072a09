"""The oracle value that inference produces and the checkers consume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from satori_ci.oracles.kinds import OracleKind
from satori_ci.spec.model import OperationKey

OracleValue = Any
"""None, an int, a float, or a tuple of strings / numbers / ints, by kind."""

OBSERVED = "observed"
"""The `source` of an oracle proposed from observed responses (`satori_ci.observe`): a suggestion, disabled
until a reviewer accepts it."""


@dataclass(frozen=True)
class Oracle:
    """One checkable statement about one response field (contract §2 and §3)."""

    operation: OperationKey
    field: str
    kind: OracleKind
    value: OracleValue = None
    source: str = "rules"
    """`declared`, `rules`, `llm:<model>` or `manual`."""
    reason: str = ""
    enabled: bool = True
    operation_id: str | None = None
    review: str | None = None
    """Set when a human decision was carried over a change of the field: `needs review: ...`."""
    evidence: int | None = None
    """For `observed` oracles: the observed responses that support it (updated as more are observed)."""

    @property
    def is_decision(self) -> bool:
        """Whether the oracle records a person's decision: their own oracle, one they silenced, or an observed
        suggestion they accepted (a suggestion still waiting, disabled, is nobody's decision yet)."""
        if self.source == OBSERVED:
            return self.enabled
        return self.source == "manual" or not self.enabled

    def interchange(self) -> dict[str, Any]:
        """The contract's interchange line (§3) as a dict, keys in the contract's order."""
        line: dict[str, Any] = {
            "method": self.operation.method,
            "path": self.operation.path,
            "status": self.operation.status,
            "field": self.field,
            "oracle": self.kind.value,
        }
        if self.value is not None:
            line["value"] = list(self.value) if isinstance(self.value, tuple) else self.value
        if self.operation_id:
            line["operation_id"] = self.operation_id
        line["source"] = self.source
        if self.reason:
            line["reason"] = self.reason
        return line
