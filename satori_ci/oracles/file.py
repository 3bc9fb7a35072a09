"""The oracle file: one reviewed, committed YAML file per spec (the lockfile of its oracles).

Written by a small deterministic emitter: every scalar and every key is a JSON literal (JSON strings
are YAML double-quoted strings), operations sorted, fields in spec order, one oracle a line, so that
one changed field is a few changed lines and a file written by satori-ci reads back and writes again
byte for byte. Spec paths and field names come from whoever wrote the spec, so the emitter escapes
every character YAML would read as a line break or refuse (U+0085, U+2028, U+2029, DEL and the C1
controls; JSON already escapes the C0 ones) and the invisible ones a reviewer could not see (bidi
and zero-width controls, BOM, tag characters) as `\\uXXXX`/`\\UXXXXXXXX`, and writes a key longer than
YAML's 1024-character limit for plain `key:` syntax as an explicit `? key` entry.

Read with the spec stage's YAML loader (duplicate keys refused, lines known). Numbers in the file
must be finite and within +-1e308 (`MAX_MAGNITUDE`, about the largest double, so 309 digits at
most), and no key or string may hold a surrogate (a `\\ud800` escape, which no UTF-8 file, collection or
report can write; YAML reads an escaped pair as two of them): anything else is an `OracleFileError` naming
the line, never a crash further on.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from satori_ci.oracles.canonical import MAX_PLAIN_KEY, LoneSurrogateError, literal, oracle_text, read_canonical
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.errors import SpecError
from satori_ci.spec.model import OperationKey
from satori_ci.spec.paths import FieldPathError
from satori_ci.spec.paths import parse as parse_field_path
from satori_ci.spec.yaml_loader import KeyLines, load_yaml

FORMAT_VERSION = 1
METHOD_ORDER = {m: i for i, m in enumerate(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"))}

HEADER = """\
# satori-ci oracles for {spec}
# Reviewed like code. Each field lists its fingerprint (what the spec says about it) and its oracles;
# `context` (on a few fields) fingerprints the neighbouring fields a rule also read.
# - silence an oracle: set `enabled: false`
# - add your own: add a line with `source: manual` and a `reason`
# Your edits stay as long as the field's fingerprint is unchanged. When the field changes in the
# spec, they are kept with `review: ...`: check them, then delete the `review` key.
# `source: observed` lines: suggestions from observed responses (`evidence`), off until accepted
# (`satori-ci accept SPEC --all`, or `enabled: true`); dismissed for good by `satori-ci reject SPEC`.
"""


@dataclass(frozen=True)
class FieldEntry:
    """The oracles recorded for one response field, and the fingerprint they were inferred from."""

    operation: OperationKey
    field: str
    fingerprint: str
    oracles: tuple[Oracle, ...]
    context: str | None = None
    """For fields a rule infers from their neighbours too: a digest of the neighbours' fingerprints."""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.operation.method, self.operation.path, self.operation.status, self.field)

    @property
    def has_human_decisions(self) -> bool:
        return any(o.is_decision for o in self.oracles)


@dataclass(frozen=True)
class OracleFile:
    spec: str
    entries: tuple[FieldEntry, ...]

    def by_key(self) -> dict[tuple[str, str, str, str], FieldEntry]:
        return {e.key: e for e in self.entries}

    def enabled_oracles(self) -> list[Oracle]:
        return [o for e in self.entries for o in e.oracles if o.enabled]


def oracle_file_name(spec_path: str) -> str:
    """The oracle file's name for a spec: its path from the repository root, `/` as `.`, extension dropped, then
    `.oracles.yaml` (`api/openapi.yaml` -> `api.openapi.oracles.yaml`)."""
    try:
        stem = PurePosixPath(spec_path).with_suffix("").as_posix().strip("./").replace("/", ".")
    except ValueError:  # no file name to take the suffix of
        stem = ""
    return f"{stem or 'spec'}.oracles.yaml"


def operation_label(key: OperationKey) -> str:
    return f"{key.method} {key.path} {key.status}"


