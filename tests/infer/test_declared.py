"""The declared backend: oracles stated by schema keywords."""

from __future__ import annotations

from typing import Any

import pytest

from satori_ci.infer.declared import DeclaredBackend, declared_oracles
from satori_ci.infer.interface import InferenceBackend, Inferred
from satori_ci.oracles.kinds import OracleKind
from tests.infer.factory import Found, kinds, make_field

CASES: list[tuple[str, str, dict[str, Any], Found]] = [
    ("enum-string", "string", {"enum": ["True", "False"]}, {("string_specific_values", ("True", "False"))}),
    ("enum-null-dropped", "string", {"enum": ["a", None, "b"]}, {("string_specific_values", ("a", "b"))}),
    ("enum-integer", "integer", {"enum": [1, 2, 3]}, {("number_specific_values", (1, 2, 3))}),
    ("enum-number", "number", {"enum": [0.5, 1]}, {("number_specific_values", (0.5, 1))}),
    ("enum-bool-true", "boolean", {"enum": [True]}, {("boolean_always_true", None)}),
    ("enum-bool-false", "boolean", {"enum": [False, None]}, {("boolean_always_false", None)}),
    ("enum-bool-both", "boolean", {"enum": [True, False]}, set()),
    ("enum-mixed-types", "string", {"enum": ["a", 1]}, set()),
    ("enum-only-null", "string", {"enum": [None]}, set()),
    ("const-string", "string", {"const": "x"}, {("string_specific_values", ("x",))}),
    ("const-number", "integer", {"const": 7}, {("number_specific_values", (7,))}),
    ("const-bool", "boolean", {"const": False}, {("boolean_always_false", None)}),
    ("format-uri", "string", {"format": "uri"}, {("string_is_url", None)}),
    ("format-url", "string", {"format": "url"}, {("string_is_url", None)}),
    ("format-uri-reference", "string", {"format": "uri-reference"}, set()),
    ("format-email", "string", {"format": "email"}, {("string_is_email", None)}),
    ("format-date", "string", {"format": "date"}, {("string_is_date", None)}),
    ("format-date-time", "string", {"format": "date-time"}, {("string_is_time", None)}),
    ("format-time", "string", {"format": "time"}, {("string_is_time", None)}),
    ("format-int64-string", "string", {"format": "int64"}, {("string_is_numeric", None)}),
    ("format-int64-integer", "integer", {"format": "int64"}, set()),
    ("format-on-number", "number", {"format": "date"}, set()),
    ("min-max", "number", {"minimum": 1, "maximum": 5}, {("number_min_value", 1), ("number_max_value", 5)}),
    ("min-on-string", "string", {"minimum": 1}, set()),
    ("oas30-exclusive-int", "integer", {"minimum": 0, "exclusive_minimum": True, "maximum": 10,
                                        "exclusive_maximum": True},
     {("number_min_value", 1), ("number_max_value", 9)}),
    ("oas30-exclusive-false", "number", {"minimum": 0, "exclusive_minimum": False}, {("number_min_value", 0)}),
    ("oas30-exclusive-float", "number", {"minimum": 0, "exclusive_minimum": True}, set()),
    ("oas31-exclusive-int", "integer", {"exclusive_minimum": 0, "exclusive_maximum": 100},
     {("number_min_value", 1), ("number_max_value", 99)}),
    ("oas31-exclusive-float", "number", {"exclusive_minimum": 0}, set()),
    ("oas31-both-tighter", "integer", {"minimum": 5, "exclusive_minimum": 0}, {("number_min_value", 5)}),
    ("oas31-float-keeps-inclusive", "number", {"minimum": 1.5, "exclusive_minimum": 0}, {("number_min_value", 1.5)}),
    ("fixed-length", "string", {"min_length": 2, "max_length": 2}, {("string_fixed_length", 2)}),
    ("length-range", "string", {"min_length": 2, "max_length": 3}, set()),
    ("length-zero", "string", {"min_length": 0, "max_length": 0}, set()),
    ("min-items-0", "array", {"min_items": 0}, set()),
    ("min-max-items", "array", {"min_items": 1, "max_items": 3}, {("array_min_size", 1), ("array_max_size", 3)}),
    ("pattern-digits", "string", {"pattern": r"^\d+$"}, {("string_is_numeric", None)}),
    ("pattern-zip", "string", {"pattern": r"^[0-9]{5}$"}, {("string_is_numeric", None), ("string_fixed_length", 5)}),
    ("pattern-letters", "string", {"pattern": "^[A-Z]{2}$"}, {("string_fixed_length", 2)}),
    ("pattern-alternation", "string", {"pattern": "^(asc|desc)$"}, {("string_specific_values", ("asc", "desc"))}),
    ("pattern-unanchored", "string", {"pattern": r"\d+"}, set()),
    ("pattern-complex", "string", {"pattern": r"^[A-Z]{2}\d{3}$"}, set()),
    ("pattern-bare-alternation", "string", {"pattern": "^a|b$"}, set()),
    ("enum-beats-pattern", "string", {"enum": ["x", "y"], "pattern": "^(a|b)$"},
     {("string_specific_values", ("x", "y"))}),
]


@pytest.mark.parametrize(("case", "type_", "facts", "expected"), CASES, ids=[c[0] for c in CASES])
def test_declared(case: str, type_: str, facts: dict[str, Any], expected: Found) -> None:
    oracles = declared_oracles(make_field("f", type_, **facts))
    assert kinds(oracles) == expected
    assert all(o.source == "declared" and o.reason.startswith("spec: ") for o in oracles)


def test_reason_quotes_the_keyword() -> None:
    (oracle,) = declared_oracles(make_field("Response", enum=["True", "False"]))
    assert oracle.reason == "spec: enum [True, False]"
    (low, high) = declared_oracles(make_field("rating", "number", minimum=1, maximum=5))
    assert (low.reason, high.reason) == ("spec: minimum 1", "spec: maximum 5")


def test_order_is_kind_order() -> None:
    field = make_field("n", "integer", enum=[1, 2], minimum=1, maximum=2)
    order = [o.kind for o in declared_oracles(field)]
    assert order == [OracleKind.NUMBER_MIN_VALUE, OracleKind.NUMBER_MAX_VALUE, OracleKind.NUMBER_SPECIFIC_VALUES]


def test_backend_keeps_input_order_and_reports_each_field() -> None:
    backend: InferenceBackend = DeclaredBackend()
    fields = [make_field("a", format="uri"), make_field("b"), make_field("c", format="uri")]
    seen: list[Inferred] = []
    run = backend.infer(fields, on_inferred=seen.append)
    assert backend.name == "declared"
    assert [r.field.field for r in run.results] == ["a", "b", "c"]
    assert seen == list(run.results)
    assert [o.field for r in run.results for o in r.oracles] == ["a", "c"]


def test_dedupe_keeps_the_first_of_each_kind_and_never_date_and_time() -> None:
    from satori_ci.infer.declared import dedupe
    from satori_ci.oracles.model import Oracle

    field = make_field("when")

    def oracle(kind: OracleKind, value: object = None) -> Oracle:
        return Oracle(field.operation, field.field, kind, value, source="x")

    kept = dedupe(field, [oracle(OracleKind.STRING_IS_DATE), oracle(OracleKind.STRING_IS_TIME),
                          oracle(OracleKind.STRING_FIXED_LENGTH, 2), oracle(OracleKind.STRING_FIXED_LENGTH, 3),
                          oracle(OracleKind.NUMBER_MIN_VALUE, 0)])
    assert kinds(kept) == {("string_is_date", None), ("string_fixed_length", 2)}
