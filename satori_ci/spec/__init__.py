"""The spec stage: read OpenAPI 2.0/3.0/3.1, resolve refs, list response fields, diff versions."""

from satori_ci.spec.diff import ChangedField, FieldDiff, MovedField, diff_fields, field_key
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.loader import load_spec
from satori_ci.spec.model import (
    FieldFacts,
    Operation,
    OperationKey,
    Parameter,
    ResponseBody,
    ResponseField,
    SourceLocation,
    Spec,
)

__all__ = [
    "ChangedField", "FieldDiff", "FieldFacts", "MovedField", "Operation", "OperationKey", "Parameter",
    "ResponseBody", "ResponseField", "SourceLocation", "Spec", "SpecError", "SpecErrorKind", "diff_fields",
    "field_key", "load_spec",
]
