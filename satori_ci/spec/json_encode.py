"""JSON text of the values a spec holds, by a C encoder made once instead of once a call.

`json.JSONEncoder.encode` makes a new C encoder (and a dict to catch cycles) at every call: 2 µs of the 4 µs that a
field's facts take to encode (GitHub's spec: 12,000 of them, for fingerprints and `fields --json`). The values
encoded here are parsed documents and what is built from them, which hold no cycle (a YAML alias inside the node it
names is refused on reading), so the encoder made once has no cycle check; its text is `JSONEncoder.encode`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from json import encoder as _json
from typing import Any

_SAMPLE: Any = {"b": [1, 2.5, None, True, float("nan")], "a": {"é": "x\n\u2028"}, "c": ()}
"""A value whose text shows the separators, the order of keys, the numbers and the strings (checked at start)."""


def json_encoder(*, sort_keys: bool = False, separators: tuple[str, str] = (", ", ": ")) -> Callable[[Any], str]:
    """`JSONEncoder(ensure_ascii=False, default=str, sort_keys=..., separators=...).encode` for acyclic values:
    the same text, without the per-call set-up; that method itself where the C encoder is missing or differs."""
    plain = _json.JSONEncoder(ensure_ascii=False, default=str, sort_keys=sort_keys, separators=separators).encode
    make = getattr(_json, "c_make_encoder", None)  # CPython's accelerator, which typeshed does not name
    if make is None:  # pragma: no cover (CPython has it)
        return plain
    item_separator, key_separator = separators
    escape = _json.encode_basestring
    try:
        chunks = make(None, str, escape, None, key_separator, item_separator, sort_keys, False, True)
    except TypeError:  # pragma: no cover (another signature: another Python)
        return plain

    def encode(value: Any) -> str:
        if isinstance(value, str):
            return escape(value)
        return "".join(chunks(value, 0))

    return encode if encode(_SAMPLE) == plain(_SAMPLE) else plain
