"""The run's context, read once from the environment GitHub Actions gives a step.

    ctx = ActionContext.from_env(os.environ)      # raises ActionConfigError (one line)

Reads `GITHUB_EVENT_NAME`, the event payload (`GITHUB_EVENT_PATH`), `GITHUB_REPOSITORY`,
`GITHUB_API_URL` (GitHub Enterprise Server, local test servers), `GITHUB_SERVER_URL`, the run's id
(for links), `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and the inputs (`INPUT_*`, see `inputs`).

SHAs: a pull request's base and head commits (`pull_request.base.sha` / `head.sha`, GitHub's: on
`pull_request_target` too, so a fork cannot choose the base whose `.satori.yml` is trusted; `pull-request` and
`base-sha` inputs that disagree with the event are an error); a push's `before` and `after` (no base when the
push created the branch), which the inputs may override; none for `workflow_dispatch`, which checks everything.

`workflow_run` (the fork recipe): the event's `head_sha`, and a `PullRequestClaim` of what the event and the
`pull-request`/`base-sha` inputs say. Until `verified` checked it against GitHub's API (`workflow_run.verify`),
the context has no pull request number and no base: nothing is posted, and `action.targets.trusted_config` refuses
to read a config. The base is then GitHub's `base.sha` for the pull request, never an input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from satori_ci.github.errors import ActionConfigError
from satori_ci.github.inputs import ActionInputs, CommentMode, input_value
from satori_ci.github.workflow_run import PULL_REQUEST_EVENTS, PullFacts, PullRequestClaim, verify

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
ZERO_SHA = "0" * 40


@dataclass(frozen=True)
class ActionContext:
    event_name: str
    repository: str
    """`owner/name`."""
    inputs: ActionInputs
    event: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    """The event payload (read-only)."""
    pr_number: int | None = None
    base_sha: str | None = None
    head_sha: str | None = None
    is_fork: bool = False
    """The pull request's head lives in another repository: no secrets, a read-only token."""
    sha: str | None = None
    """`GITHUB_SHA`: the commit the workflow runs on."""
    workspace: Path = Path()
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    run_url: str | None = None
    output_path: Path | None = None
    """`GITHUB_OUTPUT`."""
    summary_path: Path | None = None
    """`GITHUB_STEP_SUMMARY`."""
    claim: PullRequestClaim | None = None
    """A `workflow_run`'s pull request, not yet checked against GitHub (`verified`): no `pr_number`, no
    `base_sha` until then."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionContext:
        event_name = _required(env, "GITHUB_EVENT_NAME")
        event = _read_event(env.get("GITHUB_EVENT_PATH"))
        repository = _repository(env, event)
        server_url = (env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/")
        run_id = env.get("GITHUB_RUN_ID")
        shas = _overridden(event_name, _shas(event_name, event, repository), env)
        return cls(
            event_name=event_name,
            repository=repository,
            inputs=ActionInputs.from_env(env),
            event=MappingProxyType(event),
            pr_number=shas.pr_number,
            base_sha=shas.base,
            head_sha=shas.head,
            is_fork=shas.is_fork,
            sha=env.get("GITHUB_SHA") or None,
            workspace=Path(env.get("GITHUB_WORKSPACE") or "."),
            api_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            server_url=server_url,
            run_url=f"{server_url}/{repository}/actions/runs/{run_id}" if run_id else None,
            output_path=_path(env.get("GITHUB_OUTPUT")),
            summary_path=_path(env.get("GITHUB_STEP_SUMMARY")),
            claim=_claim(event, env) if event_name == "workflow_run" else None,
        )

    def verified(self, lookup: Callable[[int], PullFacts]) -> ActionContext:
        """On `workflow_run`: the pull request and its base as GitHub reports them (`lookup(number)`: its API),
        the claims checked (ActionConfigError on a mismatch); any other event: unchanged."""
        if self.claim is None:
            return self
        pull = verify(self.claim, self.repository, lookup)
        if pull is None:  # a run of this repository's own commit, no pull request's: as on push
            return replace(self, claim=None)
        return replace(self, claim=None, pr_number=pull.number, base_sha=pull.base_sha, is_fork=pull.is_fork)

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repository.split("/", 1)[1]

    @property
    def is_pull_request(self) -> bool:
        return self.pr_number is not None

    @property
    def pr_url(self) -> str | None:
        return f"{self.server_url}/{self.repository}/pull/{self.pr_number}" if self.pr_number else None

    @property
    def wants_comment(self) -> bool:
        """A sticky comment is asked for and possible to try (a pull request and a token)."""
        return self.inputs.comment is CommentMode.STICKY and self.is_pull_request and bool(self.inputs.github_token)

    @property
    def secrets(self) -> tuple[str, ...]:
        return self.inputs.secrets


@dataclass(frozen=True)
class _Shas:
    pr_number: int | None = None
    base: str | None = None
    head: str | None = None
    is_fork: bool = False


def _shas(event_name: str, event: Mapping[str, Any], repository: str) -> _Shas:
    if event_name in PULL_REQUEST_EVENTS:
        pr = event.get("pull_request")
        if not isinstance(pr, Mapping):
            raise ActionConfigError(f"the {event_name} event's payload has no pull_request")
        number = pr.get("number", event.get("number"))
        if not isinstance(number, int) or isinstance(number, bool):
            raise ActionConfigError(f"the {event_name} event's pull_request has no number")
        base, head = _mapping(pr.get("base")), _mapping(pr.get("head"))
        base_repo = _full_name(base.get("repo")) or repository
        head_repo = _full_name(head.get("repo"))
        return _Shas(number, _sha(base.get("sha")), _sha(head.get("sha")),
                     is_fork=head_repo is None or head_repo.lower() != base_repo.lower())
    if event_name == "push":
        return _Shas(base=_sha(event.get("before")), head=_sha(event.get("after")))
    if event_name == "workflow_run":  # number and base: only once verified (`ActionContext.verified`)
        run = _mapping(event.get("workflow_run"))
        head_repo = _full_name(run.get("head_repository"))
        return _Shas(head=_sha(run.get("head_sha")),
                     is_fork=head_repo is None or head_repo.lower() != repository.lower())
    return _Shas()


def _claim(event: Mapping[str, Any], env: Mapping[str, str]) -> PullRequestClaim:
    """What a `workflow_run` event and the inputs say its pull request is (checked by `verify`)."""
    run = _mapping(event.get("workflow_run"))
    prs = run.get("pull_requests")
    given: list[Any] = [_mapping(pr).get("number") for pr in (prs if isinstance(prs, list) else ())]
    numbers = tuple(n for n in given if _is_number(n))
    trigger = run.get("event")
    return PullRequestClaim(event_numbers=numbers, number_input=_number_input(env), base_input=_base_input(env),
                            head_sha=_sha(run.get("head_sha")), head_repo=_full_name(run.get("head_repository")),
                            event=trigger if isinstance(trigger, str) else None)


def _overridden(event_name: str, shas: _Shas, env: Mapping[str, str]) -> _Shas:
    """The `pull-request` and `base-sha` inputs: on a pull request event they must agree with it (GitHub's data
    decides); on `push` and dispatch they win; on `workflow_run` they are claims (`_claim`)."""
    number, base = _number_input(env), _base_input(env)
    if event_name == "workflow_run" or (number is None and base is None):
        return shas
    if event_name in PULL_REQUEST_EVENTS:
        if number is not None and number != shas.pr_number:
            raise ActionConfigError(f"input 'pull-request' says #{number}, but the {event_name} event is for "
                                    f"#{shas.pr_number}")
        if base is not None and not (shas.base or "").lower().startswith(base.lower()):
            raise ActionConfigError(f"input 'base-sha' says {base[:12]}, but the {event_name} event's base is "
                                    f"{(shas.base or 'not given')[:12]}")
        return shas
    return _Shas(number if number is not None else shas.pr_number, base or shas.base, shas.head, shas.is_fork)


def _number_input(env: Mapping[str, str]) -> int | None:
    text = input_value(env, "pull-request")
    if text is None:
        return None
    if not text.isdigit():
        raise ActionConfigError(f"input 'pull-request' must be a pull request number, not {text[:40]!r}")
    return int(text)


def _base_input(env: Mapping[str, str]) -> str | None:
    text = input_value(env, "base-sha")
    if text is not None and not re.fullmatch(r"[0-9a-fA-F]{7,40}", text):
        raise ActionConfigError("input 'base-sha' must be a commit SHA")
    return text


def _is_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _read_event(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ActionConfigError(f"cannot read the event file GITHUB_EVENT_PATH={path}: "
                                f"{err.strerror or type(err).__name__}") from None
    except UnicodeDecodeError:
        raise ActionConfigError(f"the event file GITHUB_EVENT_PATH={path} is not UTF-8") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as err:
        raise ActionConfigError(f"the event file GITHUB_EVENT_PATH={path} is not valid JSON "
                                f"(line {err.lineno}: {err.msg})") from None
    if not isinstance(payload, dict):
        raise ActionConfigError(f"the event file GITHUB_EVENT_PATH={path} does not hold a JSON object")
    return payload


def _repository(env: Mapping[str, str], event: Mapping[str, Any]) -> str:
    value = env.get("GITHUB_REPOSITORY") or _full_name(event.get("repository"))
    if not value:
        raise ActionConfigError("GITHUB_REPOSITORY is not set (expected owner/name)")
    owner, slash, name = value.partition("/")
    if not slash or not owner or not name or "/" in name:
        raise ActionConfigError(f"GITHUB_REPOSITORY must be owner/name (got {value!r})")
    return value


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise ActionConfigError(f"{name} is not set (is this running inside GitHub Actions?)")
    return value


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _full_name(repo: Any) -> str | None:
    name = _mapping(repo).get("full_name")
    return name if isinstance(name, str) and name else None


def _sha(value: Any) -> str | None:
    return value if isinstance(value, str) and value and value != ZERO_SHA else None


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None
