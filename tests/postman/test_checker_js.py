"""The JavaScript checker's text, its segments, and its behaviour on hand-written cases."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest

from satori_ci.oracles.check import check_body, to_json
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import Oracle
from satori_ci.postman.checker_js import CHECKER_JS, oracle_json, segments_json
from satori_ci.spec.model import OperationKey
from tests.postman.node_runner import NODE, needs_node, run_node

OP = OperationKey("GET", "/x", "200")


@pytest.mark.parametrize(("path", "segments"), [
    ("", []),
    ("[]", [{"items": True}]),
    ("businesses[].price", [{"prop": "businesses"}, {"items": True}, {"prop": "price"}]),
    ("labels{}", [{"prop": "labels"}, {"map": True}]),
    ("a\\.b[][]", [{"prop": "a.b"}, {"items": True}, {"items": True}]),
])
def test_segments_json(path: str, segments: list[dict[str, Any]]) -> None:
    assert segments_json(path) == segments


def test_oracle_json_lists_tuple_values() -> None:
    o = Oracle(OP, "a[]", K.NUMBER_SPECIFIC_VALUES, (1, 2.5))
    assert oracle_json(o) == {"field": "a[]", "segments": [{"prop": "a"}, {"items": True}],
                              "oracle": "number_specific_values", "value": [1, 2.5]}


def test_checker_is_one_plain_expression() -> None:
    assert CHECKER_JS.startswith("(function () {")
    assert CHECKER_JS.rstrip().endswith("})()")
    assert not re.search(r"\brequire\s*\(|^\s*(import|export)\b|\bprocess\.|=>|`", CHECKER_JS, re.M)


@needs_node
def test_checker_runs_without_node_globals() -> None:
    script = (
        "const text = require('fs').readFileSync(0, 'utf8');"
        "const make = new Function('require', 'module', 'exports', 'process', 'Buffer', 'globalThis',"
        " 'var satori = ' + text + ';\\nreturn satori;');"
        "const s = make();"
        "console.log(JSON.stringify(s.checkBody([{field: 'a', segments: [{prop: 'a'}], oracle: 'boolean_always_true',"
        " value: null}], {a: false}, [])));"
    )
    assert NODE is not None
    done = subprocess.run([NODE, "-e", script], input=CHECKER_JS.encode(), capture_output=True, check=True)
    expected = '[{"index":0,"pointer":"/a","value":false,"message":"a = false is not true"}]'
    assert done.stdout.decode().strip() == expected


HAND_CASES: list[tuple[list[Oracle], Any, tuple[str, ...]]] = [
    ([Oracle(OP, "businesses[].price", K.STRING_SPECIFIC_VALUES, ("$", "$$"))],
     {"businesses": [{"price": "$$$"}, {"price": 3}, {"price": None}, "x", {"price": "N/A"}]}, ("N/A",)),
    ([Oracle(OP, "m{}.t", K.STRING_IS_TIME), Oracle(OP, "m{}", K.STRING_IS_DATE)],
     {"m": {"a/b": {"t": "-0001-11-30T00:00:00-0500"}, "c~": {"t": "11:30 PM"}, "d": "12 Jun 2013"}}, ()),
    ([Oracle(OP, "", K.ARRAY_NUMBER_DESC_ORDER), Oracle(OP, "[]", K.NUMBER_SPECIFIC_VALUES, (1.0, 3))],
     [3, None, 1.0, 2.5, True], ()),
    ([Oracle(OP, "constructor", K.STRING_FIXED_LENGTH, 1), Oracle(OP, "toString[]", K.ARRAY_MIN_SIZE, 9)],
     {"__proto__": {"constructor": "xx"}, "a": 1, "constructor": "yy"}, ()),
    ([Oracle(OP, "s", K.STRING_FIXED_LENGTH, 1)], {"s": "😀" * 250 + "\x00"}, ()),
    ([Oracle(OP, "n", K.NUMBER_MAX_VALUE, 1e-7)], {"n": 1e21}, ()),
]


@needs_node
def test_hand_cases_agree() -> None:
    wire = [{"oracles": [oracle_json(o) for o in os], "body": body, "nullLike": list(nl)}
            for os, body, nl in HAND_CASES]
    results = run_node(cases=wire)["cases"]
    for (oracles, body, null_like), js in zip(HAND_CASES, results, strict=True):
        py = [{"index": oracles.index(f.oracle), "pointer": f.pointer, "value": to_json(f.value), "message": f.message}
              for f in check_body(oracles, body, null_like)]
        assert py == [{**f, "value": to_json(f["value"])} for f in js]
        assert py, "every hand case has a violation"
