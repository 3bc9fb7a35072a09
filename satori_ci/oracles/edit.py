"""Accept or reject observed suggestions by editing the oracle file's text in place (pure).

A reviewer's oracle file may hold comments, blank lines and hand formatting that writing the file again would
lose, so the edit changes one token on one line per oracle and nothing else: `enabled: false` becomes
`enabled: true` (accept), `source: "observed"` becomes `source: "manual"` (reject: off for good, and no
suggestion of that kind for the field again). The line is the one the YAML loader read the key on
(`load_oracle_sites`); on that line, a small scanner finds the `key: value` pairs outside quotes and comments.
Oracles written in one flow mapping a line, several to a line, or as block mappings over several lines all
work; a key the scanner cannot pin to its oracle (its value on the next line, an alias, a merge, an escape
in the token) is an `OracleFileError` asking for the edit by hand. The new text must then read back as the
old file with exactly the intended oracles changed, and differ only on their lines: otherwise
`EditMismatchError` (a bug, exit 70) and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import FieldEntry, OracleFile, OracleSites, load_oracle_file
from satori_ci.oracles.model import Oracle

OracleRef = tuple[int, int]
"""An oracle by position: (index in `OracleFile.entries`, index in that entry's `oracles`)."""

_LINE = re.compile(r"[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029]|\Z)")
"""A line and its break, the breaks libyaml counts (it reads YAML 1.1: NEL, LS and PS break lines too)."""
_FLOW = frozenset("{}[],")
_SPACE = frozenset(" \t")


class EditMismatchError(Exception):
    """The edited text does not read back as intended: a bug in the edit, never written."""


@dataclass(frozen=True)
class Change:
    """What accepting or rejecting does to a waiting suggestion: the key whose value changes, and how."""

    verb: str
    key: str
    apply: Callable[[Oracle], Oracle]
    rewrite: Callable[[str], str | None]
    """The new token for the value as written (quotes included), None when it is not the expected value."""


def _accepted(token: str) -> str | None:
    return {"false": "true", "False": "True", "FALSE": "TRUE"}.get(token)


def _rejected(token: str) -> str | None:
    quote = token[:1] if token[:1] in "\"'" else ""
    return f"{quote}manual{quote}" if token == f"{quote}observed{quote}" else None


ACCEPT = Change("accepted", "enabled", lambda o: replace(o, enabled=True), _accepted)
REJECT = Change("rejected", "source", lambda o: replace(o, source="manual"), _rejected)


@dataclass(frozen=True)
class _Pair:
    """A `key: value` on a line: the key as read, the value's span in the line."""

    key: str
    start: int
    end: int


def edit_oracles(text: str, sites: OracleSites, refs: Iterable[OracleRef], change: Change, name: str) -> str:
    """`text` with `change` made to the oracles at `refs` (see the module docstring)."""
    wanted = sorted(set(refs))
    if not wanted:
        return text
    lines = _LINE.findall(text)[:-1] if text else []
    at_line: dict[int, list[OracleRef]] = {}
    for ref in wanted:
        line = sites.lines[ref[0]][ref[1]].get(change.key)
        if line is None or not 1 <= line <= len(lines):
            raise _unplaced(name, sites, ref, change, None)
        at_line.setdefault(line, []).append(ref)
    placed: dict[int, list[OracleRef]] = {}  # every oracle whose key is on a line of `at_line`, in file order
    for e, entry in enumerate(sites.lines):
        for i, keys in enumerate(entry):
            line = keys.get(change.key)
            if line in at_line:
                placed.setdefault(line, []).append((e, i))
    new_lines = list(lines)
    for line, mine in at_line.items():
        new_lines[line - 1] = _edit_line(lines[line - 1], line, mine, placed[line], sites, change, name)
    edited = "".join(new_lines)
    _check(text, edited, sites.file, wanted, set(at_line), change, name)
    return edited


def _edit_line(text: str, line: int, mine: list[OracleRef], placed: list[OracleRef], sites: OracleSites,
               change: Change, name: str) -> str:
    """The line with the value of `change.key` of each oracle in `mine` rewritten; `placed`: every oracle whose
    key is on this line, in file order (so in the order of their pairs)."""
    pairs = [p for p in _pairs(text) if p.key == change.key]
    if len(pairs) != len(placed):
        raise _unplaced(name, sites, mine[0], change, line)
    out = text
    position = {ref: n for n, ref in enumerate(placed)}
    for ref in sorted(mine, key=position.__getitem__, reverse=True):  # right to left: earlier spans stay put
        pair = pairs[position[ref]]
        token = change.rewrite(text[pair.start:pair.end])
        if token is None:
            raise _unplaced(name, sites, ref, change, line)
        out = out[:pair.start] + token + out[pair.end:]
    return out


def _unplaced(name: str, sites: OracleSites, ref: OracleRef, change: Change, line: int | None) -> OracleFileError:
    oracle = sites.file.entries[ref[0]].oracles[ref[1]]
    where = f"{name}:{line}" if line else name
    return OracleFileError(f"{where}: cannot find the '{change.key}' of the {oracle.kind.value} oracle of "
                           f"{oracle.operation} {oracle.field or '(body)'} written as a plain "
                           f"'{change.key}: value' on its line; edit it by hand")


def _check(before: str, after: str, file: OracleFile, refs: list[OracleRef], lines: set[int], change: Change,
           name: str) -> None:
    """Raise EditMismatchError unless `after` differs from `before` only on `lines` and reads as `file` with
    `change` made to `refs`."""
    old, new = _LINE.findall(before), _LINE.findall(after)
    changed = {n for n, (a, b) in enumerate(zip(old, new, strict=False), start=1) if a != b}
    if len(old) != len(new) or not changed <= lines:
        raise EditMismatchError(f"{name}: the edit changed lines {sorted(changed - lines)[:5]} it did not mean to")
    try:
        read = load_oracle_file(after, name)
    except OracleFileError as exc:
        raise EditMismatchError(f"{name}: the edited file does not read: {exc}") from None
    if read != changed_file(file, refs, change):
        raise EditMismatchError(f"{name}: the edited file does not read as the intended change")


def changed_file(file: OracleFile, refs: Iterable[OracleRef], change: Change) -> OracleFile:
    """`file` with `change` made to the oracles at `refs`."""
    by_entry: dict[int, set[int]] = {}
    for e, i in refs:
        by_entry.setdefault(e, set()).add(i)
    entries = tuple(
        entry if e not in by_entry else FieldEntry(
            entry.operation, entry.field, entry.fingerprint,
            tuple(change.apply(o) if i in by_entry[e] else o for i, o in enumerate(entry.oracles)), entry.context)
        for e, entry in enumerate(file.entries))
    return OracleFile(file.spec, entries)


def _pairs(line: str) -> list[_Pair]:
    """The `key: value` pairs of a line whose value is a scalar on the same line, outside quotes and comments
    (the line is read as starting outside any quoted scalar)."""
    tokens = list(_tokens(line))
    pairs = []
    for n in range(len(tokens) - 2):
        key, colon, value = tokens[n:n + 3]
        if key[0] == "scalar" and colon[0] == ":" and value[0] == "scalar":
            pairs.append(_Pair(_unquoted(line[key[1]:key[2]]), value[1], value[2]))
    return pairs


def _tokens(line: str) -> Iterable[tuple[str, int, int]]:
    """(`scalar` | an indicator, start, end): quoted and plain scalars, `:`, flow indicators, `-` and `?`."""
    i, n = 0, len(line)
    after_quoted = False
    while i < n:
        c = line[i]
        if c in _SPACE or c in "\r\n\x85\u2028\u2029":
            i += 1
            continue
        if c == "#" and (i == 0 or line[i - 1] in _SPACE):
            return
        if c in "\"'":
            end = _quoted_end(line, i)
            if end is None:
                return  # the rest of the line is inside a quoted scalar
            yield ("scalar", i, end)
            i, after_quoted = end, True
            continue
        if c == ":" and (after_quoted or i + 1 == n or line[i + 1] in _SPACE or line[i + 1] in _FLOW):
            yield (":", i, i + 1)
        elif c in _FLOW or (c in "-?" and (i + 1 == n or line[i + 1] in _SPACE)):
            yield (c, i, i + 1)
        else:
            end = _plain_end(line, i)
            yield ("scalar", i, end)
            i, after_quoted = end, False
            continue
        i, after_quoted = i + 1, False


_QUOTED = {'"': re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL), "'": re.compile(r"'(?:[^']++|'')*+'")}
"""A double-quoted scalar (backslash escapes) and a single-quoted one (`''` for a quote), each on one line."""


def _quoted_end(line: str, start: int) -> int | None:
    """The end of the quoted scalar opening at `start` (past its closing quote), None when not on this line."""
    scalar = _QUOTED[line[start]].match(line, start)
    return scalar.end() if scalar else None


def _plain_end(line: str, start: int) -> int:
    """The end of the plain scalar at `start`: before `: `, ` #` or a flow indicator, trailing spaces left out."""
    i = start
    while i < len(line):
        c = line[i]
        if c in _FLOW or c in "\r\n\x85\u2028\u2029":
            break
        if c == ":" and (i + 1 == len(line) or line[i + 1] in _SPACE or line[i + 1] in _FLOW):
            break
        if c == "#" and line[i - 1] in _SPACE:
            break
        i += 1
    while i > start and line[i - 1] in _SPACE:
        i -= 1
    return i


def _unquoted(token: str) -> str:
    """A key as read, for the keys an oracle has (no escapes): the text inside its quotes, if any."""
    return token[1:-1] if len(token) >= 2 and token[0] in "\"'" and token[-1] == token[0] else token
