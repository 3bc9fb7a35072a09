"""The run's context, read once from the environment GitHub Actions gives a step.

    ctx = ActionContext.from_env(os.environ)      # raises ActionConfigError (one line)

Reads `GITHUB_EVENT_NAME`, the event payload (`GITHUB_EVENT_PATH`), `GITHUB_REPOSITORY`,
`GITHUB_API_URL` (GitHub Enterprise Server, local test servers), `GITHUB_SERVER_URL`, the run's id
(for links), `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and the inputs (`INPUT_*`, see `inputs`).

SHAs: a pull request's base and head commits (`pull_request.base.sha` / `head.sha`); a push's
`before` and `after` (no base when the push created the branch); none for `workflow_dispatch`,
which checks everything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from satori_ci.github.errors import ActionConfigError
from satori_ci.github.inputs import ActionInputs, CommentMode, input_value

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})
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

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionContext:
        event_name = _required(env, "GITHUB_EVENT_NAME")
        event = _read_event(env.get("GITHUB_EVENT_PATH"))
        repository = _repository(env, event)
        server_url = (env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/")
        run_id = env.get("GITHUB_RUN_ID")
        shas = _overridden(_shas(event_name, event, repository), env)
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
        )

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
    if event_name == "workflow_run":
        run = _mapping(event.get("workflow_run"))
        prs = run.get("pull_requests")
        first = _mapping(prs[0]) if isinstance(prs, list) and prs else {}
        number = first.get("number")
        head_repo = _full_name(run.get("head_repository"))
        return _Shas(number if isinstance(number, int) and not isinstance(number, bool) else None,
                     head=_sha(run.get("head_sha")),
                     is_fork=head_repo is not None and head_repo.lower() != repository.lower())
    return _Shas()


def _overridden(shas: _Shas, env: Mapping[str, str]) -> _Shas:
    """The `pull-request` and `base-sha` inputs win over the event (the `workflow_run` recipe for forks)."""
    number_text = input_value(env, "pull-request")
    base_text = input_value(env, "base-sha")
    if number_text is None and base_text is None:
        return shas
    number = shas.pr_number
    if number_text is not None:
        if not number_text.isdigit():
            raise ActionConfigError(f"input 'pull-request' must be a pull request number, not {number_text!r}")
        number = int(number_text)
    base = shas.base
    if base_text is not None:
        if not re.fullmatch(r"[0-9a-fA-F]{7,40}", base_text):
            raise ActionConfigError("input 'base-sha' must be a commit SHA")
        base = base_text
    return _Shas(number, base, shas.head, shas.is_fork)


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
