"""The 17 oracle kinds of the contract (shared/docs/fields-and-oracles.md §2)."""

from __future__ import annotations

from enum import StrEnum


class OracleKind(StrEnum):
    STRING_IS_URL = "string_is_url"
    STRING_IS_NUMERIC = "string_is_numeric"
    STRING_SPECIFIC_VALUES = "string_specific_values"
    STRING_IS_EMAIL = "string_is_email"
    STRING_IS_DATE = "string_is_date"
    STRING_IS_TIME = "string_is_time"
    STRING_FIXED_LENGTH = "string_fixed_length"
    BOOLEAN_ALWAYS_TRUE = "boolean_always_true"
    BOOLEAN_ALWAYS_FALSE = "boolean_always_false"
    NUMBER_MIN_VALUE = "number_min_value"
    NUMBER_MAX_VALUE = "number_max_value"
    NUMBER_SPECIFIC_VALUES = "number_specific_values"
    ARRAY_MIN_SIZE = "array_min_size"
    ARRAY_MAX_SIZE = "array_max_size"
    ARRAY_SPECIFIC_SIZES = "array_specific_sizes"
    ARRAY_NUMBER_ASC_ORDER = "array_number_asc_order"
    ARRAY_NUMBER_DESC_ORDER = "array_number_desc_order"

    @property
    def applies_to(self) -> str:
        """The field type the kind applies to: string, boolean, number or array."""
        return self.value.split("_", 1)[0]

    @property
    def takes_value(self) -> bool:
        return self in VALUED_KINDS

    def __str__(self) -> str:
        return self.value


VALUED_KINDS = frozenset(
    {
        OracleKind.STRING_SPECIFIC_VALUES,
        OracleKind.STRING_FIXED_LENGTH,
        OracleKind.NUMBER_MIN_VALUE,
        OracleKind.NUMBER_MAX_VALUE,
        OracleKind.NUMBER_SPECIFIC_VALUES,
        OracleKind.ARRAY_MIN_SIZE,
        OracleKind.ARRAY_MAX_SIZE,
        OracleKind.ARRAY_SPECIFIC_SIZES,
    }
)


def kinds_for_type(field_type: str, items_type: str | None = None) -> tuple[OracleKind, ...]:
    """The kinds that can apply to a field of this type (numbers and integers share kinds)."""
    family = "number" if field_type in ("number", "integer") else field_type
    kinds = [k for k in OracleKind if k.applies_to == family]
    if family == "array" and items_type not in ("number", "integer"):
        kinds = [k for k in kinds if k not in (OracleKind.ARRAY_NUMBER_ASC_ORDER,
                                               OracleKind.ARRAY_NUMBER_DESC_ORDER)]
    return tuple(kinds)
