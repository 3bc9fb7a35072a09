"""The test script of one request: status, JSON body, then one named `pm.test` per enabled oracle.

Every value that comes from the spec or the oracle file enters the JavaScript as a JSON literal made by
`js_literal` (never pasted into code or comments), so quotes, backticks, `${...}`, `</script>`, newlines
or `require(...)` in an enum value, a field name or a reason stay data. The checker itself
(`CHECKER_JS`, the JavaScript twin of `check_body`) is stored once, in the collection variable
`CHECKER_VARIABLE`, and evaluated by each script.

The script also writes machine-readable lines to the console (`RESULT_PREFIX` + JSON): one per response
(`{"item", "iteration", "status", "json", "deep", "findings", "omitted", "observed"}`: `deep` says a body was not
checked for nesting past the checker's `MAX_DEPTH`, `findings` counts them all,
`omitted` lists `[index, count]` of the oracles past `FINDINGS_PER_ORACLE`, `observed` counts the fields
summarized) then the first `FINDINGS_PER_ORACLE` findings of each oracle in chunks (`{"item", "iteration",
"findings": [{"index", "pointer", "value", "message"}]}`) and the summaries of the observed fields of a 2XX
JSON body (`satori_ci.observe.summary`, by the checker's `summarize`) in chunks (`{"item", "iteration",
"observed": {field: summary}}`).
Newman's satori reporter (satori_ci/run/node) streams them to a file. They are written only when the variable
`RESULTS_VARIABLE` is set (satori-ci's own runs set it in their environment): plain Newman (`newman run` on a
collection `satori-ci collection` wrote) and the Postman app print no such line unless asked
(`--env-var satoriResults=1`). Each script's first line starts with `// satori-ci: `, which tells the reporter
satori-ci's scripts from the team's (whose tests it reports apart).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from satori_ci.observe.summary import MAX_VALUE_LENGTH, MAX_VALUES
from satori_ci.oracles.model import Oracle
from satori_ci.plan.requests import FINDINGS_PER_ORACLE
from satori_ci.postman.checker_js import oracle_json, segments_json

CHECKER_VARIABLE = "satoriChecker"
RESULT_PREFIX = "[satori-ci] "
RESULTS_VARIABLE = "satoriResults"
"""Set (to anything) to have the scripts write their machine-readable console lines."""
OWN_SCRIPT = "// satori-ci: "
"""How satori-ci's scripts start (the reporter's `OWN_SCRIPT`): every other script of a collection is the team's."""
FINDINGS_PER_LINE = 50
"""Findings per console line: keeps each line bounded however many values of a response fail."""
SHOWN_PER_TEST = 10
"""Failures spelled out in one test's message (the rest counted)."""
OBSERVED_PER_LINE = 20
"""Field summaries per console line."""

_JS_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def js_literal(value: Any) -> str:
    """`value` as a JSON literal that is also a safe JavaScript expression anywhere.

    JSON strings cannot hold raw quotes, backslashes or newlines; `<`, `>`, U+2028 and U+2029 are escaped
    as well, so the text cannot close a `<script>` element or trip a pre-ES2019 parser.
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return "".join(_JS_UNSAFE.get(ch, ch) for ch in text)


def oracle_entry(oracle: Oracle) -> dict[str, Any]:
    """One oracle as the script lists it: the checker's input plus where it came from."""
    entry = oracle_json(oracle)
    entry["source"] = oracle.source
    if oracle.reason:
        entry["reason"] = oracle.reason
    return entry


def _observed_block(observed: dict[str, Sequence[str]]) -> list[str]:
    if not any(observed.values()):
        return ["var observedByStatus = {};"]
    lines = ["var observedByStatus = {"]
    statuses = [s for s in observed if observed[s]]
    for i, status in enumerate(statuses):
        fields = observed[status]
        lines.append(f"  {js_literal(status)}: [")
        for j, field in enumerate(fields):
            comma = "," if j < len(fields) - 1 else ""
            lines.append(f"    {js_literal({'field': field, 'segments': segments_json(field)})}{comma}")
        lines.append("  ]" + ("," if i < len(statuses) - 1 else ""))
    lines.append("};")
    return lines


def _oracle_block(by_status: dict[str, Sequence[Oracle]]) -> list[str]:
    if not any(by_status.values()):
        return ["var oraclesByStatus = {};"]
    lines = ["var oraclesByStatus = {"]
    statuses = list(by_status)
    for i, status in enumerate(statuses):
        oracles = by_status[status]
        tail = "," if i < len(statuses) - 1 else ""
        if not oracles:
            lines.append(f"  {js_literal(status)}: []{tail}")
            continue
        lines.append(f"  {js_literal(status)}: [")
        for j, oracle in enumerate(oracles):
            comma = "," if j < len(oracles) - 1 else ""
            lines.append(f"    {js_literal(oracle_entry(oracle))}{comma}")
        lines.append(f"  ]{tail}")
    lines.append("};")
    return lines


