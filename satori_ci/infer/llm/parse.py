"""Turning a model's answer into oracle values, repairing what can be repaired unambiguously.

Two steps, both pure: `extract_object` finds the JSON object in the answer text (code fences,
surrounding prose, several objects, Python-style literals, trailing commas, truncation), and
`interpret` reads it against the kinds that were asked (type coercion where unambiguous; unknown
keys and impossible values dropped). Every repair and every drop is described in the notes.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OracleValue

from .prompt import REASONS_KEY

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```", re.S)
_NUMERIC = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NULLISH = frozenset({"", "null", "none"})
_WORDS = {"True": "true", "False": "false", "None": "null"}
_MAX_REASON = 200

INTEGER_KINDS = frozenset({OracleKind.STRING_FIXED_LENGTH, OracleKind.ARRAY_MIN_SIZE,
                           OracleKind.ARRAY_MAX_SIZE})
NUMBER_KINDS = frozenset({OracleKind.NUMBER_MIN_VALUE, OracleKind.NUMBER_MAX_VALUE})
LIST_KINDS = frozenset({OracleKind.STRING_SPECIFIC_VALUES, OracleKind.NUMBER_SPECIFIC_VALUES,
                        OracleKind.ARRAY_SPECIFIC_SIZES})


@dataclass(frozen=True)
class Extracted:
    """The JSON object found in an answer (None when there is none) and how it was found."""

    obj: dict[str, Any] | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Interpretation:
    """The kinds that hold, with their values (None for kinds that take none), and why not others."""

    values: dict[OracleKind, OracleValue]
    reasons: dict[OracleKind, str]
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Step 1: find the object


def _scan_end(text: str, start: int) -> tuple[int | None, list[str]]:
    """Where the bracketed value opening at `start` ends (exclusive), string-aware.

    Returns (None, open brackets) when the text ends first (a truncated answer).
    """
    stack: list[str] = []
    quote: str | None = None
    i = start
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "{[":
            stack.append(c)
        elif c in "}]":
            if stack:
                stack.pop()
            if not stack:
                return i + 1, []
        i += 1
    return None, stack


def _normalize(text: str) -> str:
    """Python-ish or sloppy JSON to JSON: quotes, literals, trailing commas, unclosed strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            buf: list[str] = []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            content = "".join(buf)
            if c == "'":
                content = content.replace("\\'", "'").replace('"', '\\"')
            content = content.replace("\n", "\\n")
            out.append('"' + content + '"')
            i = j + 1
            continue
        if c == ",":
            k = i + 1
            while k < n and text[k].isspace():
                k += 1
            if k == n or text[k] in "}]":
                i += 1
                continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_WORDS.get(word, word))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _close(text: str) -> str:
    """Append the closers a truncated value lacks (after dropping a dangling `,` or `:`)."""
    body = text.rstrip()
    while body.endswith(","):
        body = body[:-1].rstrip()
    if body.endswith(":"):
        body += " null"
    _, stack = _scan_end(body, body.find("{") if "{" in body else 0)
    return body + "".join("}" if b == "{" else "]" for b in reversed(stack))


