"""The action sharded across a matrix: `shard: I/N` jobs write their partial reports and post nothing; the
`merge:` job posts the one sticky comment, summary, annotations, outputs and exit code that an unsharded run
gives."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from satori_ci.demo_staging import StagingServer
from tests.action.conftest import PR, ActionRun, PullRequest, make_pull_request
from tests.servers.github_server import FakeGitHub

REPORTS = "satori-ci-shards"


def _timeless(text: str) -> str:
    return re.sub(r'"seconds": [0-9.]+', '"seconds": 0', re.sub(r"\d+\.\d s\b", "0.0 s", text))


def _shards(pull_request: PullRequest, inputs: dict[str, str], indices: list[int], count: int) -> list[ActionRun]:
    runs = []
    for index in indices:
        run = pull_request.run(inputs={**inputs, "shard": f"{index}/{count}"})
        assert run.code == 0, run.stdout + run.stderr
        assert run.outputs["shard-report"] == f"{REPORTS}/shard-{index}-of-{count}.json"
        assert (pull_request.repo / run.outputs["shard-report"]).is_file()
        runs.append(run)
    return runs


def test_shards_post_nothing_and_the_merge_posts_what_an_unsharded_run_posts(
        pull_request: PullRequest, staging: StagingServer, tmp_path: Path) -> None:
    sharded = tmp_path / "sharded"
    shutil.copytree(pull_request.repo, sharded, symlinks=True)
    inputs = {"staging-url": staging.base_url, "runner": "native"}
    whole = pull_request.run(inputs=inputs)
    assert whole.code == 1, whole.stdout + whole.stderr
    (expected,) = pull_request.github.comments_on(PR)
    expected_report = (tmp_path / "satori-ci-report.json").read_text()
    expected_files = {p.relative_to(pull_request.repo).as_posix(): p.read_text()
                      for p in (pull_request.repo / ".satori").iterdir()}
    annotations = [line for line in whole.stdout.splitlines() if line.startswith(("::error file", "::warning file"))]
    assert annotations

    pull_request.github.comments.clear()
    pull_request.github.requests.clear()
    pull_request.repo = sharded
    runs = _shards(pull_request, inputs, [1, 2, 3, 4], 4)
    assert pull_request.github.requests == [], "a shard job sends nothing to GitHub"
    assert all(run.summary == "" for run in runs) and not (sharded / ".satori" / "api.openapi.observed.json").exists()
    assert all("::error file" not in run.stdout for run in runs)

    merged = pull_request.run(inputs={"merge": REPORTS, "runner": "native"})
    assert merged.code == whole.code, merged.stdout + merged.stderr
    (comment,) = pull_request.github.comments_on(PR)
    assert _timeless(comment.body) == _timeless(expected.body)
    assert _timeless(merged.summary) == _timeless(whole.summary)
    assert [line for line in merged.stdout.splitlines() if line.startswith(("::error file", "::warning file"))] \
        == annotations
    for name in ("violations", "oracles-added", "oracles-changed", "oracles-removed", "oracle-files", "report"):
        assert merged.outputs[name] == whole.outputs[name], name
    assert _timeless((tmp_path / "satori-ci-report.json").read_text()) == _timeless(expected_report)
    assert {p.relative_to(sharded).as_posix(): p.read_text() for p in (sharded / ".satori").iterdir()} \
        == expected_files


def test_a_missing_shard_stops_the_merge_with_one_line(pull_request: PullRequest, staging: StagingServer) -> None:
    inputs = {"staging-url": staging.base_url, "runner": "native"}
    _shards(pull_request, inputs, [1, 2, 4], 4)
    merged = pull_request.run(inputs={"merge": f"{REPORTS}/*.json"})
    assert merged.code == 3, merged.stdout + merged.stderr
    assert "::error title=satori-ci::missing shard 3/4 of 4" in merged.stdout
    (comment,) = pull_request.github.comments_on(PR)
    assert "could not run" in comment.body and "missing shard 3/4 of 4" in comment.body
    assert not (pull_request.repo / ".satori" / "api.openapi.observed.json").exists()


def test_a_shard_that_cannot_run_says_so_in_its_report(pull_request: PullRequest, tmp_path: Path) -> None:
    run = pull_request.run(inputs={"staging-url": "http://127.0.0.1:9", "runner": "newman", "shard": "2/2"},
                           extra_env={"SATORI_NEWMAN": str(tmp_path / "no-newman")})
    assert run.code == 3 and "::error title=satori-ci::shard 2/2: SATORI_NEWMAN" in run.stdout
    data = json.loads((pull_request.repo / run.outputs["shard-report"]).read_text())
    assert data["status"] == "failed" and "SATORI_NEWMAN" in data["error"]
    assert pull_request.github.requests == [] and run.summary == ""
    bad = pull_request.run(inputs={"shard": "3/2"})
    assert bad.code == 2 and "shard 3/2" in bad.stdout and pull_request.github.requests == []
    both = pull_request.run(inputs={"shard": "1/2", "merge": REPORTS})
    assert both.code == 2 and "not both" in both.stdout


def test_shards_and_merge_put_the_oracle_file_where_the_base_config_says(tmp_path: Path,
                                                                      staging: StagingServer) -> None:
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github, {".satori.yml": "oracles_dir: reviewed\n"})
        inputs = {"staging-url": staging.base_url, "runner": "native"}
        _shards(pr, inputs, [1, 2], 2)
        merged = pr.run(inputs={"merge": REPORTS})
        assert merged.code == 1, merged.stdout + merged.stderr
        assert merged.outputs["oracle-files"] == "reviewed/api.openapi.oracles.yaml"
        assert not (pr.repo / ".satori").exists()
        elsewhere = pr.run(inputs={"merge": REPORTS, "oracles-dir": "other"})
    assert elsewhere.code == 2 and "give the shard jobs and this one the same oracles-dir" in elsewhere.stdout
