"""Work a forked child does on the second core while this process goes on: bytes read back on demand.

`ForkedBytes.start(work)` forks; the child runs `work()` and sends the bytes it returns through a pipe, then ends
with `os._exit` (no atexit handler, no flush of buffers it inherited). `result()` reads them and reaps the child.
Whatever goes wrong gives None, and the caller does the work itself: no fork but on Linux, nor where the process
has other threads (a child would inherit their locks held), a failed fork, a child that failed or was killed, a
result read in another process than the one that started it.

A child never outlives its use: one whose result is not read (an error, a result not needed) is killed and
reaped when its `ForkedBytes` is dropped. Before a fork, the results still pending are read first, so a child
inherits them done (and never reads its parent's pipes).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import weakref
from collections.abc import Callable
from typing import NoReturn

_pending: weakref.WeakSet[ForkedBytes] = weakref.WeakSet()


def can_fork() -> bool:
    """Whether a child can be forked safely here: on Linux, in a process that runs one thread."""
    if not sys.platform.startswith("linux"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


class ForkedBytes:
    """The bytes `work()` returns, made by a forked child (see the module)."""

    def __init__(self, pid: int, fd: int) -> None:
        self._owner = os.getpid()
        self._result: bytes | None = None
        self._done = False
        self._child = weakref.finalize(self, _stop, self._owner, pid, fd)
        self._pid, self._fd = pid, fd
        _pending.add(self)

    @classmethod
    def start(cls, work: Callable[[], bytes]) -> ForkedBytes | None:
        """A child running `work`; None when none can be forked (then do the work here)."""
        if not can_fork():
            return None
        for other in list(_pending):
            other.result()
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return None
        _widen(write_end)
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:  # pragma: no cover (the child: its coverage is not collected)
            _child(work, read_end, write_end)
        os.close(write_end)
        return cls(pid, read_end)

    def result(self) -> bytes | None:
        """What the child sent, once it ended well; None if it did not (or in another process than the starter)."""
        if self._done or os.getpid() != self._owner:
            return self._result
        self._done = True
        _pending.discard(self)
        chunks: list[bytes] = []
        try:
            while chunk := os.read(self._fd, 1 << 20):
                chunks.append(chunk)
        except BaseException as exc:  # a read that failed, or was interrupted: the child is stopped as if dropped
            self._child()
            if isinstance(exc, OSError):
                return None
            raise
        self._child.detach()
        os.close(self._fd)
        if _reaped(self._pid) and chunks:
            self._result = b"".join(chunks)
        return self._result


def _child(work: Callable[[], bytes], read_end: int, write_end: int) -> NoReturn:  # pragma: no cover
    """The child: run `work`, send its bytes, end without running anything of the parent's."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.close(read_end)
        data = memoryview(work())
        while data:
            data = data[os.write(write_end, data):]
        status = 0
    finally:
        os._exit(status)


PIPE_BYTES = 1 << 20
"""The pipe's capacity asked for (Linux; its default is 64 KiB): a result of a few MB is read in a few reads."""


def _widen(fd: int) -> None:
    """Ask for a pipe of `PIPE_BYTES` where the system allows it (it may keep a smaller one)."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


def _reaped(pid: int) -> bool:
    """Wait for the child; whether it ended with status 0."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    return os.waitstatus_to_exitcode(status) == 0


def _stop(owner: int, pid: int, fd: int) -> None:
    """A child whose result is not wanted: killed, reaped, its pipe closed (only in the process that started it)."""
    if os.getpid() != owner:
        return
    for step in (lambda: os.close(fd), lambda: os.kill(pid, signal.SIGKILL), lambda: os.waitpid(pid, 0)):
        with contextlib.suppress(OSError):
            step()
