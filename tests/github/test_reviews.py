"""The review of suggested changes through PyGithub, against the local GitHub server: one review, our existing
comments left out, paged listings, retries that never post twice, failures as outcomes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import pytest

from satori_ci.github.outcome import CommentStatus
from satori_ci.github.reviews import ReviewOutcome, SuggestionReviewer
from satori_ci.report.suggested_changes import MAX_SUGGESTED_CHANGES, SuggestedChange, suggestion_marker
from tests.servers.github_server import CREATE_REVIEW, FILES, REVIEW_COMMENTS, FakeGitHub, forbidden, server_error

PATH = ".satori/api.openapi.oracles.yaml"
PATCH = "@@ -1,2 +1,60 @@\n a\n-b\n" + "\n".join(f"+line {n}" for n in range(2, 61))
ACCEPT = "satori-ci accept api/openapi.yaml --all"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(login="satori-bot") as server:
        server.add_file(7, "api/openapi.yaml", "@@ -1 +1 @@\n-x\n+y")
        server.add_file(7, PATH, PATCH)
        yield server


def _reviewer(gh: FakeGitHub, **options: object) -> SuggestionReviewer:
    values: dict[str, object] = {"sleep": lambda _: None, "per_page": 2, "seconds_between_requests": None,
                                 "seconds_between_writes": None}
    values.update(options)
    return SuggestionReviewer(gh.base_url, "t0ken", "octo/api", 7, **values)  # type: ignore[arg-type]


def _body(line: int) -> str:
    return f"{suggestion_marker(PATH)}\nswitch it on\n\n```suggestion\nline {line}\n```\n"


def _changes(*lines: int) -> Sequence[SuggestedChange]:
    return [SuggestedChange(PATH, n, _body(n), ACCEPT) for n in lines]


def _suggest(gh: FakeGitHub, lines: Sequence[int], **options: object) -> tuple[ReviewOutcome, list[Mapping[str, str]]]:
    seen: list[Mapping[str, str]] = []

    def changes_for(patches: Mapping[str, str]) -> Sequence[SuggestedChange]:
        seen.append(patches)
        return _changes(*lines) if PATH in patches else ()

    with _reviewer(gh, **options) as reviewer:
        return reviewer.suggest({PATH}, changes_for, scrub=lambda body: body.replace("secret", "***")), seen


def test_one_review_with_a_comment_per_change(gh: FakeGitHub) -> None:
    outcome, seen = _suggest(gh, [3, 5])
    assert seen == [{PATH: PATCH}]  # only the paths asked about, through every page of the files
    assert outcome.status is CommentStatus.POSTED and outcome.posted == 2
    (review,) = gh.reviews_on(7)
    assert review.event == "COMMENT" and review.body.startswith("<!-- satori-ci:suggestions -->\n")
    assert [(c.path, c.line, c.side, c.body) for c in review.comments] == [(PATH, 3, "RIGHT", _body(3)),
                                                                           (PATH, 5, "RIGHT", _body(5))]


def test_comments_already_there_are_not_posted_again(gh: FakeGitHub) -> None:
    gh.add_review_comment(7, PATH, 3, _body(3), login="satori-bot")
    gh.add_review_comment(7, PATH, None, _body(4).replace("\n", "\r\n"), login="satori-bot", original_line=4)
    gh.add_review_comment(7, PATH, 5, _body(5), login="octocat")  # someone quoting ours: not ours
    for n in range(6, 12):
        gh.add_review_comment(7, PATH, n, f"chatter {n}")  # more pages
    outcome, _ = _suggest(gh, [3, 4, 5])
    assert outcome.posted == 1
    assert [c.line for c in gh.reviews_on(7)[0].comments] == [5]
    again, _ = _suggest(gh, [3, 4, 5])
    assert again.status is CommentStatus.UNCHANGED and len(gh.reviews_on(7)) == 1


def test_nothing_to_suggest_posts_nothing(gh: FakeGitHub) -> None:
    outcome, _ = _suggest(gh, [])
    assert outcome.status is CommentStatus.SKIPPED and gh.requests_to(REVIEW_COMMENTS) == []
    assert gh.reviews_on(7) == []


def test_at_most_fifty_comments_the_rest_named_in_the_body(gh: FakeGitHub) -> None:
    outcome, _ = _suggest(gh, list(range(2, 60)))
    assert (outcome.posted, outcome.left_out) == (MAX_SUGGESTED_CHANGES, 8)
    (review,) = gh.reviews_on(7)
    assert len(review.comments) == MAX_SUGGESTED_CHANGES
    assert f"8 more suggestions on this diff are not shown here (at most 50 a run): accept them all with `{ACCEPT}`" \
        in review.body


def test_a_502_that_did_post_is_not_posted_twice(gh: FakeGitHub) -> None:
    gh.fail(CREATE_REVIEW, server_error(502, apply=True))
    outcome, _ = _suggest(gh, [3])
    assert outcome.status is CommentStatus.UNCHANGED and outcome.attempts == 2
    assert len(gh.reviews_on(7)) == 1


def test_server_errors_are_retried_and_a_read_only_token_fails_without_raising(gh: FakeGitHub) -> None:
    gh.fail(FILES, server_error(503))
    outcome, _ = _suggest(gh, [3])
    assert outcome.status is CommentStatus.POSTED and outcome.attempts == 2
    gh.fail(CREATE_REVIEW, forbidden(), forever=True)
    failed, _ = _suggest(gh, [4])
    assert failed.status is CommentStatus.FAILED and "read-only token" in failed.reason
    assert len(gh.reviews_on(7)) == 1


def test_a_line_outside_the_diff_is_refused_by_github_as_a_failure(gh: FakeGitHub) -> None:
    outcome, _ = _suggest(gh, [61])
    assert outcome.status is CommentStatus.FAILED and "422" in outcome.reason


def test_actions_token_and_enterprise_server_url() -> None:
    with FakeGitHub(login=None) as server:
        server.add_file(7, PATH, PATCH)
        server.add_review_comment(7, PATH, 3, _body(3), login="github-actions[bot]")
        with SuggestionReviewer(server.ghes_base_url, "t", "octo/api", 7, seconds_between_requests=None,
                                seconds_between_writes=None) as reviewer:
            outcome = reviewer.suggest({PATH}, lambda patches: _changes(3, 4), scrub=str)
        assert outcome.posted == 1 and [c.line for c in server.reviews_on(7)[0].comments] == [4]
        assert server.reviews_on(7)[0].login == "github-actions[bot]"
        assert {r.prefix for r in server.requests} == {"/api/v3"}
