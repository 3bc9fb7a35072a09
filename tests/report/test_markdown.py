"""The sticky comment: verdicts, sections, hostile input, the size budget, determinism."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from satori_ci.errors import ExitCode
from satori_ci.oracles.diff import FieldOracleDiff, OracleDiff
from satori_ci.oracles.kinds import OracleKind
from satori_ci.report.escape import visible
from satori_ci.report.markdown import marker_for, render_comment, render_resolved
from satori_ci.report.model import FailOn, SpecCheck
from satori_ci.run.model import Violation
from satori_ci.spec.diff import ChangedField, FieldDiff
from satori_ci.spec.model import OperationKey
from tests.report import factory as f
from tests.report.gfm import cells, shown, to_html


def _lines(body: str) -> list[str]:
    return body.splitlines()


def test_comment_with_violations_has_verdict_table_changes_and_howto() -> None:
    other = f.oracle(OracleKind.STRING_IS_URL, None, field="businesses[].url", source="rules", reason="named url")
    spec = f.spec_check((f.violation(), f.violation(value='"cheap"', pointer="/businesses/4/price", n=1),
                         f.violation(other, '"nope"', "/businesses/2/url")))
    body = render_comment(spec, FailOn.VIOLATIONS, run_url="https://github.com/o/r/actions/runs/7").body
    lines = _lines(body)
    assert lines[0] == "<!-- satori-ci:spec=api/openapi.yaml -->"
    assert lines[1] == "### ❌ 3 oracle violations in 2 fields of `api/openapi.yaml`"
    assert "[workflow run](https://github.com/o/r/actions/runs/7)" in lines[3]
    assert "**`GET /businesses/search 200`**" in lines
    assert ('| `businesses[].price` | `string_specific_values ["$", "$$", "$$$"]` | `"$$$$$"` | `/businesses/0/price` |'
            in lines)
    assert '| | | `"cheap"` | `/businesses/4/price` |' in lines
    assert "1 added · 1 removed · 1 changed · 1 moved · 120 unchanged response fields" in lines
    assert ("- ✏️ `GET /businesses/search 200` `businesses[].price`: enum gained 'custom'; description changed"
            in lines)
    assert "| ✏️ | `GET /businesses/search 200` | `total` | `number_min_value 0` → `number_min_value 1` (value) | " \
           "`manual` | at least one result |" in lines
    assert "<details><summary>How to accept or silence an oracle</summary>" in lines
    assert any("enabled: false" in line and 'source: "manual"' in line and "string_specific_values" in line
               for line in lines)
    assert "`.satori/api/openapi.oracles.yaml`" in body


@pytest.mark.parametrize(("spec", "fail_on", "line"), [
    (f.spec_check(), FailOn.VIOLATIONS,
     "### ✅ No violations in `api/openapi.yaml`: 12 oracles checked against staging (40 responses)"),
    (f.spec_check((f.violation(),)), FailOn.NEVER,
     "### ⚠️ 1 oracle violation in 1 field of `api/openapi.yaml`, not failing the check (fail-on `never`)"),
    (f.spec_check((f.violation(),)), FailOn.NEW_VIOLATIONS,
     "### ⚠️ 1 oracle violation in 1 field of `api/openapi.yaml`, not failing the check (fail-on `new-violations`: "
     "none on an oracle this pull request added or changed)"),
    (f.spec_check(run_result=f.run(infrastructure=(f.infra(),), checked=30)), FailOn.VIOLATIONS,
     "### ⚠️ Staging could not be reached for `api/openapi.yaml`: 1 of 40 requests failed (connection refused)"),
    (f.spec_check(run_result=f.run(unchecked=(f.unchecked(),), checked=0)), FailOn.VIOLATIONS,
     "### ⚠️ No response from staging could be checked for `api/openapi.yaml`: status 404"),
    (f.spec_check(run_result=None, run=None, run_skipped="no staging URL"), FailOn.VIOLATIONS,
     "### ℹ️ Oracles not run on `api/openapi.yaml`: no staging URL"),
    (f.error_spec(), FailOn.VIOLATIONS,
     "### 🛑 `api/openapi.yaml` could not be checked: api/openapi.yaml:3: mapping values are not allowed here"),
    (f.error_spec("GitHub API: 502", ExitCode.INFRASTRUCTURE), FailOn.VIOLATIONS,
     "### ⚠️ `api/openapi.yaml` could not be checked: GitHub API: 502"),
])
def test_verdict_lines(spec: SpecCheck, fail_on: FailOn, line: str) -> None:
    assert _lines(render_comment(spec, fail_on).body)[1] == line


def test_new_violations_are_counted_and_marked() -> None:
    new = f.oracle(OracleKind.NUMBER_MAX_VALUE, 5, field="businesses[].rating", source="rules",
                   reason="the schema's enum")
    spec = f.spec_check((f.violation(), f.violation(new, "7", "/businesses/0/rating")))
    body = render_comment(spec, FailOn.NEW_VIOLATIONS).body
    assert _lines(body)[1] == ("### ❌ 2 oracle violations in 2 fields of `api/openapi.yaml` "
                               "(1 on oracles added or changed here)")
    assert "| `businesses[].rating` | `number_max_value 5` 🆕 | `7` | `/businesses/0/rating` |" in body


def test_an_erroring_spec_shows_only_its_verdict() -> None:
    body = render_comment(f.error_spec(), FailOn.VIOLATIONS).body
    assert "####" not in body and "<details>" not in body


def test_empty_diffs_take_one_line() -> None:
    spec = f.spec_check(field_diff=replace(f.field_diff(), added=(), removed=(), changed=(), moved=()),
                        oracle_diff=OracleDiff(()))
    body = render_comment(spec, FailOn.VIOLATIONS).body
    assert "No response field changed (120 unchanged)." in body
    assert "Oracle changes" not in body and "How to accept" not in body


def test_infrastructure_problems_are_listed() -> None:
    spec = f.spec_check(run_result=f.run(infrastructure=(f.infra("timed out after 10 s"),), checked=39))
    body = render_comment(spec, FailOn.VIOLATIONS).body
    assert "#### Requests and responses" in body
    assert ("- `connection` `GET https://staging.example/businesses/search?n=9`: timed out after 10 s (3 attempts)"
            in body)


def _hostile_spec(value: str) -> SpecCheck:
    o = f.oracle(OracleKind.STRING_SPECIFIC_VALUES, (value, "ok"), field=f"a.{value}", reason=value,
                 review=f"needs review: {value}")
    op = OperationKey("GET", f"/x/{value}", "200")
    o = replace(o, operation=op)
    v = Violation(op, o.field, o, f"/a/{value}", value, value, f.request())
    diff = FieldDiff(added=(f.rfield(value, op=op),), removed=(), unchanged=1, moved=(),
                       changed=(ChangedField(f.rfield(value), f.rfield(value), (value,) * 3),))
    return f.spec_check((v,), spec=f"api/{value}.yaml", oracle_file=f".satori/{value}.yaml",
                        field_diff=diff, oracle_diff=OracleDiff((FieldOracleDiff(op, o.field, (o,), (o,), ()),)),
                        run_result=f.run((v,), infrastructure=(f.infra(value),), unchecked=(f.unchecked(value),)))


@pytest.mark.parametrize("value", f.HOSTILE)
def test_hostile_values_cannot_change_the_comment(value: str) -> None:
    body = render_comment(_hostile_spec(value), FailOn.VIOLATIONS).body
    first, _ = body.split("\n", 1)
    assert re.fullmatch(r"<!-- satori-ci:spec=[A-Za-z0-9/._~%-]+ -->", first)
    rendered = to_html(body)
    linkable = re.sub(r"<(code|pre)[^>]*>.*?</\1>|<!--.*?-->", "", rendered, flags=re.S)  # never linked
    for trigger in ("@octocat", "#123", "GH-45", "repo#7", "https://evil", "www.evil"):
        assert trigger not in linkable
    assert "<script" not in rendered and "<a " not in rendered and "<img" not in rendered
    assert rendered.count("<details>") == 1 and rendered.count("</details>") == 1
    assert rendered.count("<summary>") == 1
    assert "<h1" not in rendered and "<h2" not in rendered and rendered.count("<h3>") == 1
    tables = re.findall(r"<table>.*?</table>", rendered, re.S)
    assert len(tables) == 2
    assert {len(row) for row in cells(tables[0])} == {4}
    assert {len(row) for row in cells(tables[1])} == {6}
    assert shown(cells(tables[0])[1][2]) == visible(value)


def test_marker_cannot_be_closed_by_the_path() -> None:
    assert marker_for("a/b-->c.yaml") == "<!-- satori-ci:spec=a/b--%3Ec.yaml -->"


def test_budget_cuts_the_comment_and_returns_the_full_text() -> None:
    spec = f.spec_check(f.violations_of(200, 25))
    rendered = render_comment(spec, FailOn.VIOLATIONS, budget=60_000)
    assert len(rendered.body) < 60_000
    assert rendered.overflow is not None and len(rendered.overflow) > len(rendered.body)
    assert "the full report is in the job summary" in rendered.body
    assert _lines(rendered.body)[1] == "### ❌ 5000 oracle violations in 200 fields of `api/openapi.yaml`"
    assert "… and" in rendered.body
    assert not rendered.overflow.startswith("<!--")
    for budget in (2_000, 10_000, 30_000):
        small = render_comment(spec, FailOn.VIOLATIONS, budget=budget)
        assert len(small.body) < budget and small.overflow == rendered.overflow
        assert small.body.startswith(marker_for(f.SPEC))


def test_long_lists_go_into_details() -> None:
    many = tuple(f.rfield(f"f{i}") for i in range(30))
    spec = f.spec_check(field_diff=replace(f.field_diff(), added=many))
    body = render_comment(spec, FailOn.VIOLATIONS).body
    assert "<details><summary>33 field changes</summary>" in body


def test_a_small_comment_is_not_cut() -> None:
    rendered = render_comment(f.spec_check((f.violation(),)), FailOn.VIOLATIONS)
    assert rendered.overflow is None and "job summary" not in rendered.body


def test_budget_outside_githubs_limits_is_refused() -> None:
    with pytest.raises(ValueError):
        render_comment(f.spec_check(), FailOn.VIOLATIONS, budget=70_000)


def test_rendering_is_deterministic() -> None:
    def make() -> tuple[str, str | None]:
        r = render_comment(f.spec_check(f.violations_of(50, 30)), FailOn.NEW_VIOLATIONS, budget=20_000)
        return r.body, r.overflow
    assert make() == make()


def test_resolved_comment_keeps_the_marker() -> None:
    text = render_resolved(f.spec_check())
    assert _lines(text)[0] == marker_for(f.SPEC)
    assert _lines(text)[1] == "### ✅ Resolved: no oracle violations left in `api/openapi.yaml`"
    assert "12 oracles checked against staging (40 responses), none broken" in text
    assert "Resolved" in render_resolved(f.error_spec())
