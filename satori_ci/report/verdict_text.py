"""Every spec's verdict in words (`verdict_words`), with its icon in Markdown (`verdict_line`): the one line a reader
sees first in the comment, the summary and the terminal."""

from __future__ import annotations

from collections.abc import Callable

from satori_ci.errors import ExitCode
from satori_ci.report import escape as esc
from satori_ci.report import team_text
from satori_ci.report.coverage import coverage_of
from satori_ci.report.json_report import Outcome, Verdict
from satori_ci.report.model import FailOn, SpecCheck
from satori_ci.run.model import RunResult


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def target(run: RunResult) -> str:
    """What a run checked against: `staging`, or `recorded responses`."""
    return "recorded responses" if run.runner == "verify" else "staging"


Fmt = Callable[[str], str]


def verdict_words(spec: SpecCheck, fail_on: FailOn, found: Verdict, code: Fmt = esc.code, text: Fmt = esc.text) -> str:
    """The verdict in words, without its icon; `code` and `text` escape for the output's format."""
    name, run, o = code(spec.spec), spec.run, found.outcome
    if o is Outcome.ERROR:
        return f"{name} could not be checked: {text(found.detail)}"
    if run is None or o is Outcome.NOT_RUN:
        return f"Oracles not run on {name}: {text(found.detail or 'not requested')}"
    counted = f"{_plural(found.violations, 'oracle violation')} in {_plural(found.fields, 'field')} of {name}"
    suspect = f", {found.suspect} on suspect oracles" if found.suspect else ""
    if fail_on is FailOn.NEW_VIOLATIONS and found.preexisting:
        suspect += f", {found.preexisting} pre-existing"
    if o is Outcome.VIOLATIONS:
        if found.failing < found.violations and fail_on is FailOn.NEW_VIOLATIONS:
            return f"{counted} ({found.failing} on oracles added or changed here{suspect})"
        return counted + (f" ({found.suspect} on suspect oracles, not failing)" if found.suspect else "")
    if o is Outcome.TOLERATED:
        if fail_on is FailOn.NEW_VIOLATIONS:
            none = "none new" if found.preexisting else "none"
            why = f": {none} on an oracle this pull request added or changed{suspect}"
        elif fail_on is FailOn.VIOLATIONS and found.suspect:
            why = ": every one on a suspect oracle, which observed responses of the base branch violate too"
        else:
            why = ""
        return f"{counted}, not failing the check (fail-on {code(fail_on.value)}{why})"
    if o is Outcome.TEAM_TESTS_FAILED:
        tolerated = f"; {counted}, not failing the check (fail-on {code(fail_on.value)})" if found.violations else ""
        return team_text.verdict_words(run, name) + tolerated
    if o is Outcome.SERVER_ERRORS:
        return f"{_plural(found.violations, 'server error')} (5XX) from {target(run)} on {name}"
    if o is Outcome.AUTH_FAILED:
        return f"{target(run).capitalize()} refused the credentials for {name}: {text(found.detail)}"
    if o is Outcome.NOTHING_CHECKED:
        return f"Nothing was checked on {name}: {text(found.detail)}"
    if o is Outcome.UNREACHABLE:
        if run.infrastructure:
            failed = f"{len(run.infrastructure)} of {_plural(run.requests, 'request')} failed"
            return f"{target(run).capitalize()} could not be reached for {name}: {failed} ({text(found.detail)})"
        return f"No response from {target(run)} could be checked for {name}: {text(found.detail)}"
    change = spec.change
    if o is Outcome.CHANGE_UNCHECKED and change is not None:
        return (f"The change to {name} went unchecked: {change.exercised} of "
                f"{_plural(change.changed, 'oracle')} it adds or changes exercised against {target(run)}, at least "
                f"{change.required} asked (min-changed-exercised)")
    found_coverage = coverage_of(run)
    if found_coverage is not None:
        changed = f"{change.exercised} of {_plural(change.changed, 'oracle')} this change adds or changes, " \
            if change else ""
        return (f"No violations in {name}: {changed}{found_coverage.exercised} of "
                f"{_plural(found_coverage.enabled, 'oracle')}{' in all' if change else ''} exercised against "
                f"{target(run)} ({_plural(run.checked, 'response')})")
    return (f"No violations in {name}: {_plural(spec.oracles_enabled, 'oracle')} checked against "
            f"{target(run)} ({_plural(run.checked, 'response')})")


_ICONS = {Outcome.ERROR: "🛑", Outcome.VIOLATIONS: "❌", Outcome.TOLERATED: "⚠️", Outcome.UNREACHABLE: "⚠️",
          Outcome.NOT_RUN: "ℹ️", Outcome.CLEAN: "✅", Outcome.SERVER_ERRORS: "❌", Outcome.AUTH_FAILED: "⚠️",
          Outcome.NOTHING_CHECKED: "⚠️", Outcome.CHANGE_UNCHECKED: "⚠️", Outcome.TEAM_TESTS_FAILED: "❌"}


def icon(spec: SpecCheck, outcome: Outcome) -> str:
    """The verdict's emoji (a spec that failed on infrastructure gets a warning, not a stop sign)."""
    if outcome is Outcome.ERROR and spec.error_code is ExitCode.INFRASTRUCTURE:
        return "⚠️"
    return _ICONS[outcome]


def verdict_line(spec: SpecCheck, fail_on: FailOn, found: Verdict) -> str:
    """The one line a reviewer reads first, in Markdown."""
    return f"{icon(spec, found.outcome)} {verdict_words(spec, fail_on, found)}"
