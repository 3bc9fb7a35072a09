"""Field diff between two versions, from files and from git revisions."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from satori_ci.spec import Spec, diff_fields, load_spec
from satori_ci.spec.diff import DEEPDIFF_MAX_ITEMS, describe_changes
from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation
from tests import in_process
from tests.spec.conftest import WriteSpec

BASE = """
openapi: 3.0.0
info: {title: T, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  kind: {type: string, enum: [album, single], description: The kind.}
                  owner: {$ref: '#/components/schemas/User'}
                  size: {type: integer, description: Bytes.}
  /b:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  author: {$ref: '#/components/schemas/User'}
components:
  schemas:
    User:
      type: object
      properties:
        login: {type: string, description: The login.}
"""


def _head() -> str:
    return (BASE.replace("enum: [album, single], description: The kind.",
                         "enum: [album, single, custom], description: The kind of release.")
            .replace("description: The login.", "description: The user's login.")
            .replace("                  size: {type: integer, description: Bytes.}\n", "")
            + "")


def test_added_removed_changed_and_shared_components(write: WriteSpec) -> None:
    base = load_spec(str(write("base.yaml", BASE)))
    head_text = _head().replace("  /b:", "  /c:\n    get:\n      responses:\n        \"200\":\n"
                                "          description: ok\n          content:\n            application/json:\n"
                                "              schema: {type: object, properties: {size: {type: integer, "
                                "description: Bytes.}, extra: {type: boolean}}}\n  /b:")
    head = load_spec(str(write("head.yaml", head_text)))
    diff = diff_fields(base.fields, head.fields)
    changed = {(c.head.operation.path, c.head.field): c.changes for c in diff.changed}
    assert changed[("/a", "kind")] == ("description changed: -'kind.' +'kind of release.'", "enum gained 'custom'")
    # a change to a shared component shows on every field that uses it, in every operation
    assert changed[("/a", "owner.login")] == ('description changed: +"user\'s"',)
    assert changed[("/b", "author.login")] == changed[("/a", "owner.login")]
    assert [(m.base.operation.path, m.head.operation.path, m.head.field) for m in diff.moved] == [("/a", "/c", "size")]
    assert [f.field for f in diff.added] == ["extra"]
    assert diff.removed == ()
    assert diff.counts() == {"added": 1, "removed": 0, "changed": 3, "moved": 1, "unchanged": 0}


def test_changed_keywords_show_their_old_and_new_values() -> None:
    """An enum that gains and loses members names both; a description shows its words lost and gained; a bound
    its old and new value; a nested keyword its path."""
    def field(**facts: object) -> ResponseField:
        return ResponseField(OperationKey("GET", "/x", "200"), None, "kind", "kind", "string",
                             FieldFacts(**facts), "T", SourceLocation("api.yaml", "/x"), "fp")  # type: ignore[arg-type]

    old = field(enum=("album", "single"), description="The kind of a release, from 0 to 5.", minimum=0)
    new = field(enum=("album", "ep"), description="The kind of a release, from 1 to 10.", minimum=1)
    for deep in (True, False):
        assert describe_changes(old, new, deep) == (
            "description changed: -'0' +'1' -'5.' +'10.'", "enum gained 'ep'", "enum lost 'single'",
            "minimum changed from 0 to 1")
    bare, bounded = field(), field(format="uuid", min_length=36, max_length=36)  # more new keywords than old ones
    for deep in (True, False):
        assert describe_changes(bare, bounded, deep) == (
            "format added ('uuid')", "maxLength added (36)", "minLength added (36)")


FACT_CHANGES = [
    ("kind: {type: string, enum: [album, single]}", "kind: {type: string, enum: [album, single, ep]}"),
    ("kind: {type: string, enum: [album, single]}", "kind: {type: string, enum: [single]}"),
    ("kind: {type: string, maxLength: 3}", "kind: {type: string, maxLength: 4}"),
    ("kind: {type: string, maxLength: 3}", "kind: {type: string, minLength: 3}"),
    ("kind: {type: string, pattern: '^a'}", "kind: {type: integer, pattern: '^b'}"),
    ("kind: {type: string, example: 1}", "kind: {type: string, example: '1'}"),
    ("kind: {type: string}", "kind: {type: string, nullable: true}"),
    ("kind: {type: string}", "kind: {type: string, format: uuid, minLength: 36, maxLength: 36}"),
]


@pytest.mark.parametrize(("before", "after"), FACT_CHANGES)
def test_facts_compared_without_deepdiff_are_worded_as_deepdiff_words_them(
        write: WriteSpec, before: str, after: str) -> None:
    # facts past DeepDiff's bounds (long enums, many changed fields) are compared key by key
    text = BASE.replace("kind: {type: string, enum: [album, single], description: The kind.}", before)
    base = load_spec(str(write("base.yaml", text)))
    head = load_spec(str(write("head.yaml", text.replace(before, after))))
    (change,) = diff_fields(base.fields, head.fields).changed
    assert describe_changes(change.base, change.head, deep=False) == change.changes


def test_long_lists_are_compared_as_multisets(write: WriteSpec) -> None:
    def with_enum(name: str, values: list[str]) -> Spec:
        line = "kind: {type: string, enum: [album, single], description: The kind.}"
        return load_spec(str(write(name, BASE.replace(line, "kind: {type: string, enum: " + json.dumps(values) + "}"))))

    values = [f"v{i}" for i in range(DEEPDIFF_MAX_ITEMS * 4)]
    base = with_enum("base.yaml", values)
    head = with_enum("head.yaml", [*values[2:], *values[:2], "w1", "w2"])  # reordered, two gained
    (change,) = diff_fields(base.fields, head.fields).changed
    assert change.changes == ("enum gained 'w1'", "enum gained 'w2'")
    (change,) = diff_fields(base.fields, with_enum("fewer.yaml", values[:-5]).fields).changed
    assert change.changes == ("enum lost 5 values",)


def test_removed_fields(write: WriteSpec) -> None:
    base = load_spec(str(write("base.yaml", BASE)))
    head = load_spec(str(write("head.yaml", BASE.replace("                  size: {type: integer, "
                                                          "description: Bytes.}\n", ""))))
    diff = diff_fields(base.fields, head.fields)
    assert [f.field for f in diff.removed] == ["size"] and diff.unchanged == 3


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "t@example.invalid")
    _git(tmp_path, "config", "user.name", "t")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "openapi.yaml").write_text(BASE)
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    (tmp_path / "api" / "openapi.yaml").write_text(_head())
    _git(tmp_path, "commit", "-q", "-am", "head")
    return tmp_path


def test_git_revisions_as_inputs(repo: Path) -> None:
    proc = in_process.satori(repo, "spec-diff", "HEAD~1:api/openapi.yaml", "HEAD:api/openapi.yaml", "--json",
                             env=os.environ)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["counts"] == {"added": 0, "removed": 1, "changed": 3, "moved": 0, "unchanged": 0}
    assert report["base"] == "HEAD~1:api/openapi.yaml"


def test_git_revision_relative_refs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "api" / "user.yaml").write_text("User: {type: object, properties: {id: {type: integer}}}\n")
    (repo / "api" / "openapi.yaml").write_text(BASE.replace("'#/components/schemas/User'", "'./user.yaml#/User'"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "split")
    (repo / "api" / "user.yaml").write_text("broken: [")  # the working tree must not be read
    monkeypatch.chdir(repo / "api")
    spec = load_spec("HEAD:api/openapi.yaml")
    assert [f.field for f in spec.fields if f.operation.path == "/b"] == ["author.id"]
    assert spec.source == "HEAD:api/openapi.yaml"
    spec = load_spec("HEAD:./openapi.yaml")
    assert len(spec.fields) == 4


def test_unknown_revision(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    from satori_ci.spec import SpecError
    with pytest.raises(SpecError, match="not a git revision"):
        load_spec("nope/branch:api/openapi.yaml")
    with pytest.raises(SpecError, match="no such file at that revision"):
        load_spec("HEAD:api/missing.yaml")
