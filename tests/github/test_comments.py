"""The sticky comment end to end: PyGithub against the local GitHub server, retries without sleeping."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from satori_ci.github.comments import StickyCommenter
from satori_ci.github.marker import comment_marker
from satori_ci.github.outcome import CommentStatus, FailureKind
from tests.servers.github_server import (
    ACTIONS_LOGIN,
    CREATE,
    DELETE,
    EDIT,
    LIST,
    USER,
    FakeGitHub,
    Fault,
    forbidden,
    primary_rate_limit,
    secondary_rate_limit,
    server_error,
)

TOKEN = "ghs_test_token"
MARKER = comment_marker("openapi/api.yaml")


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(login="satori-bot", token=TOKEN) as server:
        yield server


class Commenter:
    """A StickyCommenter on the fake server, recording the waits it asks for."""

    def __init__(self, server: FakeGitHub, *, base_url: str | None = None, token: str = TOKEN,
                 clock: float | None = None, **kwargs: Any) -> None:
        self.sleeps: list[float] = []
        self.sticky = StickyCommenter(base_url or server.base_url, token, "octo/api", 7, sleep=self.sleeps.append,
                                      clock=(lambda: clock) if clock is not None else time.time,
                                      seconds_between_requests=None, seconds_between_writes=None,
                                      **kwargs)


def test_creates_then_updates_in_place(gh: FakeGitHub) -> None:
    c = Commenter(gh)
    first = c.sticky.upsert(MARKER, "3 violations")
    assert first.status is CommentStatus.POSTED and first.ok and first.attempts == 1
    second = c.sticky.upsert(MARKER, "2 violations")
    assert second.status is CommentStatus.UPDATED and second.comment_id == first.comment_id
    comments = gh.comments_on(7)
    assert len(comments) == 1
    assert comments[0].body == f"{MARKER}\n2 violations" and comments[0].login == "satori-bot"
    assert second.url is not None and second.url.endswith(f"/octo/api/pull/7#issuecomment-{first.comment_id}")
    assert len(gh.requests_to(USER)) == 1  # the login is asked once


def test_same_body_sends_no_edit(gh: FakeGitHub) -> None:
    c = Commenter(gh)
    c.sticky.upsert(MARKER, "body")
    assert c.sticky.upsert(MARKER, "body").status is CommentStatus.UNCHANGED
    assert gh.requests_to(EDIT) == [] and gh.comments_on(7)[0].edits == 0


def test_one_comment_per_marker(gh: FakeGitHub) -> None:
    c = Commenter(gh)
    c.sticky.upsert(comment_marker("api.yaml"), "a")
    c.sticky.upsert(comment_marker("v2/api.yaml"), "b")
    c.sticky.upsert(comment_marker("api.yaml"), "a2")
    assert sorted(x.body.split("\n")[1] for x in gh.comments_on(7)) == ["a2", "b"]


def test_finds_its_comment_beyond_the_first_hundred(gh: FakeGitHub) -> None:
    for i in range(230):
        gh.add_comment(f"review comment {i}", login=f"reviewer{i % 3}")
    ours = gh.add_comment(f"{MARKER}\nold report", login="satori-bot")
    for i in range(20):
        gh.add_comment(f"later {i}")
    outcome = Commenter(gh).sticky.upsert(MARKER, "new report")
    assert outcome.status is CommentStatus.UPDATED and outcome.comment_id == ours.id
    assert ours.body == f"{MARKER}\nnew report"
    assert [r.query.get("page", "1") for r in gh.requests_to(LIST)] == ["1", "2", "3"]
    assert all(r.query["per_page"] == "100" for r in gh.requests_to(LIST))
    assert gh.requests_to(CREATE) == []


def test_ignores_other_users_comments_with_the_marker(gh: FakeGitHub) -> None:
    quoted = gh.add_comment(f"> {MARKER}\n> quoting the bot", login="octocat")
    impostor = gh.add_comment(f"{MARKER}\nfake report", login="another-bot[bot]", user_type="Bot")
    outcome = Commenter(gh).sticky.upsert(MARKER, "report")
    assert outcome.status is CommentStatus.POSTED
    assert quoted.edits == 0 and impostor.edits == 0 and impostor.body == f"{MARKER}\nfake report"
    assert len(gh.comments_on(7)) == 3


def test_a_marker_further_down_our_own_comment_does_not_name_it(gh: FakeGitHub) -> None:
    """A report value quoting another spec's marker must not make that spec overwrite this comment."""
    other = gh.add_comment(f"{comment_marker('api/a.yaml')}\nenum value: {MARKER}", login="satori-bot",
                           user_type="Bot")
    outcome = Commenter(gh).sticky.upsert(MARKER, "report")
    assert outcome.status is CommentStatus.POSTED and outcome.comment_id != other.id
    assert other.edits == 0
    assert Commenter(gh).sticky.upsert(MARKER, "report 2").comment_id == outcome.comment_id


