"""Response fields: shapes, composition, refs, versions (contract §1)."""

from __future__ import annotations

from satori_ci.spec import load_spec
from tests.spec.conftest import WriteSpec

OAS30 = """
openapi: 3.0.3
info: {title: Pets, version: "1"}
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
        default:
          description: error
          content:
            application/json:
              schema: {type: object, properties: {message: {type: string}}}
  /pets/{id}:
    get:
      responses:
        200:
          description: ok
          content:
            application/vnd.pets+json:
              schema:
                allOf:
                  - $ref: '#/components/schemas/Pet'
                  - type: object
                    properties:
                      labels:
                        type: object
                        additionalProperties: {type: string, format: uri}
                      matrix:
                        type: array
                        items: {type: array, items: {type: number}}
        "204": {description: gone}
components:
  schemas:
    Pet:
      type: object
      properties:
        id: {type: integer, minimum: 1}
        name: {type: string, nullable: true, description: The pet's name.}
        tags:
          type: array
          items: {type: string, enum: [a, b]}
        a.b: {type: boolean}
"""


def test_oas30_shapes_in_spec_order(write: WriteSpec) -> None:
    spec = load_spec(str(write("api.yaml", OAS30)))
    got = [(str(f.operation), f.field, f.type) for f in spec.fields]
    assert got == [
        ("GET /pets 200", "", "array"),
        ("GET /pets 200", "[].id", "integer"),
        ("GET /pets 200", "[].name", "string"),
        ("GET /pets 200", "[].tags", "array"),
        ("GET /pets 200", "[].tags[]", "string"),
        ("GET /pets 200", "[].a\\.b", "boolean"),
        ("GET /pets/{id} 200", "id", "integer"),
        ("GET /pets/{id} 200", "name", "string"),
        ("GET /pets/{id} 200", "tags", "array"),
        ("GET /pets/{id} 200", "tags[]", "string"),
        ("GET /pets/{id} 200", "a\\.b", "boolean"),
        ("GET /pets/{id} 200", "labels{}", "string"),
        ("GET /pets/{id} 200", "matrix", "array"),
        ("GET /pets/{id} 200", "matrix[]", "array"),
        ("GET /pets/{id} 200", "matrix[][]", "number"),
    ]
    by_path = {(f.operation.path, f.field): f for f in spec.fields}
    name = by_path[("/pets", "[].name")]
    assert name.facts.nullable is True and name.facts.description == "The pet's name."
    assert name.operation_id == "listPets" and name.api_title == "Pets"
    assert by_path[("/pets", "[].tags[]")].facts.enum == ("a", "b")
    assert by_path[("/pets", "[].tags")].facts.items_type == "string"
    assert by_path[("/pets/{id}", "labels{}")].facts.format == "uri"
    assert by_path[("/pets", "[].id")].fingerprint == by_path[("/pets/{id}", "id")].fingerprint
    assert [o.statuses for o in spec.operations] == [("200",), ("200",)]


def test_line_numbers_point_at_the_property(write: WriteSpec) -> None:
    path = write("api.yaml", OAS30)
    spec = load_spec(str(path))
    lines = path.read_text().splitlines()
    name = next(f for f in spec.fields if f.field == "[].name")
    line = spec.line_of(name.location)
    assert line is not None and lines[line - 1].strip().startswith("name:")


def test_json_line_numbers(write: WriteSpec) -> None:
    path = write("api.json", """
    {"openapi": "3.0.0", "info": {"title": "T", "version": "1"},
     "paths": {"/x": {"get": {"responses": {"200": {"description": "ok",
       "content": {"application/json": {"schema": {"type": "object",
         "properties": {
           "count": {"type": "integer"}
         }}}}}}}}}}
    """)
    spec = load_spec(str(path))
    assert spec.line_of(spec.fields[0].location) == 5


def test_swagger2_definitions_and_response_refs(write: WriteSpec) -> None:
    path = write("swagger.yaml", """
    swagger: "2.0"
    info: {title: S, version: "1"}
    produces: [application/json]
    paths:
      /items:
        get:
          responses:
            200: {$ref: '#/responses/Items'}
      /xml:
        get:
          produces: [application/xml]
          responses:
            200: {description: x, schema: {type: object, properties: {a: {type: string}}}}
    responses:
      Items:
        description: ok
        schema:
          type: object
          properties:
            total: {type: integer, example: 3}
            items: {type: array, items: {$ref: '#/definitions/Item'}}
    definitions:
      Item:
        type: object
        properties:
          url: {type: string, format: uri}
    """)
    spec = load_spec(str(path))
    assert spec.oas_version == "2.0"
    assert [f.field for f in spec.fields] == ["total", "items", "items[].url"]
    assert spec.fields[0].facts.example == 3


