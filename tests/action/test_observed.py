"""The action and observation: the store is written next to the oracle file, and only the base commit's store
decides which oracles are suspect (a pull request cannot excuse its own violations)."""

from __future__ import annotations

import json
from pathlib import Path

from satori_ci.demo import StagingServer
from tests.action.conftest import PR, PullRequest, make_pull_request
from tests.servers.github_server import FakeGitHub

STORE = ".satori/api.openapi.observed.json"


def test_only_the_base_store_makes_an_oracle_suspect(pull_request: PullRequest, staging: StagingServer,
                                                     tmp_path: Path) -> None:
    inputs = {"staging-url": staging.base_url, "runner": "native"}
    first = pull_request.run(inputs=inputs)
    assert first.code == 1, first.stdout + first.stderr
    store = (pull_request.repo / STORE).read_text(encoding="utf-8")
    violated = [op["violated"] for op in json.loads(store)["operations"].values() if op["violated"]]
    assert violated, "the store counts the responses that violated each oracle"

    with FakeGitHub(login=None) as github:
        # the pull request brings a store that excuses its violations: not trusted, the check still fails
        own = make_pull_request(tmp_path / "head", github, head_files={STORE: store})
        assert own.run(inputs=inputs).code == 1

    with FakeGitHub(login=None) as github:
        # the base branch's store saw the same violations: they are suspect, listed, and do not fail the check
        merged = make_pull_request(tmp_path / "base", github, base_files={STORE: store})
        run = merged.run(inputs=inputs)
        assert run.code == 0, run.stdout + run.stderr
        (comment,) = github.comments_on(PR)
        assert "#### Suspect oracles" in comment.body and "suspect" in comment.body.splitlines()[1]
        assert "every one on a suspect oracle" in comment.body
