"""JSON documents: the C decoder for speed, duplicate keys refused, key lines found on demand."""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate, repeat
from typing import Any

from satori_ci.spec.errors import SpecError, SpecErrorKind


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
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(SpecErrorKind.SYNTAX, f"{name}: not UTF-8 text (byte {exc.start})") from None


def load_json(text: str, name: str, refs: list[Any] | None = None) -> Any:
    """Parse a JSON document; errors name the file and line. `refs` receives every `$ref` value."""
    hook = _no_duplicates
    if refs is not None:
        add = refs.append

        def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            result = _no_duplicates(pairs)
            if "$ref" in result:
                add(result["$ref"])
            return result

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
    refuse_lone_surrogates(value, text, name)
    return value


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
_KEY_MARK = re.compile(r'"(?=\s*+:)')


class JsonKeyLines:
    """The 1-based lines of the object keys of one parsed JSON text, found on first request.

    A JSON text writes its object keys in the order of a pre-order walk of the value it parses to
    (duplicate keys are refused, so each key of the text is one key of the value): the n-th key of
    the text is the n-th key of the walk. The text is scanned once, by two C-speed regex passes:
    every string literal shrunk to one `"` (a JSON string holds no raw newline, so lines stay put),
    then split before each key; a key's line is the count of newlines before it. A key is numbered
    from the key counts of the subtrees before it, counted once (the value must be as parsed: the
    spec stage never changes a document). GitHub's spec (13 MB, 217,000 keys) takes about 0.15 s,
    where scanning its tokens one by one in Python took 1.5 s.
    """

    def __init__(self, text: str, value: Any) -> None:
        self._text: str | None = text
        self._value = value
        self._newlines: array[int] | None = None
        self._sizes: dict[int, int] = {}
        self._by_key: dict[int, dict[str, int]] = {}
        self._by_index: dict[int, list[int]] = {}

    def line(self, tokens: list[str]) -> int:
        """The line of the deepest key on the path `tokens` (unescaped pointer tokens) that exists; 1 if none."""
        node, base, line = self._value, 0, 1
        for token in tokens:
            if isinstance(node, dict):
                if token not in node:
                    break
                ordinal = base + self._key_offsets(node)[token]
                line = self._line_of_key(ordinal)
                node, base = node[token], ordinal + 1
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                index = int(token)
                base += self._item_offsets(node)[index]
                node = node[index]
            else:
                break
        return line

    def _line_of_key(self, ordinal: int) -> int:
        newlines = self._newlines
        if newlines is None:
            skeleton = _STRING.sub('"', self._text or "")
            pieces = _KEY_MARK.split(skeleton)
            newlines = self._newlines = array("l", accumulate(map(str.count, pieces, repeat("\n"))))
            self._text = None
        return newlines[ordinal] + 1 if ordinal < len(newlines) else 1

    def _key_offsets(self, node: dict[str, Any]) -> dict[str, int]:
        """Each key's number in the walk, counted from the mapping's first key."""
        known = self._by_key.get(id(node))
        if known is None:
            size, running, known = self._size, 0, {}
            for key, child in node.items():
                known[key] = running
                running += 1 + (size(child) if isinstance(child, dict | list) else 0)
            self._by_key[id(node)] = known
        return known

    def _item_offsets(self, node: list[Any]) -> list[int]:
        """How many keys come before each item's first key, counted from the list's start."""
        known = self._by_index.get(id(node))
        if known is None:
            size, running, known = self._size, 0, []
            for child in node:
                known.append(running)
                running += size(child) if isinstance(child, dict | list) else 0
            self._by_index[id(node)] = known
        return known

    def _size(self, node: dict[str, Any] | list[Any]) -> int:
        """How many keys the subtree at `node` holds (memoized for every mapping and list in it)."""
        known = self._sizes.get(id(node))
        if known is not None:
            return known
        try:
            return _count_keys(node, self._sizes)
        except RecursionError:  # nested about as deeply as the JSON decoder allows
            return _count_keys_iteratively(node, self._sizes)


def _count_keys(node: dict[str, Any] | list[Any], sizes: dict[int, int]) -> int:
    total = 0
    if type(node) is dict:
        total = len(node)
        values: Any = node.values()
    else:
        values = node
    for child in values:
        kind = type(child)
        if kind is dict or kind is list:
            total += _count_keys(child, sizes)
    sizes[id(node)] = total
    return total


def _count_keys_iteratively(node: dict[str, Any] | list[Any], sizes: dict[int, int]) -> int:
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        children = current.values() if isinstance(current, dict) else current
        if done:
            total = len(current) if isinstance(current, dict) else 0
            sizes[id(current)] = total + sum(sizes[id(c)] for c in children if isinstance(c, dict | list))
        elif id(current) not in sizes:
            stack.append((current, True))
            stack.extend((c, False) for c in children if isinstance(c, dict | list) and id(c) not in sizes)
    return sizes[id(node)]


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
