"""`satori-ci accept` and `satori-ci reject`: a reviewer's decision on observed suggestions, written into the
oracle file in place (only the decided oracles' lines change, comments and hand formatting stay)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from satori_ci.check.workspace import default_oracle_path, ensure_inside_workspace, write_atomically
from satori_ci.cli.spec_commands import parse_operation
from satori_ci.config import ProjectConfig, load_config
from satori_ci.errors import ExitCode, UsageError
from satori_ci.observe.select import BODY, OperationPattern, Picked, Selection, select, waiting
from satori_ci.oracles.edit import ACCEPT, REJECT, Change, edit_oracles
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import load_oracle_sites
from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.escape import visible
from satori_ci.report.oracle_text import describe
from satori_ci.spec.source import open_source

SELECTORS = ("--operation", "--field", "--kind")
AFTERWARDS = {
    ACCEPT.verb: "checked like any oracle from the next run; commit the file",
    REJECT.verb: "now `source: manual`, off: not suggested again; commit the file",
}


def selection_of(args: argparse.Namespace) -> Selection:
    """The selection the flags give (UsageError without `--all` nor a selector, or with both)."""
    selection = Selection(
        operations=tuple(OperationPattern(*parse_operation(text)) for text in args.operation or ()),
        fields=tuple(args.field or ()),
        kinds=tuple(OracleKind(kind) for kind in args.kind or ()),
    )
    if args.all and not selection.is_empty:
        raise UsageError(f"--all takes every waiting suggestion: give it alone, or select with {', '.join(SELECTORS)}")
    if not args.all and selection.is_empty:
        raise UsageError(f"say which suggestions: pass --all, or at least one of {', '.join(SELECTORS)}")
    return selection


def oracle_path(args: argparse.Namespace, config: ProjectConfig) -> Path:
    """The spec's oracle file as `infer` names it (`--oracles`, else from the spec's path in its repository and
    the config's `oracles_dir`); the spec is not read, `REV:path` names the working tree's oracle file."""
    if args.oracles:
        return Path(args.oracles)
    return default_oracle_path(open_source(args.spec).entry, config.oracles_dir or ".satori")


def read_text(path: Path) -> str:
    """The oracle file's text exactly as stored (line breaks untranslated)."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise OracleFileError(f"{path}: no such oracle file (run `satori-ci infer SPEC` first, or name it with "
                              "--oracles FILE)") from None
    except OSError as exc:
        raise OracleFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise OracleFileError(f"{path}: not UTF-8 text") from None


def picked_line(verb: str, picked: Picked) -> str:
    oracle = picked.oracle
    return visible(f"{verb} {oracle.operation}  {oracle.field or BODY}  {describe(oracle)}")


def run_review(args: argparse.Namespace) -> int:
    change: Change = args.review_change
    selection = selection_of(args)
    path = oracle_path(args, load_config(args.config))
    ensure_inside_workspace(path)  # before reading it
    text = read_text(path)
    sites = load_oracle_sites(text, str(path))
    total = len(waiting(sites.file))
    picked = select(sites.file, selection)
    if not picked:
        print(visible(f"no suggestion waiting in {path}; nothing {change.verb}" if selection.is_empty else
                      f"no waiting suggestion in {path} matches the selection ({total} waiting); "
                      f"nothing {change.verb}"))
        return ExitCode.OK
    write_atomically(path, edit_oracles(text, sites, [p.ref for p in picked], change, str(path)))
    for one in picked:
        print(picked_line(change.verb, one))
    plural = "" if total == 1 else "s"
    print(visible(f"{change.verb} {len(picked)} of {total} suggestion{plural} in {path}: {AFTERWARDS[change.verb]}"))
    return ExitCode.OK


def _add_parser(sub: Any, name: str, change: Change, summary: str, what: str) -> None:
    parser = sub.add_parser(name, help=summary, description=(
        f"{summary}: {what}. Only suggestions still waiting (`source: \"observed\"`, `enabled: false`) are "
        "touched, and in the file only their token changes. Selectors: a flag given twice is either value, "
        "different flags must all match."))
    parser.add_argument("spec", metavar="SPEC", help="a file or REV:path: names the oracle file, as for infer")
    parser.add_argument("--oracles", metavar="FILE",
                        help="the oracle file (default .satori/<spec path>.oracles.yaml), inside the repository")
    parser.add_argument("--config", metavar="FILE",
                        help="project config file for oracles_dir (default .satori.yml when present)")
    parser.add_argument("--all", action="store_true", help="every waiting suggestion (no selector with it)")
    parser.add_argument("--operation", action="append", metavar='"METHOD /path [STATUS]"',
                        help="suggestions of this operation (every status without STATUS); repeatable")
    parser.add_argument("--field", action="append", metavar="PATH",
                        help=f"suggestions of this field path, as the oracle file writes it ('' or {BODY} for "
                             "the body); repeatable")
    parser.add_argument("--kind", action="append", metavar="KIND", choices=[k.value for k in OracleKind],
                        help="suggestions of this oracle kind (string_is_url, ...); repeatable")
    parser.set_defaults(handler=run_review, review_change=change)


def register(sub: Any) -> None:
    _add_parser(sub, "accept", ACCEPT, "switch observed suggestions on",
                "`enabled: false` becomes `enabled: true`, and the oracle is checked from the next run")
    _add_parser(sub, "reject", REJECT, "dismiss observed suggestions for good",
                "`source: \"observed\"` becomes `source: \"manual\"`: the oracle stays off and nothing of its "
                "kind is suggested for the field again")
