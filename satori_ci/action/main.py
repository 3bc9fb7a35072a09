"""The action's entry (`entrypoint.py`): the redactor installed, SIGTERM made an interrupt, and the error
boundaries: whatever stops a run is classified once (`satori_ci.errors.classify`) and reported (`stopped`)."""

from __future__ import annotations

import os
import signal

from satori_ci.action.log import feed
from satori_ci.action.run import run
from satori_ci.action.secrets import raw_input_secrets
from satori_ci.action.shards import input_shard, shard_main
from satori_ci.action.stopped import Progress, cancelled, stop_on
from satori_ci.action.targets import verified
from satori_ci.errors import terminate_as_interrupt
from satori_ci.github.context import ActionContext
from satori_ci.redaction import installed


def main() -> int:
    """Run the action; its exit code."""
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)  # a cancelled job stops as Ctrl-C does
    try:
        with installed():
            feed(*raw_input_secrets(os.environ))
            try:
                return _main(Progress())
            except KeyboardInterrupt:
                return cancelled(None)
    finally:
        signal.signal(signal.SIGTERM, previous)


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
