"""Check a response body against oracles (contract §2 "Checking semantics"); mirrored in JavaScript."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from satori_ci.oracles import predicates as p
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.paths import Items, MapValues, Prop, Segment, parse

# Known gaps with the JavaScript checker (tests avoid them): integers beyond 2**53 (JavaScript rounds them),
# object keys that look like array indices ("0", "12": JavaScript enumerates them first, so `{}` findings and
# rendered objects come in another order), and NaN/Infinity, which only Python's json.loads accepts.

LIMIT = 200
"""Offending strings are kept to this many code points; messages show at most this much JSON."""
MAX_DEPTH = 256
"""A body whose arrays and objects nest deeper than this is not checked, by either runner: past it Python's
json.loads and JavaScript's JSON.parse give up at different depths, and no API answers that deep."""
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a Python string every surrogate is a lone one (json.loads joins an escaped pair into one code point)."""


@dataclass(frozen=True)
class Finding:
    """One violation: the oracle, where (RFC 6901 pointer), the offending value and a short message."""

    oracle: Oracle
    pointer: str
    value: Any
    message: str


def js_number(x: float) -> str:
    """A float written as JavaScript's String(x) writes it (shortest round-trip digits)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    digits = raw.lstrip("0")
    n = len(whole) + (int(exponent) if exponent else 0) - (len(raw) - len(digits))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    sign = "+" if n - 1 >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(n - 1)}"


def has_lone_surrogate(text: str) -> bool:
    """Whether text holds a code point no UTF-8 file can (a JSON `\\ud800` escape without its pair)."""
    return _LONE_SURROGATE.search(text) is not None


def escape_surrogates(text: str) -> str:
    """Every lone surrogate as the six characters of its JSON escape (`\\ud800`): text a UTF-8 file can hold."""
    if not has_lone_surrogate(text):
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_string(s: str) -> str:
    """A JSON string literal as json.dumps(ensure_ascii=False) writes it, lone surrogates escaped."""
    return escape_surrogates(json.dumps(s, ensure_ascii=False))


class _Text(str):
    """JSON punctuation on the writer's stack (not a value to write)."""


_CLOSE_ARRAY, _CLOSE_OBJECT, _COMMA = _Text("]"), _Text("}"), _Text(", ")
_DONE = object()
_CONTAINERS = frozenset({dict, list, tuple})


