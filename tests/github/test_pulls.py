"""A pull request as GitHub's API reports it, through PyGithub against the local GitHub server."""

from __future__ import annotations

import pytest

from satori_ci.github.errors import ActionConfigError, GitHubUnavailable
from satori_ci.github.pulls import fetch_pull
from satori_ci.github.retry import RetryPolicy
from satori_ci.github.workflow_run import PullFacts
from tests.servers.github_server import PULL, FakeGitHub, forbidden, server_error

TOKEN = "ghs_pulls_token"
BASE, HEAD = "a" * 40, "b" * 40


@pytest.mark.parametrize("ghes", [False, True])
def test_base_and_head_as_github_reports_them(ghes: bool) -> None:
    with FakeGitHub(token=TOKEN) as gh:
        gh.add_pull(7, base_sha=BASE, head_sha=HEAD, head_repo="someone/api", base_ref="release")
        facts = fetch_pull(gh.ghes_base_url if ghes else gh.base_url, TOKEN, "octo/api", 7)
        assert facts == PullFacts(7, "octo/api", "release", BASE, "someone/api", HEAD)
        assert [r.path for r in gh.requests] == ["/repos/octo/api/pulls/7"]


def test_a_deleted_fork_has_no_head_repository() -> None:
    with FakeGitHub(token=TOKEN) as gh:
        gh.add_pull(7, base_sha=BASE, head_sha=HEAD, head_repo=None)
        assert fetch_pull(gh.base_url, TOKEN, "octo/api", 7).head_repo is None


def test_an_unknown_or_unreadable_pull_request_is_an_input_error() -> None:
    with FakeGitHub(token=TOKEN) as gh:
        with pytest.raises(ActionConfigError, match=r"cannot read pull request #9 of octo/api: GitHub answered 404"):
            fetch_pull(gh.base_url, TOKEN, "octo/api", 9)
        gh.add_pull(7, base_sha=BASE, head_sha=HEAD)
        gh.fail(PULL, forbidden())
        with pytest.raises(ActionConfigError, match="read-only token"):
            fetch_pull(gh.base_url, TOKEN, "octo/api", 7)
        with pytest.raises(ActionConfigError, match="bad credentials") as info:
            fetch_pull(gh.base_url, "wrong", "octo/api", 7)
        assert TOKEN not in str(info.value)


def test_a_server_error_is_retried_then_an_infrastructure_error() -> None:
    sleeps: list[float] = []
    with FakeGitHub(token=TOKEN) as gh:
        gh.add_pull(7, base_sha=BASE, head_sha=HEAD)
        gh.fail(PULL, server_error(502))
        policy = RetryPolicy(retries=1, backoff=0.5)
        assert fetch_pull(gh.base_url, TOKEN, "octo/api", 7, policy=policy, sleep=sleeps.append).head_sha == HEAD
        gh.fail(PULL, server_error(503), forever=True)
        with pytest.raises(GitHubUnavailable, match="GitHub answered 503"):
            fetch_pull(gh.base_url, TOKEN, "octo/api", 7, policy=policy, sleep=sleeps.append)
    assert sleeps == [0.5, 0.5]
