"""`satori-ci check`: the pull-request flow from git revisions, config file, JSON output, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import DemoBookshop, StagingServer, example_specs


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    v1, v2 = example_specs()
    (tmp_path / "api").mkdir()
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "t@example.invalid")
    _git(tmp_path, "config", "user.name", "t")
    shutil.copy(v1, tmp_path / "api" / "openapi.yaml")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "v1")
    shutil.copy(v2, tmp_path / "api" / "openapi.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        DemoBookshop(server)
        yield server


def test_check_from_a_git_revision_against_staging(repo: Path, staging: StagingServer,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--base", "HEAD:api/openapi.yaml", "--head", "api/openapi.yaml",
                 "--staging-url", staging.base_url, "--runner", "native", "--json", "--quiet"])
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    assert report["exit_code"] == 1
    assert (repo / ".satori" / "api.openapi.oracles.yaml").exists()


def test_check_without_staging_is_clean_and_the_config_file_is_read(repo: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text("oracles_dir: reviewed\nfail_on: never\n")
    assert main(["check", "--base", "HEAD:api/openapi.yaml", "--head", "api/openapi.yaml", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "no staging URL" in out
    assert (repo / "reviewed" / "api.openapi.oracles.yaml").exists()


def test_config_from_file_gives_the_staging_url_and_fail_on(repo: Path, staging: StagingServer,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text(f"specs:\n  - path: api/openapi.yaml\n    staging:\n"
                                      f"      url: {staging.base_url}\nfail_on: never\n")
    assert main(["check", "--head", "api/openapi.yaml", "--runner", "native", "--quiet"]) == 0
    assert "oracle violations" in capsys.readouterr().out
    assert main(["check", "--head", "api/openapi.yaml", "--runner", "native", "--quiet",
                 "--fail-on", "violations"]) == 1  # the flag overrides the file


def test_a_bad_config_file_is_one_line_and_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text("specs:\n  - path: api/openapi.yaml\n    stagin: {}\n")
    assert main(["check", "--head", "api/openapi.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("satori-ci: error: .satori.yml:3: unknown key 'specs[].stagin' "
                           "(expected one of ignore, null_like, observe, path, requests, skip_kinds, staging)")


def test_a_head_that_does_not_parse_is_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "api" / "openapi.yaml").write_text("openapi: 3.0.0\npaths: [\n")
    assert main(["check", "--head", "api/openapi.yaml", "--quiet"]) == 2
    assert "invalid YAML" in capsys.readouterr().out
