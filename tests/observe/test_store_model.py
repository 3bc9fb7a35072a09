"""The store file read through its model: each broken file is one line naming the place and the problem, as the
reader has always worded them; with several problems, the first its walk meets; what it always took, it takes."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from satori_ci.observe.store import ObservationStoreError, dump_store, load_store, read_field
from satori_ci.observe.store_model import StringFile
from satori_ci.observe.summary import FORMATS

F = {"responses": 2, "values": 3, "string": {"responses": 2, "min_length": 1, "max_length": 4, "url": 0, "numeric": 0,
     "email": 0, "date": 0, "time": 0, "values": {"a": 1, "b": 2}}}
ARRAY = {"responses": 1, "min_size": 1, "max_size": 2, "ascending": 0, "descending": 0, "informative": 0}


def store(op: dict[str, Any] | None = None, top: dict[str, Any] | None = None, label: str = "GET /x 200",
          field: Any = None) -> str:
    """A store text with one operation and one field, changed as asked (`...` drops a key)."""
    operation = {"responses": 2, "requests": ["r1"], "fields": {"name": field if field is not None else F},
                 "violated": {}, **(op or {})}
    doc = {"operations": {label: {k: v for k, v in operation.items() if v is not ...}}, "spec": "api.yaml",
           "version": 1, **(top or {})}
    return json.dumps(doc)


def field(**changes: Any) -> dict[str, Any]:
    """`F` changed: `name=value`, `section.name=value` (as `**{"string.url": 1}`); `...` drops the key."""
    found = json.loads(json.dumps(F))
    for key, value in changes.items():
        section, _, name = key.rpartition(".")
        target = found[section] if section else found
        if value is ...:
            del target[name]
        else:
            target[name] = value
    return found


BROKEN = [
    ("[1]",
     'expected an object'),
    ('{"version": 2}',
     'version: unsupported store version 2'),
    ('{"version": null}',
     'version: unsupported store version None'),
    ('{"extra": 1, "another": 2}',
     "unknown key 'another'"),
    ('{"zz": 1, "\\udc80": 2}',
     "unknown key 'zz'"),
    ('{"operations": {"nonsense": {"responses": 1}}}',
     "operations.nonsense: not 'METHOD /path STATUS'"),
    ('{"operations": {"GET /x 200": {"responses": -1}}}',
     'operations.GET /x 200.responses: expected a count (an integer, 0 or more)'),
    (store(op={"requests": [1]}),
     'operations.GET /x 200.requests: expected a list of strings'),
    (store(op={"requests": "r1"}),
     'operations.GET /x 200.requests: expected a list of strings'),
    (store(op={"fields": [1]}),
     'operations.GET /x 200.fields: expected an object'),
    (store(op={"violated": {"name": 3}}),
     'operations.GET /x 200.violated.name: expected an object'),
    (store(op={"violated": {"name": {"string_is_url": -2}}}),
     'operations.GET /x 200.violated.name.string_is_url: expected a count (an integer, 0 or more)'),
    (store(op={"violated": [1]}),
     'operations.GET /x 200.violated: expected an object'),
    (store(op={"zz": 1, "aa": 2}),
     "operations.GET /x 200: unknown key 'aa'"),
    (store(op={"responses": ...}),
     "operations.GET /x 200: missing key 'responses'"),
    (store(field=field(responses=...)),
     "operations.GET /x 200.fields.name: missing key 'responses'"),
    (store(field=field(values=1.5)),
     'operations.GET /x 200.fields.name: expected a count (an integer, 0 or more)'),
    (store(field=field(objects=None)),
     'operations.GET /x 200.fields.name.objects: expected a count (an integer, 0 or more)'),
    (store(field=field(objects=-1)),
     'operations.GET /x 200.fields.name.objects: expected a count (an integer, 0 or more)'),
    (store(field=field(string=None)),
     'operations.GET /x 200.fields.name.string: expected an object'),
    (store(field=field(string=[])),
     'operations.GET /x 200.fields.name.string: expected an object'),
    (store(field=field(**{"string.responses": -1})),
     'operations.GET /x 200.fields.name: expected a count (an integer, 0 or more)'),
    (store(field=field(**{"string.min_length": "1"})),
     'operations.GET /x 200.fields.name: expected a count (an integer, 0 or more)'),
    (store(field=field(**{"string.url": True})),
     'operations.GET /x 200.fields.name.string.url: expected a count (an integer, 0 or more)'),
    (store(field=field(**{"string.values": [1]})),
     'operations.GET /x 200.fields.name.string.values: expected an object'),
    (store(field=field(**{"string.values": {"a": -1}})),
     'operations.GET /x 200.fields.name.string.values.a: expected a count (an integer, 0 or more)'),
    (store(field=field(**{"string.bogus": 1})),
     "operations.GET /x 200.fields.name.string: unknown key 'bogus'"),
    (store(field=field(**{"string.date": ...})),
     "operations.GET /x 200.fields.name.string: missing key 'date'"),
    (store(field=field(number={"responses": 1, "min": "x", "max": 1})),
     'operations.GET /x 200.fields.name.number.min: expected a number'),
    (store(field=field(number={"responses": -1, "min": "x", "max": 1})),
     'operations.GET /x 200.fields.name: expected a count (an integer, 0 or more)'),
    (store(field=field(number={"responses": 1, "min": 1, "max": True})),
     'operations.GET /x 200.fields.name.number.max: expected a number'),
    (store(field=field(boolean={"responses": 1, "true": 1})),
     "operations.GET /x 200.fields.name.boolean: missing key 'false'"),
    (store(field=field(boolean={"responses": 1, "true": 1, "false": -1})),
     'operations.GET /x 200.fields.name.boolean.false: expected a count (an integer, 0 or more)'),
    (store(field=field(array={**ARRAY, "informative": -1})),
     'operations.GET /x 200.fields.name.array.informative: expected a count (an integer, 0 or more)'),
    (store(field=field(array={**ARRAY, "sizes": {"1": "x"}})),
     'operations.GET /x 200.fields.name.array.sizes.1: expected a count (an integer, 0 or more)'),
    (store(field=field(zz=1, objects=-1)),
     "operations.GET /x 200.fields.name: unknown key 'zz'"),
    (store(field=field(values=-1, array=3)),
     'operations.GET /x 200.fields.name.array: expected an object'),
    (store(field=3),
     'operations.GET /x 200.fields.name: expected an object'),
    (store(label="GET /x"),
     "operations.GET /x: not 'METHOD /path STATUS'"),
    (store(op={"requests": [1], "responses": -1}),
     'operations.GET /x 200.requests: expected a list of strings'),
    (store(op={"violated": {"a": 3}, "fields": {"b": 3}}),
     'operations.GET /x 200.fields.b: expected an object'),
    (store(top={"version": 3, "extra": 1}),
     "unknown key 'extra'"),
]


@pytest.mark.parametrize(("text", "message"), BROKEN)
def test_a_broken_store_names_the_first_problem_of_the_walk(text: str, message: str) -> None:
    with pytest.raises(ObservationStoreError) as caught:
        load_store(text, "s.json")
    assert str(caught.value) == f"s.json: {message}"


@pytest.mark.parametrize(("raw", "message"), [
    (field(responses=...), "f: missing key 'responses'"),
    (field(string=None), "f: .string: expected an object"),
    (field(**{"string.responses": -1}), "f: expected a count (an integer, 0 or more)"),
    (field(number={"responses": 1, "min": "x", "max": 1}), "f: .number.min: expected a number"),
    (3, "f: expected an object"),
])
def test_a_field_summary_from_newman_is_read_by_the_same_model(raw: Any, message: str) -> None:
    with pytest.raises(ObservationStoreError) as caught:
        read_field(raw, "f")
    assert str(caught.value) == message


def test_what_the_reader_always_took_it_takes() -> None:
    """Empty sections written as 0, false or "", version `true` (== 1), a spec that is no string, requests
    repeated, two labels of one operation (the last wins)."""
    found = load_store(store(op={"requests": 0, "fields": False, "violated": ""}, top={"version": True, "spec": 3}),
                       "s.json")
    (operation,) = found.operations.values()
    assert found.spec == "" and operation.requests == () and operation.fields == {} and operation.violated == {}
    assert next(iter(load_store(store(op={"requests": ["b", "a", "b"]}), "s").operations.values())).requests == (
        "a", "b")
    twice = load_store('{"operations": {"get /x 200": {"responses": 1}, "GET /x 200": {"responses": 2}}}', "s")
    assert [op.responses for op in twice.operations.values()] == [2]


def test_keys_with_lone_surrogates_are_named_as_written() -> None:
    with pytest.raises(ObservationStoreError) as caught:
        load_store('{"zz": 1, "\\udc80": 2}', "s.json")
    assert str(caught.value) == "s.json: unknown key 'zz'"
    with pytest.raises(ObservationStoreError) as caught:
        load_store(store(op={"violated": {"\udc80": {"k": -1}}}), "s.json")
    assert str(caught.value) == ("s.json: operations.GET /x 200.violated.\udc80.k: expected a count (an integer, 0 or "
                                 "more)")


def test_the_model_knows_every_string_format() -> None:
    assert [name for name, _ in FORMATS] == list(StringFile.model_fields)[3:-1]


def test_a_store_full_of_mistakes_is_one_error_found_quickly() -> None:
    """Unknown keys are one error per object, and a mapping stops at its first wrong entry."""
    fields = {f"f{i}": {"responses": -1, "values": -1, **{f"x{j}": 1 for j in range(50)}} for i in range(2000)}
    text = json.dumps({"operations": {"GET /x 200": {"responses": -1, "fields": fields}}})
    started = time.perf_counter()
    with pytest.raises(ObservationStoreError, match=r"fields\.f0: unknown key 'x0'"):
        load_store(text, "s.json")
    assert time.perf_counter() - started < 5


def test_a_store_reads_back_to_the_same_bytes() -> None:
    text = store()
    assert dump_store(load_store(dump_store(load_store(text, "s")), "s")) == dump_store(load_store(text, "s"))
