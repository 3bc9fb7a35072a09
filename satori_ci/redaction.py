"""The one redaction point: every text that leaves the process passes a `Redactor` (no third-party code).

    redactor = Redactor(["s3cret-token"])
    redactor.redact("Authorization: Bearer s3cret-token")      ->  "Authorization: Bearer ***"
    redactor.redact("GET http://ann:pw@host/x?api_key=abc&q=1") ->  "GET http://ann:***@host/x?api_key=***&q=1"

What it replaces, in any text:
- every secret it was fed, each line of a multi-line one, and their JSON-escaped, URL-encoded, HTML-escaped
  and base64 forms. Secrets shorter than `MIN_SECRET_CHARS` (4) are ignored: replacing every `on` or `42`
  would mangle the output and such a value protects nothing. Feed it with `header_secrets` (a header value and
  the credential in it: `Bearer t0ken` -> `t0ken`, `Basic …` -> the decoded `user:password` and password),
  `environ_secrets` (every `SATORI_AUTH_*` value) and `url_secrets` (a URL's password and key parameters);
- generically, without being told: a URL's password (`scheme://user:***@host`; a long user-only credential,
  `scheme://***@host`) and the value of key-like query parameters (`?api_key=***`: names such as `key`,
  `api_key`, `apikey`, `token`, `access_token`, `sig`, `signature`, `secret`, `password`, and any name given
  with `add_query_names`), e.g. in urllib3's "Max retries exceeded with url: /x?api_key=..." messages.
  A Postman variable reference (`{{SATORI_AUTH_KEY}}`) is not a value and is kept.

Process-wide: `install(secrets)` makes a redactor the current one; `current()`, `redact(text)` and
`write_text(path, text)` use it, so code that writes text (reports, the escaper of `satori_ci.report`) needs
no redactor passed down. `installed(secrets)` does the same for a `with` block and routes `sys.stdout` and
`sys.stderr` through `RedactingStream`s (each `write` is redacted as one piece), restoring them at the end.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit

REDACTED = "***"
MIN_SECRET_CHARS = 4
"""Shorter secrets are not redacted (documented in the README)."""
AUTH_PREFIX = "SATORI_AUTH_"
"""Credential variables of the collections (`satori_ci.plan.samples.AUTH_PREFIX`)."""

_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*:\u200d?//)(?P<user>[^\s/?#@:\"'<>`\\]*):"
                       r"(?P<password>[^\s/?#\"'<>`\\]*)@")
_TOKEN_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*:\u200d?//)(?P<token>[A-Za-z0-9_\-.~%]{20,})@")
_QUERY = re.compile(r"(?P<lead>[?&]|&amp;)(?P<name>[A-Za-z0-9_.\-~%\[\]]+)=(?P<value>[^&#\s\"'<>`\\]*)")
_KEY_SUFFIXES = ("apikey", "token", "secret", "password", "passwd", "signature", "credential", "credentials")
_KEY_WORDS = frozenset({"key", "sig", "pwd", "auth", "authorization"})
_AUTH_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9._-]*)\s+(?P<credential>\S+)$")
_CREDENTIAL_SCHEMES = frozenset({"bearer", "basic", "token", "bot", "apikey", "api-key", "key", "jwt", "dpop",
                                 "sso-key", "otoken"})
_LONG_CREDENTIAL = 16


def key_like(name: str) -> bool:
    """A query parameter name that usually carries a credential (`api_key`, `X-Amz-Signature`, `key`, `sig`)."""
    lowered = unquote(name).lower()
    compact = re.sub(r"[^a-z0-9]", "", lowered)
    words = [w for w in re.split(r"[^a-z0-9]+", lowered) if w]
    return compact.endswith(_KEY_SUFFIXES) or (bool(words) and words[-1] in _KEY_WORDS)


def _forms(secret: str) -> set[str]:
    """The secret as it may appear in text: raw, JSON-escaped, URL-encoded, HTML-escaped, base64."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
             quote(secret, safe=""), quote(secret), quote_plus(secret), html.escape(secret, quote=False),
             html.escape(secret), base64.b64encode(secret.encode("utf-8")).decode("ascii")}
    return {f for f in forms if len(f) >= MIN_SECRET_CHARS}


