"""Why a GET operation was not reached, counted in the headline and said per operation in every renderer."""

from __future__ import annotations

from satori_ci.plan.model import Skip, SkipKind
from satori_ci.report.coverage import coverage_of
from satori_ci.report.run_text import run_text
from satori_ci.run.model import OperationCoverage, RunResult


def _run() -> RunResult:
    skips = (
        Skip("GET", "/search", SkipKind.NO_INPUT, "needs a value for {q} (query): add it ..."),
        Skip("GET", "/things/{id}", SkipKind.NOT_FOUND, "404 for every value tried: /things/a, /things/b"),
        Skip("GET", "/admin", SkipKind.REFUSED, "403 for every request: give credentials"),
        Skip("GET", "/a", SkipKind.BUDGET, "left out: the run's budget ran out first"),
        Skip("GET", "/b", SkipKind.BUDGET, "left out: the run's budget ran out first"),
    )
    coverage = (OperationCoverage("GET", "/things", 1, 1, 3, 3), OperationCoverage("GET", "/things/{id}", 2, 0, 0, 2),
                OperationCoverage("GET", "/admin", 1, 0, 0, 1), OperationCoverage("GET", "/search", 0, 0, 0, 2))
    return RunResult("native", 4, 1, (), skipped=skips, coverage=coverage)


def test_the_headline_counts_each_reason() -> None:
    found = coverage_of(_run())
    assert found is not None
    assert found.headline() == ("3 of 8 oracles exercised · 1 of 4 operations reached · 1 need a value · 1 not found"
                                " · 1 refused · 2 left out by the budget")


def test_the_run_text_says_not_reached_for_operations_that_were_sent() -> None:
    lines = run_text(_run()).splitlines()
    assert "NOT REACHED GET /things/{id}: 404 for every value tried: /things/a, /things/b" in lines
    assert "NOT REACHED GET /admin: 403 for every request: give credentials" in lines
    assert "NOT SENT GET /search: needs a value for {q} (query): add it ..." in lines
    assert "NOT SENT GET /a: left out: the run's budget ran out first" in lines
