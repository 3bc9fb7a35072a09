"""`satori-ci fields` and `satori-ci spec-diff`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any

from satori_ci import redaction
from satori_ci.cli.process_end import hold_until_exit
from satori_ci.errors import ExitCode, UsageError
from satori_ci.report.fields_lines import fields_json_lines
from satori_ci.report.spec_text import diff_json, diff_text, fields_table
from satori_ci.spec import ResponseBody, ResponseField, Spec, diff_fields, load_spec
from satori_ci.spec.model import collector_paused
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
    """The fields of every response of `spec`, or of one operation's (`METHOD /path [STATUS]`)."""
    if operation is None:
        return list(spec.fields)
    return [f for body in select_bodies(spec, operation) for f in body.fields()]


def select_bodies(spec: Spec, operation: str | None) -> tuple[ResponseBody, ...]:
    """The response bodies of `spec`, or of one operation's (`METHOD /path [STATUS]`)."""
    if operation is None:
        return spec.bodies
    method, path, status = parse_operation(operation)
    chosen = tuple(b for b in spec.bodies if b.operation.method == method and b.operation.path == path
                   and (status is None or b.operation.status == status))
    if not any(b.field_count for b in chosen) and not any(o.method == method and o.path == path
                                                          for o in spec.operations):
        raise UsageError(f"{spec.source}: no operation {method} {path}")
    return chosen


def run_fields(args: argparse.Namespace) -> int:
    # The collector stays paused while the fields are listed, and until the spec is held to the process's end
    # (frozen) or, in a process that goes on, freed: resumed with the spec alive and tracked, its first pass
    # would walk every object allocated since it paused (GitHub's spec: millions) for nothing.
    with collector_paused():
        hold_until_exit(_print_fields(args))
    return ExitCode.OK


def _print_fields(args: argparse.Namespace) -> Spec:
    spec = load(args.spec, args)
    if args.json:
        redactor = redaction.current()
        _write_lines(fields_json_lines(select_bodies(spec, args.operation), spec.line_of, redactor), redactor)
    else:
        fields = select_fields(spec, args.operation)
        sys.stdout.write(fields_table(fields, lambda f: spec.line_of(f.location)))
    return spec


CHARS_PER_WRITE = 400_000
"""About a thousand lines of `fields --json`: each write's text stays in the processor's cache while it is made
log-safe."""


def _write_lines(texts: Iterable[str], redactor: redaction.Redactor) -> None:
    """`texts` (whole lines, each ending with a line break) on standard output, their secrets replaced, about
    `CHARS_PER_WRITE` at a time.

    Chunks end with a line break, which no replacement crosses: the log's (`log_safe` escapes characters,
    breaks `##[` and the `::` starting a line) and a secret's, unless one holds a line break: then the
    text goes in one piece.
    """
    secrets = redactor.secrets
    whole = any("\n" in secret for secret in secrets)
    chunk: list[str] = []
    size = 0
    for text in texts:
        chunk.append(text)
        size += len(text)
        if size >= CHARS_PER_WRITE and not whole:
            _write_chunk(chunk, redactor)
            chunk, size = [], 0
    _write_chunk(chunk, redactor)


def _write_chunk(texts: list[str], redactor: redaction.Redactor) -> None:
    text = "".join(texts)
    if redactor.secrets:
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
