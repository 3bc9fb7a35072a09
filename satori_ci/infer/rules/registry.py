"""The rules of the `rules` backend, in the order they run, and the same rules indexed by field type."""

from __future__ import annotations

from satori_ci.infer.rules import constants, dates, enums, numbers, ranges, strings, urls
from satori_ci.infer.rules.base import Rule
from satori_ci.infer.rules.context import CONTEXT_RULES, ContextRule
from satori_ci.infer.rules.request import REQUEST_RULES, RequestRule

RULES: tuple[Rule, ...] = (
    *urls.RULES,
    *strings.RULES,
    *enums.RULES,
    *constants.RULES,
    *dates.RULES,
    *numbers.RULES,
    *ranges.RULES,
)

FIELD_TYPES = ("string", "number", "integer", "boolean", "array")
RULES_BY_TYPE: dict[str, tuple[Rule, ...]] = {t: tuple(r for r in RULES if t in r.types) for t in FIELD_TYPES}


def rules_for(field_type: str) -> tuple[Rule, ...]:
    """The rules that can infer something for a field of this type, in registry order."""
    return RULES_BY_TYPE.get(field_type, ())


__all__ = ["CONTEXT_RULES", "REQUEST_RULES", "RULES", "ContextRule", "RequestRule", "Rule", "rules_for"]
