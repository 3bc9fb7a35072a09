"""The one error type of the oracles stage."""

from __future__ import annotations


class OracleFileError(Exception):
    """An oracle file that cannot be read; `str(err)` is one line naming the file and, when known, the line."""
