"""Issue 18, scenario 8: a few kilobytes of spec whose `$ref`s fan out to millions of fields.

Each hostile shape stays under the field cap of old (2,000,000) yet once took gigabytes and tens of
seconds: fields are cheap to count and costly to build (a path string each, facts printed per use).
The expansion is bounded while it is counted, before any field is built: each spec is refused
through the CLI with one line naming the cap and the spec, exit 2, in a process held to 1 GiB of
address space (all the shapes in one, one after the other), each within its own hard timeout.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from satori_ci.spec import SpecError, SpecErrorKind, load_spec, model, walker
from tests.one_process import outcomes

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = "#/components/schemas/"
MEMORY_LIMIT = 1024**3
HARD_TIMEOUT_S = 60


def _document(schemas: dict[str, Any], body: Any) -> dict[str, Any]:
    response = {"description": "ok", "content": {"application/json": {"schema": body}}}
    return {"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
            "paths": {"/x": {"get": {"responses": {"200": response}}}}, "components": {"schemas": schemas}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": SCHEMAS + name}


def _levels(depth: int, level: Any, leaf: Any) -> str:
    """`depth` schemas `L0`..: `level(i)` each (refering to `L{i+1}`), and `leaf` last; the body is `L0`."""
    schemas = {f"L{i}": level(i) for i in range(depth)}
    schemas[f"L{depth}"] = leaf
    return json.dumps(_document(schemas, _ref("L0")))


def _object(names: list[str], child: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {name: child for name in names}}


def wide_fan_out() -> str:
    """36 properties a level, each a `$ref` to the next level, 4 levels: 1.68 M fields."""
    return _levels(4, lambda i: _object([f"p{j}" for j in range(36)], _ref(f"L{i + 1}")), {"type": "string"})


def deep_doubling() -> str:
    """Two properties a level referring to the next, 20 levels: 2^20 fields."""
    return _levels(20, lambda i: _object(["a", "b"], _ref(f"L{i + 1}")), {"type": "integer"})


def composition_doubling() -> str:
    """Each level an `allOf`/`oneOf`/`anyOf` of the next level twice over and of two members
    that each add a property referring to it: 2^20 fields."""
    keywords = ("allOf", "oneOf", "anyOf")

    def level(i: int) -> dict[str, Any]:
        next_level = _ref(f"L{i + 1}")
        members = [{"type": "object", "properties": {name: next_level}} for name in ("a", "b")]
        return {"allOf": [_ref(f"M{i}"), _ref(f"M{i}")], keywords[i % 3]: members}

    document = json.loads(_levels(20, level, {"type": "string", "format": "uuid"}))
    document["components"]["schemas"].update({f"M{i}": {"description": f"level {i}"} for i in range(20)})
    return json.dumps(document)


def long_names() -> str:
    """Two properties of 2,000 characters a level, 16 levels: 65,536 fields of 32 KB paths (2 GB)."""
    return _levels(16, lambda i: _object([c * 2000 for c in "xy"], _ref(f"L{i + 1}")), {"type": "boolean"})


def arrays_of_arrays() -> str:
    """Two properties a level, each an array of arrays of the next level, 18 levels: 2^20 fields."""
    def level(i: int) -> dict[str, Any]:
        return _object(["a", "b"], {"type": "array", "items": {"type": "array", "items": _ref(f"L{i + 1}")}})

    return _levels(18, level, {"type": "number"})


def long_enum() -> str:
    """A leaf with 20,000 enum values reached by 4,096 paths: its facts 700 MB over the fields."""
    leaf = {"type": "string", "enum": [f"value-{i:06d}" for i in range(20_000)]}
    return _levels(12, lambda i: _object(["a", "b"], _ref(f"L{i + 1}")), leaf)


def repeated_views() -> str:
    """A schema of 10,000 properties that give no field, under 10,000 names: a view merged per name,
    10^8 properties walked, no field at all."""
    wide = {"type": "object", "properties": {f"q{j}": {} for j in range(10_000)}}
    return _levels(1, lambda i: _object([f"p{j}" for j in range(10_000)], _ref("L1")), wide)


def knot_of_objects() -> str:
    """15 objects that each refer to all 15 and to nothing else: no field, one walk per set of ancestors."""
    schemas = {f"S{i}": _object([f"s{j}" for j in range(15)], None) for i in range(15)}
    for schema in schemas.values():
        schema["properties"] = {name: _ref("S" + name[1:]) for name in schema["properties"]}
    return json.dumps(_document(schemas, _ref("S0")))


def yaml_laughs() -> str:
    """YAML anchors and aliases instead of `$ref`s: each level's mapping twice under the next, 18 levels of
    names of 200 characters: 2^18 fields of 3.6 KB paths (under the loader's cap on alias nodes)."""
    lines = ["openapi: 3.0.3", "info: {title: T, version: '1'}", "x-levels:", "  l0: &l0 {type: string}"]
    for i in range(1, 19):
        names = [f"{c * 200}{i}" for c in "xy"]
        lines.append(f"  l{i}: &l{i} {{type: object, properties: {{{names[0]}: *l{i - 1}, {names[1]}: *l{i - 1}}}}}")
    lines += ["paths:", "  /x:", "    get:", "      responses:", "        '200':", "          description: ok",
              "          content:", "            application/json:", "              schema: *l18", ""]
    return "\n".join(lines)


def yaml_laughs_in_example() -> str:
    """A billion laughs as a field's `example`: a million aliases of a 1,000-character string (1 GB as JSON)."""
    lines = ["openapi: 3.0.3", "info: {title: T, version: '1'}", "x-laughs:", f"  l0: &l0 {'lol' * 333}"]
    lines += [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 7)]
    lines += ["paths:", "  /x:", "    get:", "      responses:", "        '200':", "          description: ok",
              "          content:", "            application/json:",
              "              schema: {type: array, items: {type: string}, example: *l6}", ""]
    return "\n".join(lines)


