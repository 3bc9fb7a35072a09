"""Escaping of untrusted text (spec, oracle file, responses) for each place it is rendered: one function a context.

Every context first redacts the value with the process's redactor (`satori_ci.redaction.current()`), before
cutting or escaping it: a cut could otherwise leave half a secret, and an escaped secret (`a\\_b`) would no
longer match. HTML comment openers (`<!--`) never reach the output as such, in any context: text and HTML
get `&lt;`, code spans and fenced blocks an invisible joiner (`<\u200d!--`), so no value can forge the sticky
comment's marker.
"""

from __future__ import annotations

import re

from satori_ci import redaction

BREAK = "\u200d"
"""Zero-width joiner: invisible, and it stops GitHub linking `@login`, `#123`, `GH-123` and URLs."""

_NEWLINES = re.compile(r"\r\n|[\n\r\v\f\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MD_PUNCT = str.maketrans({c: "\\" + c for c in "\\`*_[](){}!#|~$"})
"""Each Markdown punctuation character that could mark something up, escaped by a backslash."""
_MENTION = re.compile(r"@(?=[A-Za-z0-9_])")
_ISSUE = re.compile(r"#(?=\d)|(?<=[A-Za-z])-(?=\d)")
_URL = re.compile(r":(?=//)|www(?=\.)", re.IGNORECASE)
_AND_BREAK = r"\g<0>" + BREAK
"""`_ISSUE` and `_URL` match the character(s) the joiner goes after, not the empty place behind them: `_URL` is then
searched for its first characters, not tried at every position (half the time on 300,000 characters)."""
_BACKTICKS = re.compile(r"`+")


def visible(value: str) -> str:
    """One line, no control or bidi characters: newlines become `↵`, tabs spaces, the rest `\\xNN`/`\\uNNNN`."""
    if value.isprintable():  # what it changes is not printable (Cc, Cf, Zl, Zp): most values, at C speed
        return value
    flat = _NEWLINES.sub("↵", value).replace("\t", " ")
    return _CONTROLS.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", flat)


def _shown(value: str) -> str:
    """The value redacted (before any cut), on one line."""
    return visible(redaction.redact(value))


def _unmark(value: str) -> str:
    """`<!--` broken by an invisible joiner: in a code span it still reads the same, and it opens no comment."""
    return value.replace("<!--", "<" + BREAK + "!--")


def clip(value: str, limit: int) -> str:
    """At most `limit` characters, `…` marking a cut."""
    return value if len(value) <= limit else value[: max(limit - 1, 0)] + "…"


def _unlink(value: str) -> str:
    """Break mentions, issue references and URL autolinks with an invisible joiner."""
    value = _MENTION.sub("@" + BREAK, value)
    value = _ISSUE.sub(_AND_BREAK, value)
    return _URL.sub(_AND_BREAK, value)


def _entities(value: str) -> str:
    """`&`, `<` and `>` as HTML entities (`&` first: the others' entities hold one)."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(value: str, limit: int = 300) -> str:
    """Inline Markdown text (paragraphs, list items, headings): literal, one line, nothing linked or interpreted."""
    flat = clip(_shown(value), limit)
    return _unlink(_entities(flat).translate(_MD_PUNCT))


def cell(value: str, limit: int = 300) -> str:
    """A table cell's text: `text` (whose `\\|` GFM turns back into a literal pipe)."""
    return text(value, limit)


def html(value: str, limit: int = 300) -> str:
    """Text inside raw HTML (`<summary>`), where Markdown is not parsed: entities only, nothing linked."""
    return _unlink(_entities(clip(_shown(value), limit)))


def _fence(content: str) -> str:
    if not content:
        return "` `"
    runs = [len(r) for r in _BACKTICKS.findall(content)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = (content[0] in "` " or content[-1] in "` ") and content.strip(" ") != ""
    return f"{ticks} {content} {ticks}" if pad else f"{ticks}{content}{ticks}"


def code(value: str, limit: int = 200) -> str:
    """An inline code span outside tables: literal, whatever backticks or HTML the value holds."""
    return _fence(_unmark(clip(_shown(value), limit)))


def cell_code(value: str, limit: int = 200) -> str:
    """A code span inside a table cell: pipes escaped, since GFM splits cells before it sees code spans."""
    return _fence(_unmark(clip(_shown(value), limit))).replace("|", "\\|")


def fenced(value: str, info: str = "") -> str:
    """A fenced code block (multi-line allowed), its fence longer than any backtick run inside."""
    lines = [_unmark(visible(line)) for line in redaction.redact(value).splitlines()]
    runs = [len(r) for line in lines for r in _BACKTICKS.findall(line)]
    ticks = "`" * max(3, max(runs, default=0) + 1)
    return "\n".join([ticks + info, *lines, ticks])


def marker_path(path: str) -> str:
    """A path for an HTML comment: only `[A-Za-z0-9/._~-]` kept, the rest %-encoded (so `-->` cannot appear)."""
    out: list[str] = []
    for char in path:
        if char.isascii() and (char.isalnum() or char in "/._~-"):
            out.append(char)
        else:
            out.extend(f"%{b:02X}" for b in char.encode("utf-8", "surrogatepass"))
    return "".join(out)


def link_url(url: str) -> str | None:
    """An http(s) URL safe inside `[text](url)`, or None."""
    if not re.match(r"https?://[^\s]+$", url):
        return None
    return "".join(f"%{ord(c):02X}" if c in "()<>\"'`\\ " or ord(c) < 0x20 else c for c in url)


def command_data(value: str) -> str:
    """A workflow command's message (after `::`): redacted, `%`, CR and LF encoded, `##[` (the runner's other
    command syntax) broken by an invisible joiner."""
    encoded = redaction.redact(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return encoded.replace("##[", "##" + BREAK + "[")


def command_property(value: str) -> str:
    """A workflow command property value (`file=`, `title=`): also `:` and `,` encoded."""
    return command_data(value).replace(":", "%3A").replace(",", "%2C")


def terminal(value: str, limit: int = 300) -> str:
    """Text for a terminal: no escape sequences or other controls from the input reach it."""
    return clip(_shown(value), limit)
