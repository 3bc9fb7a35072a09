"""The action's own lines in the log: redacted, the one way a workflow command gets out, and secrets registered
with the runner as masks."""

from __future__ import annotations

import os
import sys

from satori_ci.github.outputs import mask_lines
from satori_ci.redaction import current, unredacted, write_line


def say(line: str) -> None:
    """Print one line of ours, redacted, a workflow command included: the one way a line of the log starts with
    `::` (anything else printed is made `redaction.log_safe`)."""
    write_line(line)


def feed(*secrets: str | None) -> None:
    """Give the redactor more secrets and register the new ones with the runner (`::add-mask::`)."""
    masks = mask_lines(current().add(*secrets))
    if masks:
        out = unredacted(sys.stdout)  # the mask command must carry the secret itself
        out.write(masks + "\n")
        out.flush()


def debugging() -> bool:
    """The run was started with debug logging (or SATORI_DEBUG): tracebacks of internal errors are printed."""
    return os.environ.get("RUNNER_DEBUG") == "1" or bool(os.environ.get("SATORI_DEBUG"))
