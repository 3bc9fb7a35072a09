"""A `Redactor`: the secrets it was fed, in every form, and credentials in any URL replaced by `***`.

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

Cost: the secrets' forms are one regex shaped as a trie (`alternation`: a position costs at most the longest
prefix of a secret's form found there), and the URL patterns read each run of characters once, so redaction is
linear in the text (`bench/redaction.py`).
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit

REDACTED = "***"
MIN_SECRET_CHARS = 4
"""Shorter secrets are not redacted (documented in the README)."""
AUTH_PREFIX = "SATORI_AUTH_"
"""Credential variables of the collections (`satori_ci.plan.samples.AUTH_PREFIX`)."""

_SCHEME = r"(?<![A-Za-z0-9+.\-])(?=[0-9+.\-]*+[A-Za-z])[A-Za-z0-9+.\-]++:\u200d?//"
"""`scheme://`, tried only where a run of scheme characters starts (the lookbehind) and read possessively: a
run is read once, not once from each of its positions (`a.a.a…` before a `//` was quadratic)."""
_USERINFO = re.compile(rf"(?P<head>{_SCHEME})(?P<user>[^\s/?#@:\"'<>`\\]*):(?P<password>[^\s/?#\"'<>`\\]*)@")
_TOKEN_USERINFO = re.compile(rf"(?P<head>{_SCHEME})(?P<token>[A-Za-z0-9_\-.~%]{{20,}})@")
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


_TRIE_DEPTH = 64
"""Past this many nested alternatives, a trie's remaining needles are one flat alternation (bounds the nesting)."""


def alternation(needles: Iterable[str]) -> str:
    """A regex matching any of `needles` (non-empty), the longest one where several start at a position.

    A trie written as nested alternatives (`abc(?:d|ef)?`): at a position the matcher follows the one branch
    the next character opens, so a position costs the length of the longest needle prefix found there, not
    one comparison per needle (hundreds of needles: a secret in every form, each line of a multi-line one).
    """
    root: dict[str, Any] = {}
    for needle in needles:
        node = root
        for char in needle:
            node = node.setdefault(char, {})
        node[""] = {}  # a needle ends here
    return _trie_pattern(root, 0)


def _trie_pattern(node: dict[str, Any], depth: int) -> str:
    chars = sorted(c for c in node if c)
    if not chars:
        return ""
    if depth >= _TRIE_DEPTH:
        rest = sorted((s for s in _suffixes(node) if s), key=lambda s: (-len(s), s))
        body = "(?:" + "|".join(re.escape(s) for s in rest) + ")"
    else:
        branches = []
        for char in chars:
            run, child = char, node[char]
            while len(child) == 1 and "" not in child:  # a chain without a fork nor an end: one literal
                ((char, child),) = child.items()
                run += char
            branches.append(re.escape(run) + _trie_pattern(child, depth + 1))
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body  # greedy: the longer needle first


def _suffixes(node: dict[str, Any]) -> list[str]:
    """Every needle's rest below `node` ("" when one ends at it), without recursion."""
    out, stack = [], [("", node)]
    while stack:
        prefix, at = stack.pop()
        for char, child in at.items():
            if char:
                stack.append((prefix + char, child))
            else:
                out.append(prefix)
    return out


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
            self._literal = re.compile(alternation(needles))
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


_GENERIC = Redactor()
"""The redactor of `mask_url`: it knows no secret."""
