"""The local GitHub server answers what PyGithub asks, eagerly (lazy=False) too, with or without `/api/v3`."""

from __future__ import annotations

import pytest
from github import Auth, Github, GithubException

from tests.servers.github_server import ISSUE, REPO, FakeGitHub


@pytest.mark.parametrize("ghes", [False, True])
def test_pygithub_reads_user_repo_issue_and_pages(ghes: bool) -> None:
    with FakeGitHub(login="satori-bot") as server:
        for i in range(5):
            server.add_comment(f"comment {i}")
        base = server.ghes_base_url if ghes else server.base_url
        with Github(base_url=base, auth=Auth.Token("t"), per_page=2, retry=None,
                    seconds_between_requests=None, seconds_between_writes=None) as gh:
            assert gh.get_user().login == "satori-bot"
            repo = gh.get_repo("octo/api")
            assert repo.full_name == "octo/api"
            issue = repo.get_issue(7)
            assert issue.number == 7
            assert [c.body for c in issue.get_comments()] == [f"comment {i}" for i in range(5)]
            created = issue.create_comment("new")
            created.edit("edited")
            assert server.comments_on(7)[-1].body == "edited"
        assert len(server.requests_to(REPO)) == 1 and len(server.requests_to(ISSUE)) == 1
        assert {r.prefix for r in server.requests} == {"/api/v3" if ghes else ""}


def test_actions_token_gets_403_on_user() -> None:
    with FakeGitHub(login=None) as server, Github(base_url=server.base_url, auth=Auth.Token("t"), retry=None) as gh:
        with pytest.raises(GithubException) as info:
            _ = gh.get_user().login
        assert info.value.status == 403


def test_pygithub_reads_a_pull_request_and_deletes_a_comment() -> None:
    with FakeGitHub(login="satori-bot") as server, Github(base_url=server.base_url, auth=Auth.Token("t"), retry=None,
                                                         seconds_between_requests=None,
                                                         seconds_between_writes=None) as gh:
        server.add_pull(7, base_sha="a" * 40, head_sha="b" * 40, head_repo="someone/api")
        pull = gh.get_repo("octo/api").get_pull(7)
        assert (pull.base.sha, pull.base.ref, pull.base.repo.full_name) == ("a" * 40, "main", "octo/api")
        assert (pull.head.sha, pull.head.repo.full_name) == ("b" * 40, "someone/api")
        issue = gh.get_repo("octo/api").get_issue(7)
        mine = issue.create_comment("mine")
        theirs = server.add_comment("theirs", login="octocat")
        mine.delete()
        assert [c.id for c in server.comments_on(7)] == [theirs.id]
        with pytest.raises(GithubException) as info:
            issue.get_comment(theirs.id).delete()
        assert info.value.status == 403
        with pytest.raises(GithubException) as gone:
            mine.delete()
        assert gone.value.status == 404
