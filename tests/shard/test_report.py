"""The partial report as a file: redacted, read back equal, the same bytes every time, refused by its size and its
number of values before it is parsed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from satori_ci.check.frame import CheckFrame
from satori_ci.errors import ExitCode
from satori_ci.shard.binding import RunBinding, SpecBinding
from satori_ci.shard.errors import ShardReportError
from satori_ci.shard.job import ShardSpec
from satori_ci.shard.report import (
    MAX_REPORT_BYTES,
    MAX_REPORT_VALUES,
    ShardReport,
    read_shard_report,
    read_shard_report_bytes,
    shard_report_text,
)
from satori_ci.shard.slice import Shard
from tests.report.factory import ORACLE_FILE, SPEC, spec_check

RUN = RunBinding("a" * 40, "b" * 40, "c" * 64)
BOUND = SpecBinding(SPEC, ((SPEC, "d" * 64), ("api/schemas.yaml", "e" * 64)), ORACLE_FILE, "f" * 64, None)


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



def test_a_report_is_refused_by_its_size_and_its_number_of_values_before_it_is_parsed() -> None:
    for data, said in ((b" " * (MAX_REPORT_BYTES + 1), "larger than 96 MiB"),
                       (b"[" + b"[]," * MAX_REPORT_VALUES + b"[]]", "JSON values")):
        with pytest.raises(ShardReportError) as found:
            read_shard_report_bytes(data, "r.json")
        assert found.value.code == ExitCode.INPUT_ERROR and said in str(found.value)
    with pytest.raises(ShardReportError, match="not UTF-8"):
        read_shard_report_bytes(b'{"format": "\xff"}', "r.json")
