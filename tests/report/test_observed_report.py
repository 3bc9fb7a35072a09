"""Observed suggestions and suspect oracles in the comment, the terminal and the JSON report: listed, escaped,
budgeted; suspect violations never fail the check."""

from __future__ import annotations

import json
from dataclasses import replace

from satori_ci.errors import ExitCode
from satori_ci.observe.keys import suspect_key
from satori_ci.oracles.diff import FieldOracleDiff, OracleDiff
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.report.annotations import render_annotations
from satori_ci.report.json_report import report_json
from satori_ci.report.markdown import render_comment
from satori_ci.report.model import FailOn, ObservationSummary
from satori_ci.report.run_text import run_text
from satori_ci.report.summary import render_summary
from satori_ci.report.terminal import render_terminal
from tests.report import factory as f
from tests.report.gfm import cells, shown, to_html


def suggestion(field: str = "businesses[].id", kind: OracleKind = OracleKind.STRING_FIXED_LENGTH,
               value: object = 22, evidence: int = 37) -> Oracle:
    return Oracle(f.SEARCH, field, kind, value, OBSERVED, f"observed: {value} characters in all {evidence} responses",
                  False, evidence=evidence)


def observed_check(suggestions: tuple[Oracle, ...], new: tuple[Oracle, ...] = (), **overrides: object
                   ) -> f.SpecCheck:
    diff = OracleDiff(tuple(FieldOracleDiff(o.operation, o.field, (o,), (), ()) for o in new))
    summary = ObservationSummary(".satori/api.observed.json", 40, 2, 1, 20)
    values: dict[str, object] = {"suggestions": suggestions, "oracle_diff": diff, "observation": summary}
    values.update(overrides)
    return f.spec_check(**values)


def test_the_comment_lists_suggestions_with_how_to_accept_them() -> None:
    old, new = suggestion(), suggestion("businesses[].is_closed", OracleKind.BOOLEAN_ALWAYS_FALSE, None, 40)
    body = render_comment(observed_check((old, new), (new,)), FailOn.VIOLATIONS).body
    assert "#### Suggested oracles (observed in responses)" in body
    assert "observed 40 responses (1 of 2 operations ready" in body and "enabled: true" not in body
    section = body.split("#### Suggested oracles", 1)[1]
    assert ("```sh\nsatori-ci accept api/openapi.yaml --oracles .satori/api/openapi.oracles.yaml --all\n"
            "satori-ci reject api/openapi.yaml --oracles .satori/api/openapi.oracles.yaml --all\n```") in section
    rows = cells(to_html(body))
    mine = [[shown(c) for c in r] for r in rows if any("observed:" in shown(c) for c in r)]
    assert mine == [["", "GET /businesses/search 200", "businesses[].id", "string_fixed_length 22", "37 observations",
                     "observed: 22 characters in all 37 responses"],
                    ["🆕", "GET /businesses/search 200", "businesses[].is_closed", "boolean_always_false",
                     "40 observations", "observed: None characters in all 40 responses"]]
    assert "Oracle changes" not in body  # the only change is a suggestion: not an oracle change to review
    assert render_comment(observed_check(()), FailOn.VIOLATIONS).body.count("Suggested oracles") == 0


def test_hostile_field_names_and_reasons_are_escaped() -> None:
    bad = tuple(replace(suggestion(field=h), reason=h) for h in f.HOSTILE)
    body = render_comment(observed_check(bad, bad), FailOn.VIOLATIONS).body
    assert "<!--" not in body.split("\n", 1)[1] and "<script>" not in to_html(body)
    section = to_html(body.split("#### Suggested oracles", 1)[1])
    rows = cells(section)
    assert len(rows) == 1 + len(f.HOSTILE) and all(len(r) == 6 for r in rows)  # no value adds or splits a cell
    assert shown(rows[1][2]) == f.HOSTILE[0] and shown(rows[2][5]) == f.HOSTILE[1]