def _scalar_json(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return json_string(value)
    return escape_surrogates(json.dumps(value, ensure_ascii=False, default=str))


def _elements(value: Sequence[Any]) -> Iterator[Any]:
    for i, x in enumerate(value):
        if i:
            yield _COMMA
        yield x
    yield _CLOSE_ARRAY


def _members(value: dict[Any, Any]) -> Iterator[Any]:
    for i, (k, x) in enumerate(value.items()):
        yield _Text((", " if i else "") + json_string(str(k)) + ": ")
        yield x
    yield _CLOSE_OBJECT


def _json_pieces(value: Any) -> Iterator[str]:
    """The JSON text of value, piece by piece, without recursion (a body may nest thousands deep)."""
    stack: list[Iterator[Any]] = [iter((value,))]
    while stack:
        x = next(stack[-1], _DONE)
        if x is _DONE:
            stack.pop()
        elif type(x) is _Text:
            yield x
        elif isinstance(x, list | tuple):
            yield "["
            stack.append(_elements(x))
        elif isinstance(x, dict):
            yield "{"
            stack.append(_members(x))
        else:
            yield _scalar_json(x)


def to_json(value: Any) -> str:
    """JSON text as Python's json.dumps(ensure_ascii=False) writes it, but numbers as JavaScript does and lone
    surrogates escaped (`"\\ud800"`)."""
    if not isinstance(value, list | tuple | dict):
        return _scalar_json(value)
    return "".join(_json_pieces(value))


def truncate_json(value: Any, limit: int = LIMIT) -> str:
    """The JSON of value, cut to at most `limit` code points (ending with "…" when cut); only that much of a
    large value is written."""
    if not isinstance(value, list | tuple | dict):
        text = _scalar_json(value)
        return text if len(text) <= limit else text[: limit - 1] + "…"
    pieces: list[str] = []
    size = 0
    for piece in _json_pieces(value):
        pieces.append(piece)
        size += len(piece)
        if size > limit:
            return "".join(pieces)[: limit - 1] + "…"
    return "".join(pieces)


def pointer_token(name: str) -> str:
    """One RFC 6901 reference token: `~` as `~0`, `/` as `~1` (a lone surrogate as its JSON escape)."""
    return escape_surrogates(name.replace("~", "~0").replace("/", "~1"))


def deeper_than(body: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether the arrays and objects of body nest more than `limit` levels (`[]` is one level, `[[]]` two)."""
    level = [body] if type(body) in _CONTAINERS else []
    for _ in range(limit):
        inner: list[Any] = []
        for node in level:
            children: Iterable[Any] = node.values() if type(node) is dict else node
            inner += [c for c in children if type(c) in _CONTAINERS]
        if not inner:
            return False
        level = inner
    return bool(level)


def locate(body: Any, segments: Sequence[Segment], pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every (pointer, value) the path reaches, in document order; wrong-type containers count as absent.

    The path is followed one segment at a time over everything reached so far, in order (so the result is in
    document order), without recursion: a path may be as long as an oracle file makes it. Pointers and values
    are kept in two lists, not as pairs, which would wake the garbage collector on large bodies."""
    pointers, nodes = [pointer], [body]
    for segment in segments:
        if isinstance(segment, Prop):
            name, token = segment.name, pointer_token(segment.name)
            kept = [i for i, node in enumerate(nodes) if isinstance(node, dict) and name in node]
            pointers = [f"{pointers[i]}/{token}" for i in kept]
            nodes = [nodes[i][name] for i in kept]
            continue
        inner_pointers: list[str] = []
        inner_nodes: list[Any] = []
        for at, node in zip(pointers, nodes, strict=True):
            if isinstance(segment, Items) and p.is_array(node):
                inner_pointers.extend([f"{at}/{i}" for i in range(len(node))])
                inner_nodes.extend(node)
            elif isinstance(segment, MapValues) and isinstance(node, dict):
                inner_pointers.extend([f"{at}/{pointer_token(str(key))}" for key in node])
                inner_nodes.extend(node.values())
        pointers, nodes = inner_pointers, inner_nodes
    return zip(pointers, nodes, strict=True)


@lru_cache(maxsize=4096)
def _segments(field: str) -> tuple[Segment, ...]:
    return parse(field)


def field_name(segments: Sequence[Segment]) -> str:
    """The name messages use: last property name plus its `[]`/`{}` markers (`body` when none)."""
    base, markers = "body", ""
    for segment in segments:
        if isinstance(segment, Prop):
            base, markers = segment.name, ""
        else:
            markers += "{}" if isinstance(segment, MapValues) else "[]"
    return escape_surrogates(base + markers)


_TYPE_NAMES = {"string": "a string", "boolean": "a boolean", "number": "a number", "array": "an array"}
_FIXED = {
    OracleKind.STRING_IS_URL: "is not an absolute URL",
    OracleKind.STRING_IS_NUMERIC: "is not a decimal number",
    OracleKind.STRING_IS_EMAIL: "is not an email address",
    OracleKind.STRING_IS_DATE: "is not a date",
    OracleKind.STRING_IS_TIME: "is not a time or date-time",
    OracleKind.BOOLEAN_ALWAYS_TRUE: "is not true",
    OracleKind.BOOLEAN_ALWAYS_FALSE: "is not false",
}


def _order_complaint(v: Any, ascending: bool, null_like: Collection[str]) -> str:
    i, before = p.order_break(v, ascending, null_like) or (0, 0)
    if before < 0:
        return f"is not an array of numbers: {truncate_json(v[i])} at index {i}"
    order = "ascending" if ascending else "descending"
    return f"is not in {order} order: {to_json(v[i])} at index {i} follows {to_json(v[before])}"


def complaint(kind: OracleKind, value: Any, v: Any, null_like: Collection[str] = ()) -> str | None:
    """Why the non-null value v violates (kind, value), or None when it holds."""
    if p.holds(kind, value, v, null_like):
        return None
    if not p.type_ok(kind, v):
        return f"is not {_TYPE_NAMES[kind.applies_to]}"
    if not p.value_ok(kind, value):
        shape = "a list" if kind in p.LIST_VALUED else "a number"
        return f"cannot be checked: the oracle value {truncate_json(value)} is not {shape}"
    if kind in _FIXED:
        return _FIXED[kind]
    if kind in (OracleKind.STRING_SPECIFIC_VALUES, OracleKind.NUMBER_SPECIFIC_VALUES):
        return f"is not one of {truncate_json(value)}"
    if kind is OracleKind.STRING_FIXED_LENGTH:
        return f"has {len(v)} characters, not {to_json(value)}"
    if kind is OracleKind.NUMBER_MIN_VALUE:
        return f"is less than {to_json(value)}"
    if kind is OracleKind.NUMBER_MAX_VALUE:
        return f"is greater than {to_json(value)}"
    if kind is OracleKind.ARRAY_MIN_SIZE:
        return f"has {len(v)} elements, fewer than {to_json(value)}"
    if kind is OracleKind.ARRAY_MAX_SIZE:
        return f"has {len(v)} elements, more than {to_json(value)}"
    if kind is OracleKind.ARRAY_SPECIFIC_SIZES:
        return f"has {len(v)} elements, not one of {truncate_json(value)}"
    return _order_complaint(v, kind is OracleKind.ARRAY_NUMBER_ASC_ORDER, null_like)


def _clip(v: Any) -> Any:
    return v[:LIMIT] if isinstance(v, str) else v


def check_body(oracles: Sequence[Oracle], body: Any, null_like: Collection[str] = ()) -> list[Finding]:
    """Every violation of the (enabled) oracles in body: oracle order, then document order."""
    return check_and_exercise(oracles, body, null_like)[0]


def check_and_exercise(oracles: Sequence[Oracle], body: Any, null_like: Collection[str] = ()
                       ) -> tuple[list[Finding], tuple[int, ...]]:
    """In one walk of the body: the findings (as `check_body`) and the indices of the enabled oracles that met at
    least one value that is neither null nor null-like (they were exercised)."""
    nulls = frozenset(null_like)
    findings: list[Finding] = []
    exercised: list[int] = []
    for index, oracle in enumerate(oracles):
        if not oracle.enabled:
            continue
        segments = _segments(oracle.field)
        name = field_name(segments)
        met = False
        for pointer, v in locate(body, segments):
            if v is None or (isinstance(v, str) and v in nulls):
                continue
            met = True
            why = complaint(oracle.kind, oracle.value, v, nulls)
            if why is not None:
                findings.append(Finding(oracle, pointer, _clip(v), f"{name} = {truncate_json(v)} {why}"))
        if met:
            exercised.append(index)
    return findings, tuple(exercised)


def exercised_indices(oracles: Sequence[Oracle], body: Any, null_like: Collection[str] = ()) -> tuple[int, ...]:
    """Indices of the (enabled) oracles that met at least one value that is neither null nor null-like."""
    return check_and_exercise(oracles, body, null_like)[1]
