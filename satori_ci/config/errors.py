"""The one error type of the config stage."""

from __future__ import annotations

from satori_ci.errors import ErrorKind, SatoriError


class ConfigError(SatoriError, kind=ErrorKind.INPUT):
    """A config file that cannot be used; one line naming the file, line and key."""
