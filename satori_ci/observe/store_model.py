"""The observation store file's shape as pydantic models (strict types, unknown keys refused), and its errors
worded as the store reader has always worded them: `(where, message)` of the first problem.

The reader (`store.load_store`, `store.read_field`) has always stopped at the first problem of a fixed walk: in
each object its unknown keys (the first in sorted order), then its missing keys (likewise), then its values in
the order below (field order here); entries of an object in file order. Pydantic reports every error, so
`first_problem` puts each at its place in that walk and keeps the earliest. Some places are worded as they
always were: a string section's `responses`, `min_length`, `max_length`, a number section's `responses` and a
field's `responses` and `values` are named by the field's own place.

A store comes from a pull request too, so its errors stay few whatever its size: unknown keys are one error per
object (`strict.StrictModel`), and lists and the mappings keyed by the file (operations, fields, counts; read as pairs,
`strict.as_pairs`) stop at their first wrong entry. Their keys are found by their place in the file, so a key holding a
lone surrogate (JSON's `"\\udc80"`, which pydantic could only spell lossily) is named as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import ErrorDetails, PydanticCustomError

from satori_ci.oracles.file import parse_operation_label
from satori_ci.strict import EntryKeys, Str, StrictModel, as_pairs

FORMAT_VERSION = 1
COUNT = "expected a count (an integer, 0 or more)"
Order = tuple[int | str, ...]


def _falsy_as_none(value: Any) -> Any:
    """`requests`, `fields`, `violated` and `operations` with an empty (or false, or zero) value: none."""
    return value or None


def _present(value: Any) -> Any:
    """A section that is written must be an object (`null` is not one)."""
    if value is None:
        raise PydanticCustomError("model_type", "expected an object")
    return value


def _version(value: Any) -> Any:
    if value != FORMAT_VERSION:
        raise PydanticCustomError("store_version", "unsupported store version")
    return value


def _label(value: str) -> str:
    if parse_operation_label(value) is None:
        raise PydanticCustomError("operation_label", "not 'METHOD /path STATUS'")
    return value


Count = Annotated[int, Field(ge=0)]
Number = int | float
Counts = Annotated[list[tuple[Str, Count]], Field(fail_fast=True), BeforeValidator(as_pairs)]
Label = Annotated[Str, AfterValidator(_label)]


class StringFile(StrictModel):
    responses: Count
    min_length: Count
    max_length: Count
    url: Count
    numeric: Count
    email: Count
    date: Count
    time: Count
    counter: Count = 0
    """Missing in stores written before it was observed."""
    values: Counts | None = None


class NumberFile(StrictModel):
    responses: Count
    min: Number
    max: Number
    values: Counts | None = None


class BooleanFile(StrictModel):
    responses: Count
    true: Count
    false: Count


class ArrayFile(StrictModel):
    responses: Count
    min_size: Count
    max_size: Count
    ascending: Count
    descending: Count
    informative: Count
    sizes: Counts | None = None


class FieldFile(StrictModel):
    string: Annotated[StringFile | None, BeforeValidator(_present)] = None
    number: Annotated[NumberFile | None, BeforeValidator(_present)] = None
    boolean: Annotated[BooleanFile | None, BeforeValidator(_present)] = None
    array: Annotated[ArrayFile | None, BeforeValidator(_present)] = None
    responses: Count
    values: Count
    objects: Count = 0


Fields = Annotated[list[tuple[Str, FieldFile]], Field(fail_fast=True), BeforeValidator(as_pairs)]
Violated = Annotated[list[tuple[Str, Counts]], Field(fail_fast=True), BeforeValidator(as_pairs)]


class OperationFile(StrictModel):
    requests: Annotated[Annotated[list[Str], Field(fail_fast=True)] | None, BeforeValidator(_falsy_as_none)] = None
    fields: Annotated[Fields | None, BeforeValidator(_falsy_as_none)] = None
    violated: Annotated[Violated | None, BeforeValidator(_falsy_as_none)] = None
    responses: Count


Operations = Annotated[list[tuple[Label, OperationFile]], Field(fail_fast=True), BeforeValidator(as_pairs)]


class StoreFile(StrictModel):
    version: Annotated[Any, AfterValidator(_version)] = FORMAT_VERSION
    operations: Annotated[Operations | None, BeforeValidator(_falsy_as_none)] = None
    spec: Any = ""


_SECTIONS: dict[str, type[StrictModel]] = {"string": StringFile, "number": NumberFile, "boolean": BooleanFile,
                                       "array": ArrayFile}
_NAMED_BY_FIELD = {("string", "responses"), ("string", "min_length"), ("string", "max_length"),
                   ("number", "responses")}
"""Counts whose errors have always named the field's own place."""


