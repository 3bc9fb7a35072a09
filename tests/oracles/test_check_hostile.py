"""The checker on bodies that used to crash it (issue 18), in Python and in its JavaScript twin: values nested
thousands deep, lone surrogates, numbers past the double range, very long field paths."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from satori_ci.oracles.check import (
    MAX_DEPTH,
    check_body,
    deeper_than,
    escape_surrogates,
    locate,
    to_json,
    truncate_json,
)
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import Oracle
from satori_ci.postman.checker_js import CHECKER_JS, oracle_json
from satori_ci.run.outcome import parse_json
from satori_ci.spec.model import OperationKey
from satori_ci.spec.paths import parse
from tests.postman.node_runner import NODE, needs_node, run_node

OP = OperationKey("GET", "/x", "200")


def nested(depth: int, leaf: Any = True) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_a_value_nested_100000_deep_is_written_and_cut_without_recursion() -> None:
    deep = nested(100_000)
    cut = truncate_json(deep)
    assert cut == "[" * 199 + "…"
    assert to_json(nested(3000, {"a": [1, "x"]})) == "[" * 3000 + '{"a": [1, "x"]}' + "]" * 3000
    [finding] = check_body([Oracle(OP, "v", K.BOOLEAN_ALWAYS_TRUE)], {"v": deep})
    assert finding.message == f"v = {cut} is not a boolean"


def test_to_json_writes_what_json_dumps_writes() -> None:
    values: list[object] = [None, True, 0, -3, "a\"\\\n\x01é😀", [], {}, [1, [2, {"a": [], "": None}]],
                            {"k": {"l": [[]]}}, ("t", 2)]
    for value in values:
        assert to_json(value) == json.dumps(value, ensure_ascii=False)
        assert truncate_json(value, 5) == (to_json(value) if len(to_json(value)) <= 5 else to_json(value)[:4] + "…")


def test_lone_surrogates_are_shown_as_their_escapes() -> None:
    ok, body = parse_json('{"s": "a\\ud800b", "m": {"\\udc00": "\\ud83d\\ude00"}, "\\udbff": 1}')
    assert ok
    assert to_json(body) == '{"s": "a\\ud800b", "m": {"\\udc00": "😀"}, "\\udbff": 1}'
    found = check_body([Oracle(OP, "s", K.STRING_IS_URL), Oracle(OP, "m{}", K.STRING_IS_URL)], body)
    assert [(f.pointer, f.message) for f in found] == [
        ("/s", 's = "a\\ud800b" is not an absolute URL'), ("/m/\\udc00", 'm{} = "😀" is not an absolute URL')]
    assert escape_surrogates("\ud800\udc00 ok") == "\\ud800\\udc00 ok"  # two lone ones in a Python string
    for text in (to_json(body), *(f.message + f.pointer for f in found)):
        text.encode("utf-8")


def test_numbers_past_the_double_range_read_as_javascript_reads_them() -> None:
    ok, body = parse_json('{"n": [1e400, -1e400, 1e-400]}')
    assert ok and body == {"n": [float("inf"), float("-inf"), 0.0]}
    found = check_body([Oracle(OP, "n[]", K.NUMBER_MAX_VALUE, 5), Oracle(OP, "n", K.ARRAY_NUMBER_ASC_ORDER)], body)
    assert [f.message for f in found] == ["n[] = Infinity is greater than 5",
                                          "n = [Infinity, -Infinity, 0] is not in ascending order: -Infinity at "
                                          "index 1 follows Infinity"]


@pytest.mark.parametrize("depth", [1, 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 5000])
def test_deeper_than_counts_arrays_and_objects(depth: int) -> None:
    assert deeper_than(nested(depth), MAX_DEPTH) is (depth > MAX_DEPTH)
    mixed = nested(depth - 1, {"a": 1}) if depth > 1 else {"a": 1}
    assert deeper_than({"x": 1, "y": [mixed]}, MAX_DEPTH) is (depth + 2 > MAX_DEPTH)
    assert deeper_than(3, 0) is False and deeper_than([], 0) is True and deeper_than([], 1) is False


def test_a_field_path_thousands_of_segments_long_is_followed() -> None:
    path = ".".join(["a"] * 5000)
    body: Any = "end"
    for _ in range(5000):
        body = {"a": body}
    assert list(locate(body, parse(path))) == [("/a" * 5000, "end")]
    assert list(locate(body, parse(path + ".b"))) == []
    [finding] = check_body([Oracle(OP, path, K.STRING_IS_URL)], body)
    assert finding.pointer == "/a" * 5000


def test_locate_keeps_document_order_across_arrays_and_maps() -> None:
    body = {"a": [{"b": {"x": [1, 2], "y": []}}, {"b": {"z": [3]}}, {"c": 1}, 7]}
    assert list(locate(body, parse("a[].b{}[]"))) == [("/a/0/b/x/0", 1), ("/a/0/b/x/1", 2), ("/a/1/b/z/0", 3)]
    assert list(locate([[1], "no", [2, 3]], parse("[][]"))) == [("/0/0", 1), ("/2/0", 2), ("/2/1", 3)]


# -- the JavaScript twin -----------------------------------------------------------------------------------------

_DEEP_SCRIPT = """
const text = require('fs').readFileSync(0, 'utf8');
const satori = new Function('return ' + text)();
const out = {};
for (const depth of [255, 256, 257, 500, 5000, 100000]) {
  const value = JSON.parse('{"v": ' + '['.repeat(depth) + 'true' + ']'.repeat(depth) + '}');
  const oracles = [{field: 'v', segments: [{prop: 'v'}], oracle: 'boolean_always_true', value: null}];
  out[depth] = {deeper: satori.deeperThan(value, satori.MAX_DEPTH), cut: satori.truncateJson(value.v),
                findings: satori.checkBody(oracles, value, []).map(function (f) { return [f.pointer, f.message]; })};
}
const path = [];
let body = 'end';
for (let i = 0; i < 5000; i++) { path.push({prop: 'a'}); body = {a: body}; }
out.path = satori.checkBody([{field: 'a', segments: path, oracle: 'string_is_url', value: null}], body, [])
  .map(function (f) { return [f.pointer, f.message]; });