def test_the_marker_line_survives_crlf(gh: FakeGitHub) -> None:
    earlier = gh.add_comment(f"{MARKER}\r\nold", login="satori-bot", user_type="Bot")
    assert Commenter(gh).sticky.upsert(MARKER, "new").comment_id == earlier.id


def test_github_actions_token_comments_as_github_actions_bot() -> None:
    with FakeGitHub(login=None) as server:
        earlier = server.add_comment(f"{MARKER}\nold", login=ACTIONS_LOGIN, user_type="Bot")
        outcome = Commenter(server).sticky.upsert(MARKER, "new")
        assert outcome.status is CommentStatus.UPDATED and outcome.comment_id == earlier.id
        assert earlier.body == f"{MARKER}\nnew"


def test_enterprise_server_base_url(gh: FakeGitHub) -> None:
    c = Commenter(gh, base_url=gh.ghes_base_url)
    assert c.sticky.upsert(MARKER, "one").status is CommentStatus.POSTED
    assert c.sticky.upsert(MARKER, "two").status is CommentStatus.UPDATED
    assert {r.prefix for r in gh.requests} == {"/api/v3"}


def test_fork_read_only_token_fails_without_raising(gh: FakeGitHub) -> None:
    gh.fail(CREATE, forbidden())
    c = Commenter(gh)
    outcome = c.sticky.upsert(MARKER, "report")
    assert outcome.status is CommentStatus.FAILED and not outcome.ok
    assert outcome.failure is FailureKind.READ_ONLY and outcome.attempts == 1
    assert outcome.reason == "read-only token: GitHub answered 403 (Resource not accessible by integration)"
    assert c.sleeps == [] and gh.comments_on(7) == []
    assert TOKEN not in outcome.reason


def test_server_errors_then_success(gh: FakeGitHub) -> None:
    gh.fail(CREATE, server_error(500), server_error(503))
    c = Commenter(gh, backoff=0.25)
    outcome = c.sticky.upsert(MARKER, "report")
    assert outcome.status is CommentStatus.POSTED and outcome.attempts == 3
    assert c.sleeps == [0.25, 0.5]
    assert len(gh.comments_on(7)) == 1


def test_a_502_that_did_post_is_not_posted_twice(gh: FakeGitHub) -> None:
    gh.fail(CREATE, server_error(502, apply=True))
    outcome = Commenter(gh).sticky.upsert(MARKER, "report")
    assert outcome.status is CommentStatus.UNCHANGED and outcome.attempts == 2
    assert len(gh.comments_on(7)) == 1


def test_server_error_on_the_login_lookup_is_retried(gh: FakeGitHub) -> None:
    gh.fail(USER, server_error())
    assert Commenter(gh).sticky.upsert(MARKER, "report").status is CommentStatus.POSTED


