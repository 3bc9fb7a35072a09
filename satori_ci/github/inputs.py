"""The action's inputs (`INPUT_*` environment variables), parsed and validated once.

GitHub passes an input named `staging-url` as `INPUT_STAGING-URL` (upper-cased, spaces turned into
`_`, hyphens kept); Docker actions receive it so. `INPUT_STAGING_URL` is accepted too, for shells
and tools that cannot set a name with a hyphen. Values are trimmed, as `@actions/core` does, and an
empty value means the default. Errors are one line and never quote a secret.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar
from urllib.parse import urlsplit

from satori_ci.github.errors import ActionConfigError
from satori_ci.report.model import ChangeMinimum, FailOn, change_minimum
from satori_ci.spec.source import leaves_repository

DEFAULT_ORACLES_DIR = ""
"""Empty: the trusted config's `oracles_dir`, else `.satori`."""
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_SHOWN_CHARS = 40
MAX_TIMEOUT_S = 3600.0
"""The longest `timeout` accepted: the CLI's `--timeout` bound (`run.outcome.MAX_TIMEOUT_S`, not imported: this
package reads inputs, not runs)."""

E = TypeVar("E", bound=StrEnum)


class Backend(StrEnum):
    RULES = "rules"
    LLM = "llm"


class CommentMode(StrEnum):
    STICKY = "sticky"
    """One comment per spec on the pull request, updated in place."""
    OFF = "off"
    """No comment; the job summary only."""


@dataclass(frozen=True)
class StagingHeader:
    """One `Name: value` line of `staging-headers`; the value is a secret."""

    name: str
    value: str = field(repr=False)


@dataclass(frozen=True)
class ActionInputs:
    specs: tuple[str, ...] = ()
    """Globs of the specs to check; empty: every OpenAPI spec the pull request changed."""
    staging_url: str | None = None
    staging_headers: tuple[StagingHeader, ...] = field(default=(), repr=False)
    backend: Backend = Backend.RULES
    openai_api_key: str | None = field(default=None, repr=False)
    openai_base_url: str | None = None
    model: str | None = None
    oracles_dir: str = DEFAULT_ORACLES_DIR
    fail_on: FailOn = FailOn.VIOLATIONS
    comment: CommentMode = CommentMode.STICKY
    github_token: str | None = field(default=None, repr=False)
    config: str | None = None
    """Path of the project config file, if one was given."""
    junit: str | None = None
    """`junit`: where to write the report as JUnit XML (a path inside the repository), if anywhere."""
    sarif: str | None = None
    """`sarif`: where to write the violations as SARIF 2.1.0 (a path inside the repository), if anywhere."""
    shard: str | None = None
    """`I/N`: this job checks shard I of N of the operations and writes a partial report, nothing else (the text
    as given: the action parses it, `satori_ci.action.shards.input_shard`)."""
    merge: tuple[str, ...] = ()
    """Folders, files or globs (in the workspace) of the shards' partial reports: this job merges them and
    reports (comment, summary, annotations, outputs, exit code); it sends no request."""
    timeout_s: float = 30.0
    """`timeout`: seconds one staging request may take in all (connect, headers, body), as `--timeout`."""
    budget: tuple[int | None, float | None, float | None, int | None] = (None, None, None, None)
    """`budget`, `time-budget`, `rate`, `concurrency` (None: not given; the trusted config's or the default)."""
    min_changed: ChangeMinimum | None = None
    """`min-changed-exercised` (None: not given; the trusted config's `requests.min_changed_exercised`, else 1)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionInputs:
        def get(name: str) -> str | None:
            return input_value(env, name)

        return cls(
            specs=_split_specs(get("specs")),
            staging_url=_url(get("staging-url"), "staging-url"),
            staging_headers=parse_staging_headers(get("staging-headers")),
            backend=_choice(get("backend"), "backend", Backend, Backend.RULES),
            openai_api_key=get("openai-api-key"),
            openai_base_url=_url(get("openai-base-url"), "openai-base-url"),
            model=get("model"),
            oracles_dir=_relative_path(get("oracles-dir"), "oracles-dir") or DEFAULT_ORACLES_DIR,
            fail_on=_choice(get("fail-on"), "fail-on", FailOn, FailOn.VIOLATIONS),
            comment=_choice(get("comment"), "comment", CommentMode, CommentMode.STICKY),
            github_token=get("github-token"),
            config=_relative_path(get("config"), "config"),
            junit=_relative_path(get("junit"), "junit"),
            sarif=_relative_path(get("sarif"), "sarif"),
            shard=_shard(get("shard"), get("merge")),
            merge=_split_specs(get("merge")),
            timeout_s=_timeout(get("timeout")),
            budget=(_number(get("budget"), "budget", int, 1, 1_000_000), _number(get("time-budget"), "time-budget",
                                                                                float, 0, 86400, open_low=True),
                    _number(get("rate"), "rate", float, 0, 10000), _number(get("concurrency"), "concurrency", int, 1,
                                                                           32)),
            min_changed=_change_minimum(get("min-changed-exercised")),
        )

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret value given (to mask and to redact), without empty ones."""
        values = (self.github_token, self.openai_api_key, *(h.value for h in self.staging_headers))
        return tuple(dict.fromkeys(v for v in values if v))

    def backend_choice(self) -> tuple[Backend, str | None]:
        """The backend to run and, when it differs from the one asked for, why.

        A fork's pull request gets no secrets: `llm` without a key runs the rules backend.
        """
        if self.backend is Backend.LLM and not self.openai_api_key:
            return Backend.RULES, ("openai-api-key is empty (pull requests from forks get no secrets): "
                                   "using the rules backend")
        return self.backend, None


