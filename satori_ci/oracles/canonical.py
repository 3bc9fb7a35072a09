"""The oracle file as `dump_oracle_file` writes it, read without a YAML parser (pure).

The emitter writes a small canonical subset of YAML: every key and scalar a JSON literal (`literal`), one key
or one oracle a line, at fixed indents. `read_canonical` reads that subset line by line with `json`, and
accepts a line only when writing what it read gives the same line back; on any other line (a hand edit in
another YAML style, a comment after a value, a `\\U` escape JSON does not know, a duplicate key) it gives up
and the caller reads the file with the YAML loader, which gives the same data for every file the emitter
writes (the round-trip property tests check both readers against each other). On GitHub's spec's oracle file
(77,000 fields) this is about 10x faster than composing the YAML.
"""

from __future__ import annotations

import json
import re
from typing import Any

_ESCAPED = re.compile(
    "[\x7f-\x9f"  # DEL and the C1 controls (U+0085 is a YAML line break, the others are refused)
    "\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\u2066-\u206f"  # invisible: soft hyphen, zero widths, bidi
    "\u2028-\u202e"  # line and paragraph separators (YAML line breaks), bidi embeddings and overrides
    "\ufeff\ufff9-\ufffb\ufffe\uffff"  # BOM, interlinear annotations, non-characters YAML refuses
    "\U000e0000-\U000e007f]"  # tag characters (invisible text)
)
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_PLAIN_KEY = 1000
"""Longer keys are written `? "key"` (YAML's plain `key:` syntax allows at most 1024 characters)."""

ORACLE_KEYS = ("kind", "value", "source", "evidence", "enabled", "review", "reason")
"""The keys of an oracle line, in the order the emitter writes them."""


class LoneSurrogateError(ValueError):
    """A string no UTF-8 file can hold."""


