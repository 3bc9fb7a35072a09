"""One spec checked (`check_spec`): prepared, its requests run against staging (skipped with a reason
without a URL), concluded. `requests_for` and `execute` are the run's two steps, which a shard job uses too
(on its slice of the requests)."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from satori_ci.check.conclude import FieldKey, conclude, located
from satori_ci.check.frame import observable, prepare
from satori_ci.check.target import CheckOptions, SpecOutcome, SpecTarget
from satori_ci.observe.fields import observed_fields
from satori_ci.oracles.model import Oracle
from satori_ci.plan import PlanSettings, RequestPlan, plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import RequestSet
from satori_ci.postman.match import given_requests
from satori_ci.postman.read import TeamCollection
from satori_ci.report.model import FieldLocation
from satori_ci.run.interface import RunnerName
from satori_ci.run.model import RunResult
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import ResponseField, Spec


def request_set(spec: Spec, oracles: Sequence[Oracle], base_url: str | None, settings: PlanSettings,
                team: TeamCollection | None, null_like: Sequence[str], observe: Sequence[ResponseField] | None,
                plan: RequestPlan | None = None) -> RequestSet:
    """What a run sends, for `check` and `run` alike: the plan (unless given), the team's requests matched to the
    spec's operations, the requests built; `observe`: the fields each response is summarized for (None: off)."""
    plan = plan if plan is not None else plan_requests(spec, settings)
    given = given_requests(team, spec, base_url) if team is not None else None
    fields = observed_fields(observe) if observe is not None else None
    return build_requests(spec, oracles, base_url, null_like, plan, given, settings.unsafe, fields)


def requests_for(spec: Spec, oracles: Sequence[Oracle], target: SpecTarget, staging_url: str,
                 plan: RequestPlan | None = None) -> RequestSet:
    """The requests a check sends (the whole set: a shard slices it)."""
    observe = observable(spec.fields, target.settings) if target.settings.observe.enabled else None
    return request_set(spec, oracles, staging_url, target.plan, target.team, target.settings.null_like, observe,
                       plan)


def execute(planned: RequestSet, oracles: int, target: SpecTarget, options: CheckOptions,
            staging_url: str, what: str = "") -> RunResult:
    """Run `planned` against staging with the target's headers and bounds (`what`: the status line's prefix)."""
    if options.on_stage is not None:
        requests = sum(1 for _ in planned.requests())
        options.on_stage(f"{what}running {requests} request(s) with {oracles} oracle(s) against {staging_url}")
    config = RunConfig(base_url=staging_url, timeout_s=options.timeout_s, retries=options.retries,
                       max_bytes=options.max_response_bytes,
                       environ=dict(options.environ), headers=target.headers, min_exercised=target.min_exercised,
                       fail_on_server_errors=target.fail_on_server_errors, team_tests=target.team_tests,
                       progress=options.on_request)
    return RunnerName(options.runner).build(target.team).run(planned, config)


def _run(spec: Spec, oracles: Sequence[Oracle], target: SpecTarget, options: CheckOptions) -> RunResult | None:
    if not target.staging_url:
        return None
    planned = requests_for(spec, oracles, target, target.staging_url)
    return execute(planned, len(oracles), target, options, target.staging_url)


def check_spec(target: SpecTarget, options: CheckOptions) -> SpecOutcome:
    """Check one spec; a spec that cannot be read gives a `SpecCheck` with `error` set."""
    prepared = prepare(target, options)
    head = prepared.head
    if prepared.frame.final or head is None:
        return SpecOutcome(prepared.frame.check, None)
    run = _run(head, prepared.checked, target, options)

    def locate(wanted: AbstractSet[FieldKey]) -> dict[FieldKey, FieldLocation]:
        return {key: where for _, key, where in located(head, wanted)}

    return conclude(prepared.frame, run, observable(head.fields, target.settings), locate)