def first_problem(errors: Sequence[ErrorDetails], raw: Any, field_only: bool = False) -> tuple[str, str]:
    """(where, message) of the error the reader reports, of pydantic's `errors` for the document `raw` (a store,
    or with `field_only` one field summary)."""
    walk = _Walk()
    found = [walk.field(e, e["loc"], raw, "") if field_only else walk.store(e, raw) for e in errors]
    _, where, message = min(found, key=lambda problem: problem[0])
    return where, message


class _Walk(EntryKeys):
    """Places and words errors over one document (the keys of an object are listed once)."""

    def mapping(self, error: ErrorDetails, loc: tuple[int | str, ...], node: Any, model: type[StrictModel],
                where: str) -> tuple[Order, str, str] | None:
        """The problem of an object itself (not an object, an unknown or a missing key), if it is one."""
        if not loc and error["type"] == "unknown_key":
            unknown = min(key for key in node if key not in model.model_fields)
            return (0, unknown), where, f"unknown key {unknown!r}"
        if not loc:
            return (0,), where, "expected an object"
        if len(loc) == 1 and error["type"] == "missing":
            return (1, str(loc[0])), where, f"missing key {str(loc[0])!r}"
        return None

    def store(self, error: ErrorDetails, raw: Any) -> tuple[Order, str, str]:
        loc = error["loc"]
        found = self.mapping(error, loc, raw, StoreFile, "")
        if found is not None:
            return found
        if loc[0] == "version":
            return (2,), "version", f"unsupported store version {raw.get('version')!r}"
        if len(loc) == 1:
            return (3,), "operations", "expected an object"
        operations, at = raw["operations"], int(loc[1])
        label = self.entry(operations, at)
        where = f"operations.{label}"
        if loc[2:] == (0,):
            return (4, at, 0), where, "not 'METHOD /path STATUS'"
        order, where, message = self.operation(error, loc[3:], operations[label], where)
        return (4, at, 1, *order), where, message

    def operation(self, error: ErrorDetails, loc: tuple[int | str, ...], node: Any, where: str
                  ) -> tuple[Order, str, str]:
        found = self.mapping(error, loc, node, OperationFile, where)
        if found is not None:
            return found
        name = str(loc[0])
        if name == "requests":
            return (2, 0), f"{where}.requests", "expected a list of strings"
        if name == "responses":
            return (2, 3), f"{where}.responses", COUNT
        if len(loc) == 1:
            return (2, 1 if name == "fields" else 2, 0), f"{where}.{name}", "expected an object"
        entries, at = node[name], int(loc[1])
        key = self.entry(entries, at)
        where = f"{where}.{name}.{key}"
        if name == "fields":
            order, where, message = self.field(error, loc[3:], entries[key], where)
            return (2, 1, 1, at, *order), where, message
        if len(loc) == 3:
            return (2, 2, 1, at, 0), where, "expected an object"
        return (2, 2, 1, at, 1, int(loc[3])), f"{where}.{self.entry(entries[key], loc[3])}", COUNT

    def field(self, error: ErrorDetails, loc: tuple[int | str, ...], node: Any, where: str
              ) -> tuple[Order, str, str]:
        found = self.mapping(error, loc, node, FieldFile, where)
        if found is not None:
            return found
        name = str(loc[0])
        if name not in _SECTIONS:
            index = ("responses", "values", "objects").index(name)
            return (2, 4 + index), f"{where}.objects" if name == "objects" else where, COUNT
        section, order = node[name], (2, list(_SECTIONS).index(name))
        found = self.mapping(error, loc[1:], section, _SECTIONS[name], f"{where}.{name}")
        if found is not None:
            return (*order, *found[0]), found[1], found[2]
        key = str(loc[1])
        at = (2, list(_SECTIONS[name].model_fields).index(key))
        if (name, key) in _NAMED_BY_FIELD:
            return (*order, *at), where, COUNT
        if name == "number" and key in ("min", "max"):
            return (*order, *at), f"{where}.number.{key}", "expected a number"
        if key in ("values", "sizes"):
            if len(loc) == 2:
                return (*order, *at, 0), f"{where}.{name}.{key}", "expected an object"
            value = self.entry(section[key], loc[2])
            return (*order, *at, 1, int(loc[2])), f"{where}.{name}.{key}.{value}", COUNT
        return (*order, *at), f"{where}.{name}.{key}", COUNT
