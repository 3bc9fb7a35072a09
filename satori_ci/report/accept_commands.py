"""The `satori-ci accept` and `satori-ci reject` commands every report names for the observed suggestions (pure,
plain text: each renderer encodes them for where they go)."""

from __future__ import annotations

import posixpath
import shlex

from satori_ci.oracles.file import oracle_file_name
from satori_ci.oracles.model import Oracle
from satori_ci.report import escape as esc
from satori_ci.report.model import SpecCheck

DEFAULT_ORACLES_DIR = ".satori"
MAX_OPERATION_COMMANDS = 20
"""Per-operation `accept` commands a report spells out."""


def default_oracle_file(spec_path: str) -> str:
    """Where `satori-ci accept SPEC` finds the oracle file without `--oracles` (run at the repository's root):
    `.satori/` and `oracles.file.oracle_file_name`, as `check.workspace.default_oracle_path` names it."""
    return f"{DEFAULT_ORACLES_DIR}/{oracle_file_name(spec_path)}"


def _arg(value: str) -> str:
    """One shell word; a path starting with `-` gets `./` so that it is not read as an option."""
    return shlex.quote("./" + value if value.startswith("-") else value)


def review_command(spec: SpecCheck, verb: str, *selectors: str) -> str:
    """`satori-ci accept|reject SPEC [--oracles FILE] SELECTORS`, every untrusted word shell-quoted (plain text:
    encode it for where it goes); `--oracles` only when the file is not where the command looks by default."""
    words = ["satori-ci", verb, _arg(spec.spec)]
    if posixpath.normpath(spec.oracle_file) != default_oracle_file(spec.spec):
        words += ["--oracles", _arg(spec.oracle_file)]
    return " ".join([*words, *selectors])


def all_command(spec: SpecCheck, verb: str = "accept") -> str:
    return review_command(spec, verb, "--all")


def oracle_command(spec: SpecCheck, verb: str, oracle: Oracle) -> str:
    """The command that selects this one suggestion: its operation and status, field and kind."""
    op = oracle.operation
    return review_command(spec, verb, "--operation", shlex.quote(f"{op.method} {op.path} {op.status}"),
                          "--field", shlex.quote(oracle.field), "--kind", shlex.quote(oracle.kind.value))


def operation_commands(spec: SpecCheck) -> list[str]:
    """One `accept --operation "METHOD /path"` per operation with suggestions, when there are several."""
    operations = list(dict.fromkeys((o.operation.method, o.operation.path) for o in spec.suggestions))
    if len(operations) < 2:
        return []
    return [review_command(spec, "accept", "--operation", shlex.quote(f"{method} {path}"))
            for method, path in operations]


def command_block(spec: SpecCheck, limit: int = MAX_OPERATION_COMMANDS) -> str:
    """The commands of the comment's suggestions section, as a fenced `sh` block."""
    per_operation = operation_commands(spec)
    shown = per_operation[:limit]
    more = [f"# … and {len(per_operation) - limit} more operations"] if len(per_operation) > limit else []
    lines = [all_command(spec), *shown, *more, all_command(spec, "reject")]
    return esc.fenced("\n".join(esc.visible(line) for line in lines), "sh")


