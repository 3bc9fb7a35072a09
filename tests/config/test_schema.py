"""The published JSON Schema of `.satori.yml`: the committed file is what the models generate, and every config
example in the docs (and in the package's docstring) is valid under it and reads without error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator

import satori_ci.config
from satori_ci.config import BACKENDS, FailOn, parse_config
from satori_ci.config.model import Backend, ConfigModel, FailOnName
from satori_ci.config.schema import SCHEMA_FILE, json_schema, schema_text
from satori_ci.spec.yaml_loader import load_yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
_YAML_BLOCK = re.compile(r"^([ \t]*)```ya?ml[ \t]*\n(.*?)^\1```", re.M | re.S)


def _config_examples() -> list[tuple[str, str]]:
    """(where, text) of every YAML block of the docs that reads as a satori config: a mapping whose keys are all
    the config's own (a workflow or an oracle file has others)."""
    found = []
    sources = [(doc.relative_to(ROOT).as_posix(), doc.read_text(encoding="utf-8")) for doc in DOCS]
    blocks = [(name, match.group(2)) for name, text in sources for match in _YAML_BLOCK.finditer(text)]
    docstring = satori_ci.config.__doc__ or ""
    indented = [line[4:] for line in docstring.splitlines() if line.startswith("    ")]
    blocks.append(("satori_ci/config/__init__.py", "\n".join(indented) + "\n"))
    for name, block in blocks:
        raw, _ = load_yaml(block.encode("utf-8"), name)
        if isinstance(raw, dict) and raw and set(raw) <= set(ConfigModel.model_fields):
            found.append((name, block))
    return found


EXAMPLES = _config_examples()


def test_the_committed_schema_is_what_the_models_generate() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "regenerate: python3 -m satori_ci.config.schema > satori_ci/config/satori.schema.json")
    Draft202012Validator.check_schema(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def test_the_docs_have_config_examples() -> None:
    assert {name for name, _ in EXAMPLES} >= {"README.md", "satori_ci/config/__init__.py"}


@pytest.mark.parametrize(("name", "text"), EXAMPLES, ids=[f"{name}#{i}" for i, (name, _) in enumerate(EXAMPLES)])
def test_every_config_example_is_valid_and_reads(name: str, text: str) -> None:
    raw, _ = load_yaml(text.encode("utf-8"), name)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in Draft202012Validator(json_schema()).iter_errors(raw)]
    assert errors == []
    assert parse_config(text, name).specs


@pytest.mark.parametrize("raw", [
    {"specs": [{"path": "x", "stagin": {}}]},
    {"fail_on": "sometimes"},
    {"specs": [{"path": "x", "observe": {"min_responses": 0}}]},
    {"specs": [{"path": "x", "requests": {"values": {"a": True}}}]},
    {"specs": [{"path": "x", "skip_kinds": ["always_green"]}]},
])
def test_the_schema_refuses_what_the_reader_refuses(raw: dict[str, Any]) -> None:
    assert list(Draft202012Validator(json_schema()).iter_errors(raw))


def test_the_models_choices_are_the_settings_choices() -> None:
    assert get_args(Backend) == BACKENDS
    assert get_args(FailOnName) == tuple(f.value for f in FailOn)
