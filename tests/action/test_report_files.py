"""The `junit` and `sarif` inputs: the files written inside the repository, the `junit-file` and `sarif-file`
outputs naming them, paths that leave the repository refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from satori_ci.demo import StagingServer
from tests.action.conftest import SPEC, PullRequest
from tests.report.ci_reports import valid_junit, valid_sarif

FILES = {"junit": "reports/satori.xml", "sarif": "reports/satori.sarif"}


def test_the_files_are_written_and_the_outputs_name_them(pull_request: PullRequest, staging: StagingServer) -> None:
    run = pull_request.run(inputs={"staging-url": staging.base_url, "runner": "native", **FILES})
    assert run.code == 1, run.stdout + run.stderr
    assert (run.outputs["junit-file"], run.outputs["sarif-file"]) == (FILES["junit"], FILES["sarif"])
    valid_junit((pull_request.repo / FILES["junit"]).read_text(encoding="utf-8"))
    log = valid_sarif((pull_request.repo / FILES["sarif"]).read_text(encoding="utf-8"))
    lines = (pull_request.repo / SPEC).read_text(encoding="utf-8").splitlines()
    results = log["runs"][0]["results"]
    assert results and {r["level"] for r in results} == {"error"}
    for r in results:
        physical = r["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == SPEC
        key = lines[physical["region"]["startLine"] - 1].strip().rstrip(":")
        assert key == r["properties"]["field"].rsplit(".", 1)[-1].removesuffix("[]")
    assert "ghs_secret_token_123" not in (pull_request.repo / FILES["sarif"]).read_text(encoding="utf-8")


def test_without_the_inputs_no_file_and_empty_outputs(pull_request: PullRequest) -> None:
    run = pull_request.run()
    assert run.code == 0, run.stdout + run.stderr
    assert (run.outputs["junit-file"], run.outputs["sarif-file"]) == ("", "")
    assert not (pull_request.repo / "reports").exists()


def test_nothing_to_check_still_writes_valid_empty_files(pull_request: PullRequest) -> None:
    run = pull_request.run(inputs={"specs": "nothing/*.yaml", **FILES})
    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["sarif-file"] == FILES["sarif"]
    assert valid_sarif((pull_request.repo / FILES["sarif"]).read_text(encoding="utf-8"))["runs"][0]["results"] == []
    valid_junit((pull_request.repo / FILES["junit"]).read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", ["../outside.sarif", "/tmp/outside.sarif", "linked/x.sarif"])
def test_a_path_out_of_the_repository_is_refused(pull_request: PullRequest, staging: StagingServer, tmp_path: Path,
                                                 path: str) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, pull_request.repo / "linked")
    run = pull_request.run(inputs={"staging-url": staging.base_url, "runner": "native", "sarif": path})
    assert run.code == 2, run.stdout + run.stderr
    assert "outside the repository" in run.stdout or "inside the repository" in run.stdout
    assert not list(outside.iterdir()) and not (pull_request.repo.parent / "outside.sarif").exists()
