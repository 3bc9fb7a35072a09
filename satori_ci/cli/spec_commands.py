"""`satori-ci fields` and `satori-ci spec-diff`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from satori_ci.cli.errors import UsageError
from satori_ci.exit_codes import ExitCode
from satori_ci.report.spec_text import diff_json, diff_text, fields_jsonl, fields_table
from satori_ci.spec import ResponseField, Spec, diff_fields, load_spec
from satori_ci.spec.source import DEFAULT_MAX_BYTES


def add_spec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--follow-remote-refs", action="store_true",
                        help="fetch http(s) $refs (off by default: spec text is untrusted)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help=f"refuse documents larger than this (default {DEFAULT_MAX_BYTES:,})")


def load(ref: str, args: argparse.Namespace) -> Spec:
    return load_spec(ref, follow_remote_refs=args.follow_remote_refs, max_bytes=args.max_bytes)


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
    spec = load(args.spec, args)
    fields = select_fields(spec, args.operation)

    def line_of(f: ResponseField) -> int | None:
        return spec.line_of(f.location)

    sys.stdout.write(fields_jsonl(fields, line_of) if args.json else fields_table(fields, line_of))
    return ExitCode.OK


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
