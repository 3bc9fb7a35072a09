"""The `satori-ci` command: parse arguments, wire the stages, print, exit. Nothing else.

Everything a command prints passes the process's redactor (`satori_ci.redaction.installed`), fed with every
secret value the command line and the environment hold: `--header` and `--header-env` values, the config's
staging header values, every `SATORI_AUTH_*` value, the LLM key, credentials in URLs. Standard output of
`collection` (a Postman collection: its `{{SATORI_AUTH_…}}` references and sample values must stay as written)
gets the secrets redacted but not the generic URL masking.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn

from satori_ci import __version__
from satori_ci.cli import process_end
from satori_ci.cli.errors import stop
from satori_ci.errors import ExitCode, interrupts_stop_the_run
from satori_ci.redaction import environ_secrets, header_secrets, installed, url_secrets
from satori_ci.spec.source import git_toplevel

if TYPE_CHECKING:
    from satori_ci.config import ProjectConfig

Handler = Callable[[argparse.Namespace], int]

COMMANDS = {
    "fields": "spec_commands", "spec-diff": "spec_commands",
    "infer": "infer_commands", "oracle-diff": "infer_commands",
    "accept": "review_commands", "reject": "review_commands",
    "collection": "run_commands", "run": "run_commands", "verify": "run_commands",
    "check": "check_commands", "merge": "check_commands", "demo": "check_commands",
}
"""Each command, in `--help` order, and the module of `satori_ci.cli` that registers and runs it."""

CONFIG_FILE = ".satori.yml"
"""`satori_ci.config.DEFAULT_CONFIG`, named here so that a command can tell there is none without importing it."""


class OneLineParser(argparse.ArgumentParser):
    """Usage mistakes are one line on stderr (and exit 2), not argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.INPUT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given a known `command`, of that one's module alone, which parses
    `COMMAND ...` as the whole one does (its `--help` and errors included) without importing the other
    modules, and what they import (`fields` starts without pydantic, openai or PyGithub)."""
    parser = OneLineParser(
        prog="satori-ci",
        description="Test oracles for REST APIs, inferred from the OpenAPI spec and checked on every PR.",
    )
    parser.add_argument("--version", action="version", version=f"satori-ci {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=OneLineParser)
    modules = [COMMANDS[command]] if command in COMMANDS else dict.fromkeys(COMMANDS.values())
    for module in modules:
        importlib.import_module(f"satori_ci.cli.{module}").register(sub)
    return parser


DATA_ON_STDOUT = frozenset({"collection"})
"""Commands whose standard output is an artifact to run, not a report: only literal secrets are redacted."""


def secrets_of(args: argparse.Namespace, environ: Mapping[str, str]) -> list[str]:
    """Every secret value the command line, the config file and the environment give this command."""
    headers = [text.partition(":")[2].strip() for text in getattr(args, "header", None) or []]
    for text in getattr(args, "header_env", None) or []:
        headers.append(environ.get(text.partition("=")[2].strip()) or "")
    urls = [getattr(args, "staging_url", None), getattr(args, "base_url", None)]
    config = _config(getattr(args, "config", None))
    for spec in config.specs if config is not None else ():
        headers += [environ.get(variable) or "" for _, variable in spec.headers]
        urls += [spec.staging_url, environ.get(spec.staging_url_env) if spec.staging_url_env else None]
    keys = [environ.get(getattr(args, "api_key_env", None) or "OPENAI_API_KEY"), environ.get("OPENAI_API_KEY")]
    return [*(k for k in keys if k), *header_secrets(h for h in headers if h), *environ_secrets(environ),
            *(secret for url in urls for secret in url_secrets(url))]


def _config(path: str | None) -> ProjectConfig | None:
    """The config `load_config(path)` reads, None when it cannot be read (the handler reads it again and reports
    its errors; here it only names more secrets) or when there is no file to read: then `satori_ci.config`, and
    pydantic with it, is not imported."""
    if path is None and not _config_file_exists():
        return None
    from satori_ci.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError:
        return None


def _config_file_exists() -> bool:
    """Whether `load_config(None)` finds a file: `.satori.yml` here, else at the top of the repository."""
    if os.path.exists(CONFIG_FILE):
        return True
    root = git_toplevel(os.getcwd())
    return root is not None and os.path.exists(os.path.join(root, CONFIG_FILE))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. SIGTERM (a cancelled CI job, `timeout`, `kill`) and SIGINT, even one inherited ignored,
    stop it as Ctrl-C does: Newman is stopped, temporary files are removed, what was done is kept, exit 130 with
    one line (the handlers are the caller's again on return; off the main thread, where no handler can be
    installed, the signals keep their own)."""
    with interrupts_stop_the_run():
        try:
            words = list(sys.argv[1:] if argv is None else argv)
            args = build_parser(words[0] if words else None).parse_args(words)
            with installed(secrets_of(args, os.environ), generic_stdout=args.command not in DATA_ON_STDOUT):
                return _run(args)
        except KeyboardInterrupt as exc:  # before the command started (its own interrupts are `_run`'s)
            return stop(exc)


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
    process_end.begin()
    process_end.end(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
