"""The request rate a run keeps (`requests.rate`): the same for every thread of the native runner."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Pace:
    """Keeps requests at most `rate` per second (0: no limit), from any thread."""

    def __init__(self, rate: float, sleep: Callable[[float], None]) -> None:
        self.gap = 1.0 / rate if rate > 0 else 0.0
        self.sleep = sleep
        self.next_at = 0.0
        self.lock = threading.Lock()

    def wait(self) -> None:
        if not self.gap:
            return
        with self.lock:
            now = time.monotonic()
            at = max(now, self.next_at)
            self.next_at = at + self.gap
        if at > now:
            self.sleep(at - now)
