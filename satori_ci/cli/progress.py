"""A one-line progress bar on a terminal's stderr; silent elsewhere and with --quiet."""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    def __init__(self, label: str, enabled: bool, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.label = label
        self._last = -1

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        percent = done * 100 // total
        if percent == self._last and done != total:
            return
        self._last = percent
        width = 30
        filled = width * done // total
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._last >= 0:
            self.stream.write("\n")
            self.stream.flush()