def test_rate_limit_with_retry_after_until_retries_run_out(gh: FakeGitHub) -> None:
    gh.fail(LIST, secondary_rate_limit("0"), forever=True)
    c = Commenter(gh, retries=2)
    outcome = c.sticky.upsert(MARKER, "report")
    assert outcome.failure is FailureKind.RATE_LIMITED and outcome.attempts == 3
    assert outcome.reason.endswith("gave up after 3 attempts")
    assert c.sleeps == [0.0, 0.0] and len(gh.requests_to(LIST)) == 3


def test_primary_rate_limit_waits_for_the_reset_then_posts(gh: FakeGitHub) -> None:
    now = time.time()
    gh.fail(CREATE, primary_rate_limit(reset=now + 2))
    c = Commenter(gh, clock=now)
    outcome = c.sticky.upsert(MARKER, "report")
    assert outcome.status is CommentStatus.POSTED and outcome.attempts == 2
    assert c.sleeps == [pytest.approx(int(now + 2) - now)]


def test_primary_rate_limit_beyond_the_budget_fails_at_once(gh: FakeGitHub) -> None:
    gh.fail(CREATE, primary_rate_limit(reset=time.time() + 3600), forever=True)
    c = Commenter(gh, max_wait=5.0)
    outcome = c.sticky.upsert(MARKER, "report")
    assert outcome.failure is FailureKind.RATE_LIMITED and outcome.attempts == 1
    assert "retry budget" in outcome.reason and c.sleeps == []


def test_429_rate_limit_on_edit(gh: FakeGitHub) -> None:
    c = Commenter(gh)
    c.sticky.upsert(MARKER, "one")
    gh.fail(EDIT, secondary_rate_limit("1", status=403))
    outcome = c.sticky.upsert(MARKER, "two")
    assert outcome.status is CommentStatus.UPDATED and c.sleeps == [1.0]


def test_resolve_rewrites_the_existing_comment(gh: FakeGitHub) -> None:
    c = Commenter(gh)
    posted = c.sticky.upsert(MARKER, "2 violations")
    resolved = c.sticky.resolve(MARKER, "Resolved: no violations")
    assert resolved.status is CommentStatus.UPDATED and resolved.comment_id == posted.comment_id
    assert gh.comments_on(7)[0].body == f"{MARKER}\nResolved: no violations"
    assert c.sticky.resolve(MARKER, "Resolved: no violations").status is CommentStatus.UNCHANGED


def test_resolve_without_a_comment_does_nothing(gh: FakeGitHub) -> None:
    gh.add_comment(f"{MARKER}\nsomeone else's", login="octocat")
    outcome = Commenter(gh).sticky.resolve(MARKER, "Resolved")
    assert outcome.status is CommentStatus.SKIPPED and outcome.ok
    assert gh.requests_to(CREATE) == [] and gh.requests_to(EDIT) == []


def test_too_long_body_is_refused_before_any_request(gh: FakeGitHub) -> None:
    outcome = Commenter(gh).sticky.upsert(MARKER, "x" * 70_000)
    assert outcome.failure is FailureKind.TOO_LONG and outcome.attempts == 0
    assert gh.requests == []


def test_missing_and_bad_tokens(gh: FakeGitHub) -> None:
    assert Commenter(gh, token="").sticky.upsert(MARKER, "x").failure is FailureKind.AUTH
    bad = Commenter(gh, token="wrong").sticky.upsert(MARKER, "x")
    assert bad.failure is FailureKind.AUTH and bad.attempts == 1 and "Bad credentials" in bad.reason


def test_unreachable_github_is_a_network_failure() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    sticky = StickyCommenter(f"http://127.0.0.1:{port}", TOKEN, "octo/api", 7, retries=1, backoff=0.0,
                             sleep=sleeps.append, seconds_between_requests=None, seconds_between_writes=None)
    outcome = sticky.upsert(MARKER, "x")
    assert outcome.failure is FailureKind.NETWORK and outcome.attempts == 2 and sleeps == [0.0]