def parse_operation_label(label: str) -> OperationKey | None:
    """`METHOD path STATUS`; the path is everything between the first and the last space (it may hold
    spaces, and a spec's path need not start with `/`: whatever the spec says must read back)."""
    parts = label.split(" ")
    if len(parts) < 3 or not parts[0].isalpha() or not parts[-1]:
        return None
    return OperationKey(parts[0].upper(), " ".join(parts[1:-1]), parts[-1])


def _operation_sort_key(key: OperationKey) -> tuple[str, int, str, str]:
    return (key.path, METHOD_ORDER.get(key.method, 99), key.method, key.status)


MAX_MAGNITUDE = 1e308
"""The largest magnitude of a number in an oracle file (a double goes to about 1.8e308)."""
_MAX_INT = 10**308


def _lit(value: Any) -> str:
    """`value` as a JSON literal that YAML reads back as the same value (see the module docstring)."""
    try:
        return literal(value)
    except LoneSurrogateError as exc:
        raise OracleFileError(f"cannot write {ascii(value)[:200]} to an oracle file: it holds a lone surrogate "
                              f"({exc}), which no UTF-8 file can") from None


def _key(text: str, indent: str) -> str:
    """A mapping key line (the value follows on the next lines, indented deeper)."""
    written = _lit(text)
    if len(written) > MAX_PLAIN_KEY:
        return f"{indent}? {written}\n{indent}:\n"
    return f"{indent}{written}:\n"


def _comment_text(text: str) -> str:
    """`text` for a `#` comment: as is when it needs no escape, else its escaped literal (never a line break)."""
    written = _lit(text)
    return text if written[1:-1] == text else written


def _oracle_line(oracle: Oracle) -> str:
    pairs: dict[str, Any] = {"kind": oracle.kind.value}
    if oracle.value is not None:
        pairs["value"] = list(oracle.value) if isinstance(oracle.value, tuple) else oracle.value
    pairs["source"] = oracle.source
    if oracle.evidence is not None:
        pairs["evidence"] = oracle.evidence
    pairs["enabled"] = oracle.enabled
    if oracle.review:
        pairs["review"] = oracle.review
    pairs["reason"] = oracle.reason
    try:
        return f"        - {oracle_text(pairs)}\n"
    except LoneSurrogateError:
        for value in pairs.values():
            _lit(value)  # names the value
        raise


def dump_oracle_file(data: OracleFile) -> str:
    """The file's text: deterministic for the same entries in the same order."""
    grouped: dict[OperationKey, list[FieldEntry]] = {}
    for entry in data.entries:
        grouped.setdefault(entry.operation, []).append(entry)
    out = [HEADER.format(spec=_comment_text(data.spec)), f"version: {FORMAT_VERSION}\n",
           f"spec: {_lit(data.spec)}\n"]
    out.append("operations:" + (" {}\n" if not grouped else "\n"))
    for operation in sorted(grouped, key=_operation_sort_key):
        out.append(_key(operation_label(operation), "  "))
        for entry in grouped[operation]:
            out.append(_key(entry.field, "    "))
            out.append(f"      fingerprint: {_lit(entry.fingerprint)}\n")
            if entry.context:
                out.append(f"      context: {_lit(entry.context)}\n")
            if entry.oracles:
                out.append("      oracles:\n")
                out.extend(_oracle_line(o) for o in entry.oracles)
            else:
                out.append("      oracles: []\n")
    return "".join(out)


def load_oracle_file(text: str, name: str) -> OracleFile:
    """Read an oracle file (written by satori-ci or edited by hand): as the emitter wrote it, without a YAML
    parser (`canonical`); otherwise, or to name the line of a mistake, with the YAML loader."""
    fast = _read_canonical(text, name)
    if fast is not None:
        return fast[1]
    raw, key_lines = _parse_yaml(text, name)
    return _read_yaml(raw, key_lines, text, name).read(raw) if raw is not None else OracleFile(spec="", entries=())


