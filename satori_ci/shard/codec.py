"""The check's frozen values as compact JSON and back, driven by their type hints (pure; for the partial
reports of a sharded check), and `digest`: the sha256 of JSON data in one canonical form.

A dataclass is written as the array of its field values, in field order; tuples and frozensets as arrays
(frozensets sorted, so the same value gives the same text); mappings as arrays of `[key, value]` pairs (keys
may be tuples or dataclasses); enums as their values. A value typed `Any` (a JSON value from a spec or an
oracle) keeps whether it was a tuple, a list or a dict: `{"t": [...]}`, `{"l": [...]}`, `{"d": [[key, value],
...]}`. The encoders and decoders are built once per type (GitHub's spec gives partial reports of tens of
megabytes).

`decode(hint, data)` reads a value back as the type `hint` says, and only as that: the input is untrusted (it
travels through CI artifacts), so every value is checked against its type, only the dataclasses the hints name
are built, and anything else is a `CodecError` naming where (never a traceback).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_NONE = type(None)

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]


class CodecError(ValueError):
    """Data that is not a value of the type asked for; `str(err)` says where."""


class _Bad(Exception):
    """A decoding failure on its way up: `path` grows as containers pass it on (built only on failure)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str] = []


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _is_union(origin: Any) -> bool:
    return origin in (types.UnionType, typing.Union)


def digest(data: Any) -> str:
    """sha256 of JSON data written canonically (keys sorted, no spaces, UTF-8, lone surrogates kept): the same
    data gives the same digest."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# -- encoding ------------------------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """A frozen dataclass as JSON data that `decode(type(value), data)` reads back equal."""
    return encoder(type(value))(value)


def encode_as(hint: Any, value: Any) -> Any:
    """`value` of type `hint` as JSON data that `decode(hint, data)` reads back equal."""
    return encoder(hint)(value)


def encode_any(value: Any) -> Any:
    """A JSON-like value (from a spec or an oracle) with its tuples, lists and dicts told apart."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, tuple):
        return {"t": [encode_any(v) for v in value]}
    if isinstance(value, list):
        return {"l": [encode_any(v) for v in value]}
    if isinstance(value, dict):
        return {"d": [[encode_any(k), encode_any(v)] for k, v in value.items()]}
    raise CodecError(f"cannot encode a {type(value).__name__} as a JSON value")


def _sorted(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))


def _fits(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint) or hint
    if origin is Any:
        return True
    if origin in (dict, Mapping):
        return isinstance(value, Mapping)
    if origin is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if origin is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(origin, type) and isinstance(value, origin)


_ENCODERS: dict[Any, Encoder] = {}


def encoder(hint: Any) -> Encoder:
    """The encoder of values of type `hint` (built once)."""
    found = _ENCODERS.get(hint)
    if found is None:
        found = _ENCODERS[hint] = _build_encoder(hint)
    return found


