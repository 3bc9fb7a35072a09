"""JSON documents: the C decoder for speed, duplicate keys refused, key lines found on demand."""

from __future__ import annotations

import json
import re
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
        return json.loads(text, object_pairs_hook=hook)
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


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def json_key_lines(text: str) -> dict[str, int]:
    """Map every object key's JSON pointer to its 1-based line (one linear scan of the text)."""
    lines: dict[str, int] = {}
    stack: list[list[Any]] = []  # [pointer, is_object, next_index, pending_key]
    pointer = ""
    line, last = 1, 0
    expect_key = False
    for match in _TOKEN.finditer(text):
        tok = match.group()
        start = match.start()
        line += text.count("\n", last, start)
        last = start
        if tok == "{" or tok == "[":
            child = _child_pointer(stack, pointer)
            stack.append([child, tok == "{", 0, None])
            expect_key = tok == "{"
        elif tok == "}" or tok == "]":
            stack.pop()
            expect_key = False
        elif tok == ",":
            if stack:
                frame = stack[-1]
                frame[2] += 1
                expect_key = frame[1]
        elif tok == ":":
            expect_key = False
        elif expect_key and stack:
            key = str(json.loads(tok))
            frame = stack[-1]
            frame[3] = key
            lines[frame[0] + "/" + _escape(key)] = line
    return lines


def _child_pointer(stack: list[list[Any]], pointer: str) -> str:
    if not stack:
        return pointer
    parent = stack[-1]
    token = parent[3] if parent[1] else str(parent[2])
    return str(parent[0]) + "/" + _escape(str(token))


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


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
