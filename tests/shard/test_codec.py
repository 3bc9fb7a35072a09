"""The codec of partial reports: it reads back what it writes (hostile text included) and refuses what is not a
value of its type."""

from __future__ import annotations

import json
from typing import Any

import pytest

from satori_ci.observe.store import ObservationStore, OperationObservations
from satori_ci.observe.summary import FieldObservations, NumberStats, StringStats
from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import render_comment
from satori_ci.report.model import CheckReport, FailOn, FieldLocation, SpecCheck
from satori_ci.shard.codec import CodecError, decode, encode
from satori_ci.spec.model import FieldFacts
from tests.report.factory import HOSTILE, SEARCH, field_diff, oracle, oracle_diff, spec_check, violation


def _round_trip(value: Any) -> Any:
    return decode(type(value), json.loads(json.dumps(encode(value))))


def test_a_check_reads_back_equal_hostile_text_and_json_values_included() -> None:
    hostile = tuple(HOSTILE)
    o = oracle(OracleKind.STRING_SPECIFIC_VALUES, hostile, reason=HOSTILE[2])
    check = spec_check((violation(o, value=json.dumps(HOSTILE[3])),), field_diff=field_diff(note=HOSTILE[8]),
                       oracle_diff=oracle_diff(HOSTILE[0]), notices=hostile,
                       suspects={("GET", "/x", "200", "a", "number_min_value 0"): 2},
                       locations={("GET", "/x", "200", "a"): FieldLocation("api/openapi.yaml", 12)},
                       new_oracles=frozenset({("GET", "/x", "200", "a", "number_min_value")}))
    assert _round_trip(check) == check
    report = CheckReport((check,), FailOn.VIOLATIONS)
    again = CheckReport((_round_trip(check),), FailOn.VIOLATIONS)
    assert report_json(again) == report_json(report)
    assert render_comment(again.specs[0], FailOn.VIOLATIONS).body == render_comment(check, FailOn.VIOLATIONS).body


def test_json_values_keep_tuples_lists_dicts_ints_and_floats_apart() -> None:
    facts = FieldFacts(example={"a": [1, (2.5, None)], "b": True}, enum=(1, 1.0, "1", None), minimum=0,
                       maximum=2.0, exclusive_minimum=True, default=[{"x": ()}])
    back = _round_trip(facts)
    assert back == facts
    assert type(back.minimum) is int and type(back.maximum) is float and back.exclusive_minimum is True
    assert type(back.enum[1]) is float and isinstance(back.default, list) and back.default[0]["x"] == ()


def test_a_store_with_what_a_run_saw_hold_reads_back_equal() -> None:
    field = FieldObservations(3, 5, StringStats(3, 1, 9, url=3, values=(("a", 2), ("b", 1))),
                              NumberStats(2, -1, 2.5, None), objects=1)
    store = ObservationStore("api.yaml", {SEARCH: OperationObservations(
        3, ("abc", "def"), {"businesses[].price": field}, {"x": {"number_min_value 0": 2}},
        frozenset({("x", "number_min_value 0")}))})
    assert _round_trip(store) == store


@pytest.mark.parametrize("data", [
    {"spec": 1}, [], {"spec": "x", "head_source": "y", "unknown": 1}, {"spec": "x"},
    "x", None, {"spec": "x", "head_source": "y", "base_source": None, "oracle_file": "o", "field_diff": None,
                "oracle_diff": None, "inference": None, "oracles_enabled": True, "run": None},
])
def test_what_is_not_a_value_of_the_type_is_a_codec_error(data: Any) -> None:
    with pytest.raises(CodecError):
        decode(SpecCheck, data)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"l": [deep]}
    with pytest.raises(CodecError):
        decode(FieldFacts, {"example": deep})

