"""The shape of `.satori.yml` as pydantic models: strict types, unknown keys refused; the JSON Schema's source.

The models check what types can say, and a few rules they cannot (a path inside the repository, an environment
variable's name, an operation key, `requests.unsafe` globs, oracle kinds, `observe` counts of at least 1) as
validators that raise errors of their own type, which `messages` words (their context names an item by its
index: a value may hold a lone surrogate, which pydantic cannot render into a message).

Errors stay few whatever the document (aliases can repeat a wrong mapping thousands of times): unknown keys are
one error per mapping (`strict.StrictModel`), a parameter value is checked as one (`_one_value`), not once per member of
its union, and lists and the user-named mappings (read as pairs, `strict.as_pairs`) stop at their first wrong entry.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from satori_ci.config.settings import CHANGE_SHARE
from satori_ci.oracles.kinds import OracleKind
from satori_ci.spec.source import leaves_repository
from satori_ci.strict import Str, StrictModel, as_pairs

Backend = Literal["rules", "llm", "declared"]
FailOnName = Literal["violations", "new-violations", "never"]
ServerErrors = Literal["fail", "report"]
TeamTests = Literal["fail", "warn", "ignore"]
MAX_COUNT = 1000


def _inside_repository(value: str) -> str:
    """A path inside the repository, relative to its root: a pull request's config must not make the check read
    or write files outside it."""
    if leaves_repository(value):
        raise PydanticCustomError("outside_repository", "a path inside the repository, relative to its root")
    return value


def _env_name(value: str) -> str:
    if not value.replace("_", "").isalnum():
        raise PydanticCustomError("env_name", "the name of an environment variable")
    return value


def _operation_key(value: str) -> str:
    method, _, path = value.partition(" ")
    if not method.isalpha() or not path.startswith("/"):
        raise PydanticCustomError("operation_key", '"METHOD /path"')
    return value


def _unsafe_globs(patterns: list[str] | None) -> list[str] | None:
    for index, pattern in enumerate(patterns or ()):
        method = pattern.partition(" ")[0]
        if not method or method.upper() in ("GET", "HEAD") or not method.replace("*", "A").isalpha():
            raise PydanticCustomError("unsafe_glob", '"METHOD /path" globs of non-GET operations (item {index})',
                                      {"index": index})
    return patterns


def _known_kinds(kinds: list[str] | None) -> list[str] | None:
    known = {kind.value for kind in OracleKind}
    for index, kind in enumerate(kinds or ()):
        if kind not in known:
            raise PydanticCustomError("oracle_kind", "an oracle kind (item {index})", {"index": index})
    return kinds


def _one_value(value: Any) -> Any:
    """A string, a number or `{env: VARIABLE}`, told at once (one error for a wrong value, whatever its size)."""
    if isinstance(value, bool) or value is None:
        raise PydanticCustomError("parameter_value", "a string, a number or {env: VARIABLE}")
    if isinstance(value, str | int | float):
        return value
    if isinstance(value, dict) and set(value) == {"env"} and isinstance(value["env"], str) and value["env"]:
        return value
    raise PydanticCustomError("parameter_value", "a string, a number or {env: VARIABLE}")


def _change_minimum(value: Any) -> Any:
    """A whole number from 0 to `MAX_COUNT`, or a share `0%` to `100%`, told at once (one error, one message)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    if isinstance(value, str) and CHANGE_SHARE.fullmatch(value):
        return value
    raise PydanticCustomError("change_minimum", "a whole number or a share like 50%")


def _falsy_as_none(value: Any) -> Any:
    """`headers:` with an empty (or false, or zero) value means no headers, as it always has."""
    return value or None


def _observe_tag(value: Any) -> str:
    return "flag" if isinstance(value, bool) else "settings"


