"""The team's own Postman collection in every report: its tests as Newman ran them, and its opted-in writes (pure).

Each renderer gives its escapers (`code` for names and requests, `text` for messages): the entries are the same
words in the terminal, the run's text, the comment and the summary. Untrusted: test names, messages, request
names and URLs (escaped by the caller's functions, which redact first).
"""

from __future__ import annotations

from collections.abc import Callable

from satori_ci.report import escape as esc
from satori_ci.run.model import RunResult
from satori_ci.run.team import OptedInRequest, TeamTestPolicy, TeamTests

Fmt = Callable[[str], str]

NOT_RUN = ("not run: the native runner does not run the team collection's scripts, nor its tests (use --runner "
           "newman to run them)")
MESSAGE_LIMIT = 300


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def headline(tests: TeamTests) -> str:
    """`1 of 3 tests failed (team-tests: fail)` (numbers and fixed words only: safe in any format)."""
    if not tests.ran:
        return "its tests were not run (native runner)"
    if tests.failed:
        head = f"{tests.failed} of {_plural(tests.total, 'test')} failed"
    else:
        head = f"{_plural(tests.total, 'test')}, none failed"
    if tests.skipped:
        head += f" ({tests.skipped} skipped)"
    if tests.failed and tests.policy is TeamTestPolicy.WARN:
        head += " (team-tests: warn, not failing the check)"
    return head


def shown(run: RunResult | None) -> bool:
    """Whether the run has anything to say about the team's collection."""
    if run is None:
        return False
    tests = run.team_tests
    return bool(run.opted_in) or (tests is not None and tests.shown and (tests.total > 0 or not tests.ran))


def _status(request: OptedInRequest) -> str:
    if not request.statuses:
        return request.detail
    return ", ".join("no answer" if s is None else f"HTTP {s}" for s in request.statuses)


def entries(run: RunResult, code: Fmt, text: Fmt) -> list[str]:
    """One entry a failing (or, when nothing failed, skipped) test, then one an opted-in request."""
    out: list[str] = []
    tests = run.team_tests
    if tests is not None and tests.shown:
        if not tests.ran:
            out.append(text(NOT_RUN))
        for t in tests.failures:
            out.append(f"failed: {code(t.label)}: {text(esc.clip(t.message, MESSAGE_LIMIT) or 'failed')}")
        if tests.failed > len(tests.failures):
            out.append(f"… and {tests.failed - len(tests.failures)} more failing (the JSON report counts them)")
    for r in run.opted_in:
        sent = "sent" if r.statuses else "not sent"
        out.append(f"{sent} (opted in): {code(f'{r.method} {r.path}')}, {code(r.label)}: {text(_status(r))}")
    return out


def title(run: RunResult) -> str:
    """The section's title: `Your Postman collection: 1 of 3 tests failed`."""
    tests = run.team_tests
    if tests is not None and tests.shown and (tests.total > 0 or not tests.ran):
        return f"Your Postman collection: {headline(tests)}"
    return f"Your Postman collection: {_plural(len(run.opted_in), 'opted-in request')}"


def markdown_section(run: RunResult | None, items: int, collapse: int) -> list[str]:
    """`#### Your Postman collection: …` and its entries (`items` at most, in `<details>` past `collapse`)."""
    if run is None or not shown(run):
        return []
    found = entries(run, esc.code, esc.text)
    listed = [f"- {e}" for e in found[:items]] + ([f"- … and {len(found) - items} more"] if len(found) > items else [])
    if len(found) > collapse:
        listed = [f"<details><summary>{len(found)} entries</summary>", "", *listed, "", "</details>"]
    return [f"#### {title(run)}", "", *listed, ""]


def verdict_words(run: RunResult, name: str) -> str:
    """The verdict when the team's tests fail the check (`name`: the spec, escaped)."""
    tests = run.team_tests
    if tests is None:
        return f"Tests of your Postman collection failed on {name}"
    return f"{tests.failed} of {_plural(tests.total, 'test')} of your Postman collection failed on {name}"