process.stdout.write(JSON.stringify(out));
"""


@needs_node
def test_javascript_twin_on_deep_values_and_long_paths() -> None:
    assert NODE is not None
    done = subprocess.run([NODE, "-e", _DEEP_SCRIPT], input=CHECKER_JS.encode(), capture_output=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    out = json.loads(done.stdout)
    oracle = Oracle(OP, "v", K.BOOLEAN_ALWAYS_TRUE)
    for depth in (255, 256, 257, 500, 5000, 100000):
        js = out[str(depth)]
        body = {"v": nested(depth)}
        assert js["deeper"] is deeper_than(body), depth
        assert js["cut"] == truncate_json(body["v"])
        [finding] = check_body([oracle], body)
        assert js["findings"] == [[finding.pointer, finding.message]]
    assert out["path"] == [["/a" * 5000, 'a = "end" is not an absolute URL']]


@needs_node
def test_javascript_twin_on_surrogates_and_infinity() -> None:
    texts = ['{"s": "a\\ud800b", "m": {"\\udc00": "\\ud83d\\ude00", "k\\ud83d": "x"}}',
             '{"s": ["\\udfff\\ud800", "\\ud800\\udfff"], "m": {"a": "\\ud800"}}']
    oracles = [Oracle(OP, "s", K.STRING_IS_URL), Oracle(OP, "s[]", K.STRING_FIXED_LENGTH, 1),
               Oracle(OP, "m{}", K.STRING_SPECIFIC_VALUES, ("x",)), Oracle(OP, "s", K.STRING_SPECIFIC_VALUES, ("y",))]
    bodies = [parse_json(t)[1] for t in texts]
    wire = [{"oracles": [oracle_json(o) for o in oracles], "body": b, "nullLike": []} for b in bodies]
    out = run_node(cases=wire, json=bodies)
    for body, js_findings, (full, cut) in zip(bodies, out["cases"], out["json"], strict=True):
        python = [{"index": oracles.index(f.oracle), "pointer": f.pointer, "message": f.message}
                  for f in check_body(oracles, body)]
        assert [{k: f[k] for k in ("index", "pointer", "message")} for f in js_findings] == python
        assert (full, cut) == (to_json(body), truncate_json(body, 20))
        assert "\\ud800" in full
