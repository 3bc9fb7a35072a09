"""The `satori-ci` command: parse arguments, wire the stages, print, exit. Nothing else."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from satori_ci import __version__
from satori_ci.cli import check_commands, infer_commands, run_commands, spec_commands
from satori_ci.cli.errors import UsageError, classify
from satori_ci.exit_codes import ExitCode

Handler = Callable[[argparse.Namespace], int]

COMMAND_MODULES = (spec_commands, infer_commands, run_commands, check_commands)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="satori-ci",
        description="Test oracles for REST APIs, inferred from the OpenAPI spec and checked on every PR.",
    )
    parser.add_argument("--version", action="version", version=f"satori-ci {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("satori-ci: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except UsageError as exc:
        print(f"satori-ci: error: {exc}", file=sys.stderr)
        return ExitCode.INPUT_ERROR
    except Exception as exc:  # the one error boundary: classified, worded, never a traceback
        code, message = classify(exc)
        if code is None:
            if os.environ.get("SATORI_DEBUG"):
                traceback.print_exc()
            message = f"internal error: {type(exc).__name__}: {exc} (set SATORI_DEBUG=1 for a traceback)"
            code = ExitCode.INPUT_ERROR
        print(f"satori-ci: error: {message}", file=sys.stderr)
        return code


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
