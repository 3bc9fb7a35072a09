"""Real-world quirks read with a warning instead of refused (issue 12, item 11).

- Converters write `openapi: "2.0"` over a Swagger 2.0 document, or `swagger: "3.0"` over an OpenAPI 3 one:
  read by structure, with one warning line (`Spec.warnings`, printed by `satori-ci fields` on stderr).
- Valid YAML 1.2 that libyaml's C parser refuses (`{url: https://x}` in flow style, as ruamel writes it) is
  read by ruamel's pure-Python parser, with the same guarantees (key lines, duplicate keys refused, alias
  bombs bounded); a document both parsers refuse is refused in the same one-line format.
"""

from __future__ import annotations

import pytest

from satori_ci.cli import main
from satori_ci.spec import SpecError, SpecErrorKind, load_spec
from tests.spec.conftest import WriteSpec

SWAGGER_BODY = """
info: {title: T, version: "1"}
host: api.example.com
basePath: /v1
produces: [application/json]
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          schema:
            type: array
            items: {$ref: '#/definitions/Pet'}
    post:
      parameters:
        - {name: body, in: body, schema: {$ref: '#/definitions/Pet'}}
      responses:
        "201": {description: created, schema: {$ref: '#/definitions/Pet'}}
definitions:
  Pet:
    type: object
    properties:
      name: {type: string}
      age: {type: integer, minimum: 0}
"""

OPENAPI3_BODY = """
info: {title: T, version: "1"}
servers: [{url: "https://api.example.com/v1"}]
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: array
                items: {$ref: '#/components/schemas/Pet'}
components:
  schemas:
    Pet:
      type: object
      properties:
        name: {type: string}
        age: {type: integer, minimum: 0}
"""

SWAGGER_FIELDS = [("GET /pets 200", ""), ("GET /pets 200", "[].name"), ("GET /pets 200", "[].age"),
                  ("POST /pets 201", "name"), ("POST /pets 201", "age")]
OPENAPI3_FIELDS = SWAGGER_FIELDS[:3]


def _fields(spec: object) -> list[tuple[str, str]]:
    return [(str(f.operation), f.field) for f in spec.fields]  # type: ignore[attr-defined]


@pytest.mark.parametrize("label", ['openapi: "2.0"', "openapi: 2.0", "openapi: '2.0.0'", "openapi: 2"])
def test_openapi_2_label_over_swagger_structure_is_read_as_swagger(write: WriteSpec, label: str) -> None:
    spec = load_spec(str(write("api.yaml", label + SWAGGER_BODY)))
    assert spec.oas_version == "2.0"
    assert _fields(spec) == SWAGGER_FIELDS
    assert spec.servers == ("https://api.example.com/v1",)
    assert len(spec.warnings) == 1
    warning = spec.warnings[0]
    assert warning.startswith("api.yaml: ") and "read as Swagger 2.0 by its structure" in warning
    assert label.split(": ")[1].strip("'\"") in warning and "\n" not in warning


@pytest.mark.parametrize("label", ['swagger: "3.0"', "swagger: 3.0", 'swagger: "3.0.3"'])
def test_swagger_3_label_over_openapi3_structure_is_read_as_openapi3(write: WriteSpec, label: str) -> None:
    spec = load_spec(str(write("api.yaml", label + OPENAPI3_BODY)))
    assert spec.oas_version.startswith("3.0")
    assert _fields(spec) == OPENAPI3_FIELDS
    assert len(spec.warnings) == 1 and "read as OpenAPI 3.0" in spec.warnings[0]


def test_openapi_2_label_over_openapi3_structure_is_read_as_openapi3(write: WriteSpec) -> None:
    spec = load_spec(str(write("api.yaml", 'openapi: "2.0"' + OPENAPI3_BODY)))
    assert spec.oas_version == "3.0" and _fields(spec) == OPENAPI3_FIELDS
    assert "read as OpenAPI 3.0 by its structure" in spec.warnings[0]


@pytest.mark.parametrize(("body", "version", "fields"), [(SWAGGER_BODY, "2.0", SWAGGER_FIELDS),
                                                         (OPENAPI3_BODY, "3.0.0", OPENAPI3_FIELDS)],
                         ids=["swagger-structure", "openapi3-structure"])
def test_both_keys_that_disagree_are_read_by_structure(write: WriteSpec, body: str, version: str,
                                                       fields: list[tuple[str, str]]) -> None:
    spec = load_spec(str(write("api.yaml", 'swagger: "2.0"\nopenapi: 3.0.0' + body)))
    assert spec.oas_version == version and _fields(spec) == fields
    assert len(spec.warnings) == 1 and "says both" in spec.warnings[0]


@pytest.mark.parametrize(("label", "body"), [('swagger: "2.0"', SWAGGER_BODY), ("openapi: 3.0.3", OPENAPI3_BODY),
                                             ("openapi: 3.1.0", OPENAPI3_BODY)], ids=["swagger-2.0", "3.0.3", "3.1.0"])