Strings = Annotated[list[Str], Field(fail_fast=True)]
"""A list of strings; its first wrong item is its one error."""
Text = Annotated[Str, Field(min_length=1)]
RepoPath = Annotated[Text, AfterValidator(_inside_repository)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
ChangeMinimumValue = Annotated[int | str, BeforeValidator(_change_minimum), WithJsonSchema(
    {"oneOf": [{"type": "integer", "minimum": 0, "maximum": MAX_COUNT},
               {"type": "string", "pattern": CHANGE_SHARE.pattern}]})]
EnvName = Annotated[Str, AfterValidator(_env_name), WithJsonSchema(
    {"type": "string", "description": "The NAME of the environment variable that holds the value."})]
OperationKey = Annotated[Str, AfterValidator(_operation_key)]
KindName = Annotated[Str, WithJsonSchema({"type": "string", "enum": [kind.value for kind in OracleKind]})]


class EnvValue(StrictModel):
    """A value read from an environment variable when the check runs."""

    env: Text


ParameterValue = Annotated[Str | int | float | EnvValue, BeforeValidator(_one_value)]
Values = Annotated[list[tuple[Str, ParameterValue]], Field(fail_fast=True),
                   BeforeValidator(as_pairs, json_schema_input_type=dict[Str, ParameterValue])]
"""Parameter name -> value, as pairs in file order."""
Headers = Annotated[list[tuple[Str, EnvName]], Field(fail_fast=True),
                    BeforeValidator(as_pairs, json_schema_input_type=dict[Str, EnvName])]
Operations = Annotated[list[tuple[OperationKey, Values | None]], Field(fail_fast=True),
                       BeforeValidator(as_pairs, json_schema_input_type=dict[OperationKey, Values | None])]


class StagingModel(StrictModel):
    url: Text | None = None
    """The staging server's base URL."""
    url_env: Text | None = None
    """The environment variable that holds the staging server's base URL."""
    headers: Annotated[Headers | None, BeforeValidator(_falsy_as_none)] = None
    """Header name -> NAME of the environment variable that holds its value (never the value itself)."""


class IgnoreModel(StrictModel):
    operations: Strings | None = None
    """Globs over `METHOD /path` (e.g. `GET /internal/*`): neither checked nor sent."""
    fields: Strings | None = None
    """Globs over field paths (e.g. `*.etag`)."""


class RequestsModel(StrictModel):
    unsafe: Annotated[Strings | None, AfterValidator(_unsafe_globs)] = None
    """`METHOD /path` globs of the non-GET/HEAD operations you allow to be sent."""
    values: Values | None = None
    """A value per parameter name: a literal or `{env: VARIABLE}`."""
    operations: Annotated[Operations | None, Field(json_schema_extra={"propertyNames": {"pattern": "^[^ ]+ /"}})] = None
    """Values per operation (`"GET /reports/{report_id}": {report_id: r-42}`); they win over `values`."""
    chain: Count | None = None
    """Values taken per producer: requests per explored operation (0: no chaining)."""
    budget: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    """Requests one check sends at the most (default 1000), breadth-first: every operation once before any twice."""
    time_budget: Annotated[float, Field(gt=0, le=86400, allow_inf_nan=False)] | None = None
    """Seconds one check spends sending at the most (default 600)."""
    rate: Annotated[float, Field(ge=0, le=10000, allow_inf_nan=False)] | None = None
    """Requests per second at the most (default 0: no limit)."""
    concurrency: Annotated[int, Field(ge=1, le=32)] | None = None
    """Requests in flight at once (default 1)."""
    min_exercised: Count | None = None
    """Fewer oracles exercised than this: the run proves nothing (exit 3)."""
    min_changed_exercised: ChangeMinimumValue | None = None
    """Of the oracles a pull request adds or changes, how many the run must exercise (a number, or a share like
    `50%`; default 1, 0 never asks): fewer, and the change went unchecked (exit 4)."""
    server_errors: ServerErrors | None = None
    """Whether a 5XX answer fails the check (`fail`, the default) or is only reported (`report`)."""
    collection: RepoPath | None = None
    """Your own Postman collection: satori-ci's assertions are added to it."""
    environment: RepoPath | None = None
    """The Postman environment of your collection."""
    team_tests: TeamTests | None = None
    """What a failing test of your collection's own (its `pm.test`s, run by Newman) does: `fail` (the default) fails
    the check like a violation, `warn` only reports it, `ignore` neither."""


class ObserveModel(StrictModel):
    min_responses: Count | None = Field(default=None, json_schema_extra={"minimum": 1})
    """Observations a field needs before anything is suggested: responses, or list elements (default 10)."""
    min_requests: Count | None = Field(default=None, json_schema_extra={"minimum": 1})
    """Distinct requests they must answer."""

    @model_validator(mode="after")
    def _at_least_one(self) -> ObserveModel:
        for key in ("min_requests", "min_responses"):
            if getattr(self, key) == 0:
                raise PydanticCustomError("at_least_one", "at least 1", {"key": key})
        return self


class SpecModel(StrictModel):
    path: RepoPath
    """The spec's path in the repository."""
    staging: StagingModel | None = None
    """Where the oracles run."""
    null_like: Strings | None = None
    """Values that count as null (e.g. `"N/A"`, `""`)."""
    skip_kinds: Annotated[Annotated[list[KindName], Field(fail_fast=True)] | None, AfterValidator(_known_kinds)] = None
    """Oracle kinds never checked for this spec."""
    ignore: IgnoreModel | None = None
    """Operations and fields left out."""
    requests: RequestsModel | None = None
    """What may be sent, with which values (read from trusted config only)."""
    observe: Annotated[Annotated[bool, Tag("flag")] | Annotated[ObserveModel, Tag("settings")],
                       Discriminator(_observe_tag)] | None = None
    """Oracles suggested from observed responses: `false` turns it off."""


class ConfigModel(StrictModel):
    """satori-ci's project config (`.satori.yml`)."""

    specs: Annotated[list[SpecModel], Field(fail_fast=True)] | None = None
    """The specs to check, each with its settings."""
    backend: Backend | None = None
    """How oracles are inferred."""
    model: Text | None = None
    """The LLM model (backend `llm`)."""
    fail_on: FailOnName | None = None
    """Which violations fail the check."""
    oracles_dir: RepoPath | None = None
    """Where the oracle files and observation stores are written."""
