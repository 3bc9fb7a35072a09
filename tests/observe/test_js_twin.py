"""The JavaScript twin of the summaries (`satori_check.js` `summarize`, what Newman runs feed the store with)
writes what Python writes, on generated bodies: one `node` process for the whole batch."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from satori_ci.observe.store import field_json, read_field
from satori_ci.observe.summary import MAX_VALUE_LENGTH, MAX_VALUES, summarize
from satori_ci.postman.checker_js import segments_json
from satori_ci.run.outcome import parse_json
from satori_ci.spec.paths import parse
from tests.postman import strategies as gen
from tests.postman.node_runner import needs_node, run_node

EXAMPLES = int(os.environ.get("SATORI_DIFF_EXAMPLES", "200"))
pytestmark = needs_node

FAMILIES = ("string", "number", "boolean", "array")


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], Any, tuple[str, ...]]:
    first = draw(st.sampled_from(gen.PATHS))
    body = draw(gen.shaped(parse(first), draw(st.sampled_from(FAMILIES))))
    others = draw(st.lists(st.sampled_from(gen.PATHS), max_size=3))
    return list(dict.fromkeys([first, *others])), body, draw(st.sampled_from([(), gen.NULL_LIKE, ("N/A",)]))


def _collect() -> list[tuple[list[str], Any, tuple[str, ...]]]:
    drawn: list[tuple[list[str], Any, tuple[str, ...]]] = []

    @settings(max_examples=EXAMPLES, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def draw(case: tuple[list[str], Any, tuple[str, ...]]) -> None:
        drawn.append(case)

    draw()
    return drawn


def _canonical(found: dict[str, Any]) -> dict[str, Any]:
    return {path: field_json(read_field(raw, path)) for path, raw in found.items()}


def test_python_and_javascript_summaries_agree() -> None:
    drawn = _collect()
    wire = []
    for fields, body, null_like in drawn:
        wire.append({"fields": [{"field": f, "segments": segments_json(f)} for f in fields], "body": body,
                     "nullLike": list(null_like), "maxValues": MAX_VALUES, "maxLength": MAX_VALUE_LENGTH})
    out = run_node(summaries=wire)["summaries"]
    assert len(out) == len(drawn)
    for (fields, body, null_like), js in zip(drawn, out, strict=True):
        ok, parsed = parse_json(json.dumps(body))  # numbers as JavaScript reads them, like both runners
        assert ok
        python = {path: field_json(found) for path, found in summarize(fields, parsed, null_like).items()}
        assert python == _canonical(js), json.dumps({"fields": fields, "body": body, "nullLike": null_like})


def test_hand_cases_agree() -> None:
    bodies = [
        {"a": [3, 1.0, 2.5, 1e21, -0.0], "s": ["x" * 41, "ok"], "e": "ada@example.com", "b": [True, False]},
        {"a": [[1, 2, 2], [], [5, None, "N/A", 7]], "s": ["é😀", "N/A", None], "m": {"k": 1, "__proto__": 2}},
        {"a": [9007199254740993, 2**53], "s": [f"v{i}" for i in range(11)], "b": {"x": 1}},
    ]
    fields = ["a", "a[]", "s", "s[]", "e", "b", "b[]", "m{}", "__proto__"]
    wire = [{"fields": [{"field": f, "segments": segments_json(f)} for f in fields], "body": b,
             "nullLike": ["N/A"], "maxValues": MAX_VALUES, "maxLength": MAX_VALUE_LENGTH} for b in bodies]
    out = run_node(summaries=wire)["summaries"]
    for body, js in zip(bodies, out, strict=True):
        ok, parsed = parse_json(json.dumps(body))
        assert ok
        python = {p: field_json(f) for p, f in summarize(fields, parsed, ("N/A",)).items()}
        assert python == _canonical(js)
