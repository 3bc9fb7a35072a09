"""The heartbeat: off a terminal (CI logs), one line every ~30 s while a run sends requests, so a log never goes
quiet for long. The CLI and the action start it around a run and feed it the run's progress callback
(`RunConfig.progress`); the runs themselves never print."""

from __future__ import annotations

import os
import threading
import time
from typing import TextIO

from satori_ci.run.breaker import NO_ANSWER

HEARTBEAT_S = 30.0
HEARTBEAT_ENV = "SATORI_HEARTBEAT_S"
"""Seconds between two heartbeat lines (for tests; 0 turns the heartbeat off)."""


def heartbeat_interval(environ: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """`SATORI_HEARTBEAT_S` when it is a number of seconds (0: off), else `HEARTBEAT_S`."""
    try:
        value = float(environ.get(HEARTBEAT_ENV, HEARTBEAT_S))
    except ValueError:
        return HEARTBEAT_S
    return value if 0 <= value <= 86400 else HEARTBEAT_S


class Heartbeat:
    """Every `interval` seconds, one line: `satori-ci: 120 of 310 requests, 95 s, host answering`, or `... no
    answer from http://host:port for 30 s` when the last attempt got none or nothing came for an interval."""

    def __init__(self, origin: str, stream: TextIO, interval: float | None = None) -> None:
        self.origin = origin
        self.stream = stream
        self.interval = heartbeat_interval() if interval is None else interval
        self.started = self.heard = time.monotonic()
        self.done = self.total = 0
        self.silent: str | None = None
        """The server of the last attempt that got no answer (None once an update came that is not one)."""
        self._lock = threading.Lock()
        self._over = threading.Event()
        self._thread: threading.Thread | None = None
        self._begun = False

    def start(self) -> None:
        """The run begins: the clock and the beat start (at the first update at the latest; inference before it is
        not the run's time). Once only."""
        with self._lock:
            if not self._begun and not self._over.is_set():
                self._start()

    def on_stage(self, stage: str) -> None:
        """`start` as a `CheckOptions.on_stage` callback (told the stage that begins: the run)."""
        self.start()

    def _start(self) -> None:
        self._begun = True
        self.started = self.heard = time.monotonic()
        if self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="satori-heartbeat", daemon=True)
            self._thread.start()

    def update(self, done: int, total: int, what: str = "") -> None:
        if not self._begun:
            self.start()
        with self._lock:
            if total > 0:
                self.done, self.total = done, total
            if what.startswith(NO_ANSWER):
                self.silent = self.silent or what[len(NO_ANSWER):].partition(": ")[0]
            else:
                self.silent, self.heard = None, time.monotonic()

    def line(self, now: float) -> str:
        """The heartbeat's line at `now`."""
        with self._lock:
            counts = f"{self.done} of {self.total} requests" if self.total else "0 requests"
            quiet = now - self.heard
            if self.silent is not None or quiet >= self.interval > 0:
                state = f"no answer from {self.silent or self.origin} for {quiet:.0f} s"
            else:
                state = "host answering"
        return f"satori-ci: {counts}, {now - self.started:.0f} s, {state}"

    def _beat(self) -> None:
        while not self._over.wait(self.interval):
            try:
                self.stream.write(self.line(time.monotonic()) + "\n")
                self.stream.flush()
            except (OSError, ValueError):  # the stream is gone (closed): nobody is listening any more
                return

    def close(self) -> None:
        self._over.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
