"""A spec in a pull request with a lone surrogate (`"\\ud800"` as a string escape), `1e400`, or a schema nested
hundreds deep (issue 18): read, or refused with one line (exit 2), never a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from satori_ci.spec import SpecError, SpecErrorKind, load_spec
from tests import in_process
from tests.spec.conftest import WriteSpec

ROOT = Path(__file__).resolve().parents[2]
HEAD = '{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {"/x": {"get": {"responses": {"200": {'
SCHEMA_AT = '"description": "ok", "content": {"application/json": {"schema": SCHEMA}}}}}}}}'


def document(schema: str) -> str:
    return HEAD + "\n" + SCHEMA_AT.replace("SCHEMA", schema) + "\n"


def _satori(*args: str, cwd: Path) -> in_process.Done:
    """`satori-ci ARGS` in `cwd`, with this process's environment but SATORI_DEBUG (no traceback to count)."""
    return in_process.satori(cwd, *args, env=in_process.clean_env(drop=("SATORI_DEBUG",)))


def _satori_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`_satori` as a process of its own: the recursion headroom of a fresh interpreter, not of pytest's stack."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SATORI_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "satori_ci", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def _one_line_input_error(done: in_process.Done | subprocess.CompletedProcess[str], needle: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert needle in done.stderr, done.stderr


@pytest.mark.parametrize("schema", [
    '{"type": "object", "properties": {"s": {"type": "string", "enum": ["\\ud800", "b"]}}}',
    '{"type": "object", "properties": {"\\udc00s": {"type": "string"}}}',
    '{"type": "object", "description": "text \\udbff", "properties": {"s": {"type": "string"}}}',
], ids=["enum", "property-name", "description"])
def test_a_lone_surrogate_in_a_json_spec_is_refused_with_its_line(write: WriteSpec, schema: str) -> None:
    path = write("api.json", document(schema))
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert info.value.kind is SpecErrorKind.SYNTAX
    assert str(info.value).startswith("api.json:2: the string escape \\u")
    assert "half of a surrogate pair without its other half" in str(info.value)
    _one_line_input_error(_satori("infer", "api.json", cwd=path.parent), "api.json:2: the string escape")


def test_a_lone_surrogate_in_a_yaml_spec_is_refused(write: WriteSpec) -> None:
    path = write("api.yaml", """\
        openapi: 3.0.3
        info: {title: T, version: "1"}
        paths:
          /x:
            get:
              responses:
                "200":
                  description: ok
                  content:
                    application/json:
                      schema: {type: object, properties: {s: {type: string, enum: ["\\ud800", b]}}}
        """)
    _one_line_input_error(_satori("fields", "api.yaml", cwd=path.parent), "api.yaml:11: the string escape \\ud800")


def test_a_surrogate_pair_is_one_character_and_read(write: WriteSpec) -> None:
    path = write("api.json", document('{"type": "object", "properties": {"s": {"type": "string", '
                                      '"enum": ["\\ud83d\\ude00", "b"]}}}'))
    [field] = load_spec(str(path)).fields
    assert field.facts.enum == ("😀", "b")


@pytest.mark.parametrize(("name", "bound"), [("api.json", "1e400"), ("api.json", "-1e400"), ("api.json", "NaN"),
                                              ("api.yaml", ".inf"), ("api.yaml", ".nan")])
def test_a_bound_past_the_double_range_is_read_and_states_no_oracle(write: WriteSpec, name: str, bound: str) -> None:
    """Read as Python reads it (infinity, NaN: `fields` shows them), but no oracle file can hold such a value:
    `infer` leaves the bound out and keeps the others."""
    schema = ('{"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "maximum": BOUND, '
              '"enum": [1, BOUND]}}}').replace("BOUND", bound)
    path = write(name, document(schema))
    [field] = load_spec(str(path)).fields
    assert field.facts.minimum == 0 and isinstance(field.facts.maximum, float)
    done = _satori("infer", name, "--oracles", "api.oracles.yaml", "--quiet", cwd=path.parent)
    assert done.returncode == 0, done.stderr
    written = (path.parent / "api.oracles.yaml").read_text(encoding="utf-8")
    assert "number_min_value" in written
    assert "number_max_value" not in written and "number_specific_values" not in written


@pytest.mark.parametrize("depth", [500, 5000])
def test_a_schema_nested_hundreds_deep_is_one_line(write: WriteSpec, depth: int) -> None:
    """The deepest in a process of its own, where the bound on recursion is the one the command meets."""
    schema = '{"type": "object", "properties": {"a": ' * depth + '{"type": "boolean"}' + "}}" * depth
    path = write("api.json", document(schema))
    run = _satori_process if depth == 5000 else _satori
    _one_line_input_error(run("infer", "api.json", cwd=path.parent), "api.json: nested too deeply")