def test_documents_that_say_their_version_have_no_warning(write: WriteSpec, label: str, body: str) -> None:
    spec = load_spec(str(write("api.yaml", label + body)))
    assert spec.warnings == () and spec.fields


@pytest.mark.parametrize("label", ['openapi: "4.0"', 'swagger: "1.2"', "openapi: true", 'openapi: "two"'])
def test_documents_naming_no_version_are_still_refused(write: WriteSpec, label: str) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(str(write("api.yaml", label + SWAGGER_BODY)))
    assert info.value.kind is SpecErrorKind.NOT_OPENAPI


def test_fields_prints_the_warning_on_stderr(write: WriteSpec, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = write("api.yaml", 'openapi: "2.0"' + SWAGGER_BODY)
    monkeypatch.chdir(path.parent)
    for args in (["fields", "api.yaml"], ["fields", "--json", "api.yaml"]):
        assert main(args) == 0
        out, err = capsys.readouterr()
        assert err.startswith("satori-ci: warning: api.yaml: ") and err.count("\n") == 1
        assert "[].name" in out
    assert main(["spec-diff", "api.yaml", "api.yaml"]) == 0
    _, err = capsys.readouterr()
    assert err.count("satori-ci: warning: ") == 2


# -- YAML the C parser refuses ------------------------------------------------------------------------------

FLOW_HEAD = "openapi: 3.0.0\ninfo: {title: T, version: '1', contact: {url: https://example.com/help}}\n"
FLOW_PATHS = """paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {site: {type: string, example: https://a.example/x?y=1}}}
"""


def test_flow_mapping_with_a_url_is_read(write: WriteSpec) -> None:
    path = write("api.yaml", FLOW_HEAD + "servers: [{url: https://api.example.com/v1}]\n" + FLOW_PATHS)
    spec = load_spec(str(path))
    assert spec.servers == ("https://api.example.com/v1",)
    assert [(f.field, f.facts.example) for f in spec.fields] == [("site", "https://a.example/x?y=1")]
    assert spec.line_of(spec.fields[0].location) == 12
    assert spec.warnings == ()


def test_the_pure_parser_keeps_typing_and_merges(write: WriteSpec) -> None:
    path = write("api.yaml", FLOW_HEAD + """x-base: &base {minimum: 1, example: 0123}
paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  a: {<<: *base, type: integer, maximum: 1e3, default: yes, x-when: 2001-12-14}
                  b: {type: string, enum: ['1', 2, null, ~, true, 0x1F, .inf]}
""")
    spec = load_spec(str(path))
    a, b = spec.fields
    assert (a.facts.minimum, a.facts.example, a.facts.maximum, a.facts.default) == (1, "0123", 1000.0, "yes")
    assert b.facts.enum == ("1", 2, None, None, True, 31, float("inf"))
    assert spec.line_of(b.location) == 16


@pytest.mark.parametrize(("text", "kind", "needle"), [
    ("paths: {}\npaths: {}\n", SpecErrorKind.DUPLICATE_KEY, "api.yaml:4: duplicate key 'paths' (first at line 3)"),
    ("paths: {}\nx-a: &a [1, *a]\n", SpecErrorKind.SYNTAX, "api.yaml:4: a YAML alias inside the node it names"),
    ("paths:\n  ? [a, b]\n  : {}\n", SpecErrorKind.NON_STRING_KEY, "api.yaml:4: a mapping key must be a string"),
    ("paths: {}\nx-b: *nope\n", SpecErrorKind.SYNTAX, "api.yaml:4: invalid YAML: found undefined alias 'nope'"),
    ("paths:\n  /x: [\n", SpecErrorKind.SYNTAX, "api.yaml:5: invalid YAML: "),
], ids=["duplicate-key", "alias-in-itself", "complex-key", "undefined-alias", "both-parsers-refuse"])
def test_the_pure_parser_refuses_what_the_c_parser_would(write: WriteSpec, text: str, kind: SpecErrorKind,
                                                         needle: str) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(str(write("api.yaml", FLOW_HEAD + text)))  # FLOW_HEAD: the C parser refuses line 2
    assert info.value.kind is kind
    assert str(info.value).startswith(needle) and "\n" not in str(info.value)


def test_alias_bomb_through_the_pure_parser_is_refused(write: WriteSpec) -> None:
    lines = [FLOW_HEAD + "paths: {}\nx-bomb:\n  a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]"]
    for i, name in enumerate("bcdefghij"):
        lines.append(f"  {name}: &{name} [" + ", ".join([f"*{'abcdefghij'[i]}"] * 10) + "]")
    with pytest.raises(SpecError) as info:
        load_spec(str(write("bomb.yaml", "\n".join(lines) + "\n")))
    assert info.value.kind is SpecErrorKind.TOO_LARGE and "alias" in str(info.value)


def test_cli_reads_the_flow_style_url(write: WriteSpec, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = write("api.yaml", FLOW_HEAD + FLOW_PATHS)
    monkeypatch.chdir(path.parent)
    assert main(["fields", "--json", "api.yaml"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and '"field": "site"' in out and '"source": "api.yaml:11"' in out