def _pieces(secret: str) -> list[str]:
    """The secret, trimmed, and each line of a multi-line one."""
    pieces = [secret, secret.strip(), *(line.strip() for line in secret.splitlines())]
    return [p for p in dict.fromkeys(pieces) if len(p) >= MIN_SECRET_CHARS]


class Redactor:
    """Replaces secrets, URL passwords and key-like query values with `***` (see the module's docstring)."""

    def __init__(self, secrets: Iterable[str | None] = (), *, query_names: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: tuple[str, ...] = ()
        self._literal: re.Pattern[str] | None = None
        self._query_names: frozenset[str] = frozenset()
        self.add(*secrets)
        self.add_query_names(query_names)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The secrets fed (long enough to be redacted), in the order given."""
        return self._secrets

    def add(self, *secrets: str | None) -> tuple[str, ...]:
        """Feed more secrets; returns those that are new (e.g. to register them with `::add-mask::`)."""
        with self._lock:
            known = set(self._secrets)
            new = tuple(dict.fromkeys(s for s in secrets if s and len(s.strip()) >= MIN_SECRET_CHARS
                                      and s not in known))
            if not new:
                return ()
            self._secrets = (*self._secrets, *new)
            needles = {form for secret in self._secrets for piece in _pieces(secret) for form in _forms(piece)}
            ordered = sorted(needles, key=lambda s: (-len(s), s))  # the longest match wins at a position
            self._literal = re.compile("|".join(re.escape(n) for n in ordered))
            return new

    def add_query_names(self, names: Iterable[str]) -> None:
        """Query parameters (e.g. a spec's `apiKey` `in: query` schemes) whose values are masked in any URL."""
        with self._lock:
            self._query_names = self._query_names | {n.lower() for n in names if n}

    def redact_literals(self, text: str) -> str:
        """`text` with the secrets fed replaced (no generic URL masking: for data such as a Postman collection)."""
        literal = self._literal
        return literal.sub(REDACTED, text) if literal is not None and text else text

    def redact(self, text: str) -> str:
        """`text` with the secrets fed, URL passwords and key-like query values replaced."""
        if not text:
            return text
        text = self.redact_literals(text)
        if "//" in text:
            text = _USERINFO.sub(lambda m: f"{m['head']}{m['user']}:{REDACTED}@", text)
            text = _TOKEN_USERINFO.sub(lambda m: f"{m['head']}{REDACTED}@", text)
        if "=" in text:
            text = _QUERY.sub(self._query_value, text)
        return text

    __call__ = redact

    def _query_value(self, match: re.Match[str]) -> str:
        value = match["value"]
        name = match["name"]
        if not value or value == REDACTED or value.startswith("{{"):
            return match[0]
        if key_like(name) or unquote(name).lower() in self._query_names:
            return f"{match['lead']}{name}={REDACTED}"
        return match[0]

    def redact_data(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings) with every string redacted: it stays valid JSON."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {self.redact(k) if isinstance(k, str) else k: self.redact_data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.redact_data(v) for v in value]
        return value


# -- what to feed it --------------------------------------------------------------------------------

def header_secrets(values: Iterable[str]) -> list[str]:
    """Each header value, plus the credential it carries (`Bearer t0ken` -> `t0ken`; `Basic` -> `user:pw`, `pw`)."""
    out: list[str] = []
    for value in values:
        value = value.strip()
        out.append(value)
        match = _AUTH_SCHEME.match(value)
        if match is None:
            continue
        credential = match["credential"]
        if match["scheme"].lower() not in _CREDENTIAL_SCHEMES and len(credential) < _LONG_CREDENTIAL:
            continue
        out.append(credential)
        if match["scheme"].lower() == "basic":
            try:
                decoded = base64.b64decode(credential, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                continue
            out.extend(_basic_parts(decoded))
    return [v for v in dict.fromkeys(out) if len(v) >= MIN_SECRET_CHARS]


def _basic_parts(pair: str) -> list[str]:
    """`user:password` and the password (the form a basic credential takes, and what may be echoed alone)."""
    _, colon, password = pair.partition(":")
    return [pair, password] if colon else [pair]


def environ_secrets(environ: Mapping[str, str]) -> list[str]:
    """Every `SATORI_AUTH_*` value (and, for a `user:password` one, the password and the basic-auth header value)."""
    out: list[str] = []
    for name, value in environ.items():
        if not name.upper().startswith(AUTH_PREFIX) or not value:
            continue
        out.append(value)
        if ":" in value:
            out.extend(_basic_parts(value))
            out.append(base64.b64encode(value.encode("utf-8")).decode("ascii"))
    return [v for v in dict.fromkeys(out) if len(v) >= MIN_SECRET_CHARS]


def url_secrets(url: str | None) -> list[str]:
    """A URL's password (with `user:password` and its base64, the basic-auth credential it turns into), or its
    user-only credential, and the values of its key-like query parameters."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        password, username = parts.password, parts.username
    except ValueError:
        return []
    out: list[str] = []
    if password:
        pair = f"{unquote(username or '')}:{unquote(password)}"
        basic = base64.b64encode(pair.encode("utf-8")).decode("ascii")  # what `Authorization: Basic` carries
        out += [password, unquote(password), pair, basic]
    elif username and _TOKEN_USERINFO.match(f"{parts.scheme}://{username}@"):
        out += [username, unquote(username)]
    out += [value for name, value in parse_qsl(parts.query, keep_blank_values=False) if key_like(name)]
    return [v for v in dict.fromkeys(out) if len(v) >= MIN_SECRET_CHARS]


def mask_url(url: str) -> str:
    """The URL with its password and key-like query values replaced (no secret needed)."""
    return _GENERIC.redact(url)


# -- process-wide -----------------------------------------------------------------------------------

_GENERIC = Redactor()
_current = Redactor()


def current() -> Redactor:
    """The redactor installed for this process (one that knows no secret, but masks URLs, until `install`)."""
    return _current


def install(secrets: Iterable[str | None] = (), *, query_names: Iterable[str] = ()) -> Redactor:
    """Make a new redactor fed with `secrets` the current one; returns it (feed it more with `add`)."""
    global _current
    _current = Redactor(secrets, query_names=query_names)
    return _current


def redact(text: str) -> str:
    """`current().redact(text)`."""
    return _current.redact(text)


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """`Path.write_text` of the redacted text: for every report file written."""
    Path(path).write_text(_current.redact(text), encoding=encoding)


class RedactingStream:
    """A text stream whose writes pass a redactor (the current one by default); everything else is the wrapped
    stream's (`isatty`, `fileno`, `encoding`…). Each `write` is redacted whole: a secret split across two
    writes is not caught (print and the reports write a line or a whole text at once)."""

    def __init__(self, inner: TextIO, redactor: Callable[[], Redactor] = current, *, generic: bool = True) -> None:
        self.inner = inner
        self._redactor = redactor
        self._generic = generic

    def write(self, text: str) -> int:
        redactor = self._redactor()
        self.inner.write(redactor.redact(text) if self._generic else redactor.redact_literals(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def unredacted(stream: TextIO) -> TextIO:
    """The stream under a `RedactingStream` (for `::add-mask::` lines, which must carry the secret)."""
    while isinstance(stream, RedactingStream):
        stream = stream.inner
    return stream


@contextmanager
def installed(secrets: Iterable[str | None] = (), *, generic_stdout: bool = True) -> Iterator[Redactor]:
    """`install(secrets)` for the block, with `sys.stdout` and `sys.stderr` redacted; all restored after.

    `generic_stdout=False` redacts only the secrets on standard output (a data artifact such as a Postman
    collection, whose `?api_key={{…}}` or sample `key=` values must stay as written)."""
    global _current
    before, out, err = _current, sys.stdout, sys.stderr
    redactor = install(secrets)
    sys.stdout = RedactingStream(out, generic=generic_stdout)
    sys.stderr = RedactingStream(err)
    try:
        yield redactor
    finally:
        sys.stdout, sys.stderr = out, err
        _current = before