_BODY = r"""
var satori = eval(pm.collectionVariables.get(CHECKER));
var response = pm.response;
var code = response && typeof response.code === 'number' ? response.code : null;
// the response of the spec this status belongs to: the status itself, or a range such as 2XX
var statusKey = null;
if (code !== null) {
  expectedStatuses.forEach(function (s) {
    if (s === String(code)) statusKey = s;
  });
  expectedStatuses.forEach(function (s) {
    if (statusKey === null && s.toUpperCase() === String(code).charAt(0) + 'XX') statusKey = s;
  });
}
var statusOk = statusKey !== null;
var oracles = statusOk && Object.prototype.hasOwnProperty.call(oraclesByStatus, statusKey) ?
  oraclesByStatus[statusKey] : [];
var body;
var isJson = false;
var tooDeep = false;  // nested past satori.MAX_DEPTH: not checked, as the native runner does not
if (statusOk) {
  try {
    body = JSON.parse(response.text());
    isJson = true;
  } catch (e) {
    isJson = false;
    tooDeep = e instanceof RangeError;
  }
  if (isJson && satori.deeperThan(body, satori.MAX_DEPTH)) {
    isJson = false;
    tooDeep = true;
  }
}

if (code === null) {
  pm.test.skip('response received (none: ' + operation + ' was not answered)', function () {});
} else {
  pm.test('status is ' + expectedStatuses.join(' or '), function () {
    pm.expect(statusOk, 'HTTP status of ' + operation + ' is ' + code + ', not ' +
      expectedStatuses.join(' or ')).to.equal(true);
  });
}
if (statusOk) {
  pm.test('body is JSON', function () {
    pm.expect(isJson, 'the body of ' + operation + (tooDeep ?
      ' is nested deeper than ' + satori.MAX_DEPTH + ' levels: not checked' :
      ' is not JSON: ' + satori.truncateJson(response.text(), 80))).to.equal(true);
  });
}

var checked = statusOk && isJson ? satori.checkAndExercise(oracles, body, nullLike) : { findings: [], exercised: [] };
var findings = checked.findings;
var exercised = checked.exercised;
// what the observed fields of a checked 2XX JSON body looked like (satori-ci's observation store)
var observedFields = statusOk && isJson && Object.prototype.hasOwnProperty.call(observedByStatus, statusKey) ?
  observedByStatus[statusKey] : [];
var observed = observedFields.length ?
  satori.summarize(observedFields, body, nullLike, MAX_VALUES, MAX_VALUE_LENGTH) : {};
var observedKeys = Object.keys(observed);
var whereAmI = { item: pm.info.requestId, iteration: pm.info.iteration };
// satori-ci's runs read these lines (the variable is set in their environment); a plain run prints none
var say = pm.variables.get(RESULTS) ? function (line) { console.log(PREFIX + JSON.stringify(line)); } :
  function () {};
var used = {};
requires.forEach(function (name) { used[name] = pm.variables.get(name); });
// the first PER_ORACLE findings of each oracle are printed, the rest counted
var perOracle = {};
var listed = findings.filter(function (f) {
  perOracle[f.index] = (perOracle[f.index] || 0) + 1;
  return perOracle[f.index] <= PER_ORACLE;
});
var omitted = [];
Object.keys(perOracle).forEach(function (k) {
  if (perOracle[k] > PER_ORACLE) omitted.push([Number(k), perOracle[k] - PER_ORACLE]);
});
say({
  item: whereAmI.item, iteration: whereAmI.iteration, status: code, json: isJson, deep: tooDeep,
  findings: findings.length,
  omitted: omitted, exercised: exercised, vars: used, observed: observedKeys.length
});
// Chaining: values of this response fill the slots of the requests that need them (producer -> consumer).
if (statusOk && isJson && code >= 200 && code < 300) {
  harvests.forEach(function (h) {
    var count = Number(pm.collectionVariables.get(h.target + '_n') || 0);
    var carried = h.carry.map(function (t) { return pm.variables.replaceIn(t); });
    var slots = [];
    for (var k = 0; k < count; k++) {
      var slot = [];
      for (var i = 0; i <= carried.length; i++) slot.push(pm.collectionVariables.get(h.target + '_' + k + '_' + i));
      slots.push(JSON.stringify(slot));
    }
    satori.harvest(body, h.paths, 100).forEach(function (v) {
      if (count >= h.limit) return;
      var values = carried.concat([v]);
      if (slots.indexOf(JSON.stringify(values)) >= 0) return;
      values.forEach(function (x, i) { pm.collectionVariables.set(h.target + '_' + count + '_' + i, x); });
      slots.push(JSON.stringify(values));
      count += 1;
    });
    pm.collectionVariables.set(h.target + '_n', String(count));
  });
}
for (var start = 0; start < listed.length; start += PER_LINE) {
  say({
    item: whereAmI.item,
    iteration: whereAmI.iteration,
    findings: listed.slice(start, start + PER_LINE).map(function (f) {
      return { index: f.index, pointer: f.pointer, value: satori.truncateJson(f.value), message: f.message };
    })
  });
}
for (var first = 0; first < observedKeys.length; first += OBSERVED_PER_LINE) {
  var chunk = Object.create(null);
  observedKeys.slice(first, first + OBSERVED_PER_LINE).forEach(function (k) { chunk[k] = observed[k]; });
  say({ item: whereAmI.item, iteration: whereAmI.iteration, observed: chunk });
}

// One test per oracle, named after its field, kind and value.
var shown = statusOk ? oracles : (oraclesByStatus[expectedStatuses[0]] || []);
shown.forEach(function (oracle, index) {
  var name = (oracle.field === '' ? '(body)' : oracle.field) + ' ' + oracle.oracle +
    (oracle.value === null || oracle.value === undefined ? '' : ' ' + JSON.stringify(oracle.value));
  if (!(statusOk && isJson)) {
    pm.test.skip(name, function () {});
    return;
  }
  pm.test(name, function () {
    var mine = findings.filter(function (f) { return f.index === index; });
    if (mine.length === 0) return;
    var lines = mine.slice(0, SHOWN).map(function (f) {
      return f.message + ' at ' + (f.pointer === '' ? '(body)' : f.pointer);
    });
    if (mine.length > SHOWN) lines.push('... and ' + (mine.length - SHOWN) + ' more');
    pm.expect.fail(lines.join('\n'));
  });
});
"""


