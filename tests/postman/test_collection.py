"""The collection: Postman format v2.1 (checked with the npm postman-collection SDK), deterministic, readable."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import Oracle
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import RequestSet
from satori_ci.postman.checker_js import CHECKER_JS
from satori_ci.postman.export import SCHEMA_URL, collection_json, script_for
from satori_ci.postman.script import CHECKER_VARIABLE, js_literal
from satori_ci.spec import Spec, load_spec
from tests.run.specs import auth_oracles, auth_spec, hostile_oracles, hostile_spec, hostile_strings

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "run" / "fixtures"
CHECK = Path(__file__).with_name("collection_check.js")


def _oracles(name: str) -> list[Oracle]:
    path = FIXTURES / name
    return load_oracle_file(path.read_text(encoding="utf-8"), str(path)).enabled_oracles()


@pytest.fixture(scope="module")
def bookshop() -> tuple[Spec, list[Oracle]]:
    spec = ROOT / "satori_ci" / "examples" / "bookshop" / "openapi.v2.yaml"
    return load_spec(str(spec)), _oracles("bookshop.oracles.yaml")


@pytest.fixture(scope="module")
def inventory() -> tuple[Spec, list[Oracle]]:
    return load_spec(str(FIXTURES / "inventory.yaml")), _oracles("inventory.oracles.yaml")


def run_sdk(collections: list[RequestSet], literals: Sequence[str] = ()) -> dict[str, Any]:
    """Load collections with the postman-collection SDK in one node process."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    if not (ROOT / "node_modules" / "postman-collection").is_dir():
        pytest.fail("the npm package postman-collection is missing: run `npm ci` (the README's set-up)")
    payload = json.dumps({"collections": [json.loads(collection_json(c)) for c in collections],
                          "literals": list(literals)})
    done = subprocess.run([node, str(CHECK)], input=payload.encode("utf-8"), capture_output=True, timeout=60,
                          cwd=ROOT, check=False, env={"NODE_PATH": str(ROOT / "node_modules"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    result: dict[str, Any] = json.loads(done.stdout.decode("utf-8"))
    return result


def test_collections_are_valid_postman_v21(bookshop: tuple[Spec, list[Oracle]], inventory: tuple[Spec, list[Oracle]],
                                          tmp_path: Path) -> None:
    hostile, _ = hostile_spec(tmp_path, tmp_path / "marker")
    secured = auth_spec(tmp_path)
    built = [build_requests(*bookshop), build_requests(*inventory, null_like=("N/A",)),
             build_requests(hostile, hostile_oracles(hostile)), build_requests(secured, auth_oracles(secured))]
    result = run_sdk(built)
    for collection, parsed in zip(built, result["collections"], strict=True):
        assert parsed["ok"] and parsed["roundTrip"] and parsed["schema"] == SCHEMA_URL
        assert parsed["folders"] == [[f.name, True] for f in collection.groups]
        items = list(collection.requests())
        assert [i["id"] for i in parsed["items"]] == [i.id for i in items]
        assert len({i.id for i in items}) == len(items)
        for item, seen in zip(items, parsed["items"], strict=True):
            assert seen["name"] == item.name and seen["method"] == item.method
            assert seen["url"] == item.url(collection.base_url, {p.variable: "{{" + p.variable + "}}"
                                                                 for p in item.auth})
            assert seen["exec"] == list(script_for(item))
            assert seen["body"] == item.sample.body
            assert seen["headers"] == [list(h) for h in item.header_templates()]


def test_one_folder_per_operation_and_base_url_variable(bookshop: tuple[Spec, list[Oracle]]) -> None:
    data = json.loads(collection_json(build_requests(*bookshop)))
    assert [f["name"] for f in data["item"]] == ["GET /books", "GET /books/{isbn}"]
    assert data["variable"][0] == {"key": "baseUrl", "value": "http://localhost:8080", "type": "string",
                                   "description": "Where the API under test runs (satori-ci run --base-url sets it)."}
    assert data["variable"][1]["key"] == CHECKER_VARIABLE and data["variable"][1]["value"] == CHECKER_JS
    request = data["item"][1]["item"][0]["request"]
    assert request["url"]["raw"] == "{{baseUrl}}/books/:isbn"
    assert request["url"]["variable"] == [{"key": "isbn", "value": "9780441172719"}]
    assert build_requests(*bookshop, base_url="https://staging.example.com/api/").base_url == \
        "https://staging.example.com/api"


def test_only_enabled_oracles_are_asserted(inventory: tuple[Spec, list[Oracle]]) -> None:
    spec, oracles = inventory
    every = load_oracle_file((FIXTURES / "inventory.oracles.yaml").read_text(encoding="utf-8"), "x")
    disabled = [o for e in every.entries for o in e.oracles if not o.enabled]
    assert disabled and all(o not in oracles for o in disabled)
    planned = build_requests(spec, [o for e in every.entries for o in e.oracles])
    asserted = [o for i in planned.requests() for _, found in i.oracles for o in found]
    assert len(asserted) == len(oracles) and not any(o in disabled for o in asserted)


def test_the_same_inputs_give_the_same_text(inventory: tuple[Spec, list[Oracle]]) -> None:
    spec, oracles = inventory
    first = collection_json(build_requests(spec, oracles, null_like=("N/A", "")))
    again = collection_json(build_requests(load_spec(str(FIXTURES / "inventory.yaml")),
                                           _oracles("inventory.oracles.yaml"), null_like=("N/A", "")))
    assert first == again
    assert collection_json(build_requests(spec, oracles)) != first  # the null-like set is part of the input


def test_test_script_is_readable(bookshop: tuple[Spec, list[Oracle]]) -> None:
    lines = script_for(next(build_requests(*bookshop).requests()))
    script = "\n".join(lines)
    assert script.startswith("// satori-ci: checks this response against the oracles of its operation.")
    assert 'var operation = "GET /books";' in script
    assert 'var expectedStatuses = ["200"];' in script
    # one oracle a line, as the oracle file lists it
    assert ('    {"field": "books[].rating", "segments": [{"prop": "books"}, {"items": true}, {"prop": "rating"}], '
            '"oracle": "number_max_value", "value": 5, "source": "rules", "reason": "from 1 to 5"},') in lines
    assert max(len(line) for line in lines if not line.startswith("    {")) <= 120


def test_notes_for_oracles_the_spec_cannot_check(bookshop: tuple[Spec, list[Oracle]]) -> None:
    spec, oracles = bookshop
    stray = [o.__class__(o.operation.__class__("GET", "/gone", "200"), "x", o.kind, o.value) for o in oracles[:2]]
    other_status = [o.__class__(o.operation.__class__("GET", "/books", "201"), "x", o.kind, o.value)
                    for o in oracles[:1]]
    planned = build_requests(spec, [*oracles, *stray, *other_status])
    assert planned.notes == (
        "GET /books 201: no such JSON response in the spec; 1 oracle(s) not checked",
        "GET /gone: not in the spec; its 2 oracle(s) are not checked",
    )


def test_js_literals_are_json_and_evaluate_to_the_same_value(tmp_path: Path) -> None:
    values: list[Any] = [*hostile_strings(tmp_path / "marker"), {"k</script>": ["\u2028", 1.5, None, True]},
                         "-->", "<!--", ["`", "${a}", "\\", "'"]]
    literals = [js_literal(v) for v in values]
    for value, text in zip(values, literals, strict=True):
        assert json.loads(text) == value
        assert "<" not in text and ">" not in text and "\u2028" not in text and "\u2029" not in text
        assert "\n" not in text and "\r" not in text
    assert run_sdk([], literals)["literals"] == values