SHAPES = {
    "wide_fan_out": ("api.json", wide_fan_out),
    "deep_doubling": ("api.json", deep_doubling),
    "composition_doubling": ("api.json", composition_doubling),
    "long_names": ("api.json", long_names),
    "arrays_of_arrays": ("api.json", arrays_of_arrays),
    "long_enum": ("api.json", long_enum),
    "repeated_views": ("api.json", repeated_views),
    "knot_of_objects": ("api.json", knot_of_objects),
    "yaml_laughs": ("api.yaml", yaml_laughs),
    "yaml_laughs_in_example": ("api.yaml", yaml_laughs_in_example),
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _env() -> dict[str, str]:
    """This process's environment, `satori_ci` importable from this checkout whatever the directory."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


_SCRIPT = """
import contextlib, io, os, sys
from satori_ci.cli import main

def cli(folder, args):
    os.chdir(folder)
    said = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
        return [main(args), said.getvalue()]

runs, limit = json.loads(sys.argv[1]), int(sys.argv[2])
for key, folder, args in runs:
    timed(key, limit, lambda: cli(folder, args))
"""
CHECK_SHAPES = ("wide_fan_out", "long_enum")
CHECK_ARGS = ["--staging-url", "http://127.0.0.1:9", "--runner", "native", "--no-write"]


@pytest.fixture(scope="module")
def refusals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """What `satori-ci fields --json` did with each shape, and `satori-ci check` with `CHECK_SHAPES`, all in one
    process held to `MEMORY_LIMIT` (each run has `HARD_TIMEOUT_S` of its own, the process three times that):
    "fields SHAPE" / "check SHAPE" -> [exit code, stderr], or what went wrong. A run whose process was stopped is the
    one it last started."""
    runs = []
    for shape, (name, build) in sorted(SHAPES.items()):
        folder = tmp_path_factory.mktemp(shape)
        (folder / name).write_text(build(), encoding="utf-8")
        runs.append((f"fields {shape}", str(folder), ["fields", "--json", name]))
        if shape in CHECK_SHAPES:
            runs.append((f"check {shape}", str(folder), ["check", "--head", name, *CHECK_ARGS]))
    return outcomes(_SCRIPT, [json.dumps(runs), str(HARD_TIMEOUT_S)], MEMORY_LIMIT, 3 * HARD_TIMEOUT_S, env=_env())


def _assert_refused(outcome: object, name: str) -> None:
    assert isinstance(outcome, list), outcome
    code, stderr = outcome
    lines = stderr.strip().splitlines()
    assert code == 2, stderr[-2000:]
    assert len(lines) == 1, stderr[-2000:]
    assert re.match(rf"satori-ci: error: {re.escape(name)}(:\d+)?: .* past [\d,]+ ", lines[0]), lines[0]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_hostile_expansion_is_refused_by_fields(refusals: dict[str, object], shape: str) -> None:
    _assert_refused(refusals.get(f"fields {shape}", "not run: an earlier run stopped the process"), SHAPES[shape][0])


@pytest.mark.parametrize("shape", CHECK_SHAPES)
def test_hostile_expansion_is_refused_by_check(refusals: dict[str, object], shape: str) -> None:
    _assert_refused(refusals.get(f"check {shape}", "not run: an earlier run stopped the process"), SHAPES[shape][0])


def _changed_enum(values: list[str]) -> str:
    """A leaf with the enum `values` reached by 64 paths."""
    return _levels(6, lambda i: _object(["a", "b"], _ref(f"L{i + 1}")), {"type": "string", "enum": values})


def test_a_long_enum_changed_in_many_fields_is_diffed_in_linear_time(tmp_path: Path) -> None:
    # DeepDiff pairs the values an order-free comparison finds changed: quadratic (1,000 of 2,000: minutes),
    # and it ran once per changed field.
    base = [f"a{i}" for i in range(2_000)]
    head = base[:1_000] + [f"b{i}" for i in range(1_000)]
    (tmp_path / "base.json").write_text(_changed_enum(base), encoding="utf-8")
    (tmp_path / "head.json").write_text(_changed_enum(head), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "satori_ci", "spec-diff", "--json", "base.json", "head.json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=HARD_TIMEOUT_S,
                          preexec_fn=_limit_memory, env=_env(), check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    changed = json.loads(proc.stdout)["changed"]
    assert len(changed) == 64
    assert {tuple(c["changes"]) for c in changed} == {("enum gained 1,000 values", "enum lost 1,000 values")}


def test_budgets_grow_with_the_documents_up_to_a_ceiling() -> None:
    assert walker.FIELDS.cap(0) == walker.FIELDS.floor
    assert walker.FIELDS.cap(10_000) == walker.FIELDS.floor + 10_000 * walker.FIELDS.per_byte
    assert walker.FIELDS.cap(64 * 1024**2) == walker.FIELDS.ceiling
    for budget in (walker.FIELDS, walker.CHARACTERS, walker.STEPS):
        assert budget.floor < budget.ceiling


def test_a_spec_past_a_budget_is_refused_before_any_field_is_built(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    emitted: list[object] = []
    monkeypatch.setattr(model, "_emit", lambda *args: emitted.append(args))
    monkeypatch.setattr(walker, "ResponseBody", lambda *args: emitted.append(args))
    path = tmp_path / "api.json"
    path.write_text(wide_fan_out(), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert info.value.kind is SpecErrorKind.TOO_LARGE
    cap = walker.FIELDS.cap(path.stat().st_size)
    assert str(info.value) == f"api.json: response schemas expand past {cap:,} fields (refs nested too many times?)"
    assert emitted == []
