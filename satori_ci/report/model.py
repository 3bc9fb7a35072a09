"""What one check of a pull request found, per spec: the value every renderer reads (no I/O here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from satori_ci.config.settings import ChangeMinimum as ChangeMinimum  # for readers above the config layer
from satori_ci.config.settings import FailOn as FailOn  # the report's readers take it from here
from satori_ci.config.settings import change_minimum as change_minimum
from satori_ci.errors import ExitCode
from satori_ci.infer.interface import BackendStats
from satori_ci.observe.keys import SuspectKey, suspect_key
from satori_ci.oracles.diff import OracleDiff
from satori_ci.oracles.model import Oracle
from satori_ci.report.change_coverage import ChangeCoverage, change_coverage
from satori_ci.run.model import RunResult, Violation
from satori_ci.spec.diff import FieldDiff


@dataclass(frozen=True)
class FieldLocation:
    """Where a field is written in the spec, for annotations and links."""

    file: str
    line: int | None


@dataclass(frozen=True)
class InferenceSummary:
    backend: str
    reused: int
    moved: int
    inferred: int
    pending: int
    stats: BackendStats = field(default_factory=BackendStats)


@dataclass(frozen=True)
class ObservationSummary:
    """What the observation store (`satori_ci.observe`) holds after this check."""

    store_file: str
    responses: int
    """2XX JSON responses this check observed."""
    operations: int
    """Operations (and statuses) the store has observed responses of."""
    ready: int
    """Of those, the ones with enough responses and requests for suggestions."""
    min_responses: int


@dataclass(frozen=True)
class SpecCheck:
    """One spec of the pull request, checked."""

    spec: str
    """The spec's path in the repository."""
    head_source: str
    base_source: str | None
    """None when the spec is new in this pull request (or when there is no base: push, dispatch)."""
    oracle_file: str
    """The updated oracle file's path."""
    field_diff: FieldDiff | None
    oracle_diff: OracleDiff | None
    inference: InferenceSummary | None
    oracles_enabled: int
    run: RunResult | None
    run_skipped: str | None = None
    """Why the oracles were not run (e.g. `no staging URL`), when they were not."""
    new_oracles: frozenset[tuple[str, str, str, str, str]] = frozenset()
    """(method, path, status, field, kind) of the oracles this pull request added or changed."""
    locations: dict[tuple[str, str, str, str], FieldLocation] = field(default_factory=dict)
    """(method, path, status, field) -> location, for every field with a violation or an oracle change."""
    error: str | None = None
    """The one-line reason this spec could not be checked (e.g. it does not parse on head)."""
    error_code: ExitCode | None = None
    notices: tuple[str, ...] = ()
    """What a reviewer must know before the findings (e.g. this pull request changes where secrets go)."""
    suggestions: tuple[Oracle, ...] = ()
    """The observed oracles waiting for a reviewer in the oracle file (disabled), in file order."""
    suspects: Mapping[SuspectKey, int] = field(default_factory=dict)
    """Oracles that observed 2XX responses of the trusted (base) side violated, and how many responses: their
    violations here are listed as suspect and do not fail the check."""
    observation: ObservationSummary | None = None
    changed: frozenset[tuple[str, str, str, str, str]] = frozenset()
    """The enabled oracles this pull request added or changed that the config checks: what the run must exercise for
    the change to count as checked (`report.change_coverage`)."""
    min_changed: ChangeMinimum = field(default_factory=ChangeMinimum)
    """How many of `changed` the run must exercise (trusted: the action's input, a flag, the base config)."""
    preexisting: frozenset[tuple[str, str, str, str, str, str]] = frozenset()
    """(identity of the oracle, pointer) of the violations of added or changed oracles whose offending value the
    oracles the field had before this change reject too: the value was already wrong; `fail-on: new-violations`
    reports them as pre-existing and does not fail on them."""

    def is_new(self, violation: Violation) -> bool:
        return identity(violation.oracle) in self.new_oracles

    def is_preexisting(self, violation: Violation) -> bool:
        return (*identity(violation.oracle), violation.pointer) in self.preexisting

    def is_suspect(self, oracle: Oracle) -> bool:
        return bool(self.suspects) and suspect_key(oracle) in self.suspects  # most checks have none: no key made

    def failing_violations(self, fail_on: FailOn) -> tuple[Violation, ...]:
        if self.run is None or fail_on is FailOn.NEVER:
            return ()
        if fail_on is FailOn.NEW_VIOLATIONS:
            return tuple(v for v in self.run.violations
                         if self.is_new(v) and not self.is_suspect(v.oracle) and not self.is_preexisting(v))
        return tuple(v for v in self.run.violations if not self.is_suspect(v.oracle))

    def suspect_violations(self) -> tuple[Violation, ...]:
        """Violations of suspect oracles: listed, never failing."""
        return tuple(v for v in self.run.violations if self.is_suspect(v.oracle)) if self.run is not None else ()

    def failing_count(self, fail_on: FailOn) -> int:
        """The failing violations, the ones not listed (past the per-oracle cap) included."""
        listed = len(self.failing_violations(fail_on))
        if self.run is None or not listed:
            return listed
        return listed + sum(o.omitted for o in self.run.omitted
                            if (fail_on is FailOn.VIOLATIONS or identity(o.oracle) in self.new_oracles)
                            and not self.is_suspect(o.oracle))

    @property
    def change(self) -> ChangeCoverage | None:
        """Which of the oracles this pull request adds or changes the run exercised (None: no change, no run)."""
        return change_coverage(self.run, self.changed, self.min_changed)

    @property
    def change_unchecked(self) -> bool:
        """The run exercised fewer of the oracles this pull request adds or changes than `min_changed` asks."""
        found = self.change
        return found is not None and found.short

    def failing_team_tests(self, fail_on: FailOn) -> int:
        """The team collection's failing tests that fail the check (`team-tests: fail`; never under fail-on never)."""
        if self.run is None or fail_on is FailOn.NEVER:
            return 0
        return self.run.failing_team_tests

    def failing_server_errors(self, fail_on: FailOn) -> int:
        """5XX answers that fail the check: under fail-on `violations`, unless the config only reports them."""
        if self.run is None or fail_on is not FailOn.VIOLATIONS:
            return 0
        return len(self.run.failing_server_errors)


