"""The project config file (`.satori.yml`): read once into typed values; errors name the key and line.

    # .satori.yml
    specs:
      - path: api/openapi.yaml
        staging:
          url: https://staging.example.com      # or url_env: STAGING_URL
          headers:                              # header -> NAME of the environment variable
            Authorization: STAGING_TOKEN
        null_like: ["N/A", ""]
        skip_kinds: [string_fixed_length]
        ignore:
          operations: ["GET /internal/*"]   # neither checked nor sent
          fields: ["*.etag"]
        requests:
          unsafe: ["POST /things"]          # non-GET/HEAD operations you allow to be sent
          values:                           # a value per parameter name: literal or {env: VARIABLE}
            tenant_id: acme
          operations:                       # per operation, wins over values
            "GET /reports/{report_id}": {report_id: r-42}
          chain: 3                          # ids taken from a list response per detail operation (0: off)
          min_exercised: 1                  # fewer oracles exercised than this: the run proves nothing (exit 3)
          server_errors: fail               # a 5XX answer fails the check (fail) or is only reported (report)
          collection: postman/api.postman_collection.json   # your own collection: assertions are added to it
          environment: postman/staging.postman_environment.json
        observe:                            # oracles suggested from observed responses (or `observe: false`)
          min_responses: 20                 # responses an operation needs before anything is suggested
          min_requests: 2                   # distinct requests they must answer
    backend: rules
    model: gpt-4o
    fail_on: violations
    oracles_dir: .satori

Command-line flags override the file; the file overrides the defaults.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan.model import DEFAULT_CHAIN, PlanSettings
from satori_ci.report.model import FailOn
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.source import git_toplevel, is_within, leaves_repository, open_source
from satori_ci.spec.yaml_loader import KeyLines, load_yaml

DEFAULT_CONFIG = ".satori.yml"
BACKENDS = ("rules", "llm", "declared")


class ConfigError(Exception):
    """A config file that cannot be used; one line naming the file, line and key."""


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


@dataclass(frozen=True)
class RequestSettings:
    """The `requests:` section: what may be sent, with which values (decided by trusted config only)."""

    unsafe: tuple[str, ...] = ()
    values: tuple[tuple[str, Value], ...] = ()
    operations: tuple[tuple[str, tuple[tuple[str, Value], ...]], ...] = ()
    chain: int | None = None
    min_exercised: int | None = None
    server_errors: str | None = None
    """`fail` (default) or `report`."""
    collection: str | None = None
    environment: str | None = None

    @property
    def min_exercised_or_default(self) -> int:
        return self.min_exercised if self.min_exercised is not None else 1

    @property
    def fail_on_server_errors(self) -> bool:
        return self.server_errors != "report"


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
                      unsafe: tuple[str, ...] = (), chain: int | None = None) -> tuple[PlanSettings, tuple[str, ...]]:
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
            config_name=self.source)
        return settings, tuple(notes)

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


_TOP = {"specs", "backend", "model", "fail_on", "oracles_dir"}
_SPEC = {"path", "staging", "null_like", "skip_kinds", "ignore", "requests", "observe"}
_REQUESTS = {"unsafe", "values", "operations", "chain", "min_exercised", "server_errors", "collection", "environment"}
_STAGING = {"url", "url_env", "headers"}
_IGNORE = {"operations", "fields"}
_OBSERVE = {"min_responses", "min_requests"}


class _Reader:
    def __init__(self, name: str, lines: KeyLines) -> None:
        self.name = name
        self.lines = lines

    def error(self, container: Any, key: str, message: str) -> ConfigError:
        line = self.lines.get(id(container), {}).get(key) if isinstance(container, dict) else None
        return ConfigError(f"{self.name}:{line}: {message}" if line else f"{self.name}: {message}")

    def mapping(self, container: dict[str, Any], key: str, allowed: set[str], where: str) -> dict[str, Any]:
        value = container.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(container, key, f"'{where}' must be a mapping")
        for unknown in value:
            if unknown not in allowed:
                raise self.error(value, unknown, f"unknown key '{where}.{unknown}' (expected one of "
                                 f"{', '.join(sorted(allowed))})")
        return value

    def text(self, container: dict[str, Any], key: str, where: str) -> str | None:
        value = container.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.error(container, key, f"'{where}' must be a non-empty string")
        return value

    def repo_path(self, container: dict[str, Any], key: str, where: str) -> str | None:
        """A path inside the repository, relative to its root: an absolute path, or one whose `..` climbs out,
        is refused (a pull request's config must not make the check read or write files outside it)."""
        value = self.text(container, key, where)
        if value is not None and leaves_repository(value):
            raise self.error(container, key, f"'{where}' must be a path inside the repository, relative to its "
                             f"root; {value!r} is outside the repository")
        return value

    def texts(self, container: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = container.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(container, key, f"'{where}' must be a list of strings")
        return tuple(value)

    def count(self, container: dict[str, Any], key: str, where: str) -> int | None:
        value = container.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
            raise self.error(container, key, f"'{where}' must be a whole number from 0 to 1000")
        return value

    def value(self, container: dict[str, Any], key: str, where: str) -> Value:
        raw = container[key]
        if isinstance(raw, bool) or raw is None:
            raise self.error(container, key, f"'{where}' must be a string, a number or {{env: VARIABLE}}")
        if isinstance(raw, str | int | float):
            return Value(literal=raw if isinstance(raw, str) else json.dumps(raw))
        if isinstance(raw, dict) and set(raw) == {"env"} and isinstance(raw["env"], str) and raw["env"]:
            return Value(env=raw["env"])
        raise self.error(container, key, f"'{where}' must be a string, a number or {{env: VARIABLE}}")

    def values(self, container: dict[str, Any], key: str, where: str) -> tuple[tuple[str, Value], ...]:
        raw = container.get(key)
        if raw is None:
            return ()
        if not isinstance(raw, dict):
            raise self.error(container, key, f"'{where}' must map parameter names to values")
        return tuple((str(name), self.value(raw, name, f"{where}.{name}")) for name in raw)

    def requests(self, raw: dict[str, Any]) -> RequestSettings:
        section = self.mapping(raw, "requests", _REQUESTS, "specs[].requests")
        operations_raw = section.get("operations")
        operations: list[tuple[str, tuple[tuple[str, Value], ...]]] = []
        if operations_raw is not None:
            if not isinstance(operations_raw, dict):
                raise self.error(section, "operations", "'requests.operations' must map \"METHOD /path\" to values")
            for key in operations_raw:
                method, _, path = str(key).partition(" ")
                if not method.isalpha() or not path.startswith("/"):
                    raise self.error(operations_raw, key, f"'requests.operations' keys are \"METHOD /path\", "
                                     f"not {key!r}")
                operations.append((f"{method.upper()} {path}",
                                   self.values(operations_raw, key, f"requests.operations.{key}")))
        unsafe = self.texts(section, "unsafe", "requests.unsafe")
        for pattern in unsafe:
            method = pattern.partition(" ")[0]
            if not method or method.upper() in ("GET", "HEAD") or not method.replace("*", "A").isalpha():
                raise self.error(section, "unsafe", f"'requests.unsafe' lists \"METHOD /path\" globs of non-GET "
                                 f"operations, not {pattern!r}")
        return RequestSettings(
            unsafe=unsafe, values=self.values(section, "values", "requests.values"), operations=tuple(operations),
            chain=self.count(section, "chain", "requests.chain"),
            min_exercised=self.count(section, "min_exercised", "requests.min_exercised"),
            server_errors=self.choice(section, "server_errors", ("fail", "report")),
            collection=self.repo_path(section, "collection", "requests.collection"),
            environment=self.repo_path(section, "environment", "requests.environment"))

    def observe(self, raw: dict[str, Any]) -> ObserveSettings:
        if raw.get("observe") is False:
            return ObserveSettings(enabled=False)
        if raw.get("observe") is True:
            return ObserveSettings()
        section = self.mapping(raw, "observe", _OBSERVE, "specs[].observe")
        found = {k: self.count(section, k, f"observe.{k}") for k in sorted(_OBSERVE)}
        for key, value in found.items():
            if value == 0:
                raise self.error(section, key, f"'observe.{key}' must be at least 1")
        return ObserveSettings(True, found["min_responses"], found["min_requests"])

    def choice(self, container: dict[str, Any], key: str, choices: tuple[str, ...]) -> str | None:
        value = self.text(container, key, key)
        if value is not None and value not in choices:
            raise self.error(container, key, f"'{key}' must be one of {', '.join(choices)}, not {value!r}")
        return value

    def spec(self, raw: Any, parent: dict[str, Any]) -> SpecConfig:
        if not isinstance(raw, dict):
            raise self.error(parent, "specs", "each entry of 'specs' must be a mapping with a 'path'")
        for unknown in raw:
            if unknown not in _SPEC:
                raise self.error(raw, unknown, f"unknown key 'specs[].{unknown}' (expected one of "
                                 f"{', '.join(sorted(_SPEC))})")
        path = self.repo_path(raw, "path", "specs[].path")
        if path is None:
            raise self.error(parent, "specs", "each entry of 'specs' needs a 'path'")
        staging = self.mapping(raw, "staging", _STAGING, "specs[].staging")
        headers_raw = staging.get("headers") or {}
        if not isinstance(headers_raw, dict):
            raise self.error(staging, "headers", "'staging.headers' must map header names to variable names")
        headers = []
        for header, env_name in headers_raw.items():
            if not isinstance(env_name, str) or not env_name.replace("_", "").isalnum():
                raise self.error(headers_raw, header, f"staging header {header!r} must name an environment "
                                 "variable (its value is read at run time, never written here)")
            headers.append((header, env_name))
        kinds = []
        for kind in self.texts(raw, "skip_kinds", "specs[].skip_kinds"):
            try:
                kinds.append(OracleKind(kind))
            except ValueError:
                raise self.error(raw, "skip_kinds", f"unknown oracle kind {kind!r} in 'skip_kinds'") from None
        ignore = self.mapping(raw, "ignore", _IGNORE, "specs[].ignore")
        return SpecConfig(
            path=path,
            staging_url=self.text(staging, "url", "staging.url"),
            staging_url_env=self.text(staging, "url_env", "staging.url_env"),
            headers=tuple(headers),
            null_like=self.texts(raw, "null_like", "specs[].null_like"),
            skip_kinds=frozenset(kinds),
            ignore=Ignore(self.texts(ignore, "operations", "ignore.operations"),
                          self.texts(ignore, "fields", "ignore.fields")),
            requests=self.requests(raw),
            observe=self.observe(raw),
            source=self.name,
        )


def parse_config(text: str, name: str) -> ProjectConfig:
    try:
        raw, lines = load_yaml(text.encode("utf-8"), name)
    except SpecError as exc:
        raise ConfigError(str(exc)) from None
    if raw is None:
        return ProjectConfig(source=name)
    if not isinstance(raw, dict):
        raise ConfigError(f"{name}: the config file must be a mapping")
    reader = _Reader(name, lines)
    for unknown in raw:
        if unknown not in _TOP:
            raise reader.error(raw, unknown, f"unknown key {unknown!r} (expected one of {', '.join(sorted(_TOP))})")
    specs_raw = raw.get("specs", [])
    if specs_raw is None:
        specs_raw = []
    if not isinstance(specs_raw, list):
        raise reader.error(raw, "specs", "'specs' must be a list")
    fail_on = reader.choice(raw, "fail_on", tuple(f.value for f in FailOn))
    return ProjectConfig(
        specs=tuple(reader.spec(s, raw) for s in specs_raw),
        backend=reader.choice(raw, "backend", BACKENDS),
        model=reader.text(raw, "model", "model"),
        fail_on=FailOn(fail_on) if fail_on else None,
        oracles_dir=reader.repo_path(raw, "oracles_dir", "oracles_dir"),
        source=name,
    )


TRUSTED_KEYS = ("staging.url", "staging.url_env", "staging.headers", "requests")
"""What decides where requests and secrets go: read from trusted input only (the base commit in the action)."""


def trust_changes(trusted: ProjectConfig, proposed: ProjectConfig, spec_path: str) -> tuple[str, ...]:
    """The keys a proposed config (a pull request's head) changes that only trusted input may decide."""
    base, head = trusted.for_spec(spec_path), proposed.for_spec(spec_path)
    changed = []
    if base.staging_url != head.staging_url:
        changed.append("specs[].staging.url")
    if base.staging_url_env != head.staging_url_env:
        changed.append("specs[].staging.url_env")
    if base.headers != head.headers:
        changed.append("specs[].staging.headers")
    for name in ("unsafe", "values", "operations", "chain", "min_exercised", "server_errors", "collection",
                 "environment"):
        if getattr(base.requests, name) != getattr(head.requests, name):
            changed.append(f"specs[].requests.{name}")
    if trusted.oracles_dir != proposed.oracles_dir:
        changed.append("oracles_dir")
    return tuple(changed)


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
