"""Reads and writes stay inside the repository after resolving symlinks (issue 10, break 7).

A pull request can add symlinks: a `$ref`'d file or folder, the spec itself, or `.satori`, pointing
outside the checkout. Each is refused with exit 2 and one line, and nothing is read or written there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import example_specs

SPEC = """\
openapi: 3.0.0
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: 'REF'}
"""
PET = """\
Pet:
  type: object
  properties:
    latitude: {type: number, minimum: -90, maximum: 90}
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the repository, with a schema file and a spec of its own (what a link could reach)."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "pet.yaml").write_text(PET)
    (folder / "openapi.yaml").write_text(SPEC.replace("REF", "pet.yaml#/Pet"))
    return folder


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with the bookshop spec committed (v1) and changed (v2); the current directory."""
    root = tmp_path / "repo"
    (root / "api").mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.invalid")
    _git(root, "config", "user.name", "t")
    v1, v2 = example_specs()
    shutil.copy(v1, root / "api" / "openapi.yaml")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "v1")
    shutil.copy(v2, root / "api" / "openapi.yaml")
    monkeypatch.chdir(root)
    return root


def _one_line_error(capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith("satori-ci: error: ") and err.count("\n") == 1, err
    for needle in needles:
        assert needle in err, err
    return err


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# -- reads: $ref targets, their folders, and the spec itself -------------------------------------------------


def test_a_ref_to_a_symlinked_file_outside_the_repository_is_refused(repo: Path, outside: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pet.yaml").symlink_to(outside / "pet.yaml")
    (repo / "api.yaml").write_text(SPEC.replace("REF", "pet.yaml#/Pet"))
    assert main(["fields", "api.yaml"]) == 2
    _one_line_error(capsys, "$ref 'pet.yaml#/Pet'", "pet.yaml: a symlink leads outside the repository; refused")


def test_a_ref_through_a_symlinked_folder_outside_the_repository_is_refused(
        repo: Path, outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "schemas").symlink_to(outside, target_is_directory=True)
    (repo / "api.yaml").write_text(SPEC.replace("REF", "schemas/pet.yaml#/Pet"))
    assert main(["fields", "api.yaml"]) == 2
    _one_line_error(capsys, "schemas/pet.yaml: a symlink leads outside the repository")


def test_a_ref_from_a_subfolder_through_a_symlinked_parent_is_refused(repo: Path, outside: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "shared").symlink_to(outside, target_is_directory=True)
    (repo / "api" / "v3").mkdir()
    (repo / "api" / "v3" / "api.yaml").write_text(SPEC.replace("REF", "../../shared/pet.yaml#/Pet"))
    assert main(["fields", "api/v3/api.yaml"]) == 2
    _one_line_error(capsys, "shared/pet.yaml: a symlink leads outside the repository")


def test_the_spec_itself_as_a_symlink_to_outside_is_refused(repo: Path, outside: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "api.yaml").symlink_to(outside / "openapi.yaml")
    assert main(["fields", "api.yaml"]) == 2
    _one_line_error(capsys, "api.yaml: a symlink leads outside the repository")
    assert main(["infer", "api.yaml", "--quiet"]) == 2
    assert not (repo / ".satori").exists()


@pytest.mark.parametrize("other_repo", [False, True])
def test_a_spec_in_a_symlinked_folder_outside_is_refused(repo: Path, outside: Path, other_repo: bool,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """git, asked from inside the linked folder, names the folder it leads to (or another repository)."""
    if other_repo:
        _git(outside, "init", "-q")
    (repo / "linked").symlink_to(outside, target_is_directory=True)
    assert main(["fields", "linked/openapi.yaml"]) == 2
    _one_line_error(capsys, "linked/openapi.yaml: a symlink leads outside the repository")


def test_symlinks_inside_the_repository_are_followed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "real").mkdir()
    (repo / "real" / "pet.yaml").write_text(PET)
    (repo / "schemas").symlink_to(repo / "real", target_is_directory=True)
    (repo / "api.yaml").write_text(SPEC.replace("REF", "schemas/pet.yaml#/Pet"))
    (repo / "linked.yaml").symlink_to(repo / "api.yaml")
    assert main(["fields", "linked.yaml"]) == 0
    assert "latitude" in capsys.readouterr().out


def test_a_symlinked_spec_outside_any_repository_is_followed(tmp_path: Path, outside: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Outside a repository, a link the user names on the command line is their choice (nothing to confine)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "api.yaml").symlink_to(outside / "openapi.yaml")
    monkeypatch.chdir(mine)
    if subprocess.run(["git", "rev-parse"], capture_output=True, check=False).returncode == 0:
        pytest.skip("the temporary folder is inside a git repository")
    assert main(["fields", "api.yaml"]) == 0
    assert "latitude" in capsys.readouterr().out


# -- writes: .satori as a link, oracles_dir and --oracles outside ---------------------------------------------


def test_infer_refuses_a_satori_folder_linked_outside(repo: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".satori").symlink_to(elsewhere, target_is_directory=True)
    assert main(["infer", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, ".satori/api.openapi.oracles.yaml: a symlink leads outside the repository")
    assert _files(elsewhere) == []


def test_check_refuses_a_satori_folder_linked_outside(repo: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".satori").symlink_to(elsewhere, target_is_directory=True)
    assert main(["check", "--base", "HEAD:api/openapi.yaml", "--head", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, ".satori/api.openapi.oracles.yaml: a symlink leads outside the repository")
    assert _files(elsewhere) == []


def test_a_dangling_satori_link_is_refused_and_its_target_not_created(repo: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori").symlink_to(tmp_path / "not-yet", target_is_directory=True)
    assert main(["infer", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, "a symlink leads outside the repository")
    assert not (tmp_path / "not-yet").exists()


def test_an_oracle_file_linked_outside_is_neither_read_nor_replaced(repo: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "victim.yaml"
    target.write_text("not an oracle file: [\n")
    (repo / ".satori").mkdir()
    (repo / ".satori" / "api.openapi.oracles.yaml").symlink_to(target)
    assert main(["infer", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, "a symlink leads outside the repository")  # not the file's YAML error: never read
    assert target.read_text() == "not an oracle file: [\n"
    assert (repo / ".satori" / "api.openapi.oracles.yaml").is_symlink()


def test_check_refuses_an_oracles_dir_outside_the_repository(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text("oracles_dir: ../..\n")
    assert main(["check", "--base", "HEAD:api/openapi.yaml", "--head", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, ".satori.yml:1: 'oracles_dir' must be a path inside the repository")
    assert not (repo.parent.parent / "api.openapi.oracles.yaml").exists()


def test_check_refuses_an_absolute_oracles_dir_outside(repo: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text(f"oracles_dir: {tmp_path / 'abs'}\n")
    assert main(["check", "--head", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, "outside the repository")
    assert not (tmp_path / "abs").exists()


@pytest.mark.parametrize("key", ["path", "requests.collection", "requests.environment"])
@pytest.mark.parametrize("where", ["/etc/passwd", "../../elsewhere.yaml", "api/../../x.json"])
def test_a_config_path_outside_the_repository_is_refused_before_anything_is_read(
        repo: Path, key: str, where: str, capsys: pytest.CaptureFixture[str]) -> None:
    value = f"    requests:\n      {key.split('.')[1]}: {where}\n" if "." in key else ""
    path = where if key == "path" else "api/openapi.yaml"
    (repo / ".satori.yml").write_text(f"specs:\n  - path: {path}\n{value}")
    assert main(["check", "--head", "api/openapi.yaml", "--quiet"]) == 2
    _one_line_error(capsys, f"'{'specs[].path' if key == 'path' else key}' must be a path inside the repository")


@pytest.mark.parametrize("command", ["infer", "check"])
def test_a_relative_oracles_path_outside_the_repository_is_refused(repo: Path, command: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    args = (["infer", "api/openapi.yaml"] if command == "infer" else ["check", "--head", "api/openapi.yaml"])
    assert main([*args, "--oracles", "../x.yaml", "--quiet"]) == 2
    _one_line_error(capsys, "../x.yaml: outside the repository")
    assert not (repo.parent / "x.yaml").exists()


def test_infer_writes_an_absolute_path_the_user_typed_outside_but_not_through_a_link(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "o.yaml"
    assert main(["infer", "api/openapi.yaml", "--oracles", str(out), "--quiet"]) == 0
    assert out.exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".satori").symlink_to(elsewhere, target_is_directory=True)
    assert main(["infer", "api/openapi.yaml", "--oracles", str(repo / ".satori" / "o.yaml"), "--quiet"]) == 2
    _one_line_error(capsys, "a symlink leads outside the repository")
    assert _files(elsewhere) == []


def test_links_inside_the_repository_are_written_through(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "reviewed").mkdir()
    (repo / ".satori").symlink_to(repo / "reviewed", target_is_directory=True)
    assert main(["infer", "api/openapi.yaml", "--quiet"]) == 0
    written = repo / "reviewed" / "api.openapi.oracles.yaml"
    assert written.exists()
    umask = os.umask(0)
    os.umask(umask)
    assert written.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_from_a_subfolder_the_repository_is_still_the_root(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo / "api")
    assert main(["infer", "openapi.yaml", "--oracles", "../.satori/o.yaml", "--quiet"]) == 0
    assert (repo / ".satori" / "o.yaml").exists()
    assert main(["infer", "openapi.yaml", "--oracles", "../../o.yaml", "--quiet"]) == 2
    _one_line_error(capsys, "outside the repository")


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_config_file_linked_outside_the_repository_is_not_read(repo: Path, tmp_path: Path, linked: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "private"
    target.mkdir()
    (target / ".satori.yml").write_text("backend: SECRET_FROM_OUTSIDE\n")
    if linked == "file":
        (repo / ".satori.yml").symlink_to(target / ".satori.yml")
        args = ["check", "--head", "api/openapi.yaml", "--quiet"]
    else:
        (repo / "conf").symlink_to(target)
        args = ["check", "--head", "api/openapi.yaml", "--quiet", "--config", "conf/.satori.yml"]
    assert main(args) == 2
    line = _one_line_error(capsys, "a symlink leads outside the repository")
    assert "SECRET_FROM_OUTSIDE" not in line
