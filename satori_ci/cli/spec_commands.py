"""`satori-ci fields` and `satori-ci spec-diff`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from satori_ci import redaction
from satori_ci.errors import ExitCode, UsageError
from satori_ci.report.spec_text import diff_json, diff_text, fields_table
from satori_ci.spec import ResponseField, Spec, diff_fields, load_spec
from satori_ci.spec.loader import collector_paused
from satori_ci.spec.source import DEFAULT_MAX_BYTES


def add_spec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--follow-remote-refs", action="store_true",
                        help="fetch http(s) $refs (off by default: spec text is untrusted)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help=f"refuse documents larger than this (default {DEFAULT_MAX_BYTES:,})")


def load(ref: str, args: argparse.Namespace) -> Spec:
    """The spec, its warnings (what was read other than as written) said on stderr: every command's way in."""
    spec = load_spec(ref, follow_remote_refs=args.follow_remote_refs, max_bytes=args.max_bytes)
    print_warnings(spec)
    return spec


def print_warnings(spec: Spec) -> None:
    """The spec's warnings (what was read other than as written), one line each on stderr."""
    for warning in spec.warnings:
        print(f"satori-ci: warning: {warning}", file=sys.stderr)


def parse_operation(text: str) -> tuple[str, str, str | None]:
    """`GET /path` or `GET /path 200` into its parts."""
    parts = text.split()
    if len(parts) not in (2, 3) or not parts[1].startswith("/"):
        raise UsageError(f"--operation takes 'METHOD /path' or 'METHOD /path STATUS', not {text!r}")
    return parts[0].upper(), parts[1], parts[2] if len(parts) == 3 else None


def select_fields(spec: Spec, operation: str | None) -> list[ResponseField]:
    if operation is None:
        return list(spec.fields)
    method, path, status = parse_operation(operation)
    chosen = [f for f in spec.fields if f.operation.method == method and f.operation.path == path
              and (status is None or f.operation.status == status)]
    if not chosen and not any(o.method == method and o.path == path for o in spec.operations):
        raise UsageError(f"{spec.source}: no operation {method} {path}")
    return chosen


def run_fields(args: argparse.Namespace) -> int:
    # The collector stays paused while the fields are listed and freed: resumed with the spec alive, its
    # first pass would walk every object allocated since it paused (GitHub's spec: millions) for nothing.
    with collector_paused():
        _print_fields(args)
    return ExitCode.OK


def _print_fields(args: argparse.Namespace) -> None:
    spec = load(args.spec, args)
    fields = select_fields(spec, args.operation)
    if args.json:
        write_fields_jsonl(fields, spec.line_of)
    else:
        sys.stdout.write(fields_table(fields, lambda f: spec.line_of(f.location)))


def write_fields_jsonl(fields: list[ResponseField], line_of: Callable[[Any], int | None]) -> None:
    """`report.spec_text.fields_jsonl` of `fields`, redacted; the same bytes, faster.

    GitHub's spec has 77,000 fields but only 6,000 distinct field states (a schema's fields are shared by
    every operation using it): each line is joined from pieces encoded and redacted once per operation,
    field path and field state, instead of a dict built and `json.dumps`ed per field and the 30 MB text
    redacted as a whole (1.5 s). Redacting the pieces is redacting the text: a piece is whole JSON tokens,
    pieces meet at `: "`, `", ` or `, "`, and no match of the redactor's generic patterns (URL credentials,
    key-like query values) holds a quote or a space, so none spans two pieces. A secret fed to the
    redactor could (`null, ` is a valid if absurd secret): when there are secrets, the joined text also
    passes their literal replacement, which costs little. The text is written with
    `satori_ci.redaction.write_redacted` (made safe for a CI log: JSON escapes only, not redacted again) in
    `_write_lines`' chunks.
    """
    redactor = redaction.current()
    redact = redactor.redact
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode  # as `json.dumps(..., ensure_ascii=False)`
    operations: dict[tuple[Any, Any], tuple[str, str]] = {}
    paths: dict[str, str] = {}
    states: dict[int, tuple[Any, ...]] = {}
    lines: list[str] = []
    append = lines.append
    op = ident = None
    head = operation_id = ""
    for f in fields:
        if f.operation is not op or f.operation_id is not ident:  # the fields of an operation come together
            op, ident = f.operation, f.operation_id
            pieces = operations.get((op, ident))
            if pieces is None:
                pieces = operations[(op, ident)] = (
                    redact(f'{{"method": {encode(op.method)}, "path": {encode(op.path)}, '
                           f'"status": {encode(op.status)}, "field": '),
                    redact(f', "operation_id": {encode(ident)}'))
            head, operation_id = pieces
        path = paths.get(f.field)
        if path is None:
            path = paths[f.field] = redact(encode(f.field))
        # the state a field shares with the other uses of its schema: type, facts, fingerprint, location, notes
        state = states.get(id(f.location))
        if state is None or not (state[0] is f.facts and state[1] is f.fingerprint and state[2] is f.notes
                                 and state[3] is f.type):
            state = states[id(f.location)] = (f.facts, f.fingerprint, f.notes, f.type, *_state_pieces(
                f, line_of, encode, redact))
        append(head + path + state[4] + operation_id + state[5])
    _write_lines(lines, redactor)


