"""The job summary: the table of specs, each spec's full report, overflow text and the 1 MiB cap."""

from __future__ import annotations

from satori_ci.report.markdown import render_comment
from satori_ci.report.model import FailOn
from satori_ci.report.summary import SUMMARY_LIMIT, render_summary
from tests.report import factory as f
from tests.report.gfm import cells, to_html


def test_summary_has_a_headline_a_table_and_every_spec() -> None:
    clean = f.spec_check(spec="api/clean.yaml")
    broken = f.spec_check((f.violation(),))
    text = render_summary(f.report(broken, clean, f.error_spec()))
    lines = text.splitlines()
    assert lines[0] == "## ❌ satori-ci: oracle violations"
    assert lines[2] == "3 spec(s) · 1 violation(s) · fail-on `violations` · exit code 1"
    assert "| `api/openapi.yaml` | ❌ violations | +1 −1 ~1 ↪1 | +1 −1 ~1 | 12 | 1 |" in lines
    assert "| `api/clean.yaml` | ✅ clean | +1 −1 ~1 ↪1 | +1 −1 ~1 | 12 | 0 |" in lines
    assert "| `api/openapi.yaml` | 🛑 error | — | — | 0 | 0 |" in lines
    assert "### ✅ No violations in `api/clean.yaml`: 12 oracles checked against staging (40 responses)" in lines
    assert "<!--" not in text
    assert {len(row) for row in cells(to_html(text).split("</table>")[0])} == {6}


def test_summary_carries_the_overflowed_comment() -> None:
    spec = f.spec_check(f.violations_of(200, 25))
    rendered = render_comment(spec, FailOn.VIOLATIONS)
    assert rendered.overflow is not None
    text = render_summary(f.report(spec), {spec.spec: rendered.overflow})
    assert rendered.overflow in text
    assert render_summary(f.report(spec)) == text


def test_summary_stays_under_githubs_limit() -> None:
    specs = tuple(f.spec_check(f.violations_of(300, 20, '"' + "x" * 190 + '"'), spec=f"api/s{i}.yaml")
                  for i in range(5))
    text = render_summary(f.report(*specs))
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert all(f"### ❌ 6000 oracle violations in 300 fields of `api/s{i}.yaml`" in text for i in range(5))


def test_a_clean_report_says_so() -> None:
    assert render_summary(f.report(f.spec_check())).startswith("## ✅ satori-ci: no oracle violations\n")
