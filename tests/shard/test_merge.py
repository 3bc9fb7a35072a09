"""The merge of the partial reports: it checks the set of shards before anything, and that every report is of
the check this job would make."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from satori_ci.check.frame import CheckFrame
from satori_ci.errors import ExitCode
from satori_ci.report.model import FailOn
from satori_ci.shard.binding import RunBinding, SpecBinding
from satori_ci.shard.errors import ShardReportError
from satori_ci.shard.job import ShardSpec
from satori_ci.shard.merge import Expected, merge_shards
from satori_ci.shard.report import ShardReport, read_shard_report, shard_report_text
from satori_ci.shard.runs import RunOrder
from satori_ci.shard.slice import Shard
from tests.report.factory import ORACLE_FILE, SPEC, run, spec_check
from tests.shard.test_report import BOUND, RUN

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

