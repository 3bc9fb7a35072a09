"""A config's validation errors as the one line the reader has always printed: its first error, in the order the
checks have always run, worded as before, with the line of the key it is about.

Pydantic reports every error it finds, in model order; the config reader has always stopped at the first problem
of a fixed walk (unknown keys of a mapping before its values, and within a spec: path, staging mapping, headers,
skip_kinds, ignore mapping, staging.url, staging.url_env, null_like, ignore lists, requests, observe).
`first_problem` puts each error at its place in that walk (`_SPEC_CHECKS`) and keeps the earliest, so a config
with several mistakes still names the same one. The model reports a mapping with unknown keys as one error
(`unknown_key`) and user-named mappings as pairs, so keys are found here by their place in the document (a key
holding a lone surrogate, which pydantic could only spell lossily, is named as written).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from satori_ci.config.model import (
    Backend,
    ConfigModel,
    FailOnName,
    IgnoreModel,
    ObserveModel,
    RequestsModel,
    ServerErrors,
    SpecModel,
    StagingModel,
    TeamTests,
)
from satori_ci.spec.yaml_loader import KeyLines
from satori_ci.strict import EntryKeys

_TOP_CHECKS = ("unknown", "specs", "fail_on", "spec", "backend", "model", "oracles_dir")
_SPEC_CHECKS = (
    "entry", "unknown", "path", "staging", "headers", "skip_kinds", "skip_kind", "ignore", "staging.url",
    "staging.url_env", "null_like", "ignore.operations", "ignore.fields", "requests", "operations", "unsafe",
    "unsafe_glob", "values", "chain", "min_exercised", "min_changed_exercised", "server_errors", "collection",
    "environment", "team_tests", "observe",
    "observe.min_requests", "observe.min_responses", "observe.at_least_one",
)
"""The checks of one entry of `specs`, in the order the reader has always made them."""
_SECTIONS: dict[str, type[BaseModel]] = {"staging": StagingModel, "ignore": IgnoreModel, "requests": RequestsModel,
                                         "observe": ObserveModel}
_VALUE = "must be a string, a number or {env: VARIABLE}"

Found = tuple[str, tuple[int, ...], Any, str, str]
"""(check, order within the check, container, key, message) of an error inside one entry of `specs`."""


@dataclass(frozen=True)
class Problem:
    order: tuple[int, ...]
    """Where the reader's walk meets it."""
    container: Any
    """The mapping that holds the key it is about (its line is the key's)."""
    key: str
    message: str

    def line(self, name: str, lines: KeyLines) -> str:
        line = lines.get(id(self.container), {}).get(self.key) if isinstance(self.container, dict) else None
        return f"{name}:{line}: {self.message}" if line else f"{name}: {self.message}"


def first_problem(errors: Sequence[ErrorDetails], raw: dict[str, Any]) -> Problem:
    """The error the reader reports, of pydantic's `errors` for the document `raw` (a mapping)."""
    walk = _Walk(raw)
    return min((walk.problem(error) for error in errors), key=lambda found: found.order)


def _unknown(node: dict[str, Any], model: type[BaseModel]) -> str:
    """The first key (in file order) of a mapping that its model does not know."""
    return next(key for key in node if key not in model.model_fields)


def _expected(model: type[BaseModel]) -> str:
    return ", ".join(sorted(model.model_fields))


def _text(where: str) -> str:
    return f"'{where}' must be a non-empty string"


def _strings(where: str) -> str:
    return f"'{where}' must be a list of strings"


def _count(where: str) -> str:
    return f"'{where}' must be a whole number from 0 to 1000"


