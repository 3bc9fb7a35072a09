"""Which of the oracles a pull request adds or changes the run exercised, and why the others were not: the verdict
about the change itself (a run that reached none of them says nothing about it). Plain data for every renderer."""

from __future__ import annotations

from dataclasses import dataclass

from satori_ci.config.settings import ChangeMinimum
from satori_ci.plan.model import Skip
from satori_ci.report.coverage import PER_OPERATION
from satori_ci.run.model import OperationCoverage, RunResult

Identity = tuple[str, str, str, str, str]
"""(method, path, status, field, kind) of an oracle."""


@dataclass(frozen=True)
class UnexercisedOperation:
    """An operation some of whose changed oracles met no value, and why (untrusted: escape to render)."""

    method: str
    path: str
    oracles: int
    """Its changed oracles that were not exercised."""
    why: str

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True)
class ChangeCoverage:
    changed: int
    """Enabled oracles this pull request added or changed (M)."""
    exercised: int
    """Of those, the ones that met at least one value (N)."""
    minimum: ChangeMinimum
    unexercised: tuple[UnexercisedOperation, ...]

    @property
    def required(self) -> int:
        return self.minimum.required(self.changed)

    @property
    def short(self) -> bool:
        """Fewer exercised than asked: the change went unchecked, and the check is not green."""
        return self.exercised < self.required

    def headline(self) -> str:
        """`3 of 5 oracles this change adds or changes exercised` (numbers only: safe in any format)."""
        oracles = "oracle" if self.changed == 1 else "oracles"
        return f"{self.exercised} of {self.changed} {oracles} this change adds or changes exercised"

    def shortfall(self) -> str:
        """Why the change counts as unchecked: what was asked (numbers only)."""
        asked = f"at least {self.required}" + (f" ({self.minimum})" if self.minimum.percent is not None else "")
        return f"{self.headline()}, {asked} asked (min-changed-exercised)"


def change_coverage(run: RunResult | None, changed: frozenset[Identity], minimum: ChangeMinimum
                    ) -> ChangeCoverage | None:
    """None when the change adds or changes no enabled oracle, or nothing was run (no staging, a spec not read)."""
    if run is None or not changed:
        return None
    reached = exercised_identities(run)
    missing: dict[tuple[str, str], int] = {}
    for identity in sorted(changed):
        if identity not in reached:
            missing[identity[:2]] = missing.get(identity[:2], 0) + 1
    skips = {s.label: s for s in run.skipped}
    covered = {c.label: c for c in run.coverage}
    unexercised = tuple(UnexercisedOperation(m, p, n, _why(skips.get(f"{m} {p}"), covered.get(f"{m} {p}")))
                        for (m, p), n in missing.items())
    return ChangeCoverage(len(changed), len(changed) - sum(missing.values()), minimum, unexercised)


def exercised_identities(run: RunResult) -> frozenset[Identity]:
    return frozenset((c.method, c.path, *found) for c in run.coverage for found in c.exercised_oracles)


def _why(skip: Skip | None, covered: OperationCoverage | None) -> str:
    if skip is not None:
        return f"{PER_OPERATION.get(skip.kind, 'not sent')}: {skip.detail}"
    if covered is None or not covered.sent:
        return "not sent"
    if not covered.checked:
        return f"{covered.sent} sent, no 2XX JSON response checked"
    return (f"{covered.checked} response(s) checked: the changed fields met no value (absent, null, or another "
            "status)")
