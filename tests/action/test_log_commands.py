"""The action's log: the pull request's names and the staging server's values never become workflow commands;
the action's own commands (annotations, notices, masks) still work (issue 18)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.demo import Canned, StagingServer
from tests.action.conftest import PR
from tests.action.test_secrets import _pull_request
from tests.cli.test_log_commands import (
    HOSTILE,
    MARK,
    foreign_commands,
    hostile_body,
    hostile_spec,
    raw_controls,
    runner_commands,
)
from tests.servers.github_server import FakeGitHub

TOKEN = "ghs_secret_token_123"
"""The github-token input `PullRequest.run` gives: registered with `::add-mask::`."""
STAGING_TOKEN = "staging-token-log-4e1d"


@pytest.fixture
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/things", lambda r, p: Canned(hostile_body()))
        yield server


def test_hostile_names_and_values_reach_the_log_only_as_data(tmp_path: Path, staging: StagingServer) -> None:
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/hostile.json": hostile_spec(HOSTILE, ["plain", *HOSTILE])})
        run = pr.run(inputs={"staging-url": staging.base_url, "runner": "native",
                             "staging-headers": f"X-Staging-Token: {STAGING_TOKEN}"})
        comments = github.comments_on(PR)
    assert run.code == 1, run.stdout + run.stderr
    assert staging.received and comments
    for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
        assert foreign_commands(text, masks=[TOKEN, STAGING_TOKEN]) == [], name
        assert raw_controls(text) == [], name
    ours = runner_commands(run.stdout)
    # the action's own commands went through: the masks, an annotation per field with a violation, notices
    assert f"::add-mask::{TOKEN}" in ours and f"::add-mask::{STAGING_TOKEN}" in ours
    violations = [line for line in ours if line.startswith("::error ") and "Oracle violation" in line]
    assert len(violations) == 9, run.stdout  # 10 errors at most, the last saying how many more
    assert all(MARK in line for line in violations)  # the hostile name, escaped, in the annotation's title
    assert any(line.startswith("::notice ") and "Oracle added" in line for line in ours)