def build_prerequest_script(requires: Sequence[str], reason: str) -> tuple[str, ...]:
    """A pre-request script that skips the request (and says why) while a chain variable it needs is unset."""
    return (
        "// satori-ci: this request takes values from an earlier response; without them it is not sent.",
        f"var PREFIX = {js_literal(RESULT_PREFIX)};",
        f"var requires = {js_literal(list(requires))};",
        f"var RESULTS = {js_literal(RESULTS_VARIABLE)};",
        "var missing = requires.filter(function (name) { return !pm.variables.has(name); });",
        "if (missing.length) {",
        "  if (pm.variables.get(RESULTS)) console.log(PREFIX + JSON.stringify({ item: pm.info.requestId, "
        f"iteration: pm.info.iteration, skipped: {js_literal(reason)} }}));",
        "  pm.execution.skipRequest();",
        "}",
    )


def build_test_script(operation_label: str, statuses: Sequence[str], by_status: dict[str, Sequence[Oracle]],
                      null_like: Sequence[str], harvests: Sequence[dict[str, Any]] = (),
                      requires: Sequence[str] = (), observed: dict[str, Sequence[str]] | None = None
                      ) -> tuple[str, ...]:
    """The lines of a request's test script (Postman's `exec`); `observed`: the fields to summarize, by status."""
    head = [
        "// satori-ci: checks this response against the oracles of its operation.",
        "// Generated from the spec and the reviewed oracle file: edit the oracle file, not this script.",
        "// The checker (collection variable " + CHECKER_VARIABLE + ") applies satori-ci's checking semantics:",
        "// every array along a field path is walked; absent, null and null-like values are skipped.",
        f"var CHECKER = {js_literal(CHECKER_VARIABLE)};",
        f"var PREFIX = {js_literal(RESULT_PREFIX)};",
        f"var RESULTS = {js_literal(RESULTS_VARIABLE)};",
        f"var PER_LINE = {FINDINGS_PER_LINE};",
        f"var PER_ORACLE = {FINDINGS_PER_ORACLE};",
        f"var SHOWN = {SHOWN_PER_TEST};",
        f"var OBSERVED_PER_LINE = {OBSERVED_PER_LINE};",
        f"var MAX_VALUES = {MAX_VALUES};",
        f"var MAX_VALUE_LENGTH = {MAX_VALUE_LENGTH};",
        f"var operation = {js_literal(operation_label)};",
        f"var expectedStatuses = {js_literal(list(statuses))};",
        f"var nullLike = {js_literal(list(null_like))};",
        f"var harvests = {js_literal(list(harvests))};",
        f"var requires = {js_literal(list(requires))};",
        *_oracle_block(by_status),
        *_observed_block(observed or {}),
    ]
    return (*head, *_BODY.strip("\n").split("\n"))
