"""A run that stopped early: the one line `errors.classify` gives, said on every channel that can still be reached
(`::error`, the job summary, the sticky comment); a cancelled run: one warning and the summary, exit 130."""

from __future__ import annotations

import contextlib
import os
import signal
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from satori_ci.action.log import debugging, say
from satori_ci.errors import ErrorKind, ExitCode, classify
from satori_ci.github.comments import StickyCommenter
from satori_ci.github.context import ActionContext
from satori_ci.github.outputs import append_summary, endgroup, error, group, notice, warning
from satori_ci.redaction import redact
from satori_ci.report import escape as esc
from satori_ci.report.markdown import marker_for

RUN_MARKER = "<!-- satori-ci:run -->"
"""The comment of a run that stopped before it knew its specs (rewritten to "resolved" by the next good run)."""
DEBUG_HINT = "; re-run with debug logging for a traceback"


@dataclass
class Progress:
    """How far a run got: what the report of a run that stops early can name."""

    specs: list[str] = field(default_factory=list)


def stop_on(ctx: ActionContext | None, progress: Progress, exc: Exception) -> int:
    """Report the run that `exc` stopped (`stopped`) with the exit code and line of `errors.classify`; a bug's
    traceback only in a collapsed group of a debug run."""
    failure = classify(exc)
    message = failure.message
    if failure.kind is ErrorKind.BUG:
        if debugging():
            say(group("satori-ci: traceback of the internal error"))
            print(redact("".join(traceback.format_exception(exc))), flush=True)
            say(endgroup())
        else:
            message += DEBUG_HINT
    return stopped(ctx, progress, failure.code, message)


def could_not_run_body(message: str, code: int, run_url: str | None) -> str:
    """The job summary's (and, after the marker, the comment's) text for a run that stopped early."""
    icon = "🛑" if code == ExitCode.INPUT_ERROR else "⚠️"
    url = esc.link_url(run_url) if run_url else None
    link = f" · [workflow run]({url})" if url else ""
    return (f"## {icon} satori-ci: the check could not run\n\n{esc.text(message, 1_000)}\n\n"
            f"exit code {code}{link}\n")


def stopped(ctx: ActionContext | None, progress: Progress, code: int, message: str) -> int:
    """Report a run that stopped early on every channel that can still be reached; returns `code`.

    One redacted line: `::error`, the job summary, and the sticky comment of each spec it was checking (of the
    run, before it knew its specs) on a pull request with a token. Reporting never raises."""
    line = esc.visible(redact(message))
    say(error(line, title="satori-ci"))
    body = could_not_run_body(line, code, ctx.run_url if ctx is not None else None)
    summary = ctx.summary_path if ctx is not None else _path(os.environ.get("GITHUB_STEP_SUMMARY"))
    try:
        if summary is not None:
            append_summary(summary, redact(body))
    except OSError as err:
        say(warning(f"satori-ci: cannot write the job summary ({err.strerror or type(err).__name__})"))
    if ctx is not None and ctx.wants_comment and ctx.pr_number is not None:
        try:
            _comment_stopped(ctx, progress, body)
        except Exception as err:  # the report of a failure must not fail
            say(notice(f"satori-ci: could not post the comment ({type(err).__name__})"))
    return code


def _comment_stopped(ctx: ActionContext, progress: Progress, body: str) -> None:
    assert ctx.inputs.github_token is not None and ctx.pr_number is not None
    markers = [marker_for(spec) for spec in progress.specs] or [RUN_MARKER]
    with StickyCommenter(ctx.api_url, ctx.inputs.github_token, ctx.repository, ctx.pr_number) as commenter:
        for marker in markers:
            outcome = commenter.upsert(marker, f"{marker}\n{redact(body)}")
            if not outcome.ok:
                say(notice(f"satori-ci: could not post the comment ({outcome.reason}); the job summary says why "
                           "the check could not run"))


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def cancelled(ctx: ActionContext | None) -> int:
    """A run stopped by SIGINT or SIGTERM (a cancelled workflow run): one line and the job summary say so, exit
    130. No comment: a newer run is on its way (`cancel-in-progress`), and the sticky comment is its to write."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # saying so is not cut short
    say(warning("cancelled (SIGINT or SIGTERM): the check stopped before it reported; nothing was commented",
                title="satori-ci"))
    summary = ctx.summary_path if ctx is not None else _path(os.environ.get("GITHUB_STEP_SUMMARY"))
    if summary is not None:
        with contextlib.suppress(OSError):
            append_summary(summary, "## ⏹️ satori-ci: cancelled\n\nThe check was cancelled (SIGINT or SIGTERM) "
                                    "before it reported.\n\nexit code 130\n")
    return ExitCode.INTERRUPTED
