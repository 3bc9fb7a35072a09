"""A pull request cannot make the action read (and publish) a file outside the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from satori_ci.demo import StagingServer, example_specs
from tests.action.conftest import PR, git, make_pull_request
from tests.servers.github_server import FakeGitHub

OUTSIDE_MARKER = "outside-the-repository-7f3a"


def _outside_spec(folder: Path) -> Path:
    """An OpenAPI file outside the repository (say, another checkout on the runner) holding a marker."""
    v1, _ = example_specs()
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "openapi.yaml"
    spec.write_text(Path(v1).read_text(encoding="utf-8").replace("hardcover", OUTSIDE_MARKER))
    return spec


def _published(run_stdout: str, run_stderr: str, summary: str, comments: list[str], report: Path) -> str:
    return "\n".join([run_stdout, run_stderr, summary, *comments,
                      report.read_text(encoding="utf-8") if report.exists() else ""])


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlinked-folder"])
def test_a_pull_requests_config_cannot_name_a_spec_outside_the_repository(
        tmp_path: Path, staging: StagingServer, how: str) -> None:
    outside = _outside_spec(tmp_path / "elsewhere")
    if how == "absolute":
        path = outside.as_posix()
    elif how == "dotdot":
        path = "../elsewhere/openapi.yaml"
    else:
        path = "linked/openapi.yaml"
    head_files = {".satori.yml": f"specs:\n  - path: {path}\n"}
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github, {}, head_files)
        if how == "symlinked-folder":
            os.symlink(outside.parent, pr.repo / "linked")
        run = pr.run(inputs={"runner": "native", "staging-url": staging.base_url})
        comments = [c.body for c in github.comments_on(PR)]
    shown = _published(run.stdout, run.stderr, run.summary, comments, tmp_path / "satori-ci-report.json")
    assert OUTSIDE_MARKER not in shown
    assert run.code == 2, run.stdout + run.stderr
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "outside the repository" in errors[0], run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    assert staging.received == []


@pytest.mark.parametrize("pattern", ["../elsewhere/*.yaml", "/tmp/*.yaml", "linked/*.yaml"])
def test_the_specs_input_cannot_reach_outside_the_repository(
        tmp_path: Path, staging: StagingServer, pattern: str) -> None:
    outside = _outside_spec(tmp_path / "elsewhere")
    pattern = pattern.replace("/tmp", str(outside.parent))
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        os.symlink(outside.parent, pr.repo / "linked")
        run = pr.run(inputs={"runner": "native", "staging-url": staging.base_url, "specs": pattern})
        comments = [c.body for c in github.comments_on(PR)]
    assert OUTSIDE_MARKER not in _published(run.stdout, run.stderr, run.summary, comments,
                                            tmp_path / "satori-ci-report.json")
    assert run.code == 2, run.stdout + run.stderr
    assert "outside the repository" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    assert staging.received == []


def test_a_changed_spec_that_is_a_symlink_out_of_the_repository_is_refused(
        tmp_path: Path, staging: StagingServer) -> None:
    outside = _outside_spec(tmp_path / "elsewhere")
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        os.symlink(outside, pr.repo / "api" / "stolen.yaml")
        git(pr.repo, "add", ".")
        git(pr.repo, "commit", "-q", "-m", "link")
        pr.head_sha = git(pr.repo, "rev-parse", "HEAD")
        run = pr.run(inputs={"runner": "native", "staging-url": staging.base_url})
        comments = [c.body for c in github.comments_on(PR)]
    assert OUTSIDE_MARKER not in _published(run.stdout, run.stderr, run.summary, comments,
                                            tmp_path / "satori-ci-report.json")
    assert run.code == 2, run.stdout + run.stderr
    assert "outside the repository" in run.stdout


def _outside_config(folder: Path) -> Path:
    """A config file outside the repository whose content, if it were read, would be quoted by the error."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "satori.yml"
    config.write_text(f"{OUTSIDE_MARKER}: true\n", encoding="utf-8")
    return config