def test_unknown_pull_request_is_not_found(gh: FakeGitHub) -> None:
    sticky = StickyCommenter(gh.base_url, TOKEN, "octo/other", 7, sleep=lambda _: None,
                             seconds_between_requests=None, seconds_between_writes=None)
    outcome = sticky.upsert(MARKER, "x")
    assert outcome.failure is FailureKind.NOT_FOUND and outcome.attempts == 1


# -- two runs at once on one pull request -------------------------------------------------------------


def _at_once(gh: FakeGitHub, bodies: list[str], marker: str = MARKER) -> list[Any]:
    """`upsert` by one StickyCommenter per body, each in its own thread, all started together."""
    outcomes: list[Any] = [None] * len(bodies)

    def run(i: int) -> None:
        outcomes[i] = Commenter(gh).sticky.upsert(marker, bodies[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)  # a bound that proves "did not hang", not a timing
    assert not any(t.is_alive() for t in threads)
    return outcomes


def test_two_runs_at_once_leave_one_comment(gh: FakeGitHub) -> None:
    before = gh.add_comment("an unrelated comment", login="octocat")
    gh.hold(LIST, parties=2)  # both look for the comment before either creates one: the race, every time
    outcomes = _at_once(gh, ["run a", "run b"])
    assert len(gh.requests_to(CREATE)) == 2  # the race happened: both created a comment
    assert [c.id for c in gh.comments_on(7)] == [before.id, before.id + 1]  # the oldest of the two is kept
    comment = gh.comments_on(7)[1]
    assert all(o.ok and o.comment_id == comment.id for o in outcomes), outcomes
    assert comment.body in (f"{MARKER}\nrun a", f"{MARKER}\nrun b")
    assert len(gh.requests_to(DELETE)) >= 1


def test_three_runs_at_once_leave_one_comment_per_marker(gh: FakeGitHub) -> None:
    other = comment_marker("openapi/other.yaml")
    gh.hold(LIST, parties=3)
    _at_once(gh, ["a", "b", "c"])
    gh.hold(LIST, parties=2)
    _at_once(gh, ["x", "y"], marker=other)
    comments = gh.comments_on(7)
    assert sorted(c.body.split("\n")[0] for c in comments) == sorted([MARKER, other])
    assert len(gh.requests_to(CREATE)) == 5


def test_duplicates_left_by_earlier_runs_are_removed_and_the_oldest_kept(gh: FakeGitHub) -> None:
    theirs = gh.add_comment(f"{MARKER}\nquoted by a reviewer", login="octocat")
    oldest = gh.add_comment(f"{MARKER}\nold", login="satori-bot", user_type="Bot")
    gh.add_comment(f"{MARKER}\nold duplicate", login="satori-bot", user_type="Bot")
    outcome = Commenter(gh).sticky.upsert(MARKER, "new")
    assert outcome.status is CommentStatus.UPDATED and outcome.comment_id == oldest.id
    assert [(c.id, c.body) for c in gh.comments_on(7)] == [(theirs.id, f"{MARKER}\nquoted by a reviewer"),
                                                            (oldest.id, f"{MARKER}\nnew")]


def test_a_duplicate_already_deleted_by_the_other_run_is_fine(gh: FakeGitHub) -> None:
    oldest = gh.add_comment(f"{MARKER}\nold", login="satori-bot", user_type="Bot")
    gh.add_comment(f"{MARKER}\nduplicate", login="satori-bot", user_type="Bot")
    gh.fail(DELETE, Fault(404, "Not Found", apply=True))  # deleted, and answered as if someone else had
    outcome = Commenter(gh).sticky.upsert(MARKER, "new")
    assert outcome.ok and outcome.comment_id == oldest.id and outcome.attempts == 1
    assert [c.id for c in gh.comments_on(7)] == [oldest.id]
