"""How a `satori-ci` process ends: a command done with a large value leaves its memory to the system.

Freeing GitHub's loaded spec one object at a time takes 0.05 s, and the interpreter's teardown more; `fields`
holds its spec until the end instead, and a process that holds something ends with `os._exit` once its output is
flushed (as mypy does). Only a process of its own (`entry`) holds anything: `main` called in a
process that goes on (the tests) frees as usual.

Such a process also runs the cyclic garbage collector less often (`satori_ci.collector`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import NoReturn

from satori_ci import collector

_held: list[object] = []
_own_process = False


def begin() -> None:
    """This process runs one command and ends (`satori-ci`, `python -m satori_ci`)."""
    global _own_process
    _own_process = True
    collector.run_less_often()


def hold_until_exit(value: object) -> None:
    """Keep `value` until the process ends, when it is not freed; nothing in a process that goes on. Called while
    the collector is paused: what it tracks so far is frozen, so no pass ever walks what is held."""
    if _own_process:
        _held.append(value)
        gc.freeze()


def end(code: int) -> NoReturn:
    """Exit with `code`: at once, standard streams flushed, when something is held; else as `sys.exit` does."""
    if not _held:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone (as the command takes it: done), a closed stream
            stream.flush()
    os._exit(code)