def identity(oracle: Oracle) -> tuple[str, str, str, str, str]:
    op = oracle.operation
    return (op.method, op.path, op.status, oracle.field, oracle.kind.value)


@dataclass(frozen=True)
class CheckReport:
    """Everything one run of satori-ci found, over every spec it checked."""

    specs: tuple[SpecCheck, ...]
    fail_on: FailOn = FailOn.VIOLATIONS

    @property
    def exit_code(self) -> ExitCode:
        """0 clean, 1 violations at or above fail-on (or failing team tests), 2 a spec could not be read, 3 staging
        could not be asked, 4 the run exercised too few of the oracles the change adds or changes."""
        codes = [s.error_code for s in self.specs if s.error_code is not None]
        if any(s.failing_violations(self.fail_on) or s.failing_server_errors(self.fail_on)
               or s.failing_team_tests(self.fail_on) for s in self.specs):
            return ExitCode.VIOLATIONS
        if ExitCode.INPUT_ERROR in codes:
            return ExitCode.INPUT_ERROR
        for spec in self.specs:
            if spec.run is not None and spec.run.problem_code is ExitCode.INFRASTRUCTURE:
                return ExitCode.INFRASTRUCTURE
        if ExitCode.INFRASTRUCTURE in codes:
            return ExitCode.INFRASTRUCTURE
        if any(s.change_unchecked for s in self.specs):
            return ExitCode.CHANGE_UNCHECKED
        return ExitCode.OK

    @property
    def violations(self) -> int:
        return sum(s.run.violation_count for s in self.specs if s.run is not None)

    @property
    def server_errors(self) -> int:
        return sum(len(s.run.server_errors) for s in self.specs if s.run is not None)

    @property
    def team_tests_failing(self) -> int:
        """The team collections' failing tests that fail the check."""
        return sum(s.failing_team_tests(self.fail_on) for s in self.specs)
