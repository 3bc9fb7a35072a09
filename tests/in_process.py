"""A `satori-ci` command or the action's entry point run inside the test's process, seen as a process would see it:
its own working directory and environment, its exit code (a `SystemExit` included) and everything written to file
descriptors 1 and 2 (by Python or by a child that inherits them). Saves the interpreter start and the imports
(0.5 to 1.5 s a call); the tests of what only a real process shows (signals, `python -m`, the entry point file)
keep starting one."""

from __future__ import annotations

import io
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

UNTRUSTED_ENV = ("GITHUB_", "SATORI_", "OPENAI_", "INPUT_")
"""The prefixes of variables the tests' own environment must not pass on to the command."""


@dataclass(frozen=True)
class Done:
    """What a process run would give: `subprocess.CompletedProcess`'s names."""

    returncode: int
    stdout: str
    stderr: str


def clean_env(drop: Sequence[str] = UNTRUSTED_ENV) -> dict[str, str]:
    """This process's environment without the variables whose names start with one of `drop`."""
    return {k: v for k, v in os.environ.items() if not k.startswith(tuple(drop))}


def satori(cwd: Path | str, *args: str, env: Mapping[str, str] | None = None, stdin: str = "") -> Done:
    """`satori-ci ARGS` in `cwd` with `env` (default: `clean_env()`)."""
    from satori_ci.cli import main

    return call(lambda: main(list(args)), cwd, clean_env() if env is None else env, stdin)


def action(cwd: Path | str, env: Mapping[str, str]) -> Done:
    """`python entrypoint.py` in `cwd` with exactly `env`."""
    from satori_ci.action.main import main

    return call(main, cwd, env)


def call(entry: Callable[[], int | None], cwd: Path | str, env: Mapping[str, str], stdin: str = "") -> Done:
    """`entry()` as the body of a process: in `cwd`, with exactly `env`, its streams captured."""
    with _inside(cwd, env), _captured(stdin) as read:
        try:
            code = entry()
        except SystemExit as exc:  # argparse's --help and usage errors, sys.exit in the entry
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = read()
    return Done(int(code or 0), out, err)


@contextmanager
def _inside(cwd: Path | str, env: Mapping[str, str]) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with mock.patch.dict(os.environ, dict(env), clear=True):
            yield
    finally:
        os.chdir(before)


@contextmanager
def _captured(stdin: str) -> Iterator[Callable[[], tuple[str, str]]]:
    """File descriptors 1 and 2 and `sys.stdout`/`sys.stderr` into temporary files, `sys.stdin` from `stdin`; the
    streams are a UTF-8 process's (a lone surrogate on stdout is an error, on stderr it is escaped)."""
    texts: list[str] = []
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        with _redirected({1: out_file.fileno(), 2: err_file.fileno()}, stdin):
            yield lambda: (texts[0], texts[1])
        for file in (out_file, err_file):
            file.seek(0)
            text = file.read().decode("utf-8", errors="backslashreplace")
            texts.append(text.replace("\r\n", "\n").replace("\r", "\n"))  # as `subprocess.run(text=True)` reads


_STREAM_ERRORS = ((1, "strict"), (2, "backslashreplace"))
"""Python's own error handlers for a UTF-8 process's stdout and stderr."""


@contextmanager
def _redirected(targets: dict[int, int], stdin: str) -> Iterator[None]:
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    for stream in saved_streams[1:]:
        stream.flush()
    saved_fds = {fd: os.dup(fd) for fd in targets}
    try:
        for fd, target in targets.items():
            os.dup2(target, fd)
        sys.stdout, sys.stderr = (io.TextIOWrapper(open(fd, "wb", closefd=False), encoding="utf-8",  # noqa: SIM115
                                                   errors=errors) for fd, errors in _STREAM_ERRORS)
        sys.stdin = io.StringIO(stdin)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for fd, saved in saved_fds.items():
            os.dup2(saved, fd)
            os.close(saved)
