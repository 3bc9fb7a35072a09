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
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import Oracle
from satori_ci.postman.checker_js import oracle_json
from tests.postman import grammar
from tests.postman import strategies as gen
from tests.postman.node_runner import needs_node, run_node

EXAMPLES = int(os.environ.get("SATORI_DIFF_EXAMPLES", "200"))
GENERATE_ONLY = settings(
    max_examples=EXAMPLES, phases=[Phase.generate], database=None, deadline=None, derandomize=True,
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


def _compare_cases(drawn: list[tuple[list[Oracle], Any, tuple[str, ...]]]) -> None:
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


def test_check_body_agrees() -> None:
    _compare_cases(_collect(gen.cases()))


LEAF_GRID: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 2, 2.5, 3, -0.0, 1e21, 1e-7, "", "N/A", "x", "ab", "😀é", "2020-02-29",
    "11:30 PM", "http://x", "a@b.c", "42", [], [1], [1, 1], [2, 1], [1, 2], [1, None, 0], [None], [1, "x"],
    [True, 1], [3, 3, 1], [1, "N/A", 2], [2, "N/A", 1], {"k": 1}, "é" * 250, "😀" * 199 + "éé", [{"a": "é" * 300}],
]
NUMBER_VALUES: list[Any] = [0, 1, 1.0, 2, -1, 2.5, 1e21, None, True, "1"]
SIZE_VALUES: list[Any] = [0, 1, 2, 3, 2.0, True, None]
LIST_VALUES: list[Any] = [[], [1], (1.0, 2), [True], ["x", "ab"], ("N/A",), [0, 1, 2], "x", None]


def _values_for(kind: K) -> list[Any]:
    if kind in predicates.LIST_VALUED:
        return LIST_VALUES
    if kind.applies_to == "number":
        return NUMBER_VALUES
    return SIZE_VALUES if kind.takes_value else [None]


def test_check_body_agrees_on_the_boundary_grid() -> None:
    drawn = [
        ([Oracle(gen.OP, "f", kind, value)], {"f": leaf}, null_like)
        for kind in K for value in _values_for(kind) for leaf in LEAF_GRID for null_like in [(), ("N/A",)]
    ]
    _compare_cases(drawn)


PREDICATES = (predicates.is_url, predicates.is_numeric, predicates.is_email, predicates.is_date, predicates.is_time)


def _python_bits(s: str) -> str:
    return "".join("1" if fn(s) else "0" for fn in PREDICATES)


def _compare_predicates(strings: list[str]) -> None:
    results = run_node(strings=strings)["strings"]
    names = [fn.__name__ for fn in PREDICATES]
    mismatches = [(s, py, js) for s, js in zip(strings, results, strict=True) if (py := _python_bits(s)) != js]
    assert not mismatches, f"python vs js bits for {names}: {mismatches[:10]}"


def test_predicates_agree_on_the_near_miss_grid() -> None:
    strings = grammar.all_grid_strings()
    assert len(strings) > 10_000
    _compare_predicates(strings)


def test_predicates_agree_on_generated_strings() -> None:
    pieces = st.one_of(grammar.GRAMMAR_STRINGS, grammar.GRAMMAR_STRINGS, gen.STRINGS)
    batches = _collect(st.lists(pieces, min_size=100, max_size=100, unique=True), max(1, EXAMPLES // 30))
    strings = sorted({s for batch in batches for s in batch})
    _compare_predicates(strings)
    bits = [_python_bits(s) for s in strings]
    assert all(any(b[i] == "1" for b in bits) for i in range(len(PREDICATES))), "each predicate holds sometimes"


def test_json_rendering_agrees() -> None:
    values = _collect(st.lists(st.one_of(gen.FLOATS, gen.NUMBERS, gen.json_values(12)), max_size=4), EXAMPLES // 2)
    values = [v for batch in values for v in batch]
    values += [1.0, -0.0, 1e21, 1e-7, 1.5e-7, 123456789012345680000.0, 5e-324, 1.7976931348623157e308,
               0.1, 100.0, 1e16, "\x00\x1f\x7f\u2028\"\\ é😀", {"__proto__": [1, 2.0]}]
    results = run_node(json=values)["json"]
    for value, (js_full, js_cut) in zip(values, results, strict=True):
        assert (to_json(value), truncate_json(value, 20)) == (js_full, js_cut), value
