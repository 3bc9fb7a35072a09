"""YAML documents through libyaml (PyYAML's C parser), into plain JSON values with key lines kept.

ruamel's round-trip loader is several times slower than a C loader on large specs, and its safe
constructor resolves every scalar through a chain of regexes. Here libyaml composes the
node graph with a resolver that only tells plain from quoted scalars; a small constructor then
types plain scalars by the YAML 1.2 core schema, keeps keys as their source text (so `200:` is
the status "200"), records the line of every mapping key, refuses duplicate and complex keys,
and bounds the size that aliases expand to.

The C parser is PyYAML's (libyaml 0.2.5 in its wheels), which reads the flow mapping
`{url: https://x}` that ruamel writes; where PyYAML has no C extension, ruamel.yaml.clib's (libyaml
0.1.7, which refuses it: "found unexpected ':'"). A document the C parser refuses is composed
again by ruamel's pure-Python parser with the same resolver, then built by the same constructor
(same typing, key lines, duplicate and alias checks); one that both refuse is refused with the
pure parser's error.
"""

from __future__ import annotations

import math
import re
from typing import Any

from satori_ci.spec.errors import SpecError, SpecErrorKind

try:  # the C parser ships with ruamel.yaml.clib on CPython
    from _ruamel_yaml import CParser as _CParser
    from _ruamel_yaml import ScalarNode as _CScalarNode
except ImportError:  # pragma: no cover - pure-Python fallback
    _CParser = None
    _CScalarNode = None

try:  # libyaml 0.2 (YAML 1.2's plain scalars in flow collections) through PyYAML's wheels
    from yaml import nodes as _libyaml_nodes  # type: ignore[import-untyped,unused-ignore]
    from yaml._yaml import CParser as _LibyamlParser  # type: ignore[import-untyped,unused-ignore]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _LibyamlParser = None
    _libyaml_nodes = None

from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

PLAIN = "satori:plain"
QUOTED = "tag:yaml.org,2002:str"
MAX_EXPANDED_NODES = 5_000_000
MAX_ALIAS_CHARS = 64_000_000
"""Characters (of keys and scalars) that aliases repeat: what a value's JSON (a fingerprint, an
oracle) would write out again, which the count of nodes alone does not bound (long strings)."""

