"""`fields --json` lines straight from the walker's trees: `spec_text.fields_jsonl`'s bytes, redacted, faster.

GitHub's spec has 77,000 fields but 6,000 field states (a schema's fields are shared by every operation using
it) in 7,000 nested trees: a tree's lines are made once, as a `%` format taking each line's head and operation
id, with a mark where the path before the tree goes; a body's lines are its tree's format applied to its own
head and operation id. No `ResponseField` or dict per field is built, and the 30 MB text is not redacted as a
whole (1.5 s).

Redacting the pieces is redacting the text. A piece is whole JSON tokens (a path is the one string token its
pieces make); pieces meet at `: "`, `", `, `, "` or inside a path string, where a path piece starts with `.`,
`[` or `{`. No match of the redactor's generic patterns (URL credentials, key-like query values) holds a quote
or a space, so none spans two tokens. Within a path they need `//` (which cannot span two path pieces) or `=`:
a path with a piece holding either is redacted whole, the others need no generic redaction. A secret fed to
the redactor can span pieces (`null, ` is a valid if absurd secret): the joined text passes their literal
replacement (the caller's `Redactor.redact_literals`), which costs little.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from json.encoder import encode_basestring

from satori_ci.redaction import Redactor
from satori_ci.spec.json_encode import json_encoder
from satori_ci.spec.model import FieldState, FieldTree, ResponseBody, SourceLocation

LineOf = Callable[[SourceLocation], int | None]


PREFIX = "\x01"
"""Where a tree's text (`_LineWriter._text`) takes the path before the tree's own. JSON text holds no control
character (they are escaped), nor does a redacted piece of it."""


def fields_json_lines(bodies: Iterable[ResponseBody], line_of: LineOf, redactor: Redactor) -> Iterator[str]:
    """The `fields --json` lines of every field of `bodies`, in order: texts of whole lines, each ending with a
    line break (a text per body, or per line), made as they are taken (the 30 MB of GitHub's spec are never
    all held at once)."""
    writer = _LineWriter(line_of, redactor)
    texts = writer.texts
    for body in bodies:
        writer.body(body)
        yield from texts
        texts.clear()


def _at_root(suffix: str) -> str:
    """A path piece at a body's root: a path does not start with its first name's dot."""
    return suffix[1:] if suffix[:1] == "." else suffix


class _LineWriter:
    """A body's lines are its tree's text, a `%` format with each line's head and operation id as arguments; a
    tree's text is made once (a nested tree's, with its place in the path put in). A body with a path that the
    redactor's generic patterns may change (a piece holds `//` or `=`) is written a line at a time, those paths
    redacted whole."""

    def __init__(self, line_of: LineOf, redactor: Redactor) -> None:
        self.texts: list[str] = []
        self._line_of = line_of
        self._redact = redactor.redact
        self._encode = json_encoder()  # as `json.dumps(..., ensure_ascii=False)`
        self._heads: dict[tuple[object, object], tuple[str, str]] = {}
        self._pieces: dict[str, tuple[str, bool, str]] = {}
        """path piece -> its JSON-escaped text, whether a path holding it may change when redacted, and the text
        with `%` doubled (for a format)"""
        self._paths: dict[str, str] = {}
        """a path's JSON-escaped text -> its JSON string, redacted (only for those that may change)"""
        self._states: dict[int, tuple[FieldState, str, str, str, str]] = {}
        """id(field state) -> (it, kept alive; its type piece; its facts to the line's end; both with `%` doubled)"""
        self._trees: dict[int, tuple[FieldTree, str, bool]] = {}
        """id(tree) -> (it, kept alive; its text; whether a path piece in it may change when redacted)"""
        self._roots: dict[int, tuple[FieldTree, str, bool]] = {}
        """the same, for the trees of bodies: their paths are whole (no `PREFIX`, no leading dot)"""
        self._head = self._operation_id = ""

    def body(self, body: ResponseBody) -> None:
        key = (body.operation, body.operation_id)
        pieces = self._heads.get(key)
        if pieces is None:
            op, encode, redact = body.operation, self._encode, self._redact
            pieces = self._heads[key] = (
                redact(f'{{"method": {encode(op.method)}, "path": {encode(op.path)}, '
                       f'"status": {encode(op.status)}, "field": '),
                redact(f', "operation_id": {encode(body.operation_id)}'))
        head, operation_id = pieces
        known = self._roots.get(id(body.tree))
        if known is None:
            known = self._roots[id(body.tree)] = (body.tree, *self._root_text(body.tree))
        if known[2]:
            self._head, self._operation_id = head, operation_id
            self._lines(body.tree, "", False)
        elif known[1]:
            self.texts.append(known[1] % ((head, operation_id) * body.field_count))

    def _piece(self, suffix: str) -> tuple[str, bool, str]:
        piece = self._pieces.get(suffix)
        if piece is None:
            text = encode_basestring(suffix)[1:-1]
            piece = self._pieces[suffix] = (text, "//" in text or "=" in text, text.replace("%", "%%"))
        return piece

    def _state(self, state: FieldState) -> tuple[FieldState, str, str, str, str]:
        pieces = self._states.get(id(state))
        if pieces is None:
            kind, rest = self._state_pieces(state)
            pieces = self._states[id(state)] = (state, kind, rest, kind.replace("%", "%%"), rest.replace("%", "%%"))
        return pieces

    def _text(self, tree: FieldTree) -> tuple[str, bool]:
        """The lines of `tree` as a format (a line's head and operation id for each `%s`) with `PREFIX` to replace;
        whether one path may change when redacted."""
        known = self._trees.get(id(tree))
        if known is not None:
            return known[1], known[2]
        parts: list[str] = []
        risky = False
        for suffix, item in tree[2]:
            _, piece_risky, piece = self._piece(suffix)
            risky = risky or piece_risky
            if isinstance(item, tuple):  # a nested subtree
                text, nested_risky = self._text(item)
                risky = risky or nested_risky
                parts.append(text.replace(PREFIX, PREFIX + piece) if piece else text)
            else:
                state = self._state(item)
                parts.append(f'%s"{PREFIX}{piece}"{state[3]}%s{state[4]}')
        text = "".join(parts)
        self._trees[id(tree)] = (tree, text, risky)
        return text, risky

    def _root_text(self, tree: FieldTree) -> tuple[str, bool]:
        """`_text` of a body's tree, its paths whole: a path does not start with its first name's dot."""
        parts: list[str] = []
        risky = False
        for suffix, item in tree[2]:
            _, piece_risky, piece = self._piece(_at_root(suffix))
            risky = risky or piece_risky
            if isinstance(item, tuple):
                text, nested_risky = self._text(item)
                risky = risky or nested_risky
                parts.append(text.replace(PREFIX, piece))
            else:
                state = self._state(item)
                parts.append(f'%s"{piece}"{state[3]}%s{state[4]}')
        return "".join(parts), risky

    def _lines(self, tree: FieldTree, prefix: str, redact_path: bool) -> None:
        """The lines of `tree` under `prefix` (JSON-escaped; "" at a body's root), one at a time."""
        append = self.texts.append
        head, operation_id = self._head, self._operation_id
        for suffix, item in tree[2]:
            piece, piece_risky, _ = self._piece(suffix if prefix else _at_root(suffix))
            path = prefix + piece
            redacted = redact_path or piece_risky
            if isinstance(item, tuple):  # a nested subtree
                self._lines(item, path, redacted)
                continue
            state = self._state(item)
            if redacted:
                append(f"{head}{self._redacted_path(path)}{state[1]}{operation_id}{state[2]}")
            else:
                append(f'{head}"{path}"{state[1]}{operation_id}{state[2]}')

    def _redacted_path(self, path: str) -> str:
        """The JSON string of a path (its escaped text), redacted."""
        done = self._paths.get(path)
        if done is None:
            done = self._paths[path] = self._redact(f'"{path}"')
        return done

    def _state_pieces(self, state: FieldState) -> tuple[str, str]:
        """The redacted JSON of a field's type, and of its facts, fingerprint, source and notes (ending its line)."""
        encode, redact = self._encode, self._redact
        present = state["facts"].as_dict()
        facts = f", {encode(present)[1:-1]}" if present else ""  # `, "key": value` for each
        location = state["location"]
        line = self._line_of(location)
        source = f"{location.file}:{line}" if line else location.file
        notes = f', "notes": {encode(list(state["notes"]))}' if state["notes"] else ""
        return redact(f', "type": {encode(state["type"])}'), redact(
            f'{facts}, "fingerprint": {encode(state["fingerprint"])}, "source": {encode(source)}{notes}}}\n')
