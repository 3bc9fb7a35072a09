"""Every registered rule has positive and negative tests, and reads its field the documented way."""

from __future__ import annotations

from satori_ci.infer.rules.registry import CONTEXT_RULES, REQUEST_RULES, RULES, rules_for
from tests.infer import (
    test_rules_backend,
    test_rules_constants,
    test_rules_enums_dates,
    test_rules_numbers,
    test_rules_ranges,
    test_rules_request,
    test_rules_strings,
    test_rules_urls,
)

TABLES = (test_rules_urls, test_rules_numbers, test_rules_ranges, test_rules_strings, test_rules_enums_dates,
          test_rules_constants)


def test_every_rule_has_positive_and_negative_cases() -> None:
    positive = {case[0] for module in TABLES for case in module.POSITIVE}
    negative = {case[0] for module in TABLES for case in module.NEGATIVE}
    positive |= {case[0] for case in test_rules_backend.CONTEXT_POSITIVE}
    negative |= {case[0] for case in test_rules_backend.CONTEXT_NEGATIVE}
    positive |= {case[0] for case in test_rules_request.POSITIVE}
    negative |= {case[0] for case in test_rules_request.NEGATIVE}
    names = {r.name for r in RULES} | {r.name for r in CONTEXT_RULES} | {r.name for r in REQUEST_RULES}
    assert names - positive == set()
    assert names - negative == set()
    assert positive | negative <= names


def test_rule_names_are_unique_and_described() -> None:
    names = [r.name for r in RULES] + [r.name for r in CONTEXT_RULES] + [r.name for r in REQUEST_RULES]
    assert len(names) == len(set(names))
    assert all(r.infers and r.types for r in RULES)


def test_rules_for_keeps_registry_order() -> None:
    for field_type in ("string", "number", "integer", "boolean", "array"):
        chosen = rules_for(field_type)
        assert list(chosen) == [r for r in RULES if field_type in r.types]
    assert rules_for("object") == ()
