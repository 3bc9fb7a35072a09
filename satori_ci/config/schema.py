"""The JSON Schema of `.satori.yml`, generated from the file's model, and the committed copy editors use.

`satori.schema.json` (next to this module, shipped with the package) is `schema_text()`; a test keeps it equal.
Regenerate it with `python3 -m satori_ci.config.schema > satori_ci/config/satori.schema.json`.

The schema says what a type can: a few rules of the reader are wider or narrower in it (a path inside the
repository, an environment variable's name, `requests.unsafe` globs are checked by the reader only).
"""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path
from typing import Any

from satori_ci.config import model
from satori_ci.config.model import ConfigModel

SCHEMA_FILE = Path(__file__).with_name("satori.schema.json")
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schema() -> dict[str, Any]:
    """The config's JSON Schema (draft 2020-12), each key described by its attribute docstring in `model`."""
    schema = ConfigModel.model_json_schema(mode="validation")
    docs = _attribute_docs()
    for name, found in [(ConfigModel.__name__, schema), *schema.get("$defs", {}).items()]:
        for key, described in found.get("properties", {}).items():
            if key in docs.get(name, {}):
                described["description"] = docs[name][key]
    return {"$schema": DIALECT, **schema}


def _attribute_docs() -> dict[str, dict[str, str]]:
    """Model -> key -> the docstring under its attribute, read from `model`'s source (pydantic can read them
    itself, but then on every import: they are needed only here)."""
    docs: dict[str, dict[str, str]] = {}
    for node in ast.parse(inspect.getsource(model)).body:
        if not isinstance(node, ast.ClassDef):
            continue
        docs[node.name] = {
            first.target.id: inspect.cleandoc(second.value.value)
            for first, second in zip(node.body, node.body[1:], strict=False)
            if isinstance(first, ast.AnnAssign) and isinstance(first.target, ast.Name)
            and isinstance(second, ast.Expr) and isinstance(second.value, ast.Constant)
            and isinstance(second.value.value, str)}
    return docs


def schema_text() -> str:
    """The schema file's text: sorted keys, two-space indent, a final newline (the same bytes every time)."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
