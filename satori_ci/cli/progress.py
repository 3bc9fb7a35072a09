"""Progress bars on a terminal's stderr (tqdm): silent when stderr is not a terminal, and with --quiet."""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from tqdm import tqdm


class ProgressBar:
    """`update(done, total, what)` redraws one line: `label 12/400 [00:03<01:20] GET /users/{id}`."""

    def __init__(self, label: str, enabled: bool, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.label = label
        self._bar: tqdm | None = None

    def update(self, done: int, total: int, what: str = "") -> None:
        if not self.enabled or total <= 0:
            return
        if self._bar is None or self._bar.total != total:
            self.close()
            size = shutil.get_terminal_size((100, 24))  # a fresh pseudo-terminal says 0 x 0: tqdm would hide the bar
            self._bar = tqdm(total=total, desc=self.label, file=self.stream, leave=False,
                             ncols=size.columns or 100, nrows=max(size.lines, 2),
                             bar_format="{desc} {bar} {n_fmt}/{total_fmt} [{elapsed}<{remaining}]{postfix}")
        self._bar.n = done
        if what:
            self._bar.set_postfix_str(what[:60], refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
