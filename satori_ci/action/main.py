"""The action's entry (`entrypoint.py`): the redactor installed, SIGINT and SIGTERM made interrupts, and the error
boundaries: whatever stops a run is classified once (`satori_ci.errors.classify`) and reported (`stopped`)."""

from __future__ import annotations

import os

from satori_ci.action.log import feed
from satori_ci.action.run import run
from satori_ci.action.secrets import raw_input_secrets
from satori_ci.action.shards import input_shard, shard_main
from satori_ci.action.stopped import Progress, cancelled, stop_on
from satori_ci.action.targets import verified
from satori_ci.errors import interrupts_stop_the_run
from satori_ci.github.context import ActionContext
from satori_ci.redaction import installed


def main() -> int:
    """Run the action; its exit code. A cancelled job (SIGINT, then SIGTERM) stops as Ctrl-C does."""
    with interrupts_stop_the_run(), installed():
        feed(*raw_input_secrets(os.environ))
        try:
            return _main(Progress())
        except KeyboardInterrupt:
            return cancelled(None)


def _main(progress: Progress) -> int:
    try:
        ctx = ActionContext.from_env(os.environ)
        shard = input_shard(ctx.inputs.shard)
    except Exception as exc:
        return stop_on(None, progress, exc)
    try:
        ctx = verified(ctx)
    except Exception as exc:  # not verified: ctx has no pull request, so nothing is posted
        return stop_on(ctx, progress, exc)
    if shard is not None:
        return shard_main(ctx, shard)
    try:
        return run(ctx, progress)
    except KeyboardInterrupt:
        return cancelled(ctx)
    except Exception as exc:  # the one boundary: classified, reported, never a bare traceback
        return stop_on(ctx, progress, exc)
