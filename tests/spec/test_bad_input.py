"""Each class of bad input: one clear line naming the file (and line), exit code 2, no traceback."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from satori_ci.spec import SpecError, SpecErrorKind, load_spec
from tests import in_process
from tests.spec.conftest import WriteSpec

HEAD = 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\n'
RESPONSE = """
paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Nope'}
"""

CASES = {
    "yaml_syntax": ("api.yaml", HEAD + "paths:\n  /x: [\n", SpecErrorKind.SYNTAX, "api.yaml:5"),
    "json_syntax": ("api.json", '{"openapi": "3.0.0",\n "paths": {,}}', SpecErrorKind.SYNTAX, "api.json:2"),
    "not_openapi": ("api.yaml", "name: a kubernetes manifest\n", SpecErrorKind.NOT_OPENAPI, "not an OpenAPI"),
    "not_a_mapping": ("api.yaml", "- a\n- b\n", SpecErrorKind.NOT_OPENAPI, "not an OpenAPI"),
    "swagger_1": ("api.json", '{"swaggerVersion": "1.2"}', SpecErrorKind.NOT_OPENAPI, "not an OpenAPI"),
    "unresolved_ref": ("api.yaml", HEAD + RESPONSE, SpecErrorKind.UNRESOLVED_REF,
                       "'#/components/schemas/Nope' at /paths/~1x/get/responses/200/content"),
    "duplicate_yaml": ("api.yaml", HEAD + "paths: {}\npaths: {}\n", SpecErrorKind.DUPLICATE_KEY, "api.yaml:4"),
    "duplicate_json": ("api.json", '{"openapi": "3.0.0",\n"paths": {},\n"paths": {}}', SpecErrorKind.DUPLICATE_KEY,
                       "api.json:3"),
    "complex_key": ("api.yaml", HEAD + "paths:\n  ? [a, b]\n  : {}\n", SpecErrorKind.NON_STRING_KEY, "api.yaml:4"),
    "missing_paths": ("api.yaml", HEAD, SpecErrorKind.MISSING_PATHS, "no 'paths'"),
    "escaping_ref": ("api.yaml", HEAD + RESPONSE.replace("#/components/schemas/Nope", "../../etc/passwd#/x"),
                     SpecErrorKind.UNRESOLVED_REF, "leaves the repository"),
    "missing_file_ref": ("api.yaml", HEAD + RESPONSE.replace("#/components/schemas/Nope", "other.yaml#/x"),
                         SpecErrorKind.UNRESOLVED_REF, "other.yaml"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_classified_line(write: WriteSpec, case: str) -> None:
    name, text, kind, needle = CASES[case]
    with pytest.raises(SpecError) as info:
        load_spec(str(write(name, text)))
    assert info.value.kind is kind
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_alias_bomb_is_refused_quickly(write: WriteSpec) -> None:
    lines = [HEAD + "paths: {}\nx-bomb:\n  a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]"]
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        lines.append(f"  {name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    path = write("bomb.yaml", "\n".join(lines) + "\n")
    start = time.perf_counter()
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert info.value.kind is SpecErrorKind.TOO_LARGE and "alias" in str(info.value)
    assert time.perf_counter() - start < 5


def test_size_budget(write: WriteSpec) -> None:
    path = write("api.yaml", HEAD + "paths: {}\n" + "x-pad: " + "a" * 5000 + "\n")
    with pytest.raises(SpecError) as info:
        load_spec(str(path), max_bytes=1000)
    assert info.value.kind is SpecErrorKind.TOO_LARGE and "--max-bytes" in str(info.value)


def test_exponential_refs_are_bounded(write: WriteSpec) -> None:
    schemas = ["components:", "  schemas:"]
    for level in range(12):
        props = ", ".join(f"p{i}: {{$ref: '#/components/schemas/S{level + 1}'}}" for i in range(8))
        schemas.append(f"    S{level}: {{type: object, properties: {{{props}}}}}")
    schemas.append("    S12: {type: string}")
    body = RESPONSE.replace("Nope", "S0")
    path = write("api.yaml", HEAD + body + "\n".join(schemas) + "\n")
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert info.value.kind is SpecErrorKind.TOO_LARGE


@pytest.mark.parametrize("case", ["yaml_syntax", "unresolved_ref", "duplicate_json", "not_openapi"])
def test_cli_exit_code_2_without_traceback(write: WriteSpec, case: str) -> None:
    name, text, _, needle = CASES[case]
    path = write(name, text)
    proc = in_process.satori(os.getcwd(), "fields", str(path), env=os.environ)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr
    assert proc.stderr.startswith("satori-ci: error: ")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(str(tmp_path / "nope.yaml"))
    assert info.value.kind is SpecErrorKind.NOT_FOUND


def test_an_integer_past_the_digit_limit_is_no_crash(write: WriteSpec) -> None:
    """A 5000-digit number: one line naming the file, in JSON and in YAML."""
    huge = "1" * 5000
    schema = '{"type": "integer", "maximum": ' + huge + "}"
    json_path = write("api.json", '{"openapi": "3.0.0", "info": {"title": "T", "version": "1"}, "paths": {"/x": '
                           '{"get": {"responses": {"200": {"description": "ok", "content": {"application/json": '
                           '{"schema": ' + schema + "}}}}}}}}")
    with pytest.raises(SpecError) as caught:
        load_spec(str(json_path))
    assert caught.value.kind is SpecErrorKind.SYNTAX and "4300 digits" in caught.value.message
    yaml_path = write("api.yaml", HEAD + "paths:\n  /x:\n    get:\n      responses:\n        '200':\n"
                           "          description: ok\n          content:\n            application/json:\n"
                           f"              schema: {{type: integer, maximum: {huge}}}\n")
    with pytest.raises(SpecError) as caught:
        load_spec(str(yaml_path))
    assert caught.value.kind is SpecErrorKind.SYNTAX and "4300 digits" in caught.value.message
