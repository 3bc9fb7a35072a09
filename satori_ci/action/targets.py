"""What the action checks and how: the trusted config, the pull request verified against GitHub, one
`SpecTarget` per spec (where requests and secrets go from trusted input only), the check's options."""

from __future__ import annotations

import os

from satori_ci.action.log import feed, say
from satori_ci.action.secrets import value_secrets
from satori_ci.check.stores import store_file_of
from satori_ci.check.target import CheckOptions, SpecTarget
from satori_ci.check.workspace import default_oracle_path, ensure_inside_workspace, load_team, team_secrets
from satori_ci.config import ProjectConfig, load_config_at, trust_changes
from satori_ci.config.settings import BudgetFlags
from satori_ci.github.context import ActionContext
from satori_ci.github.errors import ActionConfigError
from satori_ci.github.inputs import Backend, input_value
from satori_ci.github.outputs import notice, warning
from satori_ci.github.pulls import fetch_pull
from satori_ci.infer.llm import LLMConfig
from satori_ci.infer.llm.config import DEFAULT_MODEL
from satori_ci.redaction import header_secrets, url_secrets
from satori_ci.run.interface import RUNNER_NAMES, RunnerName
from satori_ci.run.team import TeamTestPolicy


def check_options(ctx: ActionContext) -> CheckOptions:
    """The backend, runner and timeout the inputs choose."""
    backend, why = ctx.inputs.backend_choice()
    if why:
        say(notice(why))
    llm = None
    if backend is Backend.LLM:
        llm = LLMConfig(model=ctx.inputs.model or DEFAULT_MODEL, base_url=ctx.inputs.openai_base_url,
                        api_key=ctx.inputs.openai_api_key)
    runner = input_value(os.environ, "runner") or RunnerName.AUTO.value
    if runner not in RUNNER_NAMES:
        raise ActionConfigError(f"input 'runner' must be one of {', '.join(RUNNER_NAMES)}, not {runner!r}")
    return CheckOptions(backend=backend.value, llm=llm, runner=runner, timeout_s=ctx.inputs.timeout_s,
                        environ=dict(os.environ))


def team_tests(default: str) -> TeamTestPolicy:
    """The `team-tests` input, else `default` (the trusted config's `requests.team_tests`, else fail)."""
    given = input_value(os.environ, "team-tests") or default
    try:
        return TeamTestPolicy(given)
    except ValueError:
        names = ", ".join(p.value for p in TeamTestPolicy)
        raise ActionConfigError(f"input 'team-tests' must be one of {names}, not {given[:40]!r}") from None


def trusted_config(ctx: ActionContext, head: ProjectConfig) -> ProjectConfig:
    """The config that decides where requests and secrets go: the base commit's on a pull request (the head's
    is the proposal of whoever opened it; the base is GitHub's, see `verified`), the checked-out one on push
    and dispatch."""
    if ctx.claim is not None:
        raise RuntimeError("the workflow_run's pull request was not checked against GitHub before reading a config")
    if ctx.is_pull_request or ctx.is_fork:
        if not ctx.base_sha:
            raise ActionConfigError("the pull request's base commit is not known, so there is no trusted config to "
                                    "read: nothing was checked")
        return load_config_at(ctx.base_sha, ctx.inputs.config)
    return head


def verified(ctx: ActionContext) -> ActionContext:
    """On `workflow_run`: the pull request and its base from GitHub's API, the event's and the inputs' claims
    checked against it (the inputs may come from an artifact a fork wrote); other events: as they are."""
    if ctx.claim is None:
        return ctx
    token = ctx.inputs.github_token or ""
    return ctx.verified(lambda number: fetch_pull(ctx.api_url, token, ctx.repository, number))


def oracles_dir(ctx: ActionContext, trusted: ProjectConfig) -> str:
    """The folder of the oracle files: the `oracles-dir` input, else the trusted config's, else `.satori`."""
    return ctx.inputs.oracles_dir or trusted.oracles_dir or ".satori"


def targets(ctx: ActionContext, config: ProjectConfig, trusted: ProjectConfig, specs: list[str]) -> list[SpecTarget]:
    """One target per spec: read with the head's config, sent where the trusted config says."""
    inputs = tuple((h.name, h.value) for h in ctx.inputs.staging_headers)
    out = []
    for path in specs:
        settings = config.for_spec(path)
        sending = trusted.for_spec(path)
        staging = sending.staging(os.environ, ctx.inputs.staging_url, inputs)
        plan, plan_notes = sending.plan_settings(os.environ, budget=BudgetFlags(*ctx.inputs.budget))
        rev = ctx.base_sha if ctx.is_pull_request and ctx.base_sha else None
        team = load_team(sending.requests.collection, sending.requests.environment, rev, staging.url)
        feed(*header_secrets(v for _, v in staging.headers), *url_secrets(staging.url), *team_secrets(team),
             *value_secrets(sending, os.environ))
        for note in (*staging.notes, *plan_notes):
            say(warning(f"satori-ci: {path}: {note}"))
        oracle_file = default_oracle_path(path, oracles_dir(ctx, trusted))
        ensure_inside_workspace(oracle_file)  # before it is read or anything is sent
        store_file = store_file_of(oracle_file)
        ensure_inside_workspace(store_file)
        # the suspects come from the store as the base commit has it (the head's is the pull request's proposal)
        trusted_store = f"{rev}:{store_file.as_posix()}" if rev else store_file.as_posix()
        out.append(SpecTarget(
            head=path, base=f"{ctx.base_sha}:{path}" if ctx.base_sha else None,
            oracle_file=oracle_file,
            settings=settings, staging_url=staging.url, headers=staging.headers, plan=plan,
            min_exercised=sending.requests.min_exercised_or_default,
            min_changed=(ctx.inputs.min_changed if ctx.inputs.min_changed is not None
                         else sending.requests.min_changed_or_default),
            fail_on_server_errors=sending.requests.fail_on_server_errors, team=team,
            team_tests=team_tests(sending.requests.team_tests_or_default),
            trusted_store=trusted_store,
        ))
    return out


def trust_notice(trusted: ProjectConfig, config: ProjectConfig, target: SpecTarget) -> str | None:
    """The notice for a pull request that changes where requests and secrets go (said as a warning too)."""
    changes = trust_changes(trusted, config, target.settings.path) if trusted is not config else ()
    if not changes:
        return None
    notice_text = (f"This pull request changes where requests and secrets go ({', '.join(changes)} in "
                   f"{config.source or '.satori.yml'}): not applied here; the base branch's settings "
                   "were used, and the change applies after merge.")
    say(warning(f"satori-ci: {target.settings.path}: {notice_text}"))
    return notice_text
