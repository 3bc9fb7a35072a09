"""`Pace`: at most `rate` requests a second, whatever thread asks."""

from __future__ import annotations

import pytest

from satori_ci.run.pace import Pace


def test_requests_are_spaced_by_the_rate() -> None:
    waits: list[float] = []
    pace = Pace(10.0, waits.append)  # the fake sleep does not pass time: each wait is from the same start
    for _ in range(5):
        pace.wait()
    assert len(waits) == 4  # the first goes at once
    assert waits == pytest.approx([0.1, 0.2, 0.3, 0.4], abs=0.05)


def test_no_rate_is_no_wait() -> None:
    waits: list[float] = []
    pace = Pace(0.0, waits.append)
    for _ in range(3):
        pace.wait()
    assert waits == []
