"""The project config's typed values (what the rest of satori-ci reads), built from the file's model (`model`)."""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan.model import DEFAULT_BUDGET, DEFAULT_CHAIN, DEFAULT_TIME_BUDGET, Budget, PlanSettings

DEFAULT_CONFIG = ".satori.yml"
BACKENDS = ("rules", "llm", "declared")


class FailOn(StrEnum):
    VIOLATIONS = "violations"
    """Any oracle violation fails the check."""
    NEW_VIOLATIONS = "new-violations"
    """Only violations of oracles added or changed by this pull request fail it."""
    NEVER = "never"


CHANGE_SHARE = re.compile(r"(100|[1-9]?[0-9])%")
"""A share of a change's oracles, as `requests.min_changed_exercised` and `--min-changed-exercised` write it."""


@dataclass(frozen=True)
class ChangeMinimum:
    """How many of the oracles a pull request adds or changes its check must exercise: a count, or a share."""

    count: int = 1
    percent: int | None = None
    """When set, a share of the changed oracles (rounded up) instead of `count`."""

    def required(self, changed: int) -> int:
        """Of `changed` oracles, how many must be exercised (never more than there are)."""
        if self.percent is not None:
            return math.ceil(changed * self.percent / 100)
        return min(self.count, changed)

    def __str__(self) -> str:
        return f"{self.percent}%" if self.percent is not None else str(self.count)


def change_minimum(value: int | str) -> ChangeMinimum:
    """`3` or `"3"` is a count, `"50%"` a share; ValueError for anything else (the config's model checked it)."""
    if isinstance(value, int):
        if value < 0:
            raise ValueError(value)
        return ChangeMinimum(value)
    text = value.strip()
    if CHANGE_SHARE.fullmatch(text):
        return ChangeMinimum(percent=int(text[:-1]))
    if text.isascii() and text.isdigit() and len(text) <= 7:
        return ChangeMinimum(int(text))
    raise ValueError(value)


@dataclass(frozen=True)
class Ignore:
    operations: tuple[str, ...] = ()
    """Globs over `METHOD /path` (e.g. `GET /internal/*`)."""
    fields: tuple[str, ...] = ()
    """Globs over field paths (e.g. `*.etag`, `data.results[].thumbnail.*`)."""

    def operation(self, method: str, path: str) -> bool:
        return any(fnmatch.fnmatchcase(f"{method} {path}", pattern) for pattern in self.operations)

    def field(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.fields)


@dataclass(frozen=True)
class Staging:
    """Where one spec's oracles run, with header values read from the environment."""

    url: str | None
    headers: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    """Header variables that are not set (those headers are not sent)."""


@dataclass(frozen=True)
class Value:
    """A parameter value from the config: literal, or read from an environment variable at run time."""

    literal: str | None = None
    env: str | None = None

    def resolve(self, environ: Mapping[str, str]) -> str | None:
        return self.literal if self.env is None else environ.get(self.env)


_T = TypeVar("_T", int, float)


def _first(*values: _T | None) -> _T:
    return next(v for v in values if v is not None)


@dataclass(frozen=True)
class BudgetFlags:
    """The budget the command line or the action's inputs give (None: not given)."""

    requests: int | None = None
    seconds: float | None = None
    rate: float | None = None
    concurrency: int | None = None


@dataclass(frozen=True)
class RequestSettings:
    """The `requests:` section: what may be sent, with which values (decided by trusted config only)."""

    unsafe: tuple[str, ...] = ()
    values: tuple[tuple[str, Value], ...] = ()
    operations: tuple[tuple[str, tuple[tuple[str, Value], ...]], ...] = ()
    chain: int | None = None
    budget: int | None = None
    time_budget: float | None = None
    rate: float | None = None
    concurrency: int | None = None
    min_exercised: int | None = None
    min_changed_exercised: ChangeMinimum | None = None
    server_errors: str | None = None
    """`fail` (default) or `report`."""
    collection: str | None = None
    environment: str | None = None
    team_tests: str | None = None
    """`fail` (default), `warn` or `ignore`: what the team collection's own failing tests do."""

    @property
    def min_exercised_or_default(self) -> int:
        return self.min_exercised if self.min_exercised is not None else 1

    @property
    def min_changed_or_default(self) -> ChangeMinimum:
        return self.min_changed_exercised if self.min_changed_exercised is not None else ChangeMinimum()

    @property
    def fail_on_server_errors(self) -> bool:
        return self.server_errors != "report"

    @property
    def team_tests_or_default(self) -> str:
        return self.team_tests or "fail"


