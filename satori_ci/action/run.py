"""One run of the action (not a shard job): every spec the change touches checked with the shared check, then
published; with the `merge` input, the shards' reports merged instead."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from satori_ci.action.log import feed
from satori_ci.action.publish import no_spec, publish
from satori_ci.action.secrets import action_secrets
from satori_ci.action.shards import run_merge
from satori_ci.action.stopped import Progress
from satori_ci.action.targets import check_options, targets, trust_notice, trusted_config
from satori_ci.check.spec_check import check_spec
from satori_ci.check.target import SpecOutcome
from satori_ci.config import load_config
from satori_ci.console.heartbeat import Heartbeat
from satori_ci.github.context import ActionContext
from satori_ci.github.specs import select_specs
from satori_ci.run.breaker import origin


def run(ctx: ActionContext, progress: Progress | None = None) -> int:
    """Check every spec the change touches and publish the results; the exit code of the report."""
    progress = progress if progress is not None else Progress()
    feed(*action_secrets(ctx, os.environ))
    os.chdir(ctx.workspace)
    if ctx.inputs.merge:
        return run_merge(ctx, progress)
    config = load_config(ctx.inputs.config)
    specs = select_specs(ctx.workspace, ctx.inputs.specs, tuple(s.path for s in config.specs), ctx.base_sha,
                         ctx.head_sha)
    progress.specs = list(specs)
    if not specs:
        return no_spec(ctx)
    options = check_options(ctx)
    outcomes: list[SpecOutcome] = []
    trusted = trusted_config(ctx, config)
    for target in targets(ctx, config, trusted, specs):
        beat = Heartbeat(origin(target.staging_url), sys.stderr) if target.staging_url else None
        try:
            outcome = check_spec(target, options if beat is None else replace(
                options, on_request=beat.update, on_stage=beat.on_stage))
        finally:
            if beat is not None:
                beat.close()
        notice_text = trust_notice(trusted, config, target)
        if notice_text is not None:
            outcome = replace(outcome, check=replace(outcome.check, notices=(*outcome.check.notices, notice_text)))
        outcomes.append(outcome)
    return publish(ctx, outcomes)
