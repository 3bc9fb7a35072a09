"""The set of documents one spec spans: loading, `$ref` resolution and line numbers."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.json_encode import json_encoder
from satori_ci.spec.json_loader import (
    JsonKeyLines,
    decode_text,
    load_json,
    refuse_lone_surrogates,
    start_key_line_scan,
)
from satori_ci.spec.model import SourceLocation
from satori_ci.spec.pointers import unescape_token
from satori_ci.spec.source import SourceReader

if TYPE_CHECKING:
    from satori_ci.forked import ForkedBytes
    from satori_ci.spec.yaml_loader import KeyLines

REMOTE_TIMEOUT_S = 10


@dataclass(frozen=True)
class Resolved:
    """A schema reached by following refs, and where it stands."""

    node: Any
    file: str
    pointer: str
    note: str | None = None
    """Set when a ref was not followed (remote), instead of a node."""


class _Loaded:
    def __init__(self, value: Any, text: str | None, key_lines: KeyLines | None, refs: list[Any],
                 shared: set[int], closings: dict[int, int] | None = None, scan: ForkedBytes | None = None) -> None:
        self.value = value
        self.text = text  # JSON only: scanned for lines on first request
        self.closings = closings  # JSON only: `load_json`'s, for the lines
        self.scan = scan  # JSON only: the key lines, found by a child while the text was parsed
        self.key_lines = key_lines
        self.json_lines: JsonKeyLines | None = None
        self.lines: dict[str, int] = {}
        """pointer -> line, for the pointers asked for so far (fields share a few thousand locations)."""
        self.refs = refs
        self.shared = shared


def _is_json(name: str, data: bytes) -> bool:
    lower = name.lower()
    if lower.endswith(".json"):
        return True
    if lower.endswith((".yaml", ".yml")):
        return False
    return data.lstrip()[:1] in (b"{", b"[")


class DocumentSet:
    """Documents loaded on demand from one `SourceReader` (plus remote ones when allowed)."""

    def __init__(self, reader: SourceReader, follow_remote: bool = False) -> None:
        self.reader = reader
        self.follow_remote = follow_remote
        self._docs: dict[str, _Loaded] = {}
        self.targets: set[int] = set()
        """Ids of the nodes that can be reached other than through their parent: the targets of the
        `$ref`s of the documents loaded so far, and YAML values placed at several positions."""
        self.generation = 0
        """Bumped whenever `targets` grows."""
        self.bytes_read = 0
        """The size of the documents loaded so far (the expansion's budgets grow with it)."""
        self._pending: dict[tuple[str, str], tuple[str, str]] = {}
        """(file, ref) -> (target file, fragment) of `$ref`s into documents not loaded yet."""
        self._followed: dict[tuple[str, str], Resolved] = {}
        """(ref, file) -> what `follow` found (GitHub's spec follows 790 refs 5,500 times)."""
        self.property_parts: dict[int, tuple[str, str, list[tuple[str, Any]]]] = {}
        """id(a `properties` mapping) -> (its file, its pointer, each property's name and schema part): a schema's
        properties are merged into every view that holds it (GitHub's spec: 35,000 times for 7,000)."""

    @property
    def entry(self) -> str:
        return self.reader.entry

    @property
    def files(self) -> tuple[str, ...]:
        """The documents loaded so far, in the order they were loaded (repository paths, remote URLs)."""
        return tuple(self._docs)

    def root(self) -> Any:
        return self.document(self.reader.entry)

    def document(self, file: str) -> Any:
        loaded = self._docs.get(file)
        if loaded is None:
            loaded = self._load(file)
            self._docs[file] = loaded
            self._add_targets(file, loaded)
        return loaded.value

    def _add_targets(self, file: str, loaded: _Loaded) -> None:
        before = len(self.targets)
        self.targets.update(loaded.shared)
        for ref in dict.fromkeys(r for r in loaded.refs if isinstance(r, str)):
            located = self._locate(ref, file)
            if located is not None:
                self._pending[(file, ref)] = located
        loaded.refs = []
        for key, (target_file, fragment) in list(self._pending.items()):
            target_doc = self._docs.get(target_file)
            if target_doc is None:
                continue
            del self._pending[key]
            node = self._walk_pointer(target_doc.value, urllib.parse.unquote(fragment))
            if isinstance(node, dict | list):
                self.targets.add(id(node))
        if len(self.targets) != before:
            self.generation += 1

    def _load(self, file: str) -> _Loaded:
        data = self._fetch(file) if file.startswith(("http://", "https://")) else self.reader.read(file)
        self.bytes_read += len(data)
        name = self.reader.display_entry if file == self.reader.entry else file
        refs: list[Any] = []
        if _is_json(file, data):
            text = decode_text(data, name)
            closings: dict[int, int] = {}
            scan = start_key_line_scan(text)
            return _Loaded(load_json(text, name, refs, closings, data), text, None, refs, set(), closings, scan)
        from satori_ci.spec.yaml_loader import load_yaml  # ruamel: only when a YAML document is read

        shared: set[int] = set()
        try:
            value, key_lines = load_yaml(data, name, refs, shared)
        except ValueError as exc:  # an integer past Python's digit limit
            raise SpecError(SpecErrorKind.SYNTAX, f"{name}: invalid YAML: {str(exc).split(';')[0]}") from None
        refuse_lone_surrogates(value, data, name)
        return _Loaded(value, None, key_lines, refs, shared)

    def _fetch(self, url: str) -> bytes:
        import urllib.request  # only for --follow-remote-refs: ~15 ms of start-up otherwise

        try:
            with urllib.request.urlopen(url, timeout=REMOTE_TIMEOUT_S) as resp:
                data: bytes = resp.read(self.reader.max_bytes + 1)
        except (OSError, ValueError) as exc:
            raise SpecError(SpecErrorKind.UNRESOLVED_REF, f"{url}: cannot fetch remote $ref ({exc})") from None
        if len(data) > self.reader.max_bytes:
            raise SpecError(SpecErrorKind.TOO_LARGE, f"{url}: remote document past the size budget")
        return data

    # -- references -------------------------------------------------------------------------

    def _locate(self, ref: str, file: str) -> tuple[str, str] | None:
        """(target file, fragment) of `ref` used in `file`, as `follow` finds it; None if it cannot."""
        target_file, _, fragment = ref.partition("#")
        remote = ("http://", "https://")
        if target_file.startswith(remote) or (file.startswith(remote) and target_file):
            url = urllib.parse.urljoin(file, target_file) if file.startswith("http") else target_file
            return (url, fragment) if self.follow_remote else None
        if target_file:
            joined = self.reader.join(file, urllib.parse.unquote(target_file))
            return None if joined is None else (joined, fragment)
        return file, fragment

    def follow(self, ref: Any, file: str, used_at: str) -> Resolved:
        """The node a `$ref` value names, relative to `file`; `used_at` is for error messages."""
        key = (ref, file) if isinstance(ref, str) else None
        found = self._followed.get(key) if key is not None else None
        if found is None:
            found = self._follow(ref, file, used_at)
            if key is not None:
                self._followed[key] = found
        return found

    def _follow(self, ref: Any, file: str, used_at: str) -> Resolved:
        if not isinstance(ref, str):
            raise SpecError(SpecErrorKind.UNRESOLVED_REF, f"{file}: $ref at {used_at or '/'} is not a string")
        target_file, _, fragment = ref.partition("#")
        if target_file.startswith(("http://", "https://")) or (
            file.startswith(("http://", "https://")) and target_file
        ):
            url = urllib.parse.urljoin(file, target_file) if file.startswith("http") else target_file
            if not self.follow_remote:
                return Resolved(None, url, "/" + fragment.lstrip("/"),
                                note=f"remote $ref {ref!r} not followed (pass --follow-remote-refs)")
            target_file = url
        elif target_file:
            joined = self.reader.join(file, urllib.parse.unquote(target_file))
            if joined is None:
                raise SpecError(SpecErrorKind.UNRESOLVED_REF,
                                f"{file}: $ref {ref!r} at {used_at or '/'} leaves the repository")
            target_file = joined
        else:
            target_file = file
        try:
            document = self.document(target_file)
        except SpecError as exc:
            if exc.kind is SpecErrorKind.NOT_FOUND:
                raise SpecError(SpecErrorKind.UNRESOLVED_REF,
                                f"{file}: $ref {ref!r} at {used_at or '/'}: {exc.message}") from None
            raise
        pointer = urllib.parse.unquote(fragment)
        node = self._walk_pointer(document, pointer)
        if node is _MISSING:
            raise SpecError(SpecErrorKind.UNRESOLVED_REF,
                            f"{file}: $ref {ref!r} at {used_at or '/'} names nothing in {target_file}")
        return Resolved(node, target_file, pointer if pointer.startswith("/") or not pointer else "/" + pointer)

    @staticmethod
    def _walk_pointer(document: Any, pointer: str) -> Any:
        node = document
        if pointer in ("", "/"):
            return node
        for raw in pointer.lstrip("/").split("/"):
            token = unescape_token(raw)
            if isinstance(node, dict):
                if token not in node:
                    return _MISSING
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return _MISSING
        return node

    def resolve_node(self, node: Any, file: str | None = None) -> Any:
        """Follow refs from `node` until a non-reference; remote refs not followed give None."""
        current_file = file or self.reader.entry
        seen: set[int] = set()
        while isinstance(node, dict) and "$ref" in node:
            if id(node) in seen:
                return {}
            seen.add(id(node))
            resolved = self.follow(node["$ref"], current_file, "")
            if resolved.note is not None:
                return None
            node, current_file = resolved.node, resolved.file
        return node

    # -- lines ------------------------------------------------------------------------------

    def line_of(self, location: SourceLocation) -> int | None:
        """1-based line of the key that introduces the node at `location` (None when unknown)."""
        loaded = self._docs.get(location.file)
        if loaded is None:
            return None
        pointer = location.pointer
        line = loaded.lines.get(pointer)
        if line is None:
            if loaded.key_lines is not None:
                tokens = pointer.split("/")[1:] if pointer else []
                if "~" in pointer:
                    tokens = [unescape_token(t) for t in tokens]
                line = _yaml_line(loaded.value, loaded.key_lines, tokens)
            else:
                if loaded.json_lines is None:
                    loaded.json_lines = JsonKeyLines(loaded.text or "", loaded.value, loaded.closings, loaded.scan)
                    loaded.text = loaded.scan = None  # the scanner holds them until it has counted the lines
                line = loaded.json_lines.line_at(pointer)
            loaded.lines[pointer] = line
        return line


def _yaml_line(document: Any, key_lines: KeyLines, tokens: list[str]) -> int:
    node, line = document, 1
    for token in tokens:
        if isinstance(node, dict) and token in node:
            line = key_lines.get(id(node), {}).get(token, line)
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
    return line


_MISSING: Any = object()


_STABLE = json_encoder(sort_keys=True, separators=(",", ":"))


def dumps_stable(value: Any) -> str:
    """Canonical JSON used for fingerprints and comparisons (keys sorted, no spaces, non-ASCII as it is)."""
    return _STABLE(value)
