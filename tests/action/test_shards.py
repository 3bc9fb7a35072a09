"""The action sharded across a matrix: `shard: I/N` jobs write their partial reports and post nothing; the
`merge:` job posts the one sticky comment, summary, annotations, outputs and exit code that an unsharded run
gives."""

from __future__ import annotations

import json
import re
import resource
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from satori_ci.demo import StagingServer, example_specs
from tests.action.conftest import PR, ROOT, SPEC, ActionRun, PullRequest, git, make_pull_request
from tests.forged_reports import forge
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


# -- what a report cannot make the merge do (reports come through artifacts: untrusted) ----------------------------


def _snapshot(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*"))
            if p.is_file() and REPORTS not in p.parts}


def _one_error(run: ActionRun) -> str:
    lines = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert len(lines) == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    return lines[0]


ORACLES = ".satori/api.openapi.oracles.yaml"
STORE = ".satori/api.openapi.observed.json"


@pytest.mark.parametrize(("spec", "oracles"), [
    ("api/openapi.yaml", ".git/config"),
    ("api/openapi.yaml", ".git/HEAD"),
    ("api/openapi.yaml", "README.md"),
    ("api/openapi.yaml", "../outside.oracles.yaml"),
    ("api/openapi.yaml", "{outside}/absolute.oracles.yaml"),
    ("README.md", ".satori/README.oracles.yaml"),
    ("../outside.yaml", ".satori/outside.oracles.yaml"),
    ("api/other.yaml", ".satori/api.other.oracles.yaml"),
])
def test_a_forged_report_cannot_make_the_merge_write_where_it_says(
        pull_request: PullRequest, staging: StagingServer, tmp_path: Path, spec: str, oracles: str) -> None:
    repo = pull_request.repo
    (repo / "README.md").write_text("the project's own readme\n")
    (repo / "api" / "other.yaml").write_text((repo / "api" / "openapi.yaml").read_text())
    outside = tmp_path / "outside"
    outside.mkdir()
    _shards(pull_request, {"staging-url": staging.base_url, "runner": "native"}, [1, 2], 2)
    files = [repo / REPORTS / f"shard-{index}-of-2.json" for index in (1, 2)]
    path = oracles.format(outside=outside.as_posix())

    def edit(text: str) -> str:
        return (text.replace(ORACLES, path).replace(STORE, path.removesuffix(".oracles.yaml") + ".observed.json")
                .replace('"api/openapi.yaml"', json.dumps(spec)))

    forge(files, repo / REPORTS, edit)
    before = _snapshot(repo)
    merged = pull_request.run(inputs={"merge": REPORTS})
    assert merged.code == 2, merged.stdout + merged.stderr
    _one_error(merged)
    assert _snapshot(repo) == before, "nothing is written"
    assert not (repo.parent / "outside.oracles.yaml").exists() and not any(outside.iterdir())


def test_a_genuine_report_of_another_commit_is_refused(pull_request: PullRequest, staging: StagingServer) -> None:
    """The pull request's head brings v2, which fails against staging. Shards ran on another commit of the same
    pull request (v1 with a comment: clean); their genuine reports do not make the head clean."""
    repo = pull_request.repo
    inputs = {"staging-url": staging.base_url, "runner": "native"}
    head = pull_request.head_sha
    v1, _ = example_specs()
    (repo / SPEC).write_text(v1.read_text() + "\n# the same API\n")
    git(repo, "commit", "-q", "-am", "back to v1")
    pull_request.head_sha = git(repo, "rev-parse", "HEAD")
    _shards(pull_request, inputs, [1, 2], 2)
    clean = pull_request.run(inputs={"merge": REPORTS})
    assert clean.code == 0, clean.stdout + clean.stderr
    git(repo, "checkout", "-q", head)
    pull_request.head_sha = head
    pull_request.github.comments.clear()
    merged = pull_request.run(inputs={"merge": REPORTS})
    assert merged.code == 2, merged.stdout + merged.stderr
    assert "commit" in _one_error(merged)
    (comment,) = pull_request.github.comments_on(PR)
    assert "could not run" in comment.body and "No violations" not in comment.body
    _shards(pull_request, inputs, [1, 2], 2)  # the head's own shards
    assert pull_request.run(inputs={"merge": REPORTS}).code == 1


def test_an_oversized_report_is_refused_before_it_is_read(pull_request: PullRequest) -> None:
    folder = pull_request.repo / REPORTS
    folder.mkdir()
    with (folder / "shard-1-of-1.json").open("wb") as handle:  # sparse: no disk, but every byte would be read
        handle.truncate(450 * 1024 * 1024)
    limit = 512 * 1024 * 1024  # the interpreter and satori-ci take about 150 MB of it

    def limited(*args: Any, **kwargs: Any) -> Any:
        return run(*args, **kwargs, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))

    run = subprocess.run
    with pytest.MonkeyPatch.context() as patch:  # only the action's process runs under the limit
        patch.setattr(subprocess, "run", limited)
        merged = pull_request.run(inputs={"merge": REPORTS}, argv=[str(ROOT / "entrypoint.py")])
    assert merged.code == 2, merged.stdout + merged.stderr
    line = _one_error(merged)
    assert "shard-1-of-1.json" in line and "MiB" in line and "MemoryError" not in merged.stdout
