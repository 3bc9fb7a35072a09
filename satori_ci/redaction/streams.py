"""The process's redactor, and the streams every text printed passes: redacted, and made `log_safe`.

Process-wide: `install(secrets)` makes a redactor the current one; `current()`, `redact(text)` and
`write_text(path, text)` use it, so code that writes text (reports, the escaper of `satori_ci.report`) needs
no redactor passed down. `installed(secrets)` does the same for a `with` block and routes `sys.stdout` and
`sys.stderr` through `RedactingStream`s (each `write` is redacted as one piece), restoring them at the end.

The log: what a `RedactingStream` writes is also made `log_safe`, so no text of a pull request or a response
becomes a GitHub workflow command when satori-ci runs in a workflow step: no line starts with `::`, none holds
`##[`, control characters and line separators are escaped (as JSON escapes: JSON output stays the same JSON).
`write_line` is the one way a line that starts with `::` gets out: the action's own workflow commands.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from .redactor import Redactor

# -- process-wide -----------------------------------------------------------------------------------

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
"""What `_ESCAPED["log"]` finds in ASCII text."""
_NEITHER_CONTROL_NOR_HASH = bytes(byte for byte in range(256) if byte not in _ASCII_CONTROLS and byte != ord("#"))
"""Deleted from ASCII text, these leave its controls and its `#` (`_ascii_marks`): one pass that writes next to
nothing, faster than a translation to NUL and its search, and the `##[` search is skipped unless two `#` are left
(the 32 MB of `fields --json` on GitHub's spec: 16 ms, where the translation and its search took 24 ms and the
`##[` search 11 ms more)."""
_FIRST_COMMAND = re.compile(r"([^\S\n\r]*:):")
_NEXT_COMMANDS = re.compile(r"([\n\r][^\S\n\r]*:):")
"""A line that starts with `::` after white space (the runner reads it as a workflow command): the text's first
line, the others (a pattern that starts with its line break: the matcher skips to them)."""
_NEXT_COMMANDS_LF = re.compile(r"(\n[^\S\n\r]*:):")
"""`_NEXT_COMMANDS` in a text without CR: a pattern that starts with one character is searched for at 2.5 GB/s
(3x `"::" in text`, and 20x a pattern that starts with a class)."""
_WORKFLOW_MARK = re.compile(r"##\[")
"""`##[`, found by the matcher's scan for its first character (2x `"##[" in text`)."""
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
    if text.isascii():
        controls, hashes = _ascii_marks(text)
        if controls and not terminal:  # a terminal escapes no ASCII character
            text = _ESCAPED["log"].sub(_unicode_escape, text)
    else:
        hashes = True
        escaped = _ESCAPED["tty" if terminal else "log"]
        if escaped.search(text) is not None:
            text = escaped.sub(_unicode_escape, text)
    if hashes and _WORKFLOW_MARK.search(text) is not None:
        text = text.replace("##[", "##\\u005b")
    first = _FIRST_COMMAND.match(text)
    if first is not None:
        text = f"{first[1]}\\u003a{text[first.end():]}"
    if "\r" in text:
        if "::" in text:
            text = _NEXT_COMMANDS.sub(r"\1\\u003a", text)
    elif _NEXT_COMMANDS_LF.search(text) is not None:
        text = _NEXT_COMMANDS_LF.sub(r"\1\\u003a", text)
    return text


def _ascii_marks(text: str) -> tuple[bool, bool]:
    """Whether ASCII `text` holds a control that `log_safe` escapes in a log, and whether it holds two `#` (so maybe
    a `##[`)."""
    left = text.encode("ascii").translate(None, _NEITHER_CONTROL_NOR_HASH)
    hashes = left.count(b"#")
    return len(left) > hashes, hashes >= 2


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
