"""GitHub suggested changes on the oracle files: one pull request review, through PyGithub (with `comments` and
`pulls`, the only modules that import `github`).

    with SuggestionReviewer(ctx.api_url, token, ctx.repository, ctx.pr_number) as reviewer:
        outcome = reviewer.suggest(paths, changes_for, scrub=redact)     # never raises for a failed call
        if not outcome.ok: print(warning(f"no suggested changes: {outcome.reason}"))

One operation, retried as a whole like the sticky comment (`retry.run_with_retries`, PyGithub's own retries
off): the pull request's files (`GET /pulls/{n}/files`) give the patches of `paths`; `changes_for(patches)`
(pure, `report.suggested_changes`) says which comments they call for; our review comments (`GET
/pulls/{n}/comments`, by the token's login and the suggestion marker) leave out every change an identical
comment (same path, line and body) already makes, so a run on every push posts each suggestion once; the rest,
at most `MAX_SUGGESTED_CHANGES`, go out as one review (`POST /pulls/{n}/reviews`, event COMMENT). A POST
answered 502 that did post is found by the next attempt's listing, and nothing is posted twice.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from github.PullRequest import PullRequest

from satori_ci.github.client import PullRequestSession, api_error
from satori_ci.github.outcome import CommentStatus
from satori_ci.github.retry import GaveUp, run_with_retries
from satori_ci.report.suggested_changes import SUGGESTION_MARKER_START, SuggestedChange, new_changes, review_body

ChangesFor = Callable[[Mapping[str, str]], Sequence[SuggestedChange]]
"""The pull request's patches (path -> patch, for the paths asked about) -> the suggestion comments they call for."""


@dataclass(frozen=True)
class ReviewOutcome:
    status: CommentStatus
    """POSTED (a review), UNCHANGED (every suggestion has its comment already), SKIPPED (none to make), FAILED."""
    posted: int = 0
    left_out: int = 0
    """Suggestions past the cap, named in the review's body instead."""
    review_id: int | None = None
    reason: str = ""
    """Why it failed, one line (no secret: the token is never in it)."""
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.status is not CommentStatus.FAILED


class SuggestionReviewer(PullRequestSession):
    """The suggested changes of one pull request (see the module docstring; the arguments: `PullRequestSession`)."""

    @cached_property
    def _pull(self) -> PullRequest:
        return self._gh.get_repo(self._repo).get_pull(self._pr_number)

    def suggest(self, paths: Collection[str], changes_for: ChangesFor, *,
                scrub: Callable[[str], str]) -> ReviewOutcome:
        """Post the suggestion comments that `changes_for` makes of the patches of `paths` and that are not there
        yet, as one review (its body passed through `scrub`, the comments' bodies as `changes_for` gave them)."""
        def attempt() -> ReviewOutcome:
            changes = changes_for(self._patches(paths))
            if not changes:
                return ReviewOutcome(CommentStatus.SKIPPED)
            posting, left_out = new_changes(changes, self._ours())
            if not posting:
                return ReviewOutcome(CommentStatus.UNCHANGED)
            review = self._pull.create_review(
                body=scrub(review_body(posting, left_out)), event="COMMENT",
                comments=[{"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body} for c in posting])
            return ReviewOutcome(CommentStatus.POSTED, len(posting), len(left_out), review.id)

        result = run_with_retries(attempt, api_error, policy=self._policy, sleep=self._sleep, clock=self._clock)
        if isinstance(result, GaveUp):
            return ReviewOutcome(CommentStatus.FAILED, reason=result.reason, attempts=result.attempts)
        outcome, attempts = result
        return ReviewOutcome(outcome.status, outcome.posted, outcome.left_out, outcome.review_id, attempts=attempts)

    def _patches(self, paths: Collection[str]) -> dict[str, str]:
        """GitHub's patch of each of `paths` the pull request changes (none for a diff too large to show)."""
        return {f.filename: f.patch for f in self._pull.get_files() if f.filename in paths and f.patch}

    def _ours(self) -> set[tuple[str, int, str]]:
        """(path, line, body) of our suggestion comments, at their line now and where they were first posted."""
        login = self._own_login().lower()
        found: set[tuple[str, int, str]] = set()
        for comment in self._pull.get_review_comments():
            body = (comment.body or "").replace("\r\n", "\n")
            if comment.user is None or (comment.user.login or "").lower() != login:
                continue
            if body.startswith(SUGGESTION_MARKER_START):
                found |= {(comment.path, line, body) for line in (comment.line, comment.original_line) if line}
        return found
