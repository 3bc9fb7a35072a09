"""GitHub Actions' text interfaces as pure strings, and two small file writers.

- `output_lines` builds what `GITHUB_OUTPUT` expects (`name=value`, or the heredoc form
  `name<<DELIM` … `DELIM` for multi-line values, with a random delimiter that never occurs in the
  value); `append_outputs` appends it to the file.
- `append_summary` appends Markdown to `GITHUB_STEP_SUMMARY`, kept under GitHub's 1 MiB per step.
- Workflow commands (`::notice file=…,line=…::message`, `::add-mask::…`, `::group::…`) with the
  runner's escaping (`%`, CR, LF in data; also `:` and `,` in properties). They are printed with
  `satori_ci.redaction.write_line`, the one way a line of the log starts with `::`: every other text
  printed is made `redaction.log_safe` (no line of it starts with `::`, none holds `##[`).
- `::add-mask::` lines for secrets. Redaction itself is `satori_ci.redaction`, the one redaction point.

Nothing here prints: the action (`satori_ci.action`) prints what these functions return.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
SUMMARY_LIMIT_BYTES = 1024 * 1024
"""GitHub refuses a step's job summary above 1 MiB."""
SUMMARY_TRUNCATED = "\n\n… (truncated: the job summary is limited to 1 MiB)\n"
_MAX_DELIMITER_DRAWS = 100


def _random_token() -> str:
    return uuid.uuid4().hex


# -- GITHUB_OUTPUT --------------------------------------------------------------------------------

def output_lines(outputs: Mapping[str, str], *, token: Callable[[], str] = _random_token) -> str:
    """The `GITHUB_OUTPUT` text for `outputs`, one entry per name, in order.

    Single-line values are written `name=value`; values with a line break use the heredoc form
    with the delimiter `ghadelimiter_<token()>`, drawn again until it occurs in neither the value
    nor the name. Line breaks are written as LF: the runner reads CR, LF and CRLF alike. `token`
    is injectable for tests.
    """
    parts: list[str] = []
    for name, value in outputs.items():
        if not OUTPUT_NAME.match(name):
            raise ValueError(f"invalid output name {name!r}")
        if "\n" not in value and "\r" not in value:
            parts.append(f"{name}={value}\n")
            continue
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        delimiter = _delimiter(name, value, token)
        parts.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(parts)


def _delimiter(name: str, value: str, token: Callable[[], str]) -> str:
    for _ in range(_MAX_DELIMITER_DRAWS):
        delimiter = f"ghadelimiter_{token()}"
        if delimiter not in value and delimiter not in name and "\n" not in delimiter and "\r" not in delimiter:
            return delimiter
    raise ValueError(f"no safe heredoc delimiter found for output {name!r}")


def append_outputs(path: Path, outputs: Mapping[str, str], *, token: Callable[[], str] = _random_token) -> None:
    with path.open("a", encoding="utf-8", newline="") as handle:
        handle.write(output_lines(outputs, token=token))


# -- GITHUB_STEP_SUMMARY --------------------------------------------------------------------------

def append_summary(path: Path, text: str, *, limit_bytes: int = SUMMARY_LIMIT_BYTES) -> bool:
    """Append `text` (with a final newline) to the job summary; False when it fitted whole.

    What would take the file over `limit_bytes` is cut at a character boundary and replaced by a
    "truncated" line; when not even that fits, nothing is written.
    """
    if not text.endswith("\n"):
        text += "\n"
    used = path.stat().st_size if path.exists() else 0
    data = text.encode("utf-8")
    truncated = used + len(data) > limit_bytes
    if truncated:
        note = SUMMARY_TRUNCATED.encode("utf-8")
        room = limit_bytes - used - len(note)
        if room < 0:
            return True
        data = data[:room].decode("utf-8", errors="ignore").encode("utf-8") + note
    with path.open("ab") as handle:
        handle.write(data)
    return truncated


# -- workflow commands ----------------------------------------------------------------------------

def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str = "", **properties: str | int | None) -> str:
    """`::command key=value,…::message`; properties that are None are left out; `##[` in a value (the runner's
    other command syntax) broken by an invisible joiner."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items()
                     if value is not None)
    return _inert(f"::{command}{' ' + props if props else ''}::{escape_data(message)}")


def _inert(line: str) -> str:
    return line.replace("##[", "##\u200d[")


def _annotation(command: str, message: str, title: str | None, file: str | None, line: int | None,
                end_line: int | None, col: int | None, end_column: int | None) -> str:
    return workflow_command(command, message, title=title, file=file, line=line, endLine=end_line,
                            col=col, endColumn=end_column)


def notice(message: str, *, title: str | None = None, file: str | None = None, line: int | None = None,
           end_line: int | None = None, col: int | None = None, end_column: int | None = None) -> str:
    return _annotation("notice", message, title, file, line, end_line, col, end_column)


def warning(message: str, *, title: str | None = None, file: str | None = None, line: int | None = None,
            end_line: int | None = None, col: int | None = None, end_column: int | None = None) -> str:
    return _annotation("warning", message, title, file, line, end_line, col, end_column)


def error(message: str, *, title: str | None = None, file: str | None = None, line: int | None = None,
          end_line: int | None = None, col: int | None = None, end_column: int | None = None) -> str:
    return _annotation("error", message, title, file, line, end_line, col, end_column)


def group(title: str) -> str:
    return workflow_command("group", title)


def endgroup() -> str:
    return "::endgroup::"


def stop_commands(token: str) -> str:
    """Stops the runner from reading workflow commands (around untrusted text) until `resume_commands(token)`."""
    return f"::stop-commands::{token}"


def resume_commands(token: str) -> str:
    return f"::{token}::"


# -- secrets --------------------------------------------------------------------------------------

def mask_line(secret: str) -> str:
    """`::add-mask::` for each non-blank line of `secret` (the runner masks log lines one by one,
    so a multi-line secret must be registered line by line); "" for a blank secret."""
    lines = (line.strip() for line in secret.splitlines())
    return "\n".join(f"::add-mask::{escape_data(line)}" for line in lines if line)


def mask_lines(secrets: Iterable[str]) -> str:
    """`mask_line` of every secret, one command per line."""
    return "\n".join(mask for mask in (mask_line(s) for s in secrets) if mask)
