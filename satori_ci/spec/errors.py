"""The one error type of the spec stage, classified by kind; the CLI words it."""

from __future__ import annotations

from enum import StrEnum

from satori_ci.errors import ErrorKind, SatoriError


class SpecErrorKind(StrEnum):
    NOT_FOUND = "not_found"
    SYNTAX = "syntax"
    DUPLICATE_KEY = "duplicate_key"
    NON_STRING_KEY = "non_string_key"
    TOO_LARGE = "too_large"
    NOT_OPENAPI = "not_openapi"
    MISSING_PATHS = "missing_paths"
    UNRESOLVED_REF = "unresolved_ref"
    GIT = "git"


class SpecError(SatoriError, kind=ErrorKind.INPUT):
    """A spec that cannot be read; `str(err)` is one line naming the file and, when known, the line."""

    def __init__(self, kind: SpecErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message
