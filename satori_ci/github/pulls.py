"""One pull request as GitHub's API reports it, through PyGithub (`GET /repos/{o}/{r}/pulls/{n}`).

    facts = fetch_pull(ctx.api_url, token, "octo/api", 7)    # a workflow_run.PullFacts

What the `workflow_run` recipe checks its claims against (`workflow_run.verify`). Retried like the sticky
comment (`retry.run_with_retries`, PyGithub's own retries off); a pull request that is not there or that the
token may not read is an `ActionConfigError` (exit 2), no answer a `GitHubUnavailable` (exit 3).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from github import Auth, Github

from satori_ci.github.client import USER_AGENT, api_error
from satori_ci.github.errors import ActionConfigError, GitHubUnavailable
from satori_ci.github.outcome import FailureKind
from satori_ci.github.retry import GaveUp, RetryPolicy, run_with_retries
from satori_ci.github.workflow_run import PullFacts

_FINAL = frozenset({FailureKind.NOT_FOUND, FailureKind.AUTH, FailureKind.READ_ONLY, FailureKind.REJECTED})


def fetch_pull(api_url: str, token: str, repo: str, number: int, *, policy: RetryPolicy | None = None,
               sleep: Callable[[float], None] = time.sleep, timeout: int = 15) -> PullFacts:
    """Pull request `number` of `repo`: its base and head (repository, ref, SHA) as GitHub reports them."""
    with Github(base_url=api_url.rstrip("/"), auth=Auth.Token(token) if token else None, retry=None,
                timeout=timeout, user_agent=USER_AGENT, lazy=True, seconds_between_requests=None,
                seconds_between_writes=None) as gh:
        def attempt() -> PullFacts:
            pull = gh.get_repo(repo).get_pull(number)
            base, head = pull.base, pull.head
            facts = PullFacts(number=number, base_repo=base.repo.full_name, base_ref=base.ref, base_sha=base.sha,
                              head_repo=head.repo.full_name if head.repo is not None else None, head_sha=head.sha)
            given: tuple[object, ...] = (facts.base_repo, facts.base_ref, facts.base_sha, facts.head_sha)
            if not all(isinstance(value, str) and value for value in given):
                raise ActionConfigError(f"GitHub's answer for pull request #{number} of {repo} lacks its base or "
                                        "head")
            return facts

        result = run_with_retries(attempt, api_error, policy=policy or RetryPolicy(), sleep=sleep)
    if not isinstance(result, GaveUp):
        return result[0]
    if result.failure in _FINAL:
        raise ActionConfigError(f"cannot read pull request #{number} of {repo}: {result.reason}")
    raise GitHubUnavailable(f"cannot read pull request #{number} of {repo} from GitHub: {result.reason}")