def _scalar(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise CodecError(f"cannot encode a {type(value).__name__}")


def _build_encoder(hint: Any) -> Encoder:
    if hint is Any:
        return encode_any
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _is_union(origin):
        if Any in args:
            return encode_any
        options = [a for a in args if a is not _NONE]

        def union(value: Any) -> Any:
            if value is None:
                return None
            for arg in options:
                if _fits(value, arg):
                    return encoder(arg)(value)
            raise CodecError(f"a {type(value).__name__} is not a {_name(hint)}")
        return union
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            return lambda value: None if value is None else [encoder(item)(v) for v in value]
        return lambda value: None if value is None else [encoder(a)(v) for a, v in zip(args, value, strict=True)]
    if origin in (frozenset, set):
        return lambda value: None if value is None else _sorted([encoder(args[0])(v) for v in value])
    if origin in (dict, Mapping):
        key, item = args
        return lambda value: None if value is None else [[encoder(key)(k), encoder(item)(v)]
                                                         for k, v in value.items()]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        names = [f.name for f in dataclasses.fields(hint)]
        kinds = [hints[n] for n in names]

        def dataclass(value: Any) -> Any:
            if value is None:
                return None
            return [encoder(k)(getattr(value, n)) for n, k in zip(names, kinds, strict=True)]
        return dataclass
    return _scalar


# -- decoding ------------------------------------------------------------------------------------------------


def decode(hint: Any, data: Any, where: str = "$") -> Any:
    """`data` read as a value of type `hint` (CodecError, naming where, when it is not one)."""
    try:
        return decoder(hint)(data)
    except _Bad as bad:
        raise CodecError(f"{where}{''.join(reversed(bad.path))}: {bad.message}") from None
    except RecursionError:
        raise CodecError(f"{where}: nested too deeply") from None


def decode_any(data: Any) -> Any:
    if isinstance(data, _SCALARS):
        return data
    if type(data) is dict and len(data) == 1:
        (tag, inner), = data.items()
        if tag in ("t", "l") and type(inner) is list:
            items = []
            try:
                for v in inner:
                    items.append(decode_any(v))
            except _Bad as bad:
                bad.path.append(f"[{len(items)}]")
                raise
            return tuple(items) if tag == "t" else items
        if tag == "d" and type(inner) is list:
            out: dict[Any, Any] = {}
            for pair in inner:
                if not (type(pair) is list and len(pair) == 2 and isinstance(pair[0], _SCALARS)):
                    raise _Bad("expected a [key, value] pair")
                try:
                    out[pair[0]] = decode_any(pair[1])
                except _Bad as bad:
                    bad.path.append(f".{str(pair[0])[:40]}")
                    raise
            return out
    raise _Bad("not a tagged JSON value")


_DECODERS: dict[Any, Decoder] = {}


def decoder(hint: Any) -> Decoder:
    """The decoder of values of type `hint` (built once); it raises `_Bad`."""
    found = _DECODERS.get(hint)
    if found is None:
        found = _DECODERS[hint] = _build_decoder(hint)
    return found


def _items(decode_item: Decoder, data: Any) -> list[Any]:
    if type(data) is not list:
        raise _Bad("expected an array")
    out: list[Any] = []
    try:
        for v in data:
            out.append(decode_item(v))
    except _Bad as bad:
        bad.path.append(f"[{len(out)}]")
        raise
    return out


def _build_decoder(hint: Any) -> Decoder:
    if hint is Any:
        return decode_any
    if hint is _NONE or hint is None:
        def none(data: Any) -> Any:
            if data is not None:
                raise _Bad("expected null")
            return None
        return none
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _is_union(origin):
        return _union_decoder(hint, args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            return lambda data: tuple(_items(decoder(item), data))

        def fixed(data: Any) -> Any:
            if type(data) is not list or len(data) != len(args):
                raise _Bad(f"expected an array of {len(args)}")
            out = []
            try:
                for a, v in zip(args, data, strict=True):
                    out.append(decoder(a)(v))
            except _Bad as bad:
                bad.path.append(f"[{len(out)}]")
                raise
            return tuple(out)
        return fixed
    if origin in (frozenset, set):
        return lambda data: frozenset(_items(decoder(args[0]), data))
    if origin in (dict, Mapping):
        pair_hint = tuple[args[0], args[1]]  # type: ignore[valid-type]
        return lambda data: dict(_items(decoder(pair_hint), data))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        cls = hint

        def member(data: Any) -> Any:
            try:
                return cls(data)
            except (ValueError, TypeError):
                raise _Bad(f"not a {cls.__name__}") from None
        return member
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_decoder(hint)
    if hint in (bool, int, float, str):
        return _SCALAR_DECODERS[hint]
    raise CodecError(f"cannot read a {_name(hint)}")


def _union_decoder(hint: Any, args: tuple[Any, ...]) -> Decoder:
    optional = _NONE in args
    if Any in args:
        return lambda data: None if data is None and optional else decode_any(data)
    options = [a for a in args if a is not _NONE]
    if len(options) == 1:
        only = options[0]
        return lambda data: None if data is None and optional else decoder(only)(data)

    def union(data: Any) -> Any:
        if data is None and optional:
            return None
        exact = [a for a in options if a is type(data)]  # an int stays an int where a float would also do
        for arg in (*exact, *(a for a in options if a not in exact)):
            try:
                return decoder(arg)(data)
            except _Bad:
                continue
        raise _Bad(f"not a {_name(hint)}")
    return union


def _dataclass_decoder(cls: type) -> Decoder:
    fields = dataclasses.fields(cls)
    if not all(f.init for f in fields):
        raise CodecError(f"cannot read a {cls.__name__}")
    hints = _hints(cls)
    names = [f.name for f in fields]
    kinds = [hints[n] for n in names]

    def dataclass(data: Any) -> Any:
        if type(data) is not list or len(data) != len(names):
            raise _Bad(f"expected a {cls.__name__} ({len(names)} values)")
        values = []
        try:
            for k, v in zip(kinds, data, strict=True):
                values.append(decoder(k)(v))
        except _Bad as bad:
            bad.path.append(f".{names[len(values)]}")
            raise
        try:
            return cls(*values)
        except (TypeError, ValueError) as exc:
            raise _Bad(f"not a {cls.__name__} ({exc})") from None
    return dataclass


def _bool(data: Any) -> Any:
    if type(data) is not bool:
        raise _Bad("expected true or false")
    return data


def _int(data: Any) -> Any:
    if type(data) is not int:
        raise _Bad("expected an integer")
    return data


def _float(data: Any) -> Any:
    if type(data) is float:
        return data
    if type(data) is not int:
        raise _Bad("expected a number")
    return float(data)


def _str(data: Any) -> Any:
    if type(data) is not str:
        raise _Bad("expected a string")
    return data


_SCALAR_DECODERS: dict[Any, Decoder] = {bool: _bool, int: _int, float: _float, str: _str}
