"""The one error type of the oracles stage."""

from __future__ import annotations

from satori_ci.errors import ErrorKind, SatoriError


class OracleFileError(SatoriError, kind=ErrorKind.INPUT):
    """An oracle file that cannot be read; `str(err)` is one line naming the file and, when known, the line."""
