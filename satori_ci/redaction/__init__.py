"""The one redaction point: every text that leaves the process passes a `Redactor` (no third-party code).

`redactor`: the `Redactor` (secrets in every form, URL passwords and key-like query values replaced by `***`,
in linear time) and what to feed it (`header_secrets`, `environ_secrets`, `url_secrets`). `streams`: the
process's redactor (`install`, `current`, `redact`, `write_text`), `installed` (stdout and stderr redacted for a
block), and the log (`log_safe`: no line a runner reads as a workflow command; `write_line`: the action's own).
"""

from __future__ import annotations

from .redactor import (
    AUTH_PREFIX,
    MIN_SECRET_CHARS,
    REDACTED,
    Redactor,
    alternation,
    environ_secrets,
    header_secrets,
    key_like,
    mask_url,
    url_secrets,
)
from .streams import (
    RedactingStream,
    current,
    install,
    installed,
    log_safe,
    own_line,
    redact,
    unredacted,
    write_line,
    write_redacted,
    write_text,
)

__all__ = [
    "AUTH_PREFIX",
    "MIN_SECRET_CHARS",
    "REDACTED",
    "RedactingStream",
    "Redactor",
    "alternation",
    "current",
    "environ_secrets",
    "header_secrets",
    "install",
    "installed",
    "key_like",
    "log_safe",
    "mask_url",
    "own_line",
    "redact",
    "unredacted",
    "url_secrets",
    "write_line",
    "write_redacted",
    "write_text",
]
