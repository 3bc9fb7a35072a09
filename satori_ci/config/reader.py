"""`.satori.yml` read once: the project's YAML loader (key lines kept, nesting and aliases bounded), the file's
model (`model.ConfigModel`), and the typed values the rest of satori-ci reads (`settings`).

A config that cannot be used is one `ConfigError` line naming the file, the line and the key (`messages`).
Command-line flags override the file; the file overrides the defaults.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from satori_ci.config.errors import ConfigError
from satori_ci.config.messages import first_problem
from satori_ci.config.model import ConfigModel, EnvValue, ObserveModel, RequestsModel, SpecModel
from satori_ci.config.settings import (
    DEFAULT_CONFIG,
    FailOn,
    Ignore,
    ObserveSettings,
    ProjectConfig,
    RequestSettings,
    SpecConfig,
    Value,
    change_minimum,
)
from satori_ci.oracles.kinds import OracleKind
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.source import git_toplevel, is_within, open_source
from satori_ci.spec.yaml_loader import load_yaml


def parse_config(text: str, name: str) -> ProjectConfig:
    """The config in `text` (read from `name`, which errors and hints name)."""
    try:
        raw, lines = load_yaml(text.encode("utf-8"), name)
    except SpecError as exc:
        raise ConfigError(str(exc)) from None
    if raw is None:
        return ProjectConfig(source=name)
    if not isinstance(raw, dict):
        raise ConfigError(f"{name}: the config file must be a mapping")
    try:
        model = ConfigModel.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(first_problem(exc.errors(include_url=False), raw).line(name, lines)) from None
    return ProjectConfig(
        specs=tuple(_spec(spec, name) for spec in model.specs or ()),
        backend=model.backend,
        model=model.model,
        fail_on=FailOn(model.fail_on) if model.fail_on else None,
        oracles_dir=model.oracles_dir,
        source=name,
    )


def _value(value: str | int | float | EnvValue) -> Value:
    if isinstance(value, EnvValue):
        return Value(env=value.env)
    return Value(literal=value if isinstance(value, str) else json.dumps(value))


def _values(values: list[tuple[str, str | int | float | EnvValue]] | None) -> tuple[tuple[str, Value], ...]:
    return tuple((name, _value(value)) for name, value in values or ())


def _requests(section: RequestsModel | None) -> RequestSettings:
    if section is None:
        return RequestSettings()
    operations = []
    for key, values in section.operations or ():
        method, _, path = key.partition(" ")
        operations.append((f"{method.upper()} {path}", _values(values)))
    return RequestSettings(
        unsafe=tuple(section.unsafe or ()), values=_values(section.values), operations=tuple(operations),
        chain=section.chain, budget=section.budget, time_budget=section.time_budget, rate=section.rate,
        concurrency=section.concurrency, min_exercised=section.min_exercised, server_errors=section.server_errors,
        min_changed_exercised=(None if section.min_changed_exercised is None
                               else change_minimum(section.min_changed_exercised)),
        collection=section.collection, environment=section.environment, team_tests=section.team_tests)


def _observe(section: bool | ObserveModel | None) -> ObserveSettings:
    if section is False:
        return ObserveSettings(enabled=False)
    if isinstance(section, ObserveModel):
        return ObserveSettings(True, section.min_responses, section.min_requests)
    return ObserveSettings()


def _spec(spec: SpecModel, name: str) -> SpecConfig:
    staging, ignore = spec.staging, spec.ignore
    return SpecConfig(
        path=spec.path,
        staging_url=staging.url if staging else None,
        staging_url_env=staging.url_env if staging else None,
        headers=tuple(staging.headers or ()) if staging else (),
        null_like=tuple(spec.null_like or ()),
        skip_kinds=frozenset(OracleKind(kind) for kind in spec.skip_kinds or ()),
        ignore=Ignore(tuple(ignore.operations or ()), tuple(ignore.fields or ())) if ignore else Ignore(),
        requests=_requests(spec.requests),
        observe=_observe(spec.observe),
        source=name,
    )


def load_config_at(rev: str, path: str | None) -> ProjectConfig:
    """The config file as it is at a git revision (the trusted base commit of a pull request); the defaults
    when that commit has none."""
    name = path or DEFAULT_CONFIG
    try:
        reader = open_source(f"{rev}:{name}")
        text = reader.read(reader.entry).decode("utf-8")
    except SpecError as exc:
        if exc.kind is SpecErrorKind.NOT_FOUND:
            return ProjectConfig()
        raise ConfigError(str(exc)) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{rev}:{name}: not UTF-8 text") from None
    return parse_config(text, f"{rev[:12]}:{name}")


def load_config(path: str | None) -> ProjectConfig:
    """The config at `path`, or `.satori.yml` when it exists, else the defaults."""
    candidate = Path(path or DEFAULT_CONFIG)
    if path is None and not candidate.exists():  # from a subfolder: the repository's own
        root = git_toplevel(os.getcwd())
        if root is not None and (Path(root) / DEFAULT_CONFIG).exists():
            candidate = Path(os.path.relpath(Path(root) / DEFAULT_CONFIG))
    if not candidate.exists():
        if path:
            raise ConfigError(f"{path}: no such config file")
        return ProjectConfig()
    _refuse_link_out(candidate)
    try:
        text = candidate.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{candidate}: cannot read ({exc})") from None
    return parse_config(text, str(candidate))


def _refuse_link_out(candidate: Path) -> None:
    """A config named inside the repository that a symlink (its own or a folder's) leads out of is refused before
    it is read: a pull request could otherwise have any file of the runner read and quoted in its errors."""
    cwd = os.getcwd()
    root = os.path.realpath(git_toplevel(cwd) or cwd)
    named = os.path.abspath(candidate)
    if (is_within(named, root) or is_within(named, os.path.abspath(git_toplevel(cwd) or cwd))) and not is_within(
            os.path.realpath(named), root):
        raise ConfigError(f"{candidate}: a symlink leads outside the repository; refused (the config is read "
                          "only inside it)")
