"""`fields_json_lines`: the walker's trees written as `spec_text.fields_jsonl` writes the fields, redacted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.redaction import Redactor
from satori_ci.report.fields_lines import fields_json_lines
from satori_ci.report.spec_text import fields_jsonl
from satori_ci.spec import load_spec, model

SHARED = {"type": "object", "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {
    "type": "string", "enum": ["a", "b"]}}, "meta": {"type": "object", "additionalProperties": {"type": "string"}}}}


def _spec(tmp_path: Path, properties: dict[str, Any], *, root: Any = None) -> Path:
    """A spec with an object body of `properties`, a root-array body and the shared schema at several depths."""
    ok = {"description": "ok"}
    body = {"type": "object", "properties": properties}
    paths = {
        "/things": {"get": {"operationId": "listThings", "responses": {"200": {**ok, "content": {
            "application/json": {"schema": body}}}}}},
        "/list": {"get": {"responses": {"200": {**ok, "content": {"application/json": {"schema": root or {
            "type": "array", "items": {"$ref": "#/components/schemas/Shared"}}}}}}}},
        "/deep": {"get": {"responses": {"201": {**ok, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"a.b": {"type": "object", "properties": {
                "x": {"$ref": "#/components/schemas/Shared"}}}, "y": {"$ref": "#/components/schemas/Shared"}}}}}}}}},
    }
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths,
                                "components": {"schemas": {"Shared": SHARED}}}, indent=1), encoding="utf-8")
    return path


def _both(path: Path, redactor: Redactor) -> tuple[str, str]:
    """What the fast writer writes, and what the renderer writes redacted as a whole."""
    spec = load_spec(str(path))
    fast = redactor.redact_literals("".join(fields_json_lines(spec.bodies, spec.line_of, redactor)))
    return fast, redactor.redact(fields_jsonl(spec.fields, lambda f: spec.line_of(f.location)))


def test_shared_subtrees_root_arrays_escaped_names_and_percent_signs_are_written_as_the_renderer_writes_them(
        tmp_path: Path) -> None:
    properties = {"ü\"name": {"type": "string"}, "s": SHARED,
                  "%s%%": {"type": "object", "properties": {"50%": {"type": "string", "description": "%d %s of %"}}}}
    fast, expected = _both(_spec(tmp_path, properties), Redactor())
    assert fast == expected
    fields = [json.loads(line)["field"] for line in fast.splitlines()]
    assert {"s.tags[]", "", "[].meta{}", "a\\.b.x.id", "y.tags", "ü\"name", "%s%%.50%"} <= set(fields)


@pytest.mark.parametrize("names", [
    ("q?api_key", "=hunter2value"),  # a key-like query value made of two names
    ("https://user:pw", "x@host"),  # URL credentials made of two names
    ("cb?token=", "abcdef"),
])
def test_a_path_the_redactor_changes_across_its_names_is_redacted_whole(tmp_path: Path,
                                                                         names: tuple[str, str]) -> None:
    outer, inner = names
    path = _spec(tmp_path, {outer: {"type": "object", "properties": {inner: {"type": "string"}}}})
    fast, expected = _both(path, Redactor())
    assert fast == expected
    whole = f"{outer}.{inner}"
    assert Redactor().redact(whole) != whole
    assert whole not in fast


def test_with_secrets_every_path_is_redacted_and_a_secret_across_pieces_too(tmp_path: Path) -> None:
    path = _spec(tmp_path, {"sekrit-value": {"type": "string"}})
    redactor = Redactor(["sekrit-value", '"type": "integer", "operation_id": null'])
    fast, expected = _both(path, redactor)
    assert fast == expected
    assert "sekrit-value" not in fast and '"type": "integer", "operation_id": null' not in fast


def test_fields_json_builds_no_response_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The lines come from the trees: 77,000 `ResponseField`s on GitHub's spec would cost a third of the run."""
    path = _spec(tmp_path, {"s": SHARED})
    expected = _both(path, Redactor())[1]

    def refuse(*args: object) -> None:
        raise AssertionError("a ResponseField was built")

    monkeypatch.setattr(model, "_emit", refuse)
    monkeypatch.chdir(tmp_path)
    assert main(["fields", "--json", "api.json"]) == 0
    assert capsys.readouterr().out == expected