def _choice(key: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or not value:
        return _text(key)
    return f"'{key}' must be one of {', '.join(choices)}, not {value!r}"


def _path(where: str, error: ErrorDetails) -> str:
    if error["type"] == "outside_repository":
        return (f"'{where}' must be a path inside the repository, relative to its root; {error['input']!r} is "
                "outside the repository")
    return _text(where)


def _index(error: ErrorDetails) -> int:
    """The item a list's own check names (`unsafe_glob`, `oracle_kind`)."""
    index = (error.get("ctx") or {}).get("index", 0)
    return index if isinstance(index, int) else 0


class _Walk(EntryKeys):
    """Places and words errors over one document (the keys of a mapping are listed once)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        super().__init__()
        self.raw = raw

    def position(self, container: dict[str, Any], key: str) -> int:
        return self.keys_of(container).index(key)

    def problem(self, error: ErrorDetails) -> Problem:
        loc = error["loc"]
        if len(loc) > 3 and loc[0] == "specs" and loc[2] == "observe":
            loc = (*loc[:3], *loc[4:])  # past the tag of the union member (`settings`)
        raw = self.raw
        if loc and loc[0] == "specs" and len(loc) > 1:
            index = int(loc[1])
            check, sub, container, key, message = self.spec(error, raw["specs"][index], loc[2:])
            return Problem((_TOP_CHECKS.index("spec"), index, _SPEC_CHECKS.index(check), *sub), container, key,
                           message)
        if not loc:  # unknown_key
            key = _unknown(raw, ConfigModel)
            return Problem((0, self.position(raw, key)), raw, key,
                           f"unknown key {key!r} (expected one of {_expected(ConfigModel)})")
        key = str(loc[0])
        value = raw.get(key)
        if key == "specs":
            message = "'specs' must be a list"
        elif key == "fail_on":
            message = _choice(key, value, get_args(FailOnName))
        elif key == "backend":
            message = _choice(key, value, get_args(Backend))
        elif key == "model":
            message = _text(key)
        else:
            message = _path(key, error)
        return Problem((_TOP_CHECKS.index(key),), raw, key, message)

    def spec(self, error: ErrorDetails, spec: Any, rest: tuple[int | str, ...]) -> Found:
        if not rest:
            if error["type"] != "unknown_key":
                return "entry", (), self.raw, "specs", "each entry of 'specs' must be a mapping with a 'path'"
            key = _unknown(spec, SpecModel)
            return ("unknown", (self.position(spec, key),), spec, key,
                    f"unknown key 'specs[].{key}' (expected one of {_expected(SpecModel)})")
        name = str(rest[0])
        if name == "path":
            if error["type"] == "missing" or error["input"] is None:
                return "path", (), self.raw, "specs", "each entry of 'specs' needs a 'path'"
            return "path", (), spec, name, _path("specs[].path", error)
        if name in ("skip_kinds", "null_like"):
            if error["type"] == "oracle_kind":
                kind = spec[name][_index(error)]
                return "skip_kind", (), spec, name, f"unknown oracle kind {kind!r} in 'skip_kinds'"
            return name, (), spec, name, _strings(f"specs[].{name}")
        section = spec[name]
        if len(rest) == 1 and error["type"] == "at_least_one":
            key = str((error.get("ctx") or {}).get("key"))
            return "observe.at_least_one", (), section, key, f"'observe.{key}' must be at least 1"
        if len(rest) == 1 and error["type"] == "unknown_key":
            key = _unknown(section, _SECTIONS[name])
            return (name, (1, self.position(section, key)), section, key,
                    f"unknown key 'specs[].{name}.{key}' (expected one of {_expected(_SECTIONS[name])})")
        if len(rest) == 1:
            return name, (0,), spec, name, f"'specs[].{name}' must be a mapping"
        key = str(rest[1])
        if name == "staging":
            return self.staging(section, key, rest[2:])
        if name == "ignore":
            return f"ignore.{key}", (), section, key, _strings(f"ignore.{key}")
        if name == "observe":
            return f"observe.{key}", (), section, key, _count(f"observe.{key}")
        return self.requests(error, section, key, rest[2:])

    def staging(self, staging: dict[str, Any], key: str, rest: tuple[int | str, ...]) -> Found:
        if key != "headers":
            return f"staging.{key}", (), staging, key, _text(f"staging.{key}")
        if not rest:
            return "headers", (0,), staging, key, "'staging.headers' must map header names to variable names"
        headers = staging[key]
        header = self.entry(headers, rest[0])
        return ("headers", (1, int(rest[0])), headers, header,
                f"staging header {header!r} must name an environment variable (its value is read at run time, "
                "never written here)")

    def requests(self, error: ErrorDetails, section: dict[str, Any], key: str, rest: tuple[int | str, ...]
                 ) -> Found:
        where = f"requests.{key}"
        if key == "operations":
            if not rest:
                return key, (0,), section, key, "'requests.operations' must map \"METHOD /path\" to values"
            operations, at = section[key], int(rest[0])
            operation = self.entry(operations, at)
            if rest[1:] == (0,):
                return (key, (1, at, 0), operations, operation,
                        f"'requests.operations' keys are \"METHOD /path\", not {operation!r}")
            if len(rest) == 2:
                return (key, (1, at, 1), operations, operation,
                        f"'requests.operations.{operation}' must map parameter names to values")
            values = operations[operation]
            name = self.entry(values, rest[2])
            return (key, (1, at, 2, int(rest[2])), values, name,
                    f"'requests.operations.{operation}.{name}' {_VALUE}")
        if key == "values":
            if not rest:
                return key, (0,), section, key, "'requests.values' must map parameter names to values"
            name = self.entry(section[key], rest[0])
            return key, (1, int(rest[0])), section[key], name, f"'{where}.{name}' {_VALUE}"
        if key == "unsafe":
            if error["type"] == "unsafe_glob":
                pattern = section[key][_index(error)]
                return ("unsafe_glob", (), section, key,
                        f"'requests.unsafe' lists \"METHOD /path\" globs of non-GET operations, not {pattern!r}")
            return key, (), section, key, _strings(where)
        if key in ("chain", "min_exercised"):
            return key, (), section, key, _count(where)
        if key == "min_changed_exercised":
            return key, (), section, key, f"'{where}' must be a whole number from 0 to 1000 or a share like 50%"
        if key in ("server_errors", "team_tests"):
            choices = get_args(ServerErrors) if key == "server_errors" else get_args(TeamTests)
            return key, (), section, key, _choice(key, section.get(key), choices)
        return key, (), section, key, _path(where, error)
