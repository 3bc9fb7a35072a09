"""Observed values that no UTF-8 file or JSON number can hold (issue 18): a lone surrogate (`"\\ud800"` as a
JSON escape) and a number past the double range (`1e400`). The store stays valid JSON, and no suggestion,
nor the oracle file it goes into, carries them."""

from __future__ import annotations

import json
from typing import Any

from satori_ci.observe.propose import ProposalSettings, propose
from satori_ci.observe.store import ObservationLog, ObservationStore, dump_store, field_json, load_store
from satori_ci.observe.summary import summarize
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.run.outcome import parse_json
from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation
from tests.postman.node_runner import needs_node, run_node

OP = OperationKey("GET", "/things", "200")
ANY = ProposalSettings(min_responses=1, min_requests=1)


def field(path: str, type_: str) -> ResponseField:
    return ResponseField(OP, "listThings", path, path, type_, FieldFacts(), "T", SourceLocation("api.yaml", "/x"),
                         "fp")


def body(text: str) -> Any:
    ok, value = parse_json(text)
    assert ok
    return value


def store_of(texts: list[str], fields: list[str]) -> ObservationStore:
    log = ObservationLog()
    for i, text in enumerate(texts):
        log.add(OP, f"r{i % 3}", summarize(fields, body(text)))
    return log.store("api.yaml")


def test_a_lone_surrogate_is_counted_never_kept() -> None:
    [found] = summarize(["s"], body('{"s": "\\ud800"}')).values()
    assert found.string is not None and found.string.values is None
    assert (found.string.min_length, found.string.max_length) == (1, 1)
    kept = summarize(["s"], body('{"s": "\\ud83d\\ude00"}'))["s"]  # an escaped pair is one code point: kept
    assert kept.string is not None and kept.string.values == (("😀", 1),)


def test_a_number_past_the_double_range_is_no_number_summary() -> None:
    found = summarize(["n", "l[]", "a"], body('{"n": -1e400, "l": [1, 1e400], "a": [1e400, -1e400, 2]}'))
    assert found["n"].number is None and found["n"].objects == 1 and found["n"].values == 1
    only = found["l[]"].number
    assert only is not None and (only.min, only.max, found["l[]"].objects, found["l[]"].values) == (1, 1, 1, 2)
    assert found["a"].array is not None and found["a"].array.ascending == 0
    for summary in found.values():
        assert json.loads(json.dumps(field_json(summary), allow_nan=False)) == field_json(summary)


def test_the_store_stays_valid_json_and_no_suggestion_carries_such_values() -> None:
    texts = ['{"s": "\\ud800", "n": 1e400, "m": "x"}', '{"s": "x", "n": 3, "m": "\\udfff"}'] * 15
    texts += ['{"s": "y", "n": -1e400, "m": "y"}'] * 10
    store = store_of(texts, ["s", "n", "m"])
    text = dump_store(store)
    raw = text.encode("utf-8")  # a UTF-8 file holds it
    assert b"\\ud800" not in raw and b"Infinity" not in raw
    assert dump_store(load_store(raw.decode("utf-8"), "store")) == text
    fields = [field("s", "string"), field("n", "number"), field("m", "string")]
    proposed = propose(store, fields, ANY)
    assert not [o for o in proposed if o.kind in (K.NUMBER_MIN_VALUE, K.NUMBER_MAX_VALUE, K.NUMBER_SPECIFIC_VALUES,
                                                  K.STRING_SPECIFIC_VALUES)]
    entries = tuple(FieldEntry(f.operation, f.field, f.fingerprint, tuple(o for o in proposed if o.field == f.field))
                    for f in fields)
    dump_oracle_file(OracleFile("api.yaml", entries)).encode("utf-8")


@needs_node
def test_javascript_summaries_agree_on_lone_surrogates() -> None:
    bodies = [body('{"s": ["\\ud800", "ok"], "m": {"\\udc00": "\\ud83d"}, "t": "\\ud83d\\ude00"}')]
    fields = ["s", "s[]", "m{}", "t"]
    wire = [{"fields": [{"field": f, "segments": [{"prop": f.rstrip("[]{}")}, *(
        [{"items": True}] if f.endswith("[]") else [{"map": True}] if f.endswith("{}") else [])]} for f in fields],
        "body": b, "nullLike": [], "maxValues": 10, "maxLength": 40} for b in bodies]
    [js] = run_node(summaries=wire)["summaries"]
    python = {p: field_json(f) for p, f in summarize(fields, bodies[0]).items()}
    assert {p: json.loads(json.dumps(v)) for p, v in js.items()} == python
