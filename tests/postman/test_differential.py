"""Differential tests: the Python and JavaScript checkers agree byte for byte on generated cases.

Hypothesis only generates here; every case of a test goes to ONE `node` process, then Python compares.
A failure prints the case as JSON so it can become a regression test in tests/oracles/.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from satori_ci.oracles import predicates
from satori_ci.oracles.check import check_body, to_json, truncate_json
from satori_ci.oracles.model import Oracle
from satori_ci.postman.checker_js import oracle_json
from tests.postman import strategies as gen
from tests.postman.node_runner import needs_node, run_node

EXAMPLES = int(os.environ.get("SATORI_DIFF_EXAMPLES", "300"))
GENERATE_ONLY = settings(
    max_examples=EXAMPLES, phases=[Phase.generate], database=None, deadline=None,
    suppress_health_check=list(HealthCheck),
)

pytestmark = needs_node


def _collect(strategy: st.SearchStrategy[Any], examples: int = EXAMPLES) -> list[Any]:
    drawn: list[Any] = []

    @settings(GENERATE_ONLY, max_examples=max(1, examples))
    @given(strategy)
    def draw(value: Any) -> None:
        drawn.append(value)

    draw()
    return drawn


def _python_findings(oracles: list[Oracle], body: Any, null_like: tuple[str, ...]) -> list[dict[str, Any]]:
    index = {id(o): i for i, o in enumerate(oracles)}
    return [
        {"index": index[id(f.oracle)], "pointer": f.pointer, "value": to_json(f.value), "message": f.message}
        for f in check_body(oracles, body, null_like)
    ]


def _js_findings(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**f, "value": to_json(f["value"])} for f in found]


def _as_json_case(oracles: list[Oracle], body: Any, null_like: tuple[str, ...]) -> dict[str, Any]:
    wire = [{**oracle_json(o), "enabled": o.enabled} for o in oracles]
    return {"oracles": wire, "body": body, "nullLike": list(null_like)}


def test_check_body_agrees() -> None:
    drawn = _collect(gen.cases())
    wire = [_as_json_case(*case) for case in drawn]
    results = run_node(cases=wire)["cases"]
    assert len(results) == len(drawn)
    findings = 0
    for case, js in zip(drawn, results, strict=True):
        py = _python_findings(*case)
        findings += len(py)
        if py != _js_findings(js):
            detail = json.dumps(_as_json_case(*case), ensure_ascii=False)
            raise AssertionError(f"checkers disagree on {detail}\npython: {py}\njs:     {_js_findings(js)}")
    assert findings > len(drawn) // 4, "the generator should produce violations often"


def test_predicates_agree() -> None:
    pieces = st.one_of(gen.GRAMMAR_STRINGS, gen.GRAMMAR_STRINGS, gen.STRINGS)
    strings = _collect(st.lists(pieces, min_size=10, max_size=10), EXAMPLES // 2)
    flat = sorted({s for batch in strings for s in batch})
    fns = {"isUrl": predicates.is_url, "isNumeric": predicates.is_numeric, "isEmail": predicates.is_email,
           "isDate": predicates.is_date, "isTime": predicates.is_time}
    calls = [(name, s) for s in flat for name in fns]
    results = run_node(predicates=calls)["predicates"]
    mismatches = [(name, s, js) for (name, s), js in zip(calls, results, strict=True) if fns[name](s) != js]
    assert not mismatches, mismatches[:10]
    assert any(results) and not all(results)


def test_json_rendering_agrees() -> None:
    values = _collect(st.lists(st.one_of(gen.FLOATS, gen.NUMBERS, gen.json_values(12)), max_size=4), EXAMPLES // 2)
    values = [v for batch in values for v in batch]
    values += [1.0, -0.0, 1e21, 1e-7, 1.5e-7, 123456789012345680000.0, 5e-324, 1.7976931348623157e308,
               0.1, 100.0, 1e16, "\x00\x1f\x7f\u2028\"\\ é😀", {"__proto__": [1, 2.0]}]
    results = run_node(json=values)["json"]
    for value, (js_full, js_cut) in zip(values, results, strict=True):
        assert (to_json(value), truncate_json(value, 20)) == (js_full, js_cut), value