def _read_canonical(text: str, name: str) -> tuple[_Reader, OracleFile] | None:
    """The file as the emitter wrote it, read without YAML; None otherwise, or when it holds a mistake (the YAML
    loader then names its line)."""
    raw = read_canonical(text)
    if raw is None:
        return None
    reader = _Reader(name, {})
    try:
        reader.check_values(raw, strings=_may_hold_surrogates(text))
        return reader, reader.read(raw)
    except OracleFileError:
        return None


def _parse_yaml(text: str, name: str, shared: set[int] | None = None) -> tuple[Any, KeyLines]:
    try:
        return load_yaml(text.encode("utf-8", "surrogatepass"), name, shared=shared)
    except SpecError as exc:
        raise OracleFileError(str(exc)) from None
    except ValueError as exc:  # int() refuses a decimal literal past sys.get_int_max_str_digits() (4300)
        raise OracleFileError(_long_number(text, name, exc)) from None


def _read_yaml(raw: Any, key_lines: KeyLines, text: str, name: str) -> _Reader:
    reader = _Reader(name, key_lines)
    if isinstance(raw, dict):
        reader.check_values(raw, strings=_may_hold_surrogates(text))
    return reader


@dataclass(frozen=True)
class OracleSites:
    """An oracle file as read, and where each oracle's keys are written: `lines[e][i]` maps each key that the
    `i`th oracle of `file.entries[e]` writes itself to its 1-based line: empty for an oracle that YAML aliases
    place at several positions or merge (`<<`) into another; a key it gets from a merge has no line."""

    file: OracleFile
    lines: tuple[tuple[dict[str, int], ...], ...]


def load_oracle_sites(text: str, name: str) -> OracleSites:
    """`load_oracle_file`, with the line of every oracle's keys (to edit the text in place). A file as the emitter
    writes it has every oracle on a line of its own starting `        - `, and no line break but `\\n`; any other
    file is read by the YAML loader, which knows the line of every key."""
    fast = _read_canonical(text, name) if not any(c in text for c in "\r\x85\u2028\u2029") else None
    if fast is not None:
        reader, file = fast
        starts = iter(n for n, line in enumerate(text.split("\n"), start=1) if line.startswith("        - "))
        return OracleSites(file, tuple(tuple(dict.fromkeys(oracle, next(starts)) for oracle in entry)
                                       for entry in reader.oracles))
    shared: set[int] = set()
    raw, key_lines = _parse_yaml(text, name, shared)
    if raw is None:
        return OracleSites(OracleFile(spec="", entries=()), ())
    reader = _read_yaml(raw, key_lines, text, name)
    file = reader.read(raw)
    uses = Counter(id(o) for entry in reader.oracles for o in entry)  # an alias of the list or field holding it
    lines = tuple(tuple({} if uses[id(o)] > 1 or id(o) in shared else dict(key_lines.get(id(o), {})) for o in entry)
                  for entry in reader.oracles)
    return OracleSites(file, lines)


def _long_number(text: str, name: str, exc: ValueError) -> str:
    limit = max(sys.get_int_max_str_digits(), 1)
    found = re.search(f"[0-9]{{{limit + 1},}}", text)
    if found is None:
        return f"{name}: cannot read ({' '.join(str(exc).split())[:200]})"
    return (f"{name}:{text.count(chr(10), 0, found.start()) + 1}: a number of more than {limit} digits "
            "(numbers in an oracle file are between -1e308 and 1e308)")


_SURROGATE_IN_TEXT = re.compile("[\ud800-\udfff]|\\\\(?:u|U0000)[dD][89a-fA-F]")
"""A surrogate, or the escape of one (`\\ud800`, YAML's `\\U0000d800`), anywhere in the file's text."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def _may_hold_surrogates(text: str) -> bool:
    """Whether a string of the file may hold a surrogate: only then are its strings searched."""
    return _SURROGATE_IN_TEXT.search(text) is not None


def _surrogate_problem(text: str) -> str | None:
    """What is wrong with the first surrogate in `text` (None when there is none)."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    at, code = found.start(), ord(found.group())
    low = ord(text[at + 1]) if at + 1 < len(text) else 0
    if 0xD800 <= code <= 0xDBFF and 0xDC00 <= low <= 0xDFFF:
        joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        return (f"holds the escapes \\u{code:04x}\\u{low:04x}, a UTF-16 surrogate pair that YAML reads as two lone "
                f"surrogates: write \\U{joined:08X} or the character itself")
    return (f"holds a lone surrogate (\\u{code:04x}): half of a UTF-16 surrogate pair without its other half, "
            "not Unicode text")