def _loads_dict(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _repair(candidate: str) -> dict[str, Any] | None:
    """Best effort on one malformed object; None when no reading is unambiguous enough."""
    normalized = _normalize(candidate)
    for attempt in (normalized, _close(normalized)):
        obj = _loads_dict(attempt)
        if obj is not None:
            return obj
    # Cut back to the last complete member of a truncated object, then close it.
    cut = normalized.rfind(",")
    if cut > 0:
        obj = _loads_dict(_close(normalized[:cut]))
        if obj is not None:
            return obj
    try:
        value = ast.literal_eval(candidate)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def extract_object(text: str | None) -> Extracted:
    """The JSON object of an answer. Several objects are merged (the first one wins a key)."""
    if text is None or not text.strip():
        return Extracted(None, ("empty answer",))
    notes: list[str] = []
    body = text.strip()
    fenced = _FENCE.findall(body)
    if fenced:
        body = "\n".join(fenced)
        notes.append("stripped code fences")
    elif body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        notes.append("stripped an unclosed code fence")
    decoder = json.JSONDecoder()
    objects: list[dict[str, Any]] = []
    outside: list[str] = []
    pos = 0
    i = body.find("{")
    while i != -1:
        obj: dict[str, Any] | None = None
        end: int | None = None
        try:
            value, end = decoder.raw_decode(body, i)
            obj = value if isinstance(value, dict) else None
        except ValueError:
            scan_end, _ = _scan_end(body, i)
            end = scan_end if scan_end is not None else len(body)
            obj = _repair(body[i:end])
            if obj is not None:
                notes.append("repaired malformed JSON" if scan_end is not None
                             else "completed a truncated JSON object")
        if obj is None:
            i = body.find("{", i + 1)
            continue
        outside.append(body[pos:i])
        objects.append(obj)
        pos = end
        i = body.find("{", end)
    outside.append(body[pos:])
    if not objects:
        return Extracted(None, (*notes, "no JSON object in the answer"))
    if any(part.strip() for part in outside):
        notes.append("ignored text around the JSON object")
    merged = dict(objects[0])
    if len(objects) > 1:
        for extra in objects[1:]:
            for key, value in extra.items():
                merged.setdefault(key, value)
        notes.append(f"merged {len(objects)} JSON objects (the first one wins a repeated property)")
    return Extracted(merged, tuple(notes))


# --------------------------------------------------------------------------------------------
# Step 2: read it


def _nullish(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NULLISH)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: Any) -> int | float | None:
    """A finite number from a number or a numeric string; None otherwise (booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str) and _NUMERIC.fullmatch(value.strip()):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        parsed = float(text)
        return parsed if math.isfinite(parsed) else None
    return None


def _integer(value: Any) -> int | None:
    number = _number(value)
    if isinstance(number, float):
        return int(number) if number.is_integer() else None
    return number


def _key_map(obj: dict[str, Any], kinds: Sequence[OracleKind], family: str,
             notes: list[str]) -> tuple[dict[OracleKind, Any], Any]:
    """The answer's properties by kind, and its `reasons` value."""
    by_kind: dict[OracleKind, Any] = {}
    reasons: Any = None
    aliased: list[tuple[OracleKind, str, Any]] = []
    all_kinds = {k.value: k for k in OracleKind}
    for raw_key, value in obj.items():
        key = str(raw_key).strip().lower().replace("-", "_").replace(" ", "_")
        if key == REASONS_KEY:
            reasons = value
            continue
        kind = all_kinds.get(key)
        if kind is not None:
            if kind in kinds:
                by_kind[kind] = value
            else:
                notes.append(f"dropped {kind.value}: not asked for a field of this type")
            continue
        alias = all_kinds.get(f"{family}_{key}")
        if alias is not None and alias in kinds:
            aliased.append((alias, str(raw_key), value))
            continue
        notes.append(f"dropped unknown property {_show(str(raw_key))}")
    for kind, raw_key, value in aliased:
        if kind in by_kind:
            notes.append(f"dropped {_show(raw_key)}: {kind.value} is also given")
        else:
            by_kind[kind] = value
            notes.append(f"read {_show(raw_key)} as {kind.value}")
    return by_kind, reasons


def _unwrap(obj: dict[str, Any], kinds: Sequence[OracleKind], family: str,
            notes: list[str]) -> dict[str, Any]:
    """`{"oracles": {...}}` or `{"price": {...}}` around the real answer: take the inner object."""
    names = {k.value for k in kinds} | {k.value.split("_", 1)[1] for k in kinds}
    if any(str(key).strip().lower() in names for key in obj):
        return obj
    inner = [(key, value) for key, value in obj.items()
             if key != REASONS_KEY and isinstance(value, dict)]
    if len(inner) == 1 and any(str(k).strip().lower() in names for k in inner[0][1]):
        notes.append(f"read the object under {_show(str(inner[0][0]))}")
        unwrapped = dict(inner[0][1])
        if REASONS_KEY in obj:
            unwrapped.setdefault(REASONS_KEY, obj[REASONS_KEY])
        return unwrapped
    return obj


def _read_flag(kind: OracleKind, value: Any, notes: list[str]) -> bool:
    if isinstance(value, bool):
        return value
    if _nullish(value):
        return False
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        notes.append(f"read {kind.value} {_show(value)} as a boolean")
        return value.strip().lower() == "true"
    notes.append(f"dropped {kind.value}: takes no value, expected true or false, got {_show(value)}")
    return False


def _read_list(kind: OracleKind, value: Any, notes: list[str]) -> tuple[Any, ...] | None:
    if not isinstance(value, list):
        notes.append(f"read {kind.value} {_show(value)} as a list of one")
        value = [value]
    items: list[Any] = []
    for element in value:
        if element is None:
            notes.append(f"{kind.value}: ignored a null element")
            continue
        item: Any
        if kind is OracleKind.STRING_SPECIFIC_VALUES:
            if isinstance(element, str):
                item = element
            elif isinstance(element, int | float) and not isinstance(element, bool):
                item = str(element)
                notes.append(f"{kind.value}: read {_show(element)} as a string")
            else:
                item = None
        elif kind is OracleKind.NUMBER_SPECIFIC_VALUES:
            item = _number(element)
            if item is not None and isinstance(element, str):
                notes.append(f"{kind.value}: read {_show(element)} as a number")
        else:
            item = _integer(element)
            if item is not None and item < 0:
                notes.append(f"dropped {kind.value}: negative size {item}")
                return None
            if item is not None and isinstance(element, str):
                notes.append(f"{kind.value}: read {_show(element)} as an integer")
        if item is None:
            notes.append(f"dropped {kind.value}: element {_show(element)} has the wrong type")
            return None
        if item not in items:
            items.append(item)
    return tuple(items) if items else None