def _escape(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_ESCAPES = {code: _escape(code) for code in (*range(0x7F, 0xA0), *range(0x200B, 0x2070), *range(0xFEFF, 0x10000),
                                              0xAD, 0x61C, 0x180E, *range(0xE0000, 0xE0080))
            if _ESCAPED.match(chr(code))}
"""`_ESCAPED`'s characters and their escapes, for `str.translate` (one pass in C, however many there are)."""


def literal(value: Any) -> str:
    """`value` as a JSON literal that YAML reads back as the same value (LoneSurrogateError, or ValueError for
    a non-finite number, when there is none)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if text.isascii():
        return text.replace("\x7f", "\\u007f")
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:
        raise LoneSurrogateError(f"U+{ord(surrogate.group()):04X}")
    return text if _ESCAPED.search(text) is None else text.translate(_ESCAPES)  # a scan in C first: most have none


def oracle_text(pairs: dict[str, Any]) -> str:
    """The `{...}` of an oracle line from its raw keys and values (the emitter's order and literals)."""
    parts = []
    for key in ORACLE_KEYS:
        if key not in pairs:
            continue
        value = pairs[key]
        if key == "kind":
            parts.append(f"kind: {value}")
        elif key == "evidence":
            parts.append(f"evidence: {value}")
        elif key == "enabled":
            parts.append(f"enabled: {'true' if value else 'false'}")
        else:
            parts.append(f"{key}: {literal(value)}")
    return "{" + ", ".join(parts) + "}"


class _NotCanonical(Exception):
    """A line the emitter would not have written: read the file as YAML."""


_DECODER = json.JSONDecoder()
_KIND = re.compile(r"[a-z_]+")
_ORACLE_KEY = re.compile(r"(kind|value|source|evidence|enabled|review|reason): ")


def _json_at(text: str, at: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, at)
    except ValueError:
        raise _NotCanonical from None


def _string_key(line: str, indent: int) -> str:
    """The key of `<indent>"key":`, written as the emitter writes it."""
    if not line.endswith(":") or line[indent:indent + 1] != '"':
        raise _NotCanonical
    value, end = _json_at(line, indent)
    if end != len(line) - 1 or not isinstance(value, str) or len(literal(value)) > MAX_PLAIN_KEY:
        raise _NotCanonical
    if literal(value) != line[indent:end]:
        raise _NotCanonical
    return value


def _scalar(line: str, prefix: str) -> Any:
    """The value of `<prefix><literal>` (the whole rest of the line), written as the emitter writes it."""
    value, end = _json_at(line, len(prefix))
    if end != len(line) or literal(value) != line[len(prefix):]:
        raise _NotCanonical
    return value


def _oracle(line: str) -> dict[str, Any]:
    """The raw oracle of `        - {kind: ..., ...}`, when writing it gives the same line."""
    body = line[len("        - "):]
    if not body.startswith("{kind: ") or not body.endswith("}"):
        raise _NotCanonical
    kind = _KIND.match(body, len("{kind: "))
    if kind is None:
        raise _NotCanonical
    pairs: dict[str, Any] = {"kind": kind.group()}
    at = kind.end()
    while body.startswith(", ", at):
        key = _ORACLE_KEY.match(body, at + 2)
        if key is None or key.group(1) in pairs:
            raise _NotCanonical
        value, at = _json_at(body, key.end())
        pairs[key.group(1)] = value
    if at != len(body) - 1:
        raise _NotCanonical
    if "evidence" in pairs and (type(pairs["evidence"]) is not int):
        raise _NotCanonical
    if "enabled" in pairs and not isinstance(pairs["enabled"], bool):
        raise _NotCanonical
    if oracle_text(pairs) != body:
        raise _NotCanonical
    return pairs


def read_canonical(text: str) -> dict[str, Any] | None:
    """The raw mapping of an oracle file written in the emitter's canonical form, or None when any line is not."""
    try:
        return _read(text)
    except (_NotCanonical, ValueError, RecursionError):
        return None


def _read(text: str) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    operations: dict[str, Any] | None = None
    fields: dict[str, Any] | None = None
    entry: dict[str, Any] | None = None
    oracles: list[Any] | None = None
    opened: list[Any] = []
    """The `operations:` mapping and `oracles:` lists opened on a line of their own (the emitter fills them)."""
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line.startswith("        - "):
            if oracles is None:
                raise _NotCanonical
            oracles.append(_oracle(line))
        elif line.startswith("      "):
            if entry is None:
                raise _NotCanonical
            if line == "      oracles:" or line == "      oracles: []":
                if "oracles" in entry:
                    raise _NotCanonical
                oracles = [] if line == "      oracles:" else None
                entry["oracles"] = oracles if oracles is not None else []
                if oracles is not None:
                    opened.append(oracles)
                continue
            key = "fingerprint" if line.startswith("      fingerprint: ") else (
                "context" if line.startswith("      context: ") else None)
            if key is None or key in entry:
                raise _NotCanonical
            entry[key] = _scalar(line, f"      {key}: ")
        elif line.startswith("    "):
            if fields is None:
                raise _NotCanonical
            name = _string_key(line, 4)
            if name in fields:
                raise _NotCanonical
            entry, oracles = {}, None
            fields[name] = entry
        elif line.startswith("  "):
            if operations is None:
                raise _NotCanonical
            label = _string_key(line, 2)
            if label in operations:
                raise _NotCanonical
            fields, entry, oracles = {}, None, None
            operations[label] = fields
        elif line.startswith("version: ") and "version" not in raw:
            raw["version"] = _scalar(line, "version: ")
        elif line.startswith("spec: ") and "spec" not in raw:
            raw["spec"] = _scalar(line, "spec: ")
        elif line in ("operations:", "operations: {}") and "operations" not in raw:
            operations = {} if line == "operations:" else None
            raw["operations"] = operations if operations is not None else {}
            if operations is not None:
                opened.append(operations)
        else:
            raise _NotCanonical
    if any(not found for found in opened):
        raise _NotCanonical  # `operations:` or `oracles:` with nothing under it is null in YAML
    if any(e == {} for f in (raw.get("operations") or {}).values() for e in f.values()):
        raise _NotCanonical  # `"field":` with nothing under it is null in YAML
    if any(f == {} for f in (raw.get("operations") or {}).values()):
        raise _NotCanonical
    return raw