def input_value(env: Mapping[str, str], name: str) -> str | None:
    """The trimmed value of input `name` (`staging-url`), or None when unset or blank."""
    official = "INPUT_" + name.replace(" ", "_").upper()
    for key in (official, official.replace("-", "_")):
        value = env.get(key)
        if value is not None and value.strip():
            return value.strip()
    return None


def parse_staging_headers(text: str | None) -> tuple[StagingHeader, ...]:
    """`Name: value` lines; blank lines and `#` comments are skipped. Errors name the line, not its text."""
    headers: list[StagingHeader] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, colon, value = stripped.partition(":")
        if not colon:
            raise ActionConfigError(f"staging-headers line {number} is not `Name: value`")
        if not _HEADER_NAME.match(name.strip()):
            raise ActionConfigError(f"staging-headers line {number} has an invalid header name")
        if "\x00" in value:
            raise ActionConfigError(f"staging-headers line {number} has a NUL character in its value")
        headers.append(StagingHeader(name.strip(), value.strip()))
    return tuple(headers)


def _shard(value: str | None, merge: str | None) -> str | None:
    if value is not None and merge is not None:
        raise ActionConfigError("set shard (a matrix job) or merge (the job after them), not both")
    return value


def _change_minimum(value: str | None) -> ChangeMinimum | None:
    if value is None:
        return None
    try:
        return change_minimum(value)
    except ValueError:
        raise ActionConfigError("min-changed-exercised must be a whole number (0 or more) or a share like 50% "
                                f"(got {_shown(value)})") from None


def _timeout(value: str | None) -> float:
    """The `timeout` input: seconds, more than 0 and at most `MAX_TIMEOUT_S` (default 30)."""
    if value is None:
        return 30.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT_S:  # NaN fails every comparison
        raise ActionConfigError(f"timeout must be a number of seconds, more than 0 and at most {MAX_TIMEOUT_S:g} "
                                f"(got {_shown(value)})")
    return seconds


_N = TypeVar("_N", int, float)


def _number(value: str | None, name: str, kind: type[_N], low: float, high: float, open_low: bool = False
            ) -> _N | None:
    """A numeric input within [low, high] (low excluded with `open_low`); None when not given."""
    if value is None:
        return None
    try:
        found = kind(value)
    except ValueError:
        found = None
    if found is None or found != found or not (low < found if open_low else low <= found) or found > high:
        what = "a whole number" if kind is int else "a number"
        raise ActionConfigError(f"{name} must be {what} from {low:g} to {high:g}"
                                f"{' (more than ' + format(low, 'g') + ')' if open_low else ''} (got {_shown(value)})")
    return found


def _split_specs(text: str | None) -> tuple[str, ...]:
    parts = (part.strip() for line in (text or "").splitlines() for part in line.split(","))
    return tuple(dict.fromkeys(p for p in parts if p))


def _choice(value: str | None, name: str, enum: type[E], default: E) -> E:
    if value is None:
        return default
    try:
        return enum(value.lower())
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise ActionConfigError(f"{name} must be one of {allowed} (got {_shown(value)})") from None


def _url(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        raise ActionConfigError(f"{name} is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        scheme = f" (scheme {parts.scheme!r})" if parts.scheme else ""
        raise ActionConfigError(f"{name} must be an absolute http(s) URL{scheme}")
    return value


def _relative_path(value: str | None, name: str) -> str | None:
    """A path inside the repository, relative to its root and normalised (`a/../b` is `b`): an absolute one
    (`/x`, `C:/x`, `~/x`) or one whose `..` climbs out is an ActionConfigError. Symlinks are checked where the
    path is opened (`config.load_config`, `ensure_inside_workspace`)."""
    if value is None:
        return None
    if leaves_repository(value):
        raise ActionConfigError(f"{name} must be a relative path inside the repository (got {_shown(value)})")
    return posixpath.normpath(value)


def _shown(value: str) -> str:
    """A user's value in a one-line error: quoted, escaped, shortened."""
    short = value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "…"
    return repr(short)
