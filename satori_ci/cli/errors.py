"""How `satori-ci` says why it stopped: the `Failure` that `satori_ci.errors.classify` gives, one line on stderr."""

from __future__ import annotations

import os
import sys
import traceback

from satori_ci.errors import ErrorKind, ExitCode, classify

DEBUG_HINT = " (set SATORI_DEBUG=1 for a traceback)"


def stop(exc: BaseException) -> ExitCode:
    """Say why the command stopped (`satori-ci: interrupted`, else `satori-ci: error: ...`; a bug with the
    SATORI_DEBUG hint, and its traceback first when SATORI_DEBUG is set); the exit code."""
    failure = classify(exc)
    if failure.kind is ErrorKind.INTERRUPTED:
        print("satori-ci: interrupted", file=sys.stderr)
        return failure.code
    message = failure.message
    if failure.kind is ErrorKind.BUG:
        if os.environ.get("SATORI_DEBUG"):
            traceback.print_exception(exc)
        message += DEBUG_HINT
    print(f"satori-ci: error: {message}", file=sys.stderr)
    return failure.code