def _shown_key(key: str) -> str:
    return repr(key) if len(key) <= 100 else repr(key[:100]) + "..."


class _Reader:
    def __init__(self, name: str, key_lines: KeyLines) -> None:
        self.name = name
        self.key_lines = key_lines
        self.oracles: list[list[dict[str, Any]]] = []
        """Per entry read, its oracles' raw mappings (for `load_oracle_sites`)."""

    def fail(self, container: Any, key: str, message: str) -> OracleFileError:
        line = self.key_lines.get(id(container), {}).get(key) if isinstance(container, dict) else None
        where = f"{self.name}:{line}" if line else self.name
        return OracleFileError(f"{where}: {message}")

    def check_values(self, raw: Any, strings: bool) -> None:
        """Refuse NaN, infinities and numbers past +-MAX_MAGNITUDE anywhere, and with `strings` a surrogate in
        any key or string, naming the nearest key's line."""
        stack: list[tuple[Any, Any, str]] = [(raw, None, "")]
        seen: set[int] = set()
        while stack:
            node, container, key = stack.pop()
            if isinstance(node, dict):
                if id(node) not in seen:
                    seen.add(id(node))
                    if strings:
                        for k in node:
                            problem = _surrogate_problem(k) if isinstance(k, str) else None
                            if problem is not None:
                                raise self.fail(node, k, f"the key {_shown_key(k)} {problem}")
                    stack.extend((value, node, k) for k, value in node.items())
            elif isinstance(node, list):
                if id(node) not in seen:
                    seen.add(id(node))
                    stack.extend((item, container, key) for item in node)
            elif isinstance(node, float) and not math.isfinite(node):
                written = ".nan" if math.isnan(node) else (".inf" if node > 0 else "-.inf")
                raise self.fail(container, key, f"{key!r} holds {written}: numbers in an oracle file must be finite")
            elif (isinstance(node, float) and abs(node) > MAX_MAGNITUDE) or (
                isinstance(node, int) and not isinstance(node, bool) and abs(node) > _MAX_INT
            ):
                raise self.fail(container, key, f"{key!r} holds a number out of range (numbers in an oracle file "
                                "are between -1e308 and 1e308)")
            elif strings and isinstance(node, str):
                problem = _surrogate_problem(node)
                if problem is not None:
                    raise self.fail(container, key, f"{_shown_key(key)} {problem}")

    def read(self, raw: Any) -> OracleFile:
        if not isinstance(raw, dict):
            raise OracleFileError(f"{self.name}: not an oracle file (top level is not a mapping)")
        version = raw.get("version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise self.fail(raw, "version", f"unsupported oracle file version {version!r}")
        unknown = sorted(set(raw) - {"version", "spec", "operations"})
        if unknown:
            raise self.fail(raw, unknown[0], f"unknown key {unknown[0]!r}")
        operations = raw.get("operations") or {}
        if not isinstance(operations, dict):
            raise self.fail(raw, "operations", "'operations' must be a mapping")
        entries: list[FieldEntry] = []
        for label, fields in operations.items():
            operation = parse_operation_label(label)
            if operation is None:
                raise self.fail(operations, label, f"{label!r} is not 'METHOD /path STATUS'")
            if not isinstance(fields, dict):
                raise self.fail(operations, label, "an operation maps field paths to their oracles")
            for field, body in fields.items():
                entries.append(self._entry(operation, field, body, fields))
        return OracleFile(spec=str(raw.get("spec") or ""), entries=tuple(entries))

    def _entry(self, operation: OperationKey, field: str, body: Any, parent: dict[str, Any]) -> FieldEntry:
        try:
            parse_field_path(field)
        except FieldPathError as exc:
            raise self.fail(parent, field, f"{field!r} is not a field path ({exc}); escape '.', '[', ']', '{{', "
                            "'}' and '\\' in property names with a backslash") from None
        if not isinstance(body, dict):
            raise self.fail(parent, field, f"field {field!r} needs 'fingerprint' and 'oracles'")
        unknown = sorted(set(body) - {"fingerprint", "context", "oracles"})
        if unknown:
            raise self.fail(body, unknown[0], f"unknown key {unknown[0]!r} in field {field!r}")
        oracles_raw = body.get("oracles") or []
        if not isinstance(oracles_raw, list):
            raise self.fail(body, "oracles", f"'oracles' of {field!r} must be a list")
        oracles = tuple(self._oracle(operation, field, o, body) for o in oracles_raw)
        self.oracles.append(oracles_raw)
        context = body.get("context")
        return FieldEntry(operation, field, str(body.get("fingerprint") or ""), oracles,
                          str(context) if context else None)

    def _oracle(self, operation: OperationKey, field: str, raw: Any, parent: dict[str, Any]) -> Oracle:
        if not isinstance(raw, dict) or "kind" not in raw:
            raise self.fail(parent, "oracles", f"an oracle of {field!r} needs at least a 'kind'")

        def fail(key: str, message: str) -> OracleFileError:  # at the oracle's own key when it has one
            return self.fail(raw, key, message) if key in raw else self.fail(parent, "oracles", message)

        unknown = sorted(set(raw) - {"kind", "value", "source", "evidence", "enabled", "review", "reason"})
        if unknown:
            raise fail(unknown[0], f"unknown key {unknown[0]!r} in an oracle of {field!r}")
        try:
            kind = OracleKind(raw["kind"])
        except ValueError:
            raise fail("kind", f"unknown oracle kind {raw['kind']!r} on {field!r}") from None
        value = normalize_value(kind, raw.get("value"))
        if value is _INVALID:
            raise fail("value", f"value {raw.get('value')!r} does not fit {kind.value} on {field!r}")
        source = str(raw.get("source") or "manual")
        enabled = raw.get("enabled", True)
        if not isinstance(enabled, bool):
            raise fail("enabled", f"'enabled' of an oracle of {field!r} must be true or false")
        review = raw.get("review")
        evidence = raw.get("evidence")
        if evidence is not None and (isinstance(evidence, bool) or not isinstance(evidence, int) or evidence < 0):
            raise fail("evidence", f"'evidence' of an oracle of {field!r} must be a count (0 or more)")
        return Oracle(operation, field, kind, value, source, str(raw.get("reason") or ""), enabled,
                      review=str(review) if review else None, evidence=evidence)


_INVALID: Any = object()


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def normalize_value(kind: OracleKind, value: Any) -> Any:
    """The value in its canonical shape for the kind (lists become tuples), or `_INVALID`."""
    if not kind.takes_value:
        return None if value is None else _INVALID
    if kind is OracleKind.STRING_SPECIFIC_VALUES:
        ok = isinstance(value, list) and value and all(isinstance(v, str) for v in value)
        return tuple(value) if ok else _INVALID
    if kind in (OracleKind.NUMBER_SPECIFIC_VALUES, OracleKind.ARRAY_SPECIFIC_SIZES):
        ok = isinstance(value, list) and value and all(_is_number(v) for v in value)
        if kind is OracleKind.ARRAY_SPECIFIC_SIZES:
            ok = ok and all(float(v).is_integer() and v >= 0 for v in value)
        return tuple(value) if ok else _INVALID
    if kind in (OracleKind.NUMBER_MIN_VALUE, OracleKind.NUMBER_MAX_VALUE):
        return value if _is_number(value) else _INVALID
    ok = _is_number(value) and float(value).is_integer() and value >= 0
    return int(value) if ok else _INVALID
