"""The pull request a `workflow_run` checks: what the event and the inputs claim, checked against GitHub's API.

The fork recipe runs in two workflows: the fork's pull request runs a first one without secrets, and a second
one (`workflow_run`) runs in this repository with a write token and the secrets. Whatever reaches the second
one through an artifact was written by the fork's run, which the fork can edit: the `pull-request` and
`base-sha` inputs read from it are claims. GitHub leaves `workflow_run.pull_requests` empty when the head is in
a fork, so the number may have to come from such a claim; the base commit, whose `.satori.yml` decides where
requests and secrets go, never does.

    claim = PullRequestClaim(...)                    # from the event and the inputs (context.ActionContext)
    verified = verify(claim, "octo/api", lookup)     # lookup(number) -> PullFacts: GET /repos/{o}/{r}/pulls/{n}

The number must be one the event lists (when it lists any); the pull request GitHub reports must have this
repository as its base, the event's `head_sha` as its head and the event's `head_repository` as its head
repository; a `base-sha` input must name GitHub's base commit. The base is GitHub's `base.sha`. Any mismatch is
an `ActionConfigError` (one line, exit 2) before anything is read, sent or posted. Pure: the lookup is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from satori_ci.github.errors import ActionConfigError

PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})
_SHOWN = 12


@dataclass(frozen=True)
class PullRequestClaim:
    """What a `workflow_run` says about its pull request: trusted only once `verify` checked it."""

    event_numbers: tuple[int, ...] = ()
    """`workflow_run.pull_requests` (GitHub's; empty when the head is in a fork)."""
    number_input: int | None = None
    """The `pull-request` input (in the fork recipe, read from an artifact the fork's run wrote)."""
    base_input: str | None = None
    """The `base-sha` input: checked against GitHub's base, never used."""
    head_sha: str | None = None
    """`workflow_run.head_sha`: the commit the recorded run ran on."""
    head_repo: str | None = None
    """`workflow_run.head_repository.full_name` (None: not given, or the fork was deleted)."""
    event: str | None = None
    """`workflow_run.event`: what triggered the recorded run (`pull_request`, `push`, ...)."""


@dataclass(frozen=True)
class PullFacts:
    """A pull request as GitHub's API reports it (`GET /repos/{o}/{r}/pulls/{n}`)."""

    number: int
    base_repo: str
    base_ref: str
    base_sha: str
    head_repo: str | None
    """None: the fork was deleted."""
    head_sha: str


@dataclass(frozen=True)
class VerifiedPullRequest:
    number: int
    base_sha: str
    base_ref: str
    is_fork: bool


def verify(claim: PullRequestClaim, repository: str, lookup: Callable[[int], PullFacts]
           ) -> VerifiedPullRequest | None:
    """The pull request `claim` is about, as GitHub reports it; None for a run of this repository's own commit
    that is no pull request's (`workflow_run` after a push). Raises ActionConfigError on any mismatch."""
    number = _number(claim)
    if number is None:
        if claim.event in PULL_REQUEST_EVENTS or not _same(claim.head_repo, repository):
            raise ActionConfigError("this workflow_run is for a pull request, but neither the event nor the "
                                    "pull-request input says which: nothing was checked")
        return None
    facts = lookup(number)
    problem = _mismatch(claim, repository, facts)
    if problem is not None:
        raise ActionConfigError(f"pull request #{number} does not match this workflow_run: {problem}; nothing "
                                "was checked (the pull-request and base-sha inputs are claims, checked against "
                                "GitHub)")
    return VerifiedPullRequest(number, facts.base_sha, facts.base_ref, not _same(facts.head_repo, repository))


def _number(claim: PullRequestClaim) -> int | None:
    if claim.number_input is None:
        return claim.event_numbers[0] if claim.event_numbers else None
    if claim.event_numbers and claim.number_input not in claim.event_numbers:
        listed = ", ".join(f"#{n}" for n in claim.event_numbers)
        raise ActionConfigError(f"input 'pull-request' says #{claim.number_input}, but this workflow_run is for "
                                f"pull request {listed}: nothing was checked")
    return claim.number_input


def _mismatch(claim: PullRequestClaim, repository: str, facts: PullFacts) -> str | None:
    if not _same(facts.base_repo, repository):
        return f"its base repository is {facts.base_repo}, not {repository}"
    if claim.head_sha is None:
        return "the event gives no workflow_run.head_sha to compare its head with"
    if facts.head_sha.lower() != claim.head_sha.lower():
        return (f"its head is {facts.head_sha[:_SHOWN]}, this run's is {claim.head_sha[:_SHOWN]} (a newer commit "
                "gets its own run)")
    if not (_same(facts.head_repo, claim.head_repo) or facts.head_repo is claim.head_repo is None):
        return f"its head repository is {facts.head_repo or 'deleted'}, this run's is {claim.head_repo or 'not given'}"
    if claim.base_input is not None and not facts.base_sha.lower().startswith(claim.base_input.lower()):
        return f"input 'base-sha' says {claim.base_input[:_SHOWN]}, GitHub says the base is {facts.base_sha[:_SHOWN]}"
    return None


def _same(a: str | None, b: str | None) -> bool:
    """Two repositories' `owner/name`, both given, equal (GitHub's names ignore case)."""
    return a is not None and b is not None and a.lower() == b.lower()