def _read_value(kind: OracleKind, value: Any, notes: list[str]) -> OracleValue:
    """The value of a valued kind, or None when absent or impossible (with a note)."""
    if value is False or _nullish(value):
        return None
    if value is True:
        notes.append(f"dropped {kind.value}: expected a value, got true")
        return None
    if kind in LIST_KINDS:
        return _read_list(kind, value, notes)
    if kind in INTEGER_KINDS:
        number = _integer(value)
        if number is None:
            notes.append(f"dropped {kind.value}: expected an integer, got {_show(value)}")
            return None
        if isinstance(value, str):
            notes.append(f"read {kind.value} {_show(value)} as an integer")
        if number < 0:
            notes.append(f"dropped {kind.value}: negative size {number}")
            return None
        if number == 0 and kind is not OracleKind.ARRAY_MAX_SIZE:
            notes.append(f"dropped {kind.value}: 0 sets no constraint")
            return None
        return number
    number_value = _number(value)
    if number_value is None:
        notes.append(f"dropped {kind.value}: expected a number, got {_show(value)}")
        return None
    if isinstance(value, str):
        notes.append(f"read {kind.value} {_show(value)} as a number")
    return number_value


def _reasons(raw: Any, kinds: Sequence[OracleKind], family: str, notes: list[str]) -> dict[OracleKind, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        notes.append(f"ignored {REASONS_KEY}: not an object")
        return {}
    out: dict[OracleKind, str] = {}
    values = {k.value: k for k in kinds}
    for key, text in raw.items():
        norm = str(key).strip().lower().replace("-", "_").replace(" ", "_")
        kind = values.get(norm) or values.get(f"{family}_{norm}")
        if kind is None or not isinstance(text, str) or not text.strip():
            continue
        line = " ".join(text.split())
        out[kind] = line if len(line) <= _MAX_REASON else line[:_MAX_REASON - 3] + "..."
    return out


def _drop_pair(values: dict[OracleKind, OracleValue], low: OracleKind, high: OracleKind,
               notes: list[str]) -> None:
    if low in values and high in values and values[low] > values[high]:
        notes.append(f"dropped {low.value} {values[low]} and {high.value} {values[high]}: "
                     "minimum above maximum")
        del values[low], values[high]


def interpret(obj: dict[str, Any], kinds: Sequence[OracleKind]) -> Interpretation:
    """The oracles an answer object states for a field asked about `kinds`."""
    notes: list[str] = []
    family = kinds[0].applies_to if kinds else ""
    obj = _unwrap(obj, kinds, family, notes)
    by_kind, raw_reasons = _key_map(obj, kinds, family, notes)
    values: dict[OracleKind, OracleValue] = {}
    for kind in kinds:
        if kind not in by_kind:
            continue
        raw = by_kind[kind]
        if kind.takes_value:
            value = _read_value(kind, raw, notes)
            if value is not None:
                values[kind] = value
        elif _read_flag(kind, raw, notes):
            values[kind] = None
    if OracleKind.STRING_IS_DATE in values and OracleKind.STRING_IS_TIME in values:
        notes.append("dropped string_is_date: string_is_time also holds (a date-time is a time)")
        del values[OracleKind.STRING_IS_DATE]
    if OracleKind.BOOLEAN_ALWAYS_TRUE in values and OracleKind.BOOLEAN_ALWAYS_FALSE in values:
        notes.append("dropped boolean_always_true and boolean_always_false: both cannot hold")
        del values[OracleKind.BOOLEAN_ALWAYS_TRUE], values[OracleKind.BOOLEAN_ALWAYS_FALSE]
    _drop_pair(values, OracleKind.NUMBER_MIN_VALUE, OracleKind.NUMBER_MAX_VALUE, notes)
    _drop_pair(values, OracleKind.ARRAY_MIN_SIZE, OracleKind.ARRAY_MAX_SIZE, notes)
    ordered = {kind: values[kind] for kind in kinds if kind in values}
    reasons = _reasons(raw_reasons, kinds, family, notes)
    return Interpretation(ordered, {k: v for k, v in reasons.items() if k in ordered}, tuple(notes))
