"""The partial reports of a sharded check as values: the codec reads back what it writes (hostile text
included), refuses what is not a value of its type, and the merge checks the set of shards before anything."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from satori_ci.errors import ExitCode
from satori_ci.observe.store import ObservationStore, OperationObservations
from satori_ci.observe.summary import FieldObservations, NumberStats, StringStats
from satori_ci.oracles.kinds import OracleKind
from satori_ci.pipeline import CheckFrame, ShardSpec, SpecBinding
from satori_ci.plan.shards import Shard
from satori_ci.report.codec import CodecError, decode, encode
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import render_comment
from satori_ci.report.model import CheckReport, FailOn, FieldLocation, SpecCheck
from satori_ci.run.shards import RunOrder
from satori_ci.shards import (
    MAX_REPORT_BYTES,
    MAX_REPORT_VALUES,
    Expected,
    RunBinding,
    ShardReport,
    ShardReportError,
    merge_shards,
    read_shard_report,
    read_shard_report_bytes,
    shard_report_text,
)
from satori_ci.spec.model import FieldFacts
from tests.report.factory import (
    HOSTILE,
    ORACLE_FILE,
    SEARCH,
    SPEC,
    field_diff,
    oracle,
    oracle_diff,
    run,
    spec_check,
    violation,
)


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


RUN = RunBinding("a" * 40, "b" * 40, "c" * 64)
BOUND = SpecBinding(SPEC, ((SPEC, "d" * 64), ("api/schemas.yaml", "e" * 64)), ORACLE_FILE, "f" * 64, None)
EXPECTED = Expected(RUN, (BOUND,))


def _report(index: int, count: int, binding: SpecBinding = BOUND, run_binding: RunBinding = RUN,
            **changes: Any) -> tuple[str, ShardReport]:
    check = spec_check(run_result=run(requests=0, checked=0))
    part = ShardSpec(CheckFrame(check, final=True), RunOrder((), (), ()), None, binding=binding)
    text = shard_report_text(ShardReport(Shard(index, count), (part,), binding=run_binding, **changes))
    return f"shard-{index}.json", read_shard_report(text, f"shard-{index}.json")


def test_the_set_of_shards_is_checked_before_anything_is_merged() -> None:
    complete = [_report(i, 3) for i in (2, 3, 1)]
    merged = merge_shards(complete, FailOn.VIOLATIONS, EXPECTED)
    assert len(merged.report.specs) == 1
    cases = [
        ([_report(1, 3), _report(3, 3)], ExitCode.INFRASTRUCTURE, "missing shard 2/3 of 3"),
        ([_report(1, 3)], ExitCode.INFRASTRUCTURE, "missing shards 2/3, 3/3 of 3"),
        ([*complete, _report(2, 3)], ExitCode.INPUT_ERROR, "shard 2/3 is given twice"),
        ([_report(1, 2), _report(2, 3)], ExitCode.INPUT_ERROR, "different numbers of shards"),
        ([_report(1, 3), _report(2, 3, failed="staging: connection refused", exit_code=3), _report(3, 3)],
         ExitCode.INFRASTRUCTURE, "shard 2/3 failed (shard-2.json: staging: connection refused)"),
        ([], ExitCode.INFRASTRUCTURE, "no shard report"),
    ]
    for reports, code, said in cases:
        with pytest.raises(ShardReportError) as found:
            merge_shards(reports, FailOn.VIOLATIONS, EXPECTED)
        assert found.value.code == code and said in str(found.value) and "\n" not in str(found.value)


def test_reports_of_another_check_do_not_merge() -> None:
    name, other = _report(2, 3)
    changed = replace(other, specs=tuple(replace(s, check="0" * 64) for s in other.specs))
    with pytest.raises(ShardReportError) as found:
        merge_shards([_report(1, 3), (name, changed), _report(3, 3)], FailOn.VIOLATIONS, EXPECTED)
    assert found.value.code == ExitCode.INPUT_ERROR
    assert "shard(s) 2/3 checked something else than shard(s) 1/3, 3/3" in str(found.value)


def test_the_report_is_redacted_and_reads_back() -> None:
    check = spec_check(notices=("token s3cr3t-value here",))
    part = ShardSpec(CheckFrame(check, final=True), binding=BOUND)

    def redact(data: Any) -> Any:
        return json.loads(json.dumps(data).replace("s3cr3t-value", "***"))

    report = ShardReport(Shard(1, 1), (part,), binding=RUN)
    text = shard_report_text(report, redact)
    assert "s3cr3t-value" not in text
    read = read_shard_report(text, "r.json")
    common = read.specs[0].common
    assert common is not None and common.frame.check.notices == ("token *** here",)
    assert (read.binding, read.specs[0].binding) == (RUN, BOUND)
    assert shard_report_text(report, redact) == text, "the same bytes every time"


@pytest.mark.parametrize(("changes", "said"), [
    ({"run_binding": replace(RUN, commit="9" * 40)}, "for commit 999999999999, and this job checks aaaaaaaaaaaa"),
    ({"run_binding": replace(RUN, base=None)}, "against base commit none"),
    ({"run_binding": replace(RUN, config="0" * 64)}, "under another config"),
    ({"binding": replace(BOUND, files=((SPEC, "0" * 64), *BOUND.files[1:]))}, f"when {SPEC} was not as this job"),
    ({"binding": replace(BOUND, files=BOUND.files[:1])}, f"when {SPEC} was not as this job"),
    ({"binding": replace(BOUND, files=(BOUND.files[0], ("api/schemas.yaml", None)))}, "(api/schemas.yaml differs)"),
    ({"binding": replace(BOUND, oracle=None)}, f"when the oracle file {ORACLE_FILE} was not"),
    ({"binding": replace(BOUND, store="0" * 64)}, "when the observation store"),
    ({"binding": replace(BOUND, oracle_file=".git/config")}, "the same oracles-dir"),
])
def test_a_report_bound_to_another_check_than_this_jobs_is_refused(changes: dict[str, Any], said: str) -> None:
    """Each shard, not only shard 1: a genuine report of another commit, config or checkout does not merge."""
    for odd in (1, 2):
        reports = [_report(i, 2, **(changes if i == odd else {})) for i in (1, 2)]
        with pytest.raises(ShardReportError) as found:
            merge_shards(reports, FailOn.VIOLATIONS, EXPECTED)
        assert found.value.code == ExitCode.INPUT_ERROR and "\n" not in str(found.value)
        assert f"shard-{odd}.json: shard {odd}/2 was written" in str(found.value) and said in str(found.value)


def test_the_reports_must_check_the_specs_this_job_checks() -> None:
    reports = [_report(i, 2) for i in (1, 2)]
    for specs in ((), (BOUND, replace(BOUND, spec="api/other.yaml")), (replace(BOUND, spec="README.md"),)):
        with pytest.raises(ShardReportError) as found:
            merge_shards(reports, FailOn.VIOLATIONS, Expected(RUN, specs))
        assert found.value.code == ExitCode.INPUT_ERROR
        assert f"the shard reports check {SPEC}, and this job checks" in str(found.value)


def test_a_report_is_refused_by_its_size_and_its_number_of_values_before_it_is_parsed() -> None:
    for data, said in ((b" " * (MAX_REPORT_BYTES + 1), "larger than 96 MiB"),
                       (b"[" + b"[]," * MAX_REPORT_VALUES + b"[]]", "JSON values")):
        with pytest.raises(ShardReportError) as found:
            read_shard_report_bytes(data, "r.json")
        assert found.value.code == ExitCode.INPUT_ERROR and said in str(found.value)
    with pytest.raises(ShardReportError, match="not UTF-8"):
        read_shard_report_bytes(b'{"format": "\xff"}', "r.json")