def _refused_once(run_stdout: str, run_stderr: str, name: str) -> str:
    """The one `::error` line of a run that stopped on the input `name` (exit 2 checked by the caller)."""
    errors = [line for line in run_stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, run_stdout
    assert f"::{name} must be a relative path inside the repository (" in errors[0], errors[0]
    assert "Traceback" not in run_stdout + run_stderr
    return errors[0]


@pytest.mark.parametrize("how", ["absolute", "dotdot", "climbing", "home", "symlinked-folder", "symlinked-default"])
def test_the_config_input_must_name_a_file_inside_the_repository(
        tmp_path: Path, staging: StagingServer, how: str) -> None:
    outside = _outside_config(tmp_path / "elsewhere")
    path = {"absolute": outside.as_posix(), "dotdot": "../elsewhere/satori.yml",
            "climbing": "api/../../elsewhere/satori.yml", "home": "~/satori.yml",
            "symlinked-folder": "linked/satori.yml", "symlinked-default": ""}[how]
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        os.symlink(outside.parent, pr.repo / "linked")
        if how == "symlinked-default":  # no input: the pull request's `.satori.yml` is a link out
            os.symlink(outside, pr.repo / ".satori.yml")
        run = pr.run(inputs={"runner": "native", "staging-url": staging.base_url, "config": path})
        comments = [c.body for c in github.comments_on(PR)]
    assert run.code == 2, run.stdout + run.stderr
    if how.startswith("symlinked"):  # the name is inside: the file is refused where it is opened, unread
        errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
        assert len(errors) == 1 and "a symlink leads outside the repository" in errors[0], run.stdout
    else:
        _refused_once(run.stdout, run.stderr, "config")
    assert OUTSIDE_MARKER not in _published(run.stdout, run.stderr, run.summary, comments,
                                            tmp_path / "satori-ci-report.json")
    assert staging.received == []


def test_a_config_input_whose_dotdot_stays_inside_is_read(tmp_path: Path, staging: StagingServer) -> None:
    """`api/../ci/satori.yml` is `ci/satori.yml`: read in the checkout and, trusted, at the base commit."""
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github, {"ci/satori.yml": "oracles_dir: checks\n"})
        run = pr.run(inputs={"runner": "native", "staging-url": staging.base_url, "config": "api/../ci/satori.yml",
                             "comment": "off"})
    assert run.code == 1, run.stdout + run.stderr  # the demo's planted violations
    assert "inside the repository" not in run.stdout + run.stderr
    assert (pr.repo / "checks" / "api.openapi.oracles.yaml").is_file()  # the trusted config's oracles_dir


@pytest.mark.parametrize("how", ["absolute", "dotdot", "climbing", "home", "symlinked-folder"])
def test_the_oracles_dir_input_must_name_a_folder_inside_the_repository(
        tmp_path: Path, staging: StagingServer, how: str) -> None:
    outside = tmp_path / "elsewhere"
    oracle_file = outside / "api.openapi.oracles.yaml"
    oracle_file.parent.mkdir(parents=True)
    oracle_file.write_text(f"operations:\n  {OUTSIDE_MARKER}: {{}}\n", encoding="utf-8")
    before = oracle_file.read_bytes()
    path = {"absolute": outside.as_posix(), "dotdot": "../elsewhere", "climbing": "api/../../elsewhere",
            "home": "~/elsewhere", "symlinked-folder": "linked"}[how]
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        os.symlink(outside, pr.repo / "linked")
        run = pr.run(inputs={"runner": "native", "staging-url": staging.base_url, "oracles-dir": path})
        comments = [c.body for c in github.comments_on(PR)]
    assert run.code == 2, run.stdout + run.stderr
    if how == "symlinked-folder":  # the folder's name is inside: its oracle file is refused where it is opened
        errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
        assert len(errors) == 1 and "a symlink leads outside the repository" in errors[0], run.stdout
    else:
        _refused_once(run.stdout, run.stderr, "oracles-dir")
    assert OUTSIDE_MARKER not in _published(run.stdout, run.stderr, run.summary, comments,
                                            tmp_path / "satori-ci-report.json")
    assert staging.received == []
    assert sorted(p.name for p in outside.iterdir()) == [oracle_file.name] and oracle_file.read_bytes() == before
