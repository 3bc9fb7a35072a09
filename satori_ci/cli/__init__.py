"""The `satori-ci` command: parse arguments, wire the stages, print, exit. Nothing else.

Everything a command prints passes the process's redactor (`satori_ci.redaction.installed`), fed with every
secret value the command line and the environment hold: `--header` and `--header-env` values, the config's
staging header values, every `SATORI_AUTH_*` value, the LLM key, credentials in URLs. Standard output of
`collection` (a Postman collection: its `{{SATORI_AUTH_…}}` references and sample values must stay as written)
gets the secrets redacted but not the generic URL masking.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import NoReturn

from satori_ci import __version__
from satori_ci.cli import check_commands, infer_commands, review_commands, run_commands, spec_commands
from satori_ci.cli.errors import stop
from satori_ci.config import ConfigError, load_config
from satori_ci.errors import ExitCode, terminate_as_interrupt
from satori_ci.redaction import environ_secrets, header_secrets, installed, url_secrets

Handler = Callable[[argparse.Namespace], int]

COMMAND_MODULES = (spec_commands, infer_commands, review_commands, run_commands, check_commands)


class OneLineParser(argparse.ArgumentParser):
    """Usage mistakes are one line on stderr (and exit 2), not argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.INPUT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="satori-ci",
        description="Test oracles for REST APIs, inferred from the OpenAPI spec and checked on every PR.",
    )
    parser.add_argument("--version", action="version", version=f"satori-ci {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=OneLineParser)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


DATA_ON_STDOUT = frozenset({"collection"})
"""Commands whose standard output is an artifact to run, not a report: only literal secrets are redacted."""


def secrets_of(args: argparse.Namespace, environ: Mapping[str, str]) -> list[str]:
    """Every secret value the command line, the config file and the environment give this command."""
    headers = [text.partition(":")[2].strip() for text in getattr(args, "header", None) or []]
    for text in getattr(args, "header_env", None) or []:
        headers.append(environ.get(text.partition("=")[2].strip()) or "")
    urls = [getattr(args, "staging_url", None), getattr(args, "base_url", None)]
    try:  # the handler reads it again and reports its errors; here it only names more secrets
        config = load_config(getattr(args, "config", None))
    except ConfigError:
        config = None
    for spec in config.specs if config is not None else ():
        headers += [environ.get(variable) or "" for _, variable in spec.headers]
        urls += [spec.staging_url, environ.get(spec.staging_url_env) if spec.staging_url_env else None]
    keys = [environ.get(getattr(args, "api_key_env", None) or "OPENAI_API_KEY"), environ.get("OPENAI_API_KEY")]
    return [*(k for k in keys if k), *header_secrets(h for h in headers if h), *environ_secrets(environ),
            *(secret for url in urls for secret in url_secrets(url))]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. SIGTERM (a cancelled CI job, `timeout`, `kill`) stops it as Ctrl-C does: Newman is stopped,
    temporary files are removed, what was done is kept, exit 130 with one line (the handler is the caller's
    again on return; off the main thread, where no handler can be installed, SIGTERM keeps its own)."""
    previous = _sigterm_as_interrupt()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        with installed(secrets_of(args, os.environ), generic_stdout=args.command not in DATA_ON_STDOUT):
            return _run(args)
    except KeyboardInterrupt as exc:  # before the command started (its own interrupts are `_run`'s)
        return stop(exc)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _sigterm_as_interrupt() -> signal.Handlers | Callable[[int, FrameType | None], object] | int | None:
    """Install the SIGTERM handler; the one it replaces (None when none could be installed)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)
    return signal.SIG_DFL if previous is None else previous


def _run(args: argparse.Namespace) -> int:
    handler: Handler = args.handler
    try:
        return handler(args)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except (KeyboardInterrupt, Exception) as exc:  # the one error boundary: `errors.classify`, one line, no traceback
        return stop(exc)


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
