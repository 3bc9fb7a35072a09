"""The runner interface: what every runner of planned requests offers (`RequestRunner`), and the runners by name.

A runner sends a `RequestSet` (`satori_ci.plan.requests`) under a `RunConfig` and gives a `RunResult`; the two
runners classify what they get the same way (`outcome.Tally`). `RunnerName` is the one place a name becomes a
runner, `auto` included (Newman when it is installed, else the native runner, which then says so in its notes).
The runners' modules are imported when a runner is built: a command that sends nothing does not load them.
"""

from __future__ import annotations

import os
from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from satori_ci.plan.requests import RequestSet
from satori_ci.run.errors import RunError
from satori_ci.run.model import RunResult
from satori_ci.run.outcome import RunConfig

if TYPE_CHECKING:
    from satori_ci.run.newman import TeamSource


class RequestRunner(Protocol):
    """Sends the planned requests and checks their responses."""

    @property
    def name(self) -> str:
        """`newman` or `native`: what the run's results name."""
        ...

    def run(self, planned: RequestSet, config: RunConfig) -> RunResult:
        """Every request of `planned`, `config.iterations` times (retried on infrastructure problems), checked."""
        ...


class RunnerName(StrEnum):
    AUTO = "auto"
    NEWMAN = "newman"
    NATIVE = "native"

    def build(self, team: TeamSource | None = None) -> RequestRunner:
        """The runner of this name; `team`: the team's collection the requests' given ones come from (Newman runs
        its file). `auto`: Newman when it is installed, else the native runner, whose results say why."""
        from satori_ci.run.native import NativeRunner

        if self is RunnerName.NATIVE:
            return NativeRunner()
        from satori_ci.run.newman import NEWMAN_ENV, NewmanRunner, find_newman

        if self is RunnerName.NEWMAN:
            return NewmanRunner(team)
        try:
            find_newman()
        except RunError as exc:
            if os.environ.get(NEWMAN_ENV):  # asked for by path: a wrong path is an error, not a fallback
                raise
            return _Fallback(NativeRunner(), f"Newman not found, the native runner was used: {exc}")
        return NewmanRunner(team)


RUNNER_NAMES: tuple[str, ...] = tuple(n.value for n in RunnerName)
"""Every name a user may give (`check --runner`, the action's `runner` input)."""
SENDING_RUNNERS: tuple[str, ...] = (RunnerName.NEWMAN.value, RunnerName.NATIVE.value)
"""The names of the runners themselves, `auto` left out (`run --runner`)."""


class _Fallback:
    """The runner `auto` fell back to: its results carry a note saying so."""

    def __init__(self, runner: RequestRunner, note: str) -> None:
        self.runner = runner
        self.note = note

    @property
    def name(self) -> str:
        return self.runner.name

    def run(self, planned: RequestSet, config: RunConfig) -> RunResult:
        result = self.runner.run(planned, config)
        return replace(result, notes=(*result.notes, self.note))
