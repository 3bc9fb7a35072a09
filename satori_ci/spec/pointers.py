"""JSON Pointer tokens (RFC 6901): `~` written `~0` and `/` written `~1`."""

from __future__ import annotations


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")