def test_openapi31_type_arrays_and_nullable_oneof(write: WriteSpec) -> None:
    path = write("api.yaml", """
    openapi: 3.1.0
    info: {title: T, version: "1"}
    paths:
      /x:
        get:
          responses:
            "200":
              description: ok
              content:
                "*/*":
                  schema:
                    type: object
                    properties:
                      name: {type: [string, "null"], examples: [Ann]}
                      owner:
                        oneOf: [{$ref: '#/components/schemas/User'}, {type: "null"}]
                      mixed: {type: [string, integer]}
    components:
      schemas:
        User: {type: object, properties: {login: {type: string}}}
    """)
    spec = load_spec(str(path))
    fields = {f.field: f for f in spec.fields}
    assert list(fields) == ["name", "owner.login", "mixed"]
    assert fields["name"].type == "string" and fields["name"].facts.nullable is True
    assert fields["name"].facts.examples == ("Ann",)
    assert fields["mixed"].type == "string|integer"


def test_cyclic_schema_terminates_at_the_shallowest_place(write: WriteSpec) -> None:
    path = write("api.yaml", """
    openapi: 3.0.0
    info: {title: T, version: "1"}
    paths:
      /tree:
        get:
          responses:
            "200":
              description: ok
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
    components:
      schemas:
        Node:
          type: object
          properties:
            name: {type: string}
            parent: {$ref: '#/components/schemas/Node'}
            children: {type: array, items: {$ref: '#/components/schemas/Node'}}
    """)
    spec = load_spec(str(path))
    assert [f.field for f in spec.fields] == ["name", "children"]


def test_cross_file_ref_chain(write: WriteSpec) -> None:
    write("schemas/common.yaml", """
    Id: {type: string, description: An id., minLength: 22, maxLength: 22}
    """)
    write("schemas/pet.yaml", """
    Pet:
      type: object
      properties:
        id: {$ref: './common.yaml#/Id'}
    """)
    path = write("api.yaml", """
    openapi: 3.0.0
    info: {title: T, version: "1"}
    paths:
      /pet:
        get:
          responses:
            "200":
              description: ok
              content:
                application/json:
                  schema: {$ref: './schemas/pet.yaml#/Pet'}
    """)
    spec = load_spec(str(path))
    (field,) = spec.fields
    assert field.field == "id" and field.facts.min_length == 22
    assert field.location.file.endswith("schemas/pet.yaml")  # where the field is named
    assert spec.line_of(field.location) == 4


def test_remote_ref_is_not_followed_but_noted(write: WriteSpec) -> None:
    path = write("api.yaml", """
    openapi: 3.0.0
    info: {title: T, version: "1"}
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
                      ok: {type: boolean}
                      far: {$ref: 'https://example.invalid/schemas.yaml#/Far'}
    """)
    spec = load_spec(str(path))
    far = next(f for f in spec.fields if f.field == "far")
    assert far.type == "unknown"
    assert "not followed" in far.notes[0]


def test_title_is_not_in_the_fingerprint_but_description_is(write: WriteSpec) -> None:
    a = load_spec(str(write("a.yaml", OAS30)))
    b = load_spec(str(write("b.yaml", OAS30.replace("title: Pets", "title: Renamed"))))
    c = load_spec(str(write("c.yaml", OAS30.replace("The pet's name.", "Its name."))))
    assert [f.fingerprint for f in a.fields] == [f.fingerprint for f in b.fields]
    changed = [f.field for f, g in zip(a.fields, c.fields, strict=True) if f.fingerprint != g.fingerprint]
    assert changed == ["[].name", "name"]


def test_yaml_keys_keep_their_text_and_scalars_their_types(write: WriteSpec) -> None:
    path = write("api.yaml", """
    openapi: 3.0.0
    info: {title: T, version: "1"}
    paths:
      /x:
        get:
          responses:
            200:
              description: ok
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      on: {type: string, example: "2013", enum: [yes, "no", 1.5]}
    """)
    spec = load_spec(str(path))
    (field,) = spec.fields
    assert field.operation.status == "200" and field.field == "on"
    assert field.facts.example == "2013" and field.facts.enum == ("yes", "no", 1.5)
