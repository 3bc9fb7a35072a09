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

Cost: the secrets' forms are one regex shaped as a trie (`alternation`: a position costs at most the longest
prefix of a secret's form found there), and the URL patterns read each run of characters once, so redaction is
linear in the text (`bench/redaction.py`).

The log: what a `RedactingStream` writes is also made `log_safe`, so no text of a pull request or a response
becomes a GitHub workflow command when satori-ci runs in a workflow step: no line starts with `::`, none holds
`##[`, control characters and line separators are escaped (as JSON escapes: JSON output stays the same JSON).
`write_line` is the one way a line that starts with `::` gets out: the action's own workflow commands.
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


# -- the log: no workflow command but ours -------------------------------------------------------------

_NEVER_OURS = r"\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff"
"""C1 controls (`\\x85` breaks a line), Unicode line separators, bidi controls, lone surrogates: escaped always."""
_ESCAPED = {
    "tty": re.compile(rf"[{_NEVER_OURS}]"),  # a terminal also gets our colours and progress bars (ESC, CR)
    "log": re.compile(rf"[\x00-\x08\x0b-\x1f\x7f{_NEVER_OURS}]"),  # a pipe or file: tab and LF only
    "line": re.compile(rf"[\x00-\x08\x0a-\x1f\x7f{_NEVER_OURS}]"),  # one line of ours: no LF either
}
_ASCII_CONTROLS = bytes(range(0x09)) + bytes(range(0x0b, 0x20)) + b"\x7f"
"""What `_ESCAPED["log"]` finds in ASCII text (found faster in bytes: 30 MB of `fields --json` in 0.07 s)."""
_FIRST_COMMAND = re.compile(r"([^\S\n\r]*:):")
_NEXT_COMMANDS = re.compile(r"([\n\r][^\S\n\r]*:):")
"""A line that starts with `::` after white space (the runner reads it as a workflow command): the text's first
line, the others (a pattern that starts with its line break: the matcher skips to them)."""
_OPEN_LINE = re.compile(r"[^\S\n\r]*:?")
"""The start of a line that may still turn into `::` (white space, a colon)."""


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def log_safe(text: str, *, terminal: bool = False) -> str:
    """`text` as it may reach a CI log: no line of it starts with `::` (after white space), none holds `##[`, and
    control characters, Unicode line separators, bidi controls and lone surrogates are `\\uXXXX` (tab and LF
    kept; on a `terminal`, other C0 controls too: our colours and progress bars).

    Every replacement is a JSON escape of the same character (`:` -> `\\u003a`, `[` -> `\\u005b`), and these
    characters occur in JSON only inside strings: JSON stays valid and reads back the same, text stays legible.
    (GitHub's runner reads `::name …::` at a line's start, after .NET white space, and `##[name]` anywhere.)"""
    if _needs_escapes(text, terminal):
        text = _ESCAPED["tty" if terminal else "log"].sub(_unicode_escape, text)
    if "##[" in text:
        text = text.replace("##[", "##\\u005b")
    if "::" in text:
        first = _FIRST_COMMAND.match(text)
        if first is not None:
            text = f"{first[1]}\\u003a{text[first.end():]}"
        text = _NEXT_COMMANDS.sub(r"\1\\u003a", text)
    return text


def _needs_escapes(text: str, terminal: bool) -> bool:
    if text.isascii():
        if terminal:
            return False
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_CONTROLS)) != len(data)
    return _ESCAPED["tty" if terminal else "log"].search(text) is not None


def own_line(line: str) -> str:
    """One line of ours, such as a workflow command of `satori_ci.github.outputs`: what would break it into
    lines (CR, LF, separators) and other controls escaped, `##[` broken; its own `::` kept."""
    line = _ESCAPED["line"].sub(_unicode_escape, line)
    return line.replace("##[", "##\\u005b")


class RedactingStream:
    """A text stream whose writes pass a redactor (the current one by default) and `log_safe`; everything else is
    the wrapped stream's (`isatty`, `fileno`, `encoding`…). Each `write` is redacted whole: a secret split across
    two writes is not caught (print and the reports write a line or a whole text at once). `log_safe` knows the
    line the writes before left open, so `:` then `:warning::…` is caught too.

    The one way a line that starts with `::` gets out is `write_line`: the workflow commands of the action,
    built by `satori_ci.github.outputs` (and `satori_ci.report.annotations`) from escaped values."""

    def __init__(self, inner: TextIO, redactor: Callable[[], Redactor] = current, *, generic: bool = True) -> None:
        self.inner = inner
        self._redactor = redactor
        self._generic = generic
        # the line the writes so far left open, as far as `log_safe` needs it: "" or ":" while it may still
        # become `::`, else "x" and its last two characters (a `##` waiting for its `[`)
        self._open = ""
        self._terminal: bool | None = None

    def write(self, text: str) -> int:
        redactor = self._redactor()
        self.write_redacted(redactor.redact(text) if self._generic else redactor.redact_literals(text))
        return len(text)

    def write_redacted(self, text: str) -> int:
        """Write text redacted already (e.g. `fields --json`, redacted piece by piece): only made `log_safe`."""
        if not text:
            return 0
        before, terminal = self._open, self._on_terminal()
        safe = log_safe(before + text, terminal=terminal)[len(before):] if before else log_safe(text, terminal=terminal)
        self._open = _left_open(before, safe)
        self._pass(safe)
        return len(text)

    def write_line(self, line: str) -> None:
        """One line of ours, a workflow command included (`::error …::…`): redacted, made `own_line`, and on a
        line of its own; its leading `::` is kept."""
        text = own_line(self._redactor().redact(line))
        if isinstance(self.inner, RedactingStream):
            self.inner.write_line(text)
        else:
            self.inner.write(("\n" if self._open else "") + text + "\n")
        self._open = ""

    def _pass(self, text: str) -> None:
        if isinstance(self.inner, RedactingStream):
            self.inner.write_redacted(text)
        else:
            self.inner.write(text)

    def _on_terminal(self) -> bool:
        if self._terminal is None:
            try:
                self._terminal = bool(self.inner.isatty())
            except (AttributeError, ValueError, OSError):
                self._terminal = False
        return self._terminal

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _left_open(before: str, written: str) -> str:
    """`RedactingStream._open` after `written`, the line `before` left open."""
    cut = max(written.rfind("\n"), written.rfind("\r"))
    line = written[cut + 1:] if cut >= 0 else before + written
    if _OPEN_LINE.fullmatch(line):
        return ":" if line.endswith(":") else ""
    return "x" + line[-2:]


def write_line(line: str, stream: TextIO | None = None) -> None:
    """`RedactingStream.write_line` on `stream` (standard output by default), flushed; the line redacted and
    made `own_line` on any other stream."""
    out = stream if stream is not None else sys.stdout
    if isinstance(out, RedactingStream):
        out.write_line(line)
    else:
        out.write(own_line(_current.redact(line)) + "\n")
    out.flush()


def write_redacted(stream: TextIO, text: str) -> None:
    """Text redacted already onto `stream`: `RedactingStream.write_redacted`, or as it is on any other stream."""
    if isinstance(stream, RedactingStream):
        stream.write_redacted(text)
    else:
        stream.write(text)


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