_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_SPECIAL_FLOATS = {
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
_MAYBE_TYPED = frozenset("0123456789-+.~nNtTfF")

MAX_DEPTH = 10_000
"""Nesting levels of collections a YAML document may have: libyaml's composer (C) recurses once per level and
overflows an 8 MiB stack near 30,000 (a crash no exception catches), so deeper documents are refused first."""
_WORDS = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_{", b"w" * 63 + b"[")
"""Word characters as `w` and `{` as `[`: a bracket right after a word character cannot open a flow collection
(YAML wants a space between a node's tag or anchor and its content; a plain scalar may hold brackets)."""

KeyLines = dict[int, dict[str, int]]
"""id(mapping) -> {key: 1-based line of the key}."""


def plain_scalar(text: str) -> Any:
    """A plain (unquoted) scalar typed by the YAML 1.2 core schema."""
    if not text:
        return None
    if text[0] not in _MAYBE_TYPED:
        return text
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.match(text):
        if text.lstrip("+-")[:1] == "0" and len(text.lstrip("+-")) > 1:
            # `0123`: octal (or, with an 8 or 9, a string) in YAML 1.1, decimal in 1.2, and a zip code,
            # phone or account number to whoever wrote it. YAML 1.1 writers (PyYAML) leave such
            # strings unquoted, and JSON has no such numbers: keep the text.
            return text
        return int(text)
    if _FLOAT.match(text):
        value = float(text)
        return value if math.isfinite(value) else text  # `3463754e3540884` is an id, not infinity
    if _OCT.match(text):
        return int(text[2:], 8)
    if _HEX.match(text):
        return int(text[2:], 16)
    return _SPECIAL_FLOATS.get(text, text)


def _typed_scalar(tag: str, text: str) -> Any:
    if tag == PLAIN:
        return plain_scalar(text)
    if tag.endswith((":str", "!str")) or tag == QUOTED:
        return text
    if tag.endswith(":int"):
        return int(text) if _INT.match(text) else text
    if tag.endswith(":float"):
        value = plain_scalar(text)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else text
    if tag.endswith(":bool"):
        return text in _TRUE if text in _TRUE | _FALSE else text
    if tag.endswith(":null"):
        return None
    return text  # unknown local tags: the text as written


_SCALARS: tuple[Any, ...] = tuple(t for t in (ScalarNode, _CScalarNode, getattr(_libyaml_nodes, "ScalarNode", None))
                                   if t is not None)
_SEQUENCES: tuple[Any, ...] = tuple(t for t in (SequenceNode, getattr(_libyaml_nodes, "SequenceNode", None))
                                     if t is not None)
_MAPPINGS: tuple[Any, ...] = tuple(t for t in (MappingNode, getattr(_libyaml_nodes, "MappingNode", None))
                                    if t is not None)

class _PlainMarks:
    """A C composer's resolver that only marks plain scalars (`scalar` is the composer's scalar node class)."""

    scalar: Any = None

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is self.scalar:
            return PLAIN if implicit[0] else QUOTED
        return "satori:collection"

    def descend_resolver(self, *args: Any) -> None:
        return None

    def ascend_resolver(self, *args: Any) -> None:
        return None


if _LibyamlParser is not None:

    class _LibyamlComposer(_PlainMarks, _LibyamlParser):  # type: ignore[misc]
        """PyYAML's C composer (libyaml 0.2)."""

        scalar = _libyaml_nodes.ScalarNode


if _CParser is not None:

    class _FastParser(_PlainMarks, _CParser):  # type: ignore[misc]
        """ruamel's C composer (libyaml 0.1)."""

        scalar = _CScalarNode


def shallow_enough(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the document surely nests at most `limit` levels, told in linear time without parsing (False:
    it may not; the events will tell). Every flow collection opens with a bracket; a block collection needs
    more indentation than its parent's, or a compact indicator (`- `, `? `, `: `) right after its line's
    indentation (`- - - x`); a block sequence may sit at its mapping's indentation, so each counts twice."""
    flow = data.count(b"[") + data.count(b"{")
    if flow > limit // 2:
        flow -= data.translate(_WORDS).count(b"w[")
    room = limit - 2 - flow
    if room <= 0:
        return False
    if 2 * max(map(len, data.split(b"\n"))) <= room:  # indentation and indicators fit in the longest line
        return True
    k = room // 4  # fewer than k of each: 2 * (indentation + indicators) < room
    compact = rb" *(?:[-?:][ \t]+){%d}" % k
    return k > 0 and not data.startswith(b" " * k) and re.search(b"\n {%d}" % k, data) is None and (
        re.match(compact, data) is None and re.search(b"\n" + compact, data) is None)


def _too_deep(data: bytes) -> bool:
    """Whether the document's collections nest past `MAX_DEPTH`, from libyaml's events (iterative: no recursion).
    The scan stops at the first level past it: libyaml's time grows with the square of the depth (40,000 levels of
    flow mappings took 30 s to read to the end)."""
    assert _CParser is not None
    parser, depth = _CParser(data), 0
    while (event := parser.get_event()) is not None:
        kind = type(event).__name__
        if kind in ("MappingStartEvent", "SequenceStartEvent"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif kind in ("MappingEndEvent", "SequenceEndEvent"):
            depth -= 1
        elif kind == "StreamEndEvent":
            break
    return False


def _refuse_too_deep(data: bytes, name: str) -> None:
    """Raise SpecError past `MAX_DEPTH` levels (the events are read only when the cheap bound allows more)."""
    if _CParser is None or shallow_enough(data):
        return
    try:
        too_deep = _too_deep(data)
    except Exception:  # a syntax error: the composers below name it
        return
    if too_deep:
        raise SpecError(SpecErrorKind.TOO_LARGE, f"{name}: nested more than {MAX_DEPTH:,} levels deep (the limit)")


def _compose(data: bytes) -> Any:
    """The node graph by the first C parser there is; a document it refuses, by ruamel's pure parser."""
    composer = _LibyamlComposer if _LibyamlParser is not None else _FastParser if _CParser is not None else None
    if composer is not None:
        try:
            return composer(data).get_single_node()
        except Exception:  # the C parsers raise their own error classes; the pure parser decides
            pass
    return _compose_pure(data)


def _compose_pure(data: bytes) -> Any:
    """The node graph by ruamel's pure-Python parser (YAML 1.2), scalars marked plain or quoted as above."""
    from ruamel.yaml import YAML
    from ruamel.yaml.resolver import VersionedResolver
    from ruamel.yaml.tag import Tag

    plain, quoted, collection = Tag(suffix=PLAIN), Tag(suffix=QUOTED), Tag(suffix="satori:collection")

    class _PlainResolver(VersionedResolver):
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is ScalarNode:
                return plain if implicit[0] else quoted
            return collection

        def descend_resolver(self, *args: Any) -> None:
            return None

        def ascend_resolver(self, *args: Any) -> None:
            return None

    yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = _PlainResolver
    return yaml.compose(data)


class _Constructor:
    def __init__(self, name: str, refs: list[Any] | None = None, shared: set[int] | None = None) -> None:
        self.name = name
        self.refs = refs
        self.shared = shared
        self.key_lines: KeyLines = {}
        self.memo: dict[int, Any] = {}
        self.sizes: dict[int, int] = {}
        self.alias_chars = 0
        self._chars: dict[int, int] = {}
        """id(mapping or list) -> its characters, for the values aliases name (and their parts)."""
        self.building: set[int] = set()
        self.expanded = 0

    def error(self, kind: SpecErrorKind, node: Any, message: str) -> SpecError:
        return SpecError(kind, f"{self.name}:{node.start_mark.line + 1}: {message}")

    def build(self, node: Any) -> Any:
        key = id(node)
        if key in self.memo:  # an alias: shared, but its expanded size counts again
            if key in self.building:
                raise self.error(SpecErrorKind.SYNTAX, node,
                                 "a YAML alias inside the node it names: a value that contains itself is not JSON")
            self.expanded += self.sizes.get(key, 1)
            if self.expanded > MAX_EXPANDED_NODES:
                raise self.error(SpecErrorKind.TOO_LARGE, node,
                                 f"aliases expand past {MAX_EXPANDED_NODES:,} nodes (a YAML alias bomb?)")
            shared_value = self.memo[key]
            self.alias_chars += self._chars_of(shared_value)
            if self.alias_chars > MAX_ALIAS_CHARS:
                raise self.error(SpecErrorKind.TOO_LARGE, node,
                                 f"aliases expand past {MAX_ALIAS_CHARS:,} characters (a YAML alias bomb?)")
            if self.shared is not None and isinstance(shared_value, dict | list):
                self.shared.add(id(shared_value))  # one value at two places in the document
            return shared_value
        before = self.expanded
        self.expanded += 1
        value: Any
        if isinstance(node, _SCALARS):
            value = _typed_scalar(str(getattr(node, "tag", PLAIN)), node.value)
            self.memo[key] = value
        elif isinstance(node, _SEQUENCES):
            value = []
            self.memo[key] = value
            self.building.add(key)
            value.extend(self.build(child) for child in node.value)
            self.building.discard(key)
        elif isinstance(node, _MAPPINGS):
            value = {}
            self.memo[key] = value
            self.building.add(key)
            self._fill_mapping(node, value)
            self.building.discard(key)
        else:  # pragma: no cover - the composer yields only these three
            raise self.error(SpecErrorKind.SYNTAX, node, "unexpected YAML node")
        self.sizes[key] = self.expanded - before
        if self.expanded > MAX_EXPANDED_NODES:
            raise self.error(SpecErrorKind.TOO_LARGE, node, f"document expands past {MAX_EXPANDED_NODES:,} nodes")
        return value

    def _chars_of(self, value: Any) -> int:
        """The characters of a built value's keys and scalars (a number's digits, roughly), aliases included."""
        if isinstance(value, str):
            return len(value)
        if not isinstance(value, dict | list):
            return value.bit_length() // 3 + 1 if isinstance(value, int) else 8
        known = self._chars.get(id(value))
        if known is None:
            pairs = value.items() if isinstance(value, dict) else enumerate(value)
            known = self._chars[id(value)] = sum(
                (len(k) if isinstance(k, str) else 0) + self._chars_of(v) for k, v in pairs)
        return known

    def _fill_mapping(self, node: Any, target: dict[str, Any]) -> None:
        lines: dict[str, int] = {}
        merges: list[Any] = []
        for key_node, value_node in node.value:
            if not isinstance(key_node, _SCALARS):
                raise self.error(SpecErrorKind.NON_STRING_KEY, key_node,
                                 "a mapping key must be a string, not a mapping or a list")
            text = key_node.value
            if text == "<<" and str(getattr(key_node, "tag", "")) == PLAIN:
                merges.append(value_node)
                continue
            if text in lines:
                raise self.error(SpecErrorKind.DUPLICATE_KEY, key_node,
                                 f"duplicate key {text!r} (first at line {lines[text]})")
            lines[text] = key_node.start_mark.line + 1
            target[text] = self.build(value_node)
        for merge in merges:
            for source in self._merge_sources(merge):
                for mkey, mval in source.items():
                    target.setdefault(mkey, mval)
        self.key_lines[id(target)] = lines
        if self.refs is not None and "$ref" in target:
            self.refs.append(target["$ref"])

    def _merge_sources(self, node: Any) -> list[dict[str, Any]]:
        built = self.build(node)
        items = built if isinstance(built, list) else [built]
        if not all(isinstance(item, dict) for item in items):
            raise self.error(SpecErrorKind.SYNTAX, node, "'<<' merges only mappings")
        return items


def load_yaml(data: bytes, name: str, refs: list[Any] | None = None, shared: set[int] | None = None
              ) -> tuple[Any, KeyLines]:
    """Parse one YAML document into JSON values and the key lines of every mapping.

    `refs` receives every `$ref` value, `shared` the ids of the mappings and lists that aliases
    place at more than one position.
    """
    _refuse_too_deep(data, name)
    try:
        node = _compose(data)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        raise SpecError(SpecErrorKind.SYNTAX, f"{where}: invalid YAML: {exc.problem or exc.context}") from None
    except (YAMLError, UnicodeDecodeError, ValueError) as exc:
        raise SpecError(SpecErrorKind.SYNTAX, f"{name}: invalid YAML: {_one_line(exc)}") from None
    except Exception as exc:  # the C parser raises its own error classes
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(exc, "problem", None) or _one_line(exc)
        raise SpecError(SpecErrorKind.SYNTAX, f"{where}: invalid YAML: {problem}") from None
    if node is None:
        return None, {}
    constructor = _Constructor(name, refs, shared)
    try:
        value = constructor.build(node)
    except RecursionError:
        raise SpecError(SpecErrorKind.TOO_LARGE, f"{name}: nested too deeply") from None
    return value, constructor.key_lines


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