@dataclass(frozen=True)
class ObserveSettings:
    """The `observe:` section: whether checked responses feed the observation store and oracles are suggested."""

    enabled: bool = True
    min_responses: int | None = None
    min_requests: int | None = None


@dataclass(frozen=True)
class SpecConfig:
    path: str
    staging_url: str | None = None
    staging_url_env: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    """(header name, environment variable name): values are read at run time, never stored."""
    null_like: tuple[str, ...] = ()
    skip_kinds: frozenset[OracleKind] = frozenset()
    ignore: Ignore = field(default_factory=Ignore)
    requests: RequestSettings = field(default_factory=RequestSettings)
    observe: ObserveSettings = field(default_factory=ObserveSettings)
    source: str = DEFAULT_CONFIG
    """The config file this came from (hints name it)."""

    def checks(self, oracle: Oracle) -> bool:
        """Whether this file leaves the oracle to be checked (not a kind to skip, not an ignored field/operation)."""
        return (oracle.kind not in self.skip_kinds and not self.ignore.field(oracle.field)
                and not self.ignore.operation(oracle.operation.method, oracle.operation.path))

    def plan_settings(self, environ: Mapping[str, str], values: tuple[tuple[str, str], ...] = (),
                      unsafe: tuple[str, ...] = (), chain: int | None = None,
                      budget: BudgetFlags | None = None) -> tuple[PlanSettings, tuple[str, ...]]:
        """The request plan's settings: flags (`values`, `unsafe`, `chain`) first, then this file's; notes name
        the environment variables that are not set (their parameters get no value)."""
        notes: list[str] = []

        def resolved(pairs: tuple[tuple[str, Value], ...]) -> tuple[tuple[str, str], ...]:
            out = []
            for name, value in pairs:
                found = value.resolve(environ)
                if found is None:
                    notes.append(f"{value.env} is not set: parameter {name} gets no value from the config")
                else:
                    out.append((name, found))
            return tuple(out)

        merged = dict(resolved(self.requests.values))
        merged.update(values)
        operations = tuple((key, resolved(pairs)) for key, pairs in self.requests.operations)
        settings = PlanSettings(
            unsafe=(*unsafe, *self.requests.unsafe), ignore=self.ignore.operations, values=tuple(merged.items()),
            operation_values=operations,
            chain=chain if chain is not None else (self.requests.chain if self.requests.chain is not None
                                                   else DEFAULT_CHAIN),
            config_name=self.source, budget=self.budget(budget or BudgetFlags()))
        return settings, tuple(notes)

    def budget(self, flags: BudgetFlags) -> Budget:
        """The run's budget: flags (or action inputs) first, then this file's `requests:`, then the defaults."""
        own = self.requests
        return Budget(
            requests=_first(flags.requests, own.budget, DEFAULT_BUDGET),
            seconds=_first(flags.seconds, own.time_budget, DEFAULT_TIME_BUDGET),
            rate=_first(flags.rate, own.rate, 0.0), concurrency=_first(flags.concurrency, own.concurrency, 1))

    def staging(self, environ: Mapping[str, str], url: str | None = None,
                headers: tuple[tuple[str, str], ...] = ()) -> Staging:
        """`url`/`headers` (flags, action inputs) first, then this file's, resolved from `environ`."""
        chosen = url or self.staging_url or (environ.get(self.staging_url_env) if self.staging_url_env else None)
        found = list(headers)
        notes = []
        if chosen is None and self.staging_url_env and self.staging_url_env not in environ:
            notes.append(f"{self.staging_url_env} is not set (staging.url_env in {self.source}): no staging URL, "
                         "so the oracles are not run")
        for header, variable in self.headers:
            value = environ.get(variable)
            if value is None:
                notes.append(f"{variable} is not set: the {header} header is not sent")
            else:
                found.append((header, value))
        return Staging(chosen, tuple(found), tuple(notes))


@dataclass(frozen=True)
class ProjectConfig:
    specs: tuple[SpecConfig, ...] = ()
    backend: str | None = None
    model: str | None = None
    fail_on: FailOn | None = None
    oracles_dir: str | None = None
    source: str | None = None
    """The file it was read from, None for the defaults."""

    def for_spec(self, path: str) -> SpecConfig:
        """The settings of the spec at `path` (repository-relative); defaults when the file does not name it."""
        wanted = _relative(path)
        for spec in self.specs:
            if _relative(spec.path) == wanted:
                return spec
        return SpecConfig(path=wanted)


def _relative(path: str) -> str:
    """`./api/x.yaml` and `api/x.yaml` name the same file (a leading `../` is kept: it is another file)."""
    text = Path(path).as_posix()
    while text.startswith("./"):
        text = text[2:]
    return text
