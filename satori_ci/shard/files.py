"""The shards' partial report files, found and read for a merge (`satori-ci merge` and the action's `merge:`): the
files named, each read with its size capped before anything is read, then parsed strictly (`report`)."""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from satori_ci.errors import ExitCode, UsageError
from satori_ci.shard.errors import ShardReportError
from satori_ci.shard.report import MAX_REPORT_BYTES, ReadReport, read_shard_report_bytes, report_too_large


def report_files(patterns: Sequence[str], *, action: bool = False) -> list[Path]:
    """The partial reports named by files, folders (their `*.json`, sorted) or globs, in order. On the command
    line an entry that names nothing is a usage error, and a file named twice stays twice (the merge says so);
    the action's `merge` input may name folders that overlap and globs that match nothing."""
    found: list[str] = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, recursive=True)) or ([pattern] if os.path.exists(pattern) else [])
        if not matches and not action:
            raise UsageError(f"{pattern}: no such file or folder")
        for match in matches:
            path = Path(match)
            if path.is_dir():
                found.extend(p.as_posix() for p in sorted(path.rglob("*.json")) if p.is_file())
            elif path.is_file():
                found.append(path.as_posix())
    return [Path(p) for p in (dict.fromkeys(found) if action else found)]


def read_report_file(path: Path) -> bytes:
    """A report file's bytes: a regular file whose size is checked before anything is read, and read no further
    than that cap (ShardReportError, exit 2, naming the file, otherwise)."""
    name = path.as_posix()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a pipe put there does not block
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ShardReportError(ExitCode.INPUT_ERROR, f"{name}: not a regular file: not a shard report")
            if info.st_size > MAX_REPORT_BYTES:
                raise report_too_large(name)
            return handle.read(info.st_size + 1)  # one byte more: a file that grew since is refused
    except OSError as exc:
        raise ShardReportError(ExitCode.INPUT_ERROR, f"{name}: cannot read ({exc.strerror or exc})") from None


def read_shard_reports(paths: list[Path]) -> list[tuple[str, ReadReport]]:
    """Each file read as a partial report (ShardReportError naming the file when it is not one)."""
    return [(path.as_posix(), read_shard_report_bytes(read_report_file(path), path.as_posix())) for path in paths]
