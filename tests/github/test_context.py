"""ActionContext / ActionInputs from the environment a GitHub Actions step gets."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from satori_ci.github.context import ActionContext
from satori_ci.github.errors import ActionConfigError
from satori_ci.github.inputs import ActionInputs, Backend, CommentMode, StagingHeader, input_value
from satori_ci.github.workflow_run import PullFacts, PullRequestClaim
from satori_ci.report.model import FailOn

BASE_SHA = "a" * 40
HEAD_SHA = "b" * 40


def pr_payload(head_repo: str | None = "octo/api", base_repo: str = "octo/api", number: int = 7) -> dict[str, Any]:
    return {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "number": number,
            "base": {"sha": BASE_SHA, "ref": "main", "repo": {"full_name": base_repo}},
            "head": {"sha": HEAD_SHA, "ref": "feature",
                     "repo": None if head_repo is None else {"full_name": head_repo}},
        },
        "repository": {"full_name": base_repo},
    }


def make_env(tmp_path: Path, event_name: str, payload: dict[str, Any] | None, **extra: str) -> dict[str, str]:
    env = {
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_REPOSITORY": "octo/api",
        "GITHUB_SHA": HEAD_SHA,
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_RUN_ID": "42",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
    }
    if payload is not None:
        event = tmp_path / "event.json"
        event.write_text(json.dumps(payload), encoding="utf-8")
        env["GITHUB_EVENT_PATH"] = str(event)
    env.update(extra)
    return env


# -- events ---------------------------------------------------------------------------------------

def test_pull_request_from_the_same_repository(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(make_env(tmp_path, "pull_request", pr_payload()))
    assert (ctx.event_name, ctx.repository, ctx.owner, ctx.name) == ("pull_request", "octo/api", "octo", "api")
    assert ctx.pr_number == 7 and ctx.is_pull_request
    assert (ctx.base_sha, ctx.head_sha) == (BASE_SHA, HEAD_SHA)
    assert ctx.is_fork is False
    assert ctx.event["action"] == "synchronize"
    assert ctx.api_url == "https://api.github.com" and ctx.server_url == "https://github.com"
    assert ctx.run_url == "https://github.com/octo/api/actions/runs/42"
    assert ctx.pr_url == "https://github.com/octo/api/pull/7"
    assert ctx.workspace == tmp_path
    assert ctx.output_path == tmp_path / "output" and ctx.summary_path == tmp_path / "summary"


def test_pull_request_from_a_fork(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(make_env(tmp_path, "pull_request", pr_payload(head_repo="someone/api")))
    assert ctx.is_fork is True and ctx.pr_number == 7


def test_a_fork_whose_repository_was_deleted_counts_as_a_fork(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(make_env(tmp_path, "pull_request_target", pr_payload(head_repo=None)))
    assert ctx.is_fork is True and ctx.head_sha == HEAD_SHA


def test_fork_comparison_ignores_case(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(make_env(tmp_path, "pull_request", pr_payload(head_repo="Octo/API")))
    assert ctx.is_fork is False


def test_push_uses_before_and_after(tmp_path: Path) -> None:
    payload = {"before": BASE_SHA, "after": HEAD_SHA, "ref": "refs/heads/main"}
    ctx = ActionContext.from_env(make_env(tmp_path, "push", payload))
    assert (ctx.pr_number, ctx.base_sha, ctx.head_sha, ctx.is_fork) == (None, BASE_SHA, HEAD_SHA, False)
    assert not ctx.is_pull_request and ctx.pr_url is None


def test_push_that_creates_a_branch_has_no_base(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(make_env(tmp_path, "push", {"before": "0" * 40, "after": HEAD_SHA}))
    assert ctx.base_sha is None and ctx.head_sha == HEAD_SHA


def test_workflow_dispatch_has_no_shas_and_no_comment(tmp_path: Path) -> None:
    env = make_env(tmp_path, "workflow_dispatch", {"inputs": {}}, **{"INPUT_GITHUB-TOKEN": "ghs_x"})
    ctx = ActionContext.from_env(env)
    assert (ctx.pr_number, ctx.base_sha, ctx.head_sha) == (None, None, None)
    assert ctx.sha == HEAD_SHA
    assert ctx.wants_comment is False


def test_workflow_run_takes_the_pull_request_it_ran_for_once_github_confirms_it(tmp_path: Path) -> None:
    payload = {"workflow_run": {"head_sha": HEAD_SHA, "pull_requests": [{"number": 9}], "event": "pull_request",
                                "head_repository": {"full_name": "octo/api"}}}
    ctx = ActionContext.from_env(make_env(tmp_path, "workflow_run", payload))
    assert (ctx.pr_number, ctx.base_sha, ctx.head_sha) == (None, None, HEAD_SHA)  # nothing trusted yet
    assert ctx.claim == PullRequestClaim((9,), None, None, HEAD_SHA, "octo/api", "pull_request")
    asked: list[int] = []

    def github(number: int) -> PullFacts:
        asked.append(number)
        return PullFacts(number, "octo/api", "main", BASE_SHA, "octo/api", HEAD_SHA)

    checked = ctx.verified(github)
    assert asked == [9] and checked.claim is None
    assert (checked.pr_number, checked.base_sha, checked.head_sha, checked.is_fork) == (9, BASE_SHA, HEAD_SHA, False)


def _workflow_run(tmp_path: Path, *, numbers: tuple[int, ...] = (), head_repo: str | None = "someone/api",
                  event: str = "pull_request", **inputs: str) -> ActionContext:
    run: dict[str, Any] = {"head_sha": HEAD_SHA, "pull_requests": [{"number": n} for n in numbers],
                           "event": event, "head_repository": head_repo and {"full_name": head_repo}}
    env = make_env(tmp_path, "workflow_run", {"workflow_run": run},
                   **{f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()})
    return ActionContext.from_env(env)


def _github(base_repo: str = "octo/api", head_repo: str | None = "someone/api", head_sha: str = HEAD_SHA,
            base_sha: str = BASE_SHA) -> Callable[[int], PullFacts]:
    return lambda number: PullFacts(number, base_repo, "main", base_sha, head_repo, head_sha)


def test_a_forks_workflow_run_takes_the_number_from_the_input_and_the_base_from_github(tmp_path: Path) -> None:
    ctx = _workflow_run(tmp_path, pull_request="7").verified(_github())
    assert (ctx.pr_number, ctx.base_sha, ctx.is_fork) == (7, BASE_SHA, True)
    given = _workflow_run(tmp_path, pull_request="7", base_sha=BASE_SHA[:10].upper()).verified(_github())
    assert given.base_sha == BASE_SHA


@pytest.mark.parametrize(("ctx_args", "github", "message"), [
    ({"pull_request": "7", "base_sha": "c" * 40}, _github(), "input 'base-sha' says cccccccccccc, GitHub says "
                                                             "the base is aaaaaaaaaaaa"),
    ({"pull_request": "7"}, _github(head_sha="d" * 40), "its head is dddddddddddd, this run's is bbbbbbbbbbbb"),
    ({"pull_request": "7"}, _github(base_repo="someone/api"), "its base repository is someone/api, not octo/api"),
    ({"pull_request": "7"}, _github(head_repo="third/api"), "its head repository is third/api, this run's is "
                                                            "someone/api"),
    ({"pull_request": "7"}, _github(head_repo=None), "its head repository is deleted"),
    ({"pull_request": "8", "numbers": (7,)}, _github(), "input 'pull-request' says #8, but this workflow_run is for "
                                                       "pull request #7"),
    ({}, _github(), "neither the event nor the pull-request input says which"),
    ({"head_repo": None, "event": "push"}, _github(), "neither the event nor the pull-request input"),
])
def test_workflow_run_claims_that_github_contradicts_are_refused(
        tmp_path: Path, ctx_args: dict[str, Any], github: Callable[[int], PullFacts], message: str) -> None:
    ctx = _workflow_run(tmp_path, **ctx_args)
    with pytest.raises(ActionConfigError, match=re.escape(message)) as info:
        ctx.verified(github)
    assert "\n" not in str(info.value)


def test_a_workflow_run_after_a_push_of_this_repository_is_no_pull_request(tmp_path: Path) -> None:
    def github(number: int) -> PullFacts:
        raise AssertionError("no pull request to ask about")

    ctx = _workflow_run(tmp_path, head_repo="octo/api", event="push").verified(github)
    assert (ctx.pr_number, ctx.base_sha, ctx.claim, ctx.is_fork) == (None, None, None, False)


@pytest.mark.parametrize("event_name", ["pull_request", "pull_request_target"])
def test_on_pull_request_events_the_base_is_the_events(tmp_path: Path, event_name: str) -> None:
    payload = pr_payload(head_repo="someone/api")
    agreeing = make_env(tmp_path, event_name, payload, **{"INPUT_BASE-SHA": BASE_SHA[:7], "INPUT_PULL-REQUEST": "7"})
    ctx = ActionContext.from_env(agreeing)
    assert (ctx.pr_number, ctx.base_sha, ctx.is_fork, ctx.claim) == (7, BASE_SHA, True, None)
    assert ctx.verified(_github()) is ctx  # nothing to ask GitHub: the event is GitHub's
    with pytest.raises(ActionConfigError, match="input 'base-sha' says bbbbbbbbbbbb, but the "):
        ActionContext.from_env(make_env(tmp_path, event_name, payload, **{"INPUT_BASE-SHA": HEAD_SHA}))
    with pytest.raises(ActionConfigError, match="input 'pull-request' says #8, but the "):
        ActionContext.from_env(make_env(tmp_path, event_name, payload, **{"INPUT_PULL-REQUEST": "8"}))


def test_on_push_the_inputs_name_the_pull_request_and_the_base(tmp_path: Path) -> None:
    env = make_env(tmp_path, "push", {"before": HEAD_SHA, "after": HEAD_SHA},
                   **{"INPUT_BASE-SHA": BASE_SHA, "INPUT_PULL-REQUEST": "7"})
    ctx = ActionContext.from_env(env)
    assert (ctx.pr_number, ctx.base_sha) == (7, BASE_SHA)


def test_without_an_event_file_the_payload_is_empty(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(make_env(tmp_path, "workflow_dispatch", None))
    assert dict(ctx.event) == {}


def test_enterprise_api_url_and_server_url(tmp_path: Path) -> None:
    env = make_env(tmp_path, "push", {}, GITHUB_API_URL="https://ghe.example.com/api/v3/",
                   GITHUB_SERVER_URL="https://ghe.example.com")
    ctx = ActionContext.from_env(env)
    assert ctx.api_url == "https://ghe.example.com/api/v3"
    assert ctx.run_url == "https://ghe.example.com/octo/api/actions/runs/42"


@pytest.mark.parametrize(("change", "message"), [
    ({"GITHUB_EVENT_NAME": ""}, "GITHUB_EVENT_NAME is not set"),
    ({"GITHUB_REPOSITORY": "no-slash"}, "GITHUB_REPOSITORY must be owner/name"),
    ({"GITHUB_EVENT_PATH": "/nonexistent/event.json"}, "cannot read the event file"),
])
def test_bad_environment(tmp_path: Path, change: dict[str, str], message: str) -> None:
    env = make_env(tmp_path, "push", {}) | change
    with pytest.raises(ActionConfigError, match=message) as info:
        ActionContext.from_env(env)
    assert "\n" not in str(info.value)


def test_event_file_that_is_not_json(tmp_path: Path) -> None:
    env = make_env(tmp_path, "push", None)
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    env["GITHUB_EVENT_PATH"] = str(tmp_path / "bad.json")
    with pytest.raises(ActionConfigError, match=r"not valid JSON \(line 1"):
        ActionContext.from_env(env)


def test_pull_request_event_without_its_pull_request(tmp_path: Path) -> None:
    with pytest.raises(ActionConfigError, match="has no pull_request"):
        ActionContext.from_env(make_env(tmp_path, "pull_request", {"action": "opened"}))


def test_repository_falls_back_to_the_payload(tmp_path: Path) -> None:
    env = make_env(tmp_path, "pull_request", pr_payload())
    del env["GITHUB_REPOSITORY"]
    assert ActionContext.from_env(env).repository == "octo/api"


# -- inputs ---------------------------------------------------------------------------------------

def test_defaults() -> None:
    inputs = ActionInputs.from_env({})
    assert inputs == ActionInputs()
    assert (inputs.backend, inputs.fail_on, inputs.comment) == (Backend.RULES, FailOn.VIOLATIONS, CommentMode.STICKY)
    assert inputs.oracles_dir == "" and inputs.specs == () and inputs.secrets == ()


def test_inputs_with_hyphens_as_github_passes_them_and_with_underscores() -> None:
    env = {
        "INPUT_STAGING-URL": "https://staging.example.com/v1",
        "INPUT_FAIL_ON": "new-violations",
        "INPUT_BACKEND": " LLM ",
        "INPUT_OPENAI-API-KEY": "sk-secret\n",
        "INPUT_OPENAI-BASE-URL": "http://127.0.0.1:9999/v1",
        "INPUT_MODEL": "gpt-4o-mini",
        "INPUT_ORACLES-DIR": "checks/oracles",
        "INPUT_COMMENT": "off",
        "INPUT_GITHUB-TOKEN": "ghs_token",
        "INPUT_CONFIG": "satori.toml",
        "INPUT_SPECS": "openapi/*.yaml\napi/v2.json, api/v3.json\n\n",
    }
    inputs = ActionInputs.from_env(env)
    assert inputs.staging_url == "https://staging.example.com/v1"
    assert inputs.fail_on is FailOn.NEW_VIOLATIONS and inputs.backend is Backend.LLM
    assert inputs.comment is CommentMode.OFF
    assert inputs.openai_api_key == "sk-secret" and inputs.github_token == "ghs_token"
    assert (inputs.openai_base_url, inputs.model) == ("http://127.0.0.1:9999/v1", "gpt-4o-mini")
    assert (inputs.oracles_dir, inputs.config) == ("checks/oracles", "satori.toml")
    assert inputs.specs == ("openapi/*.yaml", "api/v2.json", "api/v3.json")


def test_the_hyphenated_name_wins_and_blank_means_unset() -> None:
    env = {"INPUT_FAIL-ON": "never", "INPUT_FAIL_ON": "violations", "INPUT_BACKEND": "   "}
    assert input_value(env, "fail-on") == "never"
    assert input_value(env, "backend") is None
    assert ActionInputs.from_env(env).backend is Backend.RULES


@pytest.mark.parametrize(("name", "value", "message"), [
    ("FAIL-ON", "sometimes", "fail-on must be one of violations, new-violations, never (got 'sometimes')"),
    ("COMMENT", "always", "comment must be one of sticky, off (got 'always')"),
    ("BACKEND", "gpt", "backend must be one of rules, llm (got 'gpt')"),
    ("STAGING-URL", "ftp://staging", "staging-url must be an absolute http(s) URL (scheme 'ftp')"),
    ("STAGING-URL", "staging.example.com", "staging-url must be an absolute http(s) URL"),
    ("ORACLES-DIR", "../elsewhere", "oracles-dir must be a relative path inside the repository"),
    ("ORACLES-DIR", "/abs", "oracles-dir must be a relative path inside the repository"),
    ("ORACLES-DIR", "~/oracles", "oracles-dir must be a relative path inside the repository"),
    ("ORACLES-DIR", "C:oracles", "oracles-dir must be a relative path inside the repository"),
    ("CONFIG", "/etc/passwd", "config must be a relative path inside the repository (got '/etc/passwd')"),
    ("CONFIG", "ci/../../x.yml", "config must be a relative path inside the repository"),
    ("CONFIG", "ci\\..\\..\\x.yml", "config must be a relative path inside the repository"),
    ("CONFIG", "~/.satori.yml", "config must be a relative path inside the repository"),
])
def test_bad_inputs_give_one_line_errors(name: str, value: str, message: str) -> None:
    with pytest.raises(ActionConfigError) as info:
        ActionInputs.from_env({f"INPUT_{name}": value})
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_paths_whose_dotdot_stays_inside_are_read_normalised() -> None:
    inputs = ActionInputs.from_env({"INPUT_CONFIG": "api/../ci/./satori.yml", "INPUT_ORACLES-DIR": "checks/x/.."})
    assert (inputs.config, inputs.oracles_dir) == ("ci/satori.yml", "checks")


def test_staging_headers_are_parsed_and_their_values_are_secrets() -> None:
    text = "Authorization: Bearer abc:def\n\n# a comment\nX-Tenant:  blue \n"
    inputs = ActionInputs.from_env({"INPUT_STAGING-HEADERS": text, "INPUT_GITHUB-TOKEN": "ghs_t",
                                    "INPUT_OPENAI-API-KEY": "sk-k"})
    assert inputs.staging_headers == (StagingHeader("Authorization", "Bearer abc:def"),
                                      StagingHeader("X-Tenant", "blue"))
    assert inputs.secrets == ("ghs_t", "sk-k", "Bearer abc:def", "blue")


@pytest.mark.parametrize(("text", "message"), [
    ("Authorization Bearer s3cr3t-value", "staging-headers line 1 is not `Name: value`"),
    ("X-Ok: 1\nBad Name: s3cr3t-value", "staging-headers line 2 has an invalid header name"),
])
def test_staging_header_errors_never_quote_the_line(text: str, message: str) -> None:
    with pytest.raises(ActionConfigError) as info:
        ActionInputs.from_env({"INPUT_STAGING-HEADERS": text})
    assert str(info.value) == message
    assert "s3cr3t" not in str(info.value)


def test_secrets_stay_out_of_repr() -> None:
    inputs = ActionInputs.from_env({"INPUT_GITHUB-TOKEN": "ghs_t0ken", "INPUT_OPENAI-API-KEY": "sk-k3y",
                                    "INPUT_STAGING-HEADERS": "Authorization: Bearer hdr-s3cret"})
    shown = repr(inputs)
    assert "ghs_t0ken" not in shown and "sk-k3y" not in shown and "hdr-s3cret" not in shown


def test_llm_without_a_key_falls_back_to_rules() -> None:
    backend, why = ActionInputs.from_env({"INPUT_BACKEND": "llm"}).backend_choice()
    assert backend is Backend.RULES and why is not None and "forks get no secrets" in why
    keyed = ActionInputs.from_env({"INPUT_BACKEND": "llm", "INPUT_OPENAI-API-KEY": "sk"})
    assert keyed.backend_choice() == (Backend.LLM, None)


def test_wants_comment_needs_a_pull_request_a_token_and_sticky(tmp_path: Path) -> None:
    env = make_env(tmp_path, "pull_request", pr_payload(), **{"INPUT_GITHUB-TOKEN": "ghs_t"})
    assert ActionContext.from_env(env).wants_comment is True
    assert ActionContext.from_env(env | {"INPUT_COMMENT": "off"}).wants_comment is False
    assert ActionContext.from_env(env | {"INPUT_GITHUB-TOKEN": ""}).wants_comment is False
