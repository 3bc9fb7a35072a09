"""Which root a spec file is read under: git is asked only where a repository can be, and the environment's
`GIT_DIR` / `GIT_WORK_TREE` still count."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from satori_ci.spec import SpecError, load_spec
from satori_ci.spec.source import git_toplevel, open_source
from tests.cli.test_symlinks_stay_inside import PET
from tests.cli.test_symlinks_stay_inside import SPEC as LINKED

SPEC = LINKED.replace("REF", "../schemas/pet.yaml#/Pet")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _tree(root: Path) -> Path:
    """`api/openapi.yaml` whose schema is `../schemas/pet.yaml`: readable only with `root` as the root."""
    (root / "api").mkdir(parents=True)
    (root / "schemas").mkdir()
    (root / "api" / "openapi.yaml").write_text(SPEC)
    (root / "schemas" / "pet.yaml").write_text(PET)
    return root / "api" / "openapi.yaml"


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The git commands run from here on (each still runs)."""
    calls: list[list[str]] = []
    real = subprocess.run

    def run(args: Any, *rest: Any, **kwargs: Any) -> Any:
        if isinstance(args, list) and args[:1] == ["git"]:
            calls.append(list(args))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    return calls


def test_a_spec_outside_any_repository_starts_no_git(tmp_path: Path, git_calls: list[list[str]],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """From inside a repository too: a file under none of its `.git` folders cannot be in it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    monkeypatch.chdir(repo)
    spec = _tree(tmp_path / "elsewhere")
    git_calls.clear()
    reader = open_source(str(spec))
    assert (reader.root, reader.entry, reader.scope) == (str(spec.parent), "openapi.yaml", "the spec's folder")
    assert git_calls == []
    with pytest.raises(SpecError, match="leaves the repository"):
        load_spec(str(spec))  # `../schemas` is outside the spec's folder


def test_a_spec_inside_a_repository_is_read_under_its_top(tmp_path: Path, git_calls: list[list[str]],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _tree(tmp_path / "repo")
    _git(tmp_path / "repo", "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert [f.name for f in load_spec(str(spec)).fields] == ["latitude"]
    assert git_toplevel(str(spec.parent)) == str((tmp_path / "repo").resolve())
    assert ["git", "rev-parse", "--show-toplevel"] in git_calls


def test_git_dir_and_work_tree_from_the_environment_still_name_the_repository(
        tmp_path: Path, git_calls: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """No `.git` above the spec, but the environment points git at a repository whose work tree holds it."""
    root = tmp_path / "tree"
    spec = _tree(root)
    _git(root, "init", "-q")
    (root / ".git").rename(tmp_path / "elsewhere.git")
    monkeypatch.chdir(root)
    with pytest.raises(SpecError, match="leaves the repository"):
        load_spec(str(spec))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere.git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(root))
    assert [f.name for f in load_spec(str(spec)).fields] == ["latitude"]


def test_git_is_asked_once_per_folder_until_a_repository_appears_above_it(
        tmp_path: Path, git_calls: list[list[str]]) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    _git(outer, "init", "-q")
    git_calls.clear()
    assert git_toplevel(str(inner)) == git_toplevel(str(inner)) == str(outer.resolve())
    assert len(git_calls) == 1
    _git(inner, "init", "-q")  # a nested repository: the folder's answer changes, so git is asked again
    git_calls.clear()
    assert git_toplevel(str(inner)) == str(inner.resolve())
    assert len(git_calls) == 1