def test_many_suggestions_are_budgeted() -> None:
    many = tuple(suggestion(field=f"businesses[].f{i}", evidence=i + 1) for i in range(1000))
    comment = render_comment(observed_check(many, many), FailOn.VIOLATIONS, budget=20_000)
    assert len(comment.body) < 20_000 and comment.overflow is not None
    full = render_comment(observed_check(many, many), FailOn.VIOLATIONS).body
    assert "… and 700 more" in full and "<summary>1000 suggestions</summary>" in full


def _suspect_check() -> tuple[f.SpecCheck, Oracle]:
    url = f.oracle(OracleKind.STRING_IS_URL, None, field="businesses[].url", source="rules", reason="named url")
    price = f.oracle()
    checked = f.spec_check((f.violation(url, '"n/a"', "/businesses/3/url"), f.violation(price)),
                           suspects={suspect_key(url): 8}, oracle_diff=OracleDiff(()), new_oracles=frozenset())
    return checked, url


def test_suspect_violations_are_listed_and_do_not_fail() -> None:
    checked, _ = _suspect_check()
    assert [v.oracle for v in checked.failing_violations(FailOn.VIOLATIONS)] == [f.oracle()]
    assert f.report(checked).exit_code == ExitCode.VIOLATIONS
    only = replace(checked, run=f.run((checked.run.violations[0],)))  # type: ignore[union-attr]
    assert f.report(only).exit_code == ExitCode.OK
    body = render_comment(only, FailOn.VIOLATIONS).body
    assert body.splitlines()[1] == ("### ⚠️ 1 oracle violation in 1 field of `api/openapi.yaml`, not failing the "
                                    "check (fail-on `violations`: every one on a suspect oracle, which observed "
                                    "responses of the base branch violate too)")
    assert "#### Suspect oracles" in body and "⚠️ suspect" in body
    rows = [[shown(c) for c in r] for r in cells(to_html(body))]
    assert ["GET /businesses/search 200", "businesses[].url", "string_is_url", "rules", "8 responses", "1"] in rows
    text = render_terminal(f.report(only), colour=False)
    assert "[suspect]" in text and "Suspect oracles: 1 oracle(s)" in text and "exit code 0" in text
    data = report_json(f.report(only))
    spec = data["specs"][0]
    assert spec["outcome"] == "tolerated" and spec["counts"]["suspect"] == 1
    assert spec["violations"][0]["suspect"] and not spec["violations"][0]["failing"]
    assert spec["observed"]["suspects"] == [{"method": "GET", "path": "/businesses/search", "status": "200",
                                             "field": "businesses[].url", "oracle": "string_is_url",
                                             "violating_responses": 8}]
    assert any(line.startswith("::warning") for line in render_annotations(f.report(only)))
    assert not any(line.startswith("::error") for line in render_annotations(f.report(only)))
    json.dumps(data)


def test_new_violations_mode_also_spares_suspects() -> None:
    checked, _ = _suspect_check()
    new = replace(checked, new_oracles=frozenset({("GET", "/businesses/search", "200", "businesses[].url",
                                                   "string_is_url")}))
    assert new.failing_violations(FailOn.NEW_VIOLATIONS) == ()


def test_json_and_terminal_list_suggestions() -> None:
    s = suggestion()
    report = f.report(observed_check((s,), (s,)))
    found = report_json(report)["specs"][0]["observed"]
    assert found["store"] == {"file": ".satori/api.observed.json", "responses": 40, "operations": 2, "ready": 1,
                              "min_responses": 20}
    assert found["suggestions"] == [{"method": "GET", "path": "/businesses/search", "status": "200",
                                     "field": "businesses[].id", "oracle": "string_fixed_length", "value": 22,
                                     "source": "observed", "reason": "observed: 22 characters in all 37 responses",
                                     "evidence": 37, "enabled": False, "new": True}]
    text = render_terminal(report, colour=False)
    assert ("Suggested oracles (observed in responses): 1, off until you accept them, in "
            ".satori/api/openapi.oracles.yaml") in text
    assert ("  accept them all: satori-ci accept api/openapi.yaml --oracles .satori/api/openapi.oracles.yaml --all"
            "\n  dismiss them for good: satori-ci reject api/openapi.yaml --oracles .satori/api/openapi.oracles.yaml "
            "--all (--field PATH and --kind KIND select too; then commit the oracle file)") in text
    assert "new GET /businesses/search 200  businesses[].id  string_fixed_length 22  (evidence 37" in text
    notices = [x for x in render_annotations(report) if "Suggested oracle (observed)" in x]
    assert len(notices) == 1 and notices[0].startswith("::notice")
    assert notices[0].endswith("accept it with `satori-ci accept api/openapi.yaml --oracles "
                               ".satori/api/openapi.oracles.yaml --operation 'GET /businesses/search 200' --field "
                               "'businesses[].id' --kind string_fixed_length`")


