"""The sticky pull-request comment, through PyGithub (with `pulls`, the only modules that import `github`).

    with StickyCommenter(ctx.api_url, token, ctx.repository, ctx.pr_number) as commenter:
        outcome = commenter.upsert(comment_marker(spec), body)     # never raises for a failed post
        if not outcome.ok: print(notice(f"comment not posted: {outcome.reason}"))

One comment per marker: the oldest comment of the pull request whose FIRST LINE is the marker and
whose author is the token's own login (`GET /user`; a GitHub Actions or App installation token gets
403 there and comments as `github-actions[bot]`), looked up through every page, edited in place,
created only when there is none. Comments by anyone else that quote the marker are left alone, and so
is a comment of ours that holds another spec's marker further down (content cannot name the comment:
the escaper also breaks every `<!--` in rendered values).

Two runs at once (two pushes in a row, a re-run) may both find no comment and both create one. So after
creating, the run lists the comments again: when more than one of ours carries the marker, the oldest
(lowest id) is kept and the others are deleted (a duplicate the other run already deleted is fine), and the
kept one gets this run's body. Whichever run looks last sees both comments, so one comment is left. The same
clean-up runs whenever duplicates are found (left by an earlier run).

PyGithub's own retries (a urllib3 `Retry`, `GithubRetry` by default, which also retries POST on
5xx) are switched off (`retry=None`): a POST answered 502 may have created the comment, so retrying
it could post twice. Instead the whole operation (look up, then edit or create) is retried by
`retry.run_with_retries`, which finds a comment a failed-looking POST did create, waits for rate
limits within a budget and takes an injectable `sleep`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from github import GithubException
from github.Issue import Issue
from github.IssueComment import IssueComment

from satori_ci.github.client import PullRequestSession, api_error
from satori_ci.github.marker import MAX_COMMENT_CHARS, marked_by, with_marker
from satori_ci.github.outcome import CommentOutcome, CommentStatus, FailureKind
from satori_ci.github.retry import GaveUp, run_with_retries


class StickyCommenter(PullRequestSession):
    """The sticky comment of one pull request (see the module docstring; the arguments: `PullRequestSession`)."""

    @cached_property
    def _issue(self) -> Issue:
        return self._gh.get_repo(self._repo).get_issue(self._pr_number)

    # -- operations -------------------------------------------------------------------------------

    def upsert(self, marker: str, body: str) -> CommentOutcome:
        """Edit our comment with `marker` to `body` (prefixed with the marker when it lacks it), or create it."""
        body = with_marker(marker, body)
        refused = self._refusal(body)
        if refused is not None:
            return refused

        def attempt() -> CommentOutcome:
            existing = self._find(marker)
            if existing is None:
                created = self._issue.create_comment(body)
                return self._settle(marker, body, created)
            return self._edit(existing, body)

        return self._retried(attempt)

    def resolve(self, marker: str, body: str) -> CommentOutcome:
        """Rewrite our comment with `marker` to `body` (the "resolved" text); SKIPPED when there is none."""
        body = with_marker(marker, body)
        refused = self._refusal(body)
        if refused is not None:
            return refused

        def attempt() -> CommentOutcome:
            existing = self._find(marker)
            if existing is None:
                return CommentOutcome(CommentStatus.SKIPPED, reason="no comment to resolve")
            return self._edit(existing, body)

        return self._retried(attempt)

    # -- internals --------------------------------------------------------------------------------

    def _refusal(self, body: str) -> CommentOutcome | None:
        if len(body) > MAX_COMMENT_CHARS:
            return CommentOutcome.failed(FailureKind.TOO_LONG, f"the comment has {len(body)} characters, "
                                                               f"GitHub takes at most {MAX_COMMENT_CHARS}", 0)
        if not self._token:
            return CommentOutcome.failed(FailureKind.AUTH, "no github-token", 0)
        return None

    def _ours(self, marker: str) -> list[IssueComment]:
        """Our comments with `marker` on their first line, oldest (lowest id) first."""
        login = self._own_login().lower()
        found = [comment for comment in self._issue.get_comments()
                 if comment.user is not None and (comment.user.login or "").lower() == login
                 and marked_by(comment.body or "", marker)]
        return sorted(found, key=lambda comment: comment.id)

    def _find(self, marker: str) -> IssueComment | None:
        """Our comment with `marker` (the oldest), after deleting any other of ours that carries it."""
        ours = self._ours(marker)
        for duplicate in ours[1:]:
            _delete(duplicate)
        return ours[0] if ours else None

    def _settle(self, marker: str, body: str, created: IssueComment) -> CommentOutcome:
        """After a create, look again: another run may have created one too. The oldest is kept (`_find` deleted
        the others, `created` among them when it is not the oldest) and gets this run's body."""
        kept = self._find(marker)
        if kept is None or kept.id == created.id:
            return CommentOutcome(CommentStatus.POSTED, created.id, created.html_url)
        return self._edit(kept, body)

    @staticmethod
    def _edit(existing: IssueComment, body: str) -> CommentOutcome:
        if _normalized(existing.body or "") == _normalized(body):
            return CommentOutcome(CommentStatus.UNCHANGED, existing.id, existing.html_url)
        existing.edit(body)
        return CommentOutcome(CommentStatus.UPDATED, existing.id, existing.html_url)

    def _retried(self, attempt: Callable[[], CommentOutcome]) -> CommentOutcome:
        result = run_with_retries(attempt, api_error, policy=self._policy, sleep=self._sleep, clock=self._clock)
        if isinstance(result, GaveUp):
            return CommentOutcome.failed(result.failure, result.reason, result.attempts)
        outcome, attempts = result
        return CommentOutcome(outcome.status, outcome.comment_id, outcome.url, outcome.failure, outcome.reason,
                              attempts)


def _delete(comment: IssueComment) -> None:
    """Delete one of our comments; one another run deleted first (404) is gone all the same."""
    try:
        comment.delete()
    except GithubException as err:
        if err.status != 404:
            raise


def _normalized(body: str) -> str:
    return body.replace("\r\n", "\n")
