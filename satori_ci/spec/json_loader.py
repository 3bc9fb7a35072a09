"""JSON documents: the C decoder for speed, duplicate keys refused, key lines found on demand."""

from __future__ import annotations

import codecs
import json
import re
from array import array
from collections.abc import Callable
from itertools import accumulate, compress, count, repeat
from typing import Any

from satori_ci.forked import ForkedBytes
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.pointers import escape_token, unescape_token


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}")
"""How a surrogate gets into a JSON or YAML string (raw UTF-8 cannot hold one)."""
_SURROGATE_ESCAPE_BYTES = re.compile(_SURROGATE_ESCAPE.pattern.encode("ascii"))
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a parsed string every surrogate is a lone one (a pair of escapes is read as one code point)."""


def _lone_surrogate(value: Any) -> str | None:
    """The first key or string of value (walked without recursion) holding a lone surrogate."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if _LONE_SURROGATE.search(key):
                    return str(key)
                stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and _LONE_SURROGATE.search(node):
            return node
    return None


def refuse_lone_surrogates(value: Any, document: str | bytes, name: str) -> None:
    """SpecError when a key or string of the document holds a lone surrogate (an escape such as `\\ud800`
    without its pair): it is not Unicode text, and no oracle file or report could write it. Walks the document
    only when its text (or bytes) has such an escape."""
    if isinstance(document, bytes):
        if _SURROGATE_ESCAPE_BYTES.search(document) is None:
            return
        document = document.decode("utf-8", "replace")
    text = document
    if _SURROGATE_ESCAPE.search(text) is None:
        return
    found = _lone_surrogate(value)
    if found is None:
        return
    match = _LONE_SURROGATE.search(found)
    escape = f"\\u{ord(match.group()):04x}" if match else "a surrogate"
    at = re.search(re.escape(escape), text, re.IGNORECASE) or _SURROGATE_ESCAPE.search(text)
    line = text.count("\n", 0, at.start()) + 1 if at else 0
    raise SpecError(SpecErrorKind.SYNTAX, f"{name}:{line}: the string escape {escape} is half of a surrogate pair "
                    "without its other half: not Unicode text")


def decode_text(data: bytes, name: str) -> str:
    """The text of a JSON document (UTF-8, a byte order mark skipped); where its few non-ASCII characters are
    written as the escapes JSON reads back as them (`_escaped_ascii`), which changes no value, key or line."""
    try:
        return _escaped_ascii(data) or data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(SpecErrorKind.SYNTAX, f"{name}: not UTF-8 text (byte {exc.start})") from None


_BOM = b"\xef\xbb\xbf"
_ASCII_CHUNK = 1 << 16
_FEW = 512
"""Escaped when the non-ASCII characters take at most one byte in this many (each is escaped by a call back into
Python, and its escape is longer): else the text is decoded as it is."""


def _escaped_ascii(data: bytes) -> str | None:
    """`data` as ASCII text, each non-ASCII character written as its JSON escape (`\\u00e9`, a surrogate pair past
    U+FFFF); None unless they are few, or if they are not UTF-8 (left to the decoder to say where).

    A JSON text holds non-ASCII characters only in strings (anywhere else it is invalid JSON, and a backslash there
    is as invalid, at the same place), where an escape is read as the character it stands for. One character past
    U+00FF (an emoji in a description) makes a Python string of the whole text two or four bytes per character:
    GitHub's spec (13 MB, 52 non-ASCII characters, one emoji) would take 52 MB, decoded four times as slowly.
    Chunks of ASCII (most) are found at memory speed and kept as they are.
    """
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if data.isascii():
        return data.decode("ascii")
    size = len(data)
    budget = size // _FEW + 64
    pieces: list[bytes] = []
    start = 0
    while start < size:
        end = min(start + _ASCII_CHUNK, size)
        while end < size and 0x80 <= data[end] < 0xC0:  # not inside a character's bytes
            end += 1
        chunk = data[start:end]
        if not chunk.isascii():
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                return None
            budget -= len(chunk) - len(text)  # 1 to 3 for each non-ASCII character
            if budget < 0:
                return None
            chunk = text.encode("ascii", _JSON_ESCAPES)
        pieces.append(chunk)
        start = end
    return b"".join(pieces).decode("ascii")