def test_several_operations_get_a_command_each_and_the_default_file_none() -> None:
    one, other = suggestion(), replace(suggestion("id"), operation=f.DETAIL)
    check = observed_check((one, other), (other,), oracle_file=".satori/api.openapi.oracles.yaml")
    body = render_comment(check, FailOn.VIOLATIONS).body
    section = body.split("#### Suggested oracles", 1)[1]
    assert ("```sh\nsatori-ci accept api/openapi.yaml --all\n"
            "satori-ci accept api/openapi.yaml --operation 'GET /businesses/search'\n"
            "satori-ci accept api/openapi.yaml --operation 'GET /businesses/{id}'\n"
            "satori-ci reject api/openapi.yaml --all\n```") in section
    text = render_terminal(f.report(check), colour=False)
    assert ("  accept them all: satori-ci accept api/openapi.yaml --all (or one operation's: --operation "
            "\"METHOD /path\")") in text
    summary = render_summary(f.report(check))
    assert ("### Suggested oracles (observed in responses)\n\n- `api/openapi.yaml`: 2 suggested (1 new), off until "
            "accepted: `satori-ci accept api/openapi.yaml --all`\n") in summary
    assert summary.index("### Suggested oracles") < summary.index("#### Suggested oracles")
    assert "### Suggested oracles" not in render_summary(f.report(f.spec_check()))


def test_the_howto_names_the_accept_command() -> None:
    check = observed_check((suggestion(),), run_result=f.run((f.violation(),)))
    body = render_comment(check, FailOn.VIOLATIONS).body
    howto = body.split("How to accept or silence an oracle", 1)[1]
    assert ("- **Accept observed suggestions** (`source: observed`): `satori-ci accept api/openapi.yaml --oracles "
            ".satori/api/openapi.oracles.yaml --all` (or `--operation \"METHOD /path\"`, `--field`, `--kind`); "
            "**dismiss** them for good with `satori-ci reject`.") in howto


def test_a_violated_accepted_observed_oracle_is_marked_observed_everywhere() -> None:
    accepted = replace(suggestion(), enabled=True)
    rules = f.oracle()
    check = f.spec_check((f.violation(accepted, '"short"', "/businesses/0/id"), f.violation(rules)),
                         oracle_diff=OracleDiff(()), new_oracles=frozenset())
    report = f.report(check)
    rows = [[shown(c) for c in r] for r in cells(to_html(render_comment(check, FailOn.VIOLATIONS).body))]
    assert ["businesses[].id", "string_fixed_length 22 (observed)", "\"short\"", "/businesses/0/id"] in rows
    assert ["businesses[].price", 'string_specific_values ["$", "$$", "$$$"]', '"$$$$$"', "/businesses/0/price"] in rows
    text = render_terminal(report, colour=False)
    assert "    businesses[].id  string_fixed_length 22 (observed)" in text.splitlines()
    assert '    businesses[].price  string_specific_values ["$", "$$", "$$$"]' in text.splitlines()
    errors = [x for x in render_annotations(report) if x.startswith("::error")]
    assert any('string_fixed_length 22 (observed): "short" at /businesses/0/id' in x for x in errors)
    assert not any('"$$$"] (observed)' in x for x in errors)
    lines = run_text(check.run).splitlines()  # type: ignore[arg-type]
    assert "VIOLATION GET /businesses/search 200  businesses[].id  string_fixed_length 22 (observed)" in lines
    assert 'VIOLATION GET /businesses/search 200  businesses[].price  string_specific_values ["$", "$$", "$$$"]' \
        in lines
