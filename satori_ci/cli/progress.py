"""Progress on stderr: a bar on a terminal (tqdm), a heartbeat line every ~30 s elsewhere (CI logs); silent with
--quiet. Both are fed by the runs' progress callback (`RunConfig.progress`): the runs never print."""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from tqdm import tqdm

from satori_ci.console.heartbeat import Heartbeat
from satori_ci.run.breaker import NO_ANSWER


class ProgressBar:
    """`update(done, total, what)` redraws one line: `label 12/400 [00:03<01:20] GET /users/{id}`; off a
    terminal, a `Heartbeat` when `heartbeat` names the server (`scheme://host:port`)."""

    def __init__(self, label: str, enabled: bool, stream: TextIO | None = None, heartbeat: str | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.label = label
        self._bar: tqdm | None = None
        self.heartbeat = (Heartbeat(heartbeat, self.stream) if enabled and heartbeat is not None
                          and not self.stream.isatty() else None)

    def update(self, done: int, total: int, what: str = "") -> None:
        if self.heartbeat is not None:
            self.heartbeat.update(done, total, what)
        if not self.enabled or total <= 0 or what.startswith(NO_ANSWER):
            return
        if self._bar is None or self._bar.total != total:
            self.close_bar()
            size = shutil.get_terminal_size((100, 24))  # a fresh pseudo-terminal says 0 x 0: tqdm would hide the bar
            self._bar = tqdm(total=total, desc=self.label, file=self.stream, leave=False,
                             ncols=size.columns or 100, nrows=max(size.lines, 2),
                             bar_format="{desc} {bar} {n_fmt}/{total_fmt} [{elapsed}<{remaining}]{postfix}")
        self._bar.n = done
        if what:
            self._bar.set_postfix_str(what[:60], refresh=False)
        self._bar.refresh()

    def start_heartbeat(self, stage: str = "") -> None:
        """The run begins (also fit as a `CheckOptions.on_stage` callback)."""
        if self.heartbeat is not None:
            self.heartbeat.start()

    def close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        self.close_bar()
        if self.heartbeat is not None:
            self.heartbeat.close()
