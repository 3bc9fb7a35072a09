"""The team collection's side of a run: its own tests (`pm.test`) as Newman ran them, and its opted-in writes.

A team's tests are part of the verdict (`TeamTestPolicy`): with `fail`, the default, a failing one fails the run
as it fails a plain Newman run of the same collection. The native runner does not run the team's scripts: its
`TeamTests` say so (`ran` False).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from satori_ci.plan.auth import AuthParam
from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.plan.model import SAFE_METHODS
from satori_ci.redaction import key_like
from satori_ci.run.refs import RequestRef, request_dict


class TeamTestPolicy(StrEnum):
    """What the team's own tests (the `pm.test`s of its collection) do to a run's verdict: `requests.team_tests`,
    `--team-tests`, the action's `team-tests` input."""

    FAIL = "fail"
    """A failing team test fails the run like a violation (exit 1), as it fails a plain Newman run."""
    WARN = "warn"
    """Failing team tests are reported; they fail nothing."""
    IGNORE = "ignore"
    """Team tests are counted (JSON report) but neither listed nor failing."""


class TeamTestOutcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    """The assertion failed, or a script of the team's threw (Newman counts both as failures)."""
    SKIPPED = "skipped"


TEAM_TESTS_LISTED = 200
"""Team test results listed in a run's results (failing ones first, in run order); the rest are counted."""


@dataclass(frozen=True)
class TeamTest:
    """One of the team's own tests as Newman ran it, on the request it ran on."""

    name: str
    """The `pm.test` name (for a script that threw: which script)."""
    request: RequestRef
    """The request it ran on (`name`: the request's `Folder/Name` in the team's collection)."""
    outcome: TeamTestOutcome
    message: str = ""
    """Why it failed: the assertion's message, or the script's error."""

    @property
    def label(self) -> str:
        """`Folder/Name › test name` (the request as the team's collection names it, then the test)."""
        where = self.request.name or f"{self.request.method} {self.request.url}".strip()
        return f"{where} › {self.name}" if where else self.name

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "outcome": self.outcome.value, "message": self.message,
                "request": request_dict(self.request)}


@dataclass(frozen=True)
class TeamTests:
    """The team's own tests of one run: how many passed, failed and were skipped, the failing ones listed."""

    ran: bool
    """False: the runner does not run the team collection's scripts (native), so none of its tests ran."""
    policy: TeamTestPolicy = TeamTestPolicy.FAIL
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    listed: tuple[TeamTest, ...] = ()
    """In run order: the failing tests first in the cap (`TEAM_TESTS_LISTED`), then the others."""

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped

    @property
    def failures(self) -> tuple[TeamTest, ...]:
        """The listed failing tests (none listed under `ignore`)."""
        return tuple(t for t in self.listed if t.outcome is TeamTestOutcome.FAILED) if self.shown else ()

    @property
    def failing(self) -> int:
        """Failing tests that fail the run (`team-tests: fail`)."""
        return self.failed if self.policy is TeamTestPolicy.FAIL else 0

    @property
    def shown(self) -> bool:
        """Whether reports list them (not under `team-tests: ignore`)."""
        return self.policy is not TeamTestPolicy.IGNORE

    def counts(self) -> str:
        """`2 passed, 1 failed` (numbers only: safe in any format)."""
        skipped = f", {self.skipped} skipped" if self.skipped else ""
        return f"{self.passed} passed, {self.failed} failed{skipped}"

    def to_dict(self) -> dict[str, Any]:
        return {"ran": self.ran, "policy": self.policy.value, "passed": self.passed, "failed": self.failed,
                "skipped": self.skipped, "failing": self.failing,
                "listed": [t.to_dict() for t in self.listed] if self.shown else []}