def _json_escapes(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler `_JSON_ESCAPES`: what ASCII cannot hold, as JSON escapes (the encoder finds them)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return json.dumps(error.object[error.start:error.end])[1:-1], error.end


_JSON_ESCAPES = "satori-ci-json-escapes"
codecs.register_error(_JSON_ESCAPES, _json_escapes)


def load_json(text: str, name: str, refs: list[Any] | None = None, closings: dict[int, int] | None = None,
              data: bytes | None = None) -> Any:
    """Parse a JSON document; errors name the file and line. `refs` receives every `$ref` value, `closings`
    the id of every object -> the keys of the objects closed by its end, its own included (for `JsonKeyLines`).
    `data`, the bytes `text` was decoded from, is searched for surrogate escapes instead of the text (a quarter
    of its size, or less, when the text holds a character past U+FFFF)."""
    hook = _no_duplicates if refs is None and closings is None else _recording(refs, closings)
    try:
        value = json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        raise SpecError(SpecErrorKind.SYNTAX, f"{name}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except _DuplicateKey as dup:
        line = _first_duplicate_line(text, dup.key)
        where = f"{name}:{line}" if line else name
        raise SpecError(SpecErrorKind.DUPLICATE_KEY, f"{where}: duplicate key {dup.key!r}") from None
    except RecursionError:
        raise SpecError(SpecErrorKind.TOO_LARGE, f"{name}: nested too deeply") from None
    except ValueError as exc:  # an integer past Python's digit limit
        raise SpecError(SpecErrorKind.SYNTAX, f"{name}: invalid JSON: {str(exc).split(';')[0]}") from None
    refuse_lone_surrogates(value, text if data is None else data, name)
    return value


def _recording(refs: list[Any] | None, closings: dict[int, int] | None) -> Callable[[list[tuple[str, Any]]], Any]:
    """The decoder's hook for `load_json`: it calls it as each object closes, so a running count of their keys is
    each one's closing count."""
    add = (refs if refs is not None else []).append  # one not asked for is kept for nothing: no test per object
    closed = closings if closings is not None else {}
    keys = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal keys
        result = dict(pairs)
        if len(result) != len(pairs):
            _no_duplicates(pairs)  # raises, naming the first key written twice
        if "$ref" in result:
            add(result["$ref"])
        keys += len(result)
        closed[id(result)] = keys
        return result

    return hook


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
_KEY_MARK = re.compile(r'"(?=\s*+:)')
_LINE_BREAK = re.compile(r'\n *+[ \t\r]*+(?:(")[^"\\]*+(?:\\.[^"\\]*+)*+"(?=[ \t\r\n]*+:))?')
"""A line break, and the `"` of the key that starts the next line if one does: past a line break the text is
outside any string (a JSON string holds none), so a string there that a `:` follows is a key. (Spaces are
skipped first, one character class fewer to test for each: the indentation is most of what the pass reads.)"""


_Step = tuple[Any, int, int, int]
"""A child reached from its parent: it, the keys of the objects closed before it, of those open there before it,
and the line of the key that introduces it."""


_GONE = object()
"""Where a pointer goes past a key that does not exist: every step from there stays at the last key that does."""


class JsonKeyLines:
    """The 1-based lines of the object keys of one parsed JSON text, found on first request.

    A JSON text writes its object keys in the order of a pre-order walk of the value it parses to
    (duplicate keys are refused, so each key of the text is one key of the value): the n-th key of
    the text is the n-th key of the walk. Which one a key is, is counted from the objects' closing
    counts (`load_json`'s `closings`): the keys before it are those of the objects closed before it
    (the closing count of the last one) and those of the objects still open there, before it; so a
    key is found without counting the keys of the subtrees it follows. The keys' lines come from one
    C-speed regex pass over the text's line breaks when every key starts a line (pretty-printed JSON),
    else from two over the whole text: every string literal shrunk to one `"` (a JSON string holds no
    raw newline, so lines stay put), then split before each key; a key's line is the count of newlines
    before it. The value must be as parsed: the spec stage never changes a document. GitHub's spec
    (13 MB, 217,000 keys, the lines of 6,000 asked for) takes about 0.1 s.
    """

    def __init__(self, text: str, value: Any, closings: dict[int, int] | None = None,
                 scan: ForkedBytes | None = None) -> None:
        self._text: str | None = text
        self._scan = scan
        """`start_key_line_scan(text)`: the lines that start with a key, found by a child while the text was parsed"""
        self._value = value
        self._closings = key_closings(value) if closings is None else closings
        self._newlines: array[int] | None = None
        self._by_key: dict[int, dict[str, tuple[int, int]]] = {}
        self._by_index: dict[int, list[int]] = {}
        self._states: dict[str, _Step] = {"": (value, 0, 0, 1)}
        """pointer -> the node there, the counts before it and the line of its key (`_step`): each prefix's once"""

    def line(self, tokens: list[str]) -> int:
        """The line of the deepest key on the path `tokens` (unescaped pointer tokens) that exists; 1 if none."""
        return self.line_at("".join("/" + escape_token(token) for token in tokens))

    def line_at(self, pointer: str) -> int:
        """`line` of a JSON pointer (`/a/b~1c`): from the longest of its prefixes asked for before, one step a
        token, each prefix's step kept (locations share their parents)."""
        states = self._states
        state = states.get(pointer)
        if state is not None:
            return state[3]
        tokens: list[str] = []
        prefix = pointer
        while state is None:
            prefix, _, token = prefix.rpartition("/")
            tokens.append(token)
            state = states.get(prefix)
        node, closed, opened, line = state
        for token in reversed(tokens):
            prefix = f"{prefix}/{token}"
            name = unescape_token(token) if "~" in token else token
            state = self._step(node, name, closed, opened, line) or (_GONE, closed, opened, line)
            states[prefix] = state
            node, closed, opened, line = state
        return line

    def _step(self, node: Any, token: str, closed: int, opened: int, line: int) -> _Step | None:
        """From `node` (reached with those counts and that line) to its child `token`; None if it has none. A node
        is reached by one path only (a parsed document shares no node): the step is the same every time."""
        if isinstance(node, dict):
            found = self._keys(node, closed).get(token)
            if found is None:
                return None
            index, closed = found
            return node[token], closed, opened + index + 1, self._line_of_key(closed + opened + index)
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            index = int(token)
            return node[index], self._items(node, closed)[index], opened, line
        return None

    def _line_of_key(self, ordinal: int) -> int:
        newlines = self._newlines
        if newlines is None:
            keys = _last_closing(self._value, self._closings, 0)
            starting = _scanned(self._scan.result()) if self._scan is not None else None
            newlines = self._newlines = _newlines_before_keys(self._text or "", keys, starting)
            self._text = self._scan = None
        return newlines[ordinal] + 1 if ordinal < len(newlines) else 1

    def _keys(self, node: dict[str, Any], closed: int) -> dict[str, tuple[int, int]]:
        """Each key's place in the mapping, and the closing count of the last object closed before it."""
        known = self._by_key.get(id(node))
        if known is None:
            closings, known = self._closings, {}
            for index, (key, child) in enumerate(node.items()):
                known[key] = (index, closed)
                kind = type(child)  # as parsed: a dict or a list is no subclass
                if kind is dict:
                    closed = closings[id(child)]
                elif kind is list and child:
                    closed = _last_closing(child, closings, closed)
            self._by_key[id(node)] = known
        return known

    def _items(self, node: list[Any], closed: int) -> list[int]:
        """For each item, the closing count of the last object closed before it."""
        known = self._by_index.get(id(node))
        if known is None:
            closings, known = self._closings, []
            for child in node:
                known.append(closed)
                if isinstance(child, dict | list):
                    closed = _last_closing(child, closings, closed)
            self._by_index[id(node)] = known
        return known


def _last_closing(value: Any, closings: dict[int, int], default: int) -> int:
    """The closing count of the last object that closes inside `value` (itself included); `default` if none does."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            return closings[id(node)]
        if isinstance(node, list):
            stack.extend(node)  # the last item is looked into first
    return default


def key_closings(value: Any) -> dict[int, int]:
    """What `load_json` records in `closings` for the text `value` was parsed from: found by walking it."""
    closings: dict[int, int] = {}
    keys = 0
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            keys += len(node)
            closings[id(node)] = keys
            continue
        if isinstance(node, dict):
            stack.append((node, True))
            children = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            continue
        stack.extend((child, False) for child in reversed(children) if isinstance(child, dict | list))
    return closings


BACKGROUND_SCAN_CHARS = 1 << 20
"""A JSON text this long has its key lines scanned by a forked child while it is parsed (`start_key_line_scan`):
GitHub's spec (13 MB) takes 0.1 s, a fork a millisecond."""


def start_key_line_scan(text: str) -> ForkedBytes | None:
    """A child finding `_lines_starting_with_keys(text)` while this process parses it; None for a short text, or
    where no child can be forked (the lines are then found here, when first asked for)."""
    if len(text) < BACKGROUND_SCAN_CHARS:
        return None
    return ForkedBytes.start(lambda: _lines_starting_with_keys(text).tobytes())


def _scanned(data: bytes | None) -> array[int] | None:
    """The child's `_lines_starting_with_keys`, None if it sent none."""
    lines = array("I")
    if data is None or len(data) % lines.itemsize:
        return None
    lines.frombytes(data)
    return lines


def _lines_starting_with_keys(text: str) -> array[int]:
    """The 0-based lines of `text` that start with an object key (after spaces): a line break's next line."""
    marks = _LINE_BREAK.findall(text)  # per line break: `"` when a key starts the next line, else ""
    return array("I", compress(count(1), marks))


def _newlines_before_keys(text: str, keys: int, starting_lines: array[int] | None = None) -> array[int]:
    """How many line breaks come before each of the `keys` keys of `text`, in text order.

    Pretty-printed JSON (GitHub's spec) starts a line with every key: one pass over the line breaks finds them
    all (`_lines_starting_with_keys`, unless given) when there are as many as the value has keys. Otherwise every
    string literal is shrunk to one `"`, and the text split before each `"` that a `:` follows.
    """
    if starting_lines is None:
        starting_lines = _lines_starting_with_keys(text)
    if len(starting_lines) == keys:
        return starting_lines
    del starting_lines
    pieces = _KEY_MARK.split(_STRING.sub('"', text))
    return array("I", accumulate(map(str.count, pieces, repeat("\n"))))


def _first_duplicate_line(text: str, key: str) -> int | None:
    stack: list[tuple[str, set[str]]] = []
    expect_key = False
    line, last = 1, 0
    for match in _TOKEN.finditer(text):
        tok = match.group()
        line += text.count("\n", last, match.start())
        last = match.start()
        if tok == "{":
            stack.append(("{", set()))
            expect_key = True
        elif tok == "[":
            stack.append(("[", set()))
        elif tok in "}]":
            if stack:
                stack.pop()
        elif tok == ",":
            expect_key = bool(stack) and stack[-1][0] == "{"
        elif tok == ":":
            expect_key = False
        elif expect_key and stack:
            name = str(json.loads(tok))
            keys = stack[-1][1]
            if name in keys and name == key:
                return line
            keys.add(name)
    return None