def _state_pieces(f: ResponseField, line_of: Callable[[Any], int | None], encode: Callable[[Any], str],
                  redact: Callable[[str], str]) -> tuple[str, str]:
    """The redacted JSON of a field's type, and of its facts, fingerprint, source and notes (ending its line)."""
    present = f.facts.as_dict()
    facts = f", {encode(present)[1:-1]}" if present else ""  # `, "key": value` for each
    line = line_of(f.location)
    source = f"{f.location.file}:{line}" if line else f.location.file
    notes = f', "notes": {encode(list(f.notes))}' if f.notes else ""
    return redact(f', "type": {encode(f.type)}'), redact(
        f'{facts}, "fingerprint": {encode(f.fingerprint)}, "source": {encode(source)}{notes}}}\n')


LINES_PER_WRITE = 1000
"""About 400 KB of `fields --json`: each write's text stays in the processor's cache while it is made log-safe."""


def _write_lines(lines: list[str], redactor: redaction.Redactor) -> None:
    """`lines` (each ending with its line break) on standard output, their secrets replaced, a chunk at a time.

    Chunks end with a line break, which no replacement crosses: the log's (`log_safe` escapes characters,
    breaks `##[` and the `::` starting a line) and a secret's, unless one holds a line break: then the
    text goes in one piece.
    """
    secrets = redactor.secrets
    step = (len(lines) or 1) if any("\n" in secret for secret in secrets) else LINES_PER_WRITE
    for start in range(0, len(lines), step):
        text = "".join(lines[start:start + step])
        if secrets:
            text = redactor.redact_literals(text)
        redaction.write_redacted(sys.stdout, text)


def run_spec_diff(args: argparse.Namespace) -> int:
    base = load(args.base, args)
    head = load(args.head, args)
    diff = diff_fields(base.fields, head.fields)
    if args.json:
        payload: dict[str, Any] = {"base": base.source, "head": head.source, **diff_json(diff)}
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(diff_text(diff))
    return ExitCode.OK


def register(sub: Any) -> None:
    fields = sub.add_parser("fields", help="list a spec's response fields",
                            description="List the response fields of every 2XX JSON response, in spec order.")
    fields.add_argument("spec", metavar="SPEC", help="a file, or REV:path in git (origin/main:api/openapi.yaml)")
    fields.add_argument("--operation", metavar='"METHOD /path"', help="only this operation")
    fields.add_argument("--json", action="store_true", help="JSON Lines instead of a table")
    add_spec_options(fields)
    fields.set_defaults(handler=run_fields)

    diff = sub.add_parser("spec-diff", help="diff the response fields of two spec versions",
                          description="Added, removed, changed, moved and unchanged response fields.")
    diff.add_argument("base", metavar="BASE", help="a file or REV:path")
    diff.add_argument("head", metavar="HEAD", help="a file or REV:path")
    diff.add_argument("--json", action="store_true", help="machine-readable output")
    add_spec_options(diff)
    diff.set_defaults(handler=run_spec_diff)