@dataclass(frozen=True)
class OptedInRequest:
    """A non-safe request of the team's collection that `--unsafe` or `requests.unsafe` let through, and what it got."""

    label: str
    """`Folder/Name` in the team's collection."""
    method: str
    path: str
    """The path of the spec operation it calls, else its URL's own (what the opt-in names)."""
    url: str
    statuses: tuple[int | None, ...] = ()
    """Its answers, one per time it was sent (None: no answer)."""
    detail: str = ""
    """Why it was not sent, when it was not."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.label, "method": self.method, "path": self.path, "url": self.url,
                "statuses": list(self.statuses), "detail": self.detail}


NATIVE_UNSENT = ("not sent: the native runner sends only the team's requests that call a spec operation with a 2XX "
                 "JSON response (use --runner newman)")
NEWMAN_UNSENT = "not run (the collection's scripts skipped it)"


def credential_header(name: str) -> bool:
    """A header that usually carries a credential (`Authorization`, `X-API-Key`, `Cookie`...)."""
    return key_like(name) or name.lower() == "cookie"


def credential_headers(auth: Iterable[AuthParam], environ: Mapping[str, str] | None,
                       headers: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The names of the credentials a run sends: the spec's schemes whose variable `environ` sets (all of them
    without one), then the run's own headers."""
    names: dict[str, None] = {}
    for param in auth:
        if environ is None or environ.get(param.variable):
            names.setdefault(f"{param.name} ({param.location})" if param.location != "header" else param.name)
    for header, _ in headers:
        names.setdefault(header)
    return tuple(names)


class TeamLog:
    """What a run learns of the team's collection: its tests (all counted; the first failing ones and the first
    others kept), the answers of its opted-in non-safe requests, the credential headers its requests carried."""

    def __init__(self, given: GivenRequests | None, left_out: Collection[str] = ()) -> None:
        self.given = given
        requests = given.requests if given is not None else ()
        self.opted = {r.id: r for r in requests if r.method not in SAFE_METHODS and r.id not in left_out}
        self.statuses: dict[str, list[int | None]] = {}
        self.unsent: dict[str, str] = {}
        self.headers: dict[str, None] = {}
        self.counts = dict.fromkeys(TeamTestOutcome, 0)
        self.kept: list[tuple[int, TeamTest]] = []
        self.kept_failing = 0

    def test(self, test: TeamTest) -> None:
        """One result of the team's tests, in run order."""
        self.counts[test.outcome] += 1
        failing = test.outcome is TeamTestOutcome.FAILED
        seen = sum(self.counts.values())
        if len(self.kept) < TEAM_TESTS_LISTED:
            self.kept.append((seen, test))
            self.kept_failing += failing
        elif failing and self.kept_failing < TEAM_TESTS_LISTED:  # a failing test takes the place of the last other
            last = max(n for n, (_, t) in enumerate(self.kept) if t.outcome is not TeamTestOutcome.FAILED)
            del self.kept[last]
            self.kept.append((seen, test))
            self.kept_failing += 1

    def sent(self, given: GivenRequest, status: int | None, unsent: str = "") -> None:
        """One sending of a team request (`status` None: no answer), or why it was not sent (`unsent`)."""
        if unsent:
            if given.id in self.opted:
                self.unsent.setdefault(given.id, unsent)
            return
        for name, value in given.headers:
            if value.strip() and credential_header(name):
                self.headers.setdefault(name)
        if given.id in self.opted:
            self.statuses.setdefault(given.id, []).append(status)

    def sent_headers(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """`names`, then the credential headers the team's requests carried (a name once, whatever its case)."""
        seen = {n.lower() for n in names}
        return (*names, *(h for h in self.headers if h.lower() not in seen))

    def result(self, runner: str, policy: TeamTestPolicy) -> TeamTests | None:
        """The team's tests of a run (None without a team collection); the native runner ran none of them (said
        when the collection has scripts)."""
        if self.given is None:
            return None
        if runner != "native":
            return self.tests(policy)
        return TeamTests(False, policy) if any(r.scripted for r in self.given.requests) else None

    def tests(self, policy: TeamTestPolicy, ran: bool = True) -> TeamTests:
        """The tests counted, the kept ones listed (none under `ignore`)."""
        listed = () if policy is TeamTestPolicy.IGNORE else tuple(t for _, t in self.kept)
        counts = self.counts
        return TeamTests(ran, policy, counts[TeamTestOutcome.PASSED], counts[TeamTestOutcome.FAILED],
                         counts[TeamTestOutcome.SKIPPED], listed)

    def opted_in(self, runner: str) -> tuple[OptedInRequest, ...]:
        """Every opted-in request in the team's order: its answers, else why it was not sent."""
        unsent = NATIVE_UNSENT if runner == "native" else NEWMAN_UNSENT
        out = []
        for r in self.opted.values():
            statuses = tuple(self.statuses.get(r.id, ()))
            detail = "" if statuses else self.unsent.get(r.id, unsent)
            out.append(OptedInRequest(r.label, r.method, r.path, r.url, statuses, detail))
        return tuple(out)
