"""What a run checked, as plain data for every renderer: counts, operations not sent (grouped), operations
whose oracles met no value. Untrusted text (paths, details) is left for each renderer to escape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from satori_ci.plan.model import Skip, SkipKind
from satori_ci.run.model import ResponseProblem, RunResult

KIND_TITLES = {
    SkipKind.UNSAFE_METHOD: "not a safe method (only GET and HEAD are sent unless opted in)",
    SkipKind.IGNORED: "ignored by the config",
    SkipKind.NO_INPUT: "needs a value",
    SkipKind.NOTHING_TO_CHECK: "no 2XX JSON response in the spec",
    SkipKind.REFUSED: "refused (401/403)",
    SkipKind.NOT_FOUND: "not found (404 for every value tried)",
    SkipKind.BUDGET: "left out by the budget",
    SkipKind.UNANSWERED: "not sent: staging stopped answering",
}
PER_OPERATION = {SkipKind.NO_INPUT: "not sent", SkipKind.NOT_FOUND: "not reached", SkipKind.REFUSED: "not reached"}
"""Kinds listed one operation a line (their detail is the operation's own), with the word that starts the line."""
COUNTED = ((SkipKind.NO_INPUT, "need a value"), (SkipKind.NOT_FOUND, "not found"), (SkipKind.REFUSED, "refused"),
           (SkipKind.BUDGET, "left out by the budget"), (SkipKind.UNANSWERED, "not sent (staging not answering)"))
"""Why a GET operation the run could send was not reached, as the headline counts it."""


@dataclass(frozen=True)
class Coverage:
    operations: int
    """Operations the run could send (not left out on purpose)."""
    reached: int
    """Operations with at least one checked 2XX JSON response."""
    exercised: int
    enabled: int
    """Enabled oracles of the operations the run could send."""
    left_out: int
    """Enabled oracles of operations left out on purpose (non-safe, ignored)."""
    not_sent: tuple[tuple[SkipKind, tuple[Skip, ...]], ...]
    unexercised: tuple[tuple[str, int, int, int], ...]
    """(operation, sent, checked, enabled oracles) of operations sent whose oracles met no value."""

    def headline(self) -> str:
        """`31 of 47 oracles exercised · 12 of 16 operations reached` (numbers only: safe in any format)."""
        out = (f"{self.exercised} of {self.enabled} oracles exercised · {self.reached} of {self.operations} "
               f"operations reached")
        counts = dict((kind, len(skips)) for kind, skips in self.not_sent)
        out += "".join(f" · {counts[kind]} {words}" for kind, words in COUNTED if counts.get(kind))
        return out + (f" · {self.left_out} oracles on operations not sent" if self.left_out else "")


def distinct(skips: Iterable[Skip]) -> tuple[Skip, ...]:
    """The first skip of each operation and kind: the plan and a team collection's request may both say why one
    operation is not sent (a non-safe one it calls), and an operation counts once."""
    found: dict[tuple[str, SkipKind], Skip] = {}
    for skip in skips:
        found.setdefault((skip.label, skip.kind), skip)
    return tuple(found.values())


def coverage_of(run: RunResult) -> Coverage | None:
    """None for runs without per-operation figures (recorded responses)."""
    if not run.coverage and not run.skipped:
        return None
    groups: dict[SkipKind, list[Skip]] = {}
    for skip in distinct(run.skipped):
        groups.setdefault(skip.kind, []).append(skip)
    unexercised = tuple((c.label, c.sent, c.checked, c.enabled) for c in run.coverage
                        if c.sent and c.enabled and not c.exercised)
    sendable = run.sendable
    return Coverage(operations=len(sendable), reached=sum(1 for c in sendable if c.checked),
                    exercised=run.oracles_exercised, enabled=run.oracles_sendable,
                    left_out=run.oracles_enabled - run.oracles_sendable,
                    not_sent=tuple((k, tuple(groups[k])) for k in SkipKind if k in groups),
                    unexercised=unexercised)


def grouped_unchecked(run: RunResult) -> list[tuple[ResponseProblem, int]]:
    """Responses not checked, one entry per cause (kind, status, detail), with how many share it, in order."""
    groups: dict[tuple[str, int | None, str], list[ResponseProblem]] = {}
    for problem in run.unchecked:
        groups.setdefault((problem.kind.value, problem.status, problem.detail), []).append(problem)
    return [(found[0], len(found)) for found in groups.values()]
