"""What a new user meets in the first hour: messages that name the cause, config read by every command."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import example_specs


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    shutil.copy(example_specs()[1], tmp_path / "api.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_unset_url_env_is_named(repo: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_STAGING_URL", raising=False)
    (repo / ".satori.yml").write_text("specs:\n  - path: api.yaml\n    staging:\n      url_env: MY_STAGING_URL\n")
    assert main(["check", "--head", "api.yaml", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "MY_STAGING_URL is not set (staging.url_env in .satori.yml): no staging URL" in err


def test_infer_reads_the_config_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text("oracles_dir: review/oracles\nbackend: declared\n")
    assert main(["infer", "api.yaml", "--quiet"]) == 0
    written = (repo / "review" / "oracles" / "api.oracles.yaml").read_text(encoding="utf-8")
    assert "source: \"declared\"" in written or '"declared"' in written
    assert "rules" not in written.split("operations:", 1)[1]  # the config's backend, not the default
    other = repo / "other.yml"
    other.write_text("oracles_dir: elsewhere\n")
    assert main(["infer", "api.yaml", "--quiet", "--config", str(other)]) == 0
    assert (repo / "elsewhere" / "api.oracles.yaml").exists()


def test_check_input_errors_are_one_line_on_stderr_and_totals_agree(repo: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "broken.yaml").write_text("openapi: 3.0.0\npaths: [\n")
    assert main(["check", "--head", "broken.yaml", "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("satori-ci: error: broken.yaml:") and len(err.strip().splitlines()) == 1
    assert "0 of 1 spec(s) checked" in out


def _commit(repo: Path) -> None:
    for args in (["config", "user.email", "t@example.invalid"], ["config", "user.name", "t"], ["add", "."],
                 ["commit", "-q", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, check=True)


@pytest.mark.parametrize("base", ["HEAD~9:api.yaml", "HEAD:apii.yaml", "nope:api.yaml"])
def test_a_base_that_cannot_be_read_is_an_input_error(repo: Path, capsys: pytest.CaptureFixture[str],
                                                      base: str) -> None:
    _commit(repo)
    assert main(["check", "--base", base, "--head", "api.yaml", "--quiet", "--no-write"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("satori-ci: error: the base spec cannot be read: ") and len(err.strip().splitlines()) == 1


def test_a_spec_new_in_the_change_says_so(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "README").write_text("x")
    shutil.move(repo / "api.yaml", repo / "later.yaml")
    _commit(repo)
    shutil.move(repo / "later.yaml", repo / "api.yaml")
    assert main(["check", "--base", "HEAD:api.yaml", "--head", "api.yaml", "--quiet", "--no-write"]) == 0
    out = capsys.readouterr().out
    assert "The spec is new in this change (not in HEAD): every field is new." in out


def test_run_warns_when_the_oracle_file_is_older_than_the_spec(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["infer", "api.yaml", "--oracles", "o.yaml", "--quiet"]) == 0
    spec = repo / "api.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("ebook, audiobook]", "ebook, audiobook, zine]", 1))
    (repo / "r.jsonl").write_text("")
    capsys.readouterr()
    main(["verify", "api.yaml", "--oracles", "o.yaml", "--responses", "r.jsonl"])
    err = capsys.readouterr().err
    assert "satori-ci: warning: o.yaml is older than api.yaml: 2 field(s) changed" in err, err
    assert "satori-ci infer api.yaml --oracles o.yaml" in err


def test_from_a_subfolder_the_config_and_the_oracle_folder_are_the_repositorys(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".satori.yml").write_text("oracles_dir: review\n")
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")
    assert main(["infer", "../api.yaml", "--quiet"]) == 0
    assert (repo / "review" / "api.oracles.yaml").exists() and not (repo / "sub" / "review").exists()


def test_a_hand_edited_field_path_that_does_not_parse_is_one_line_with_its_line_and_exit_2(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "o.yaml").write_text('version: 1\noperations:\n  "GET /books 200":\n    "books[":\n      fingerprint: ""\n'
                                 '      oracles: [{kind: string_is_url, source: "manual", enabled: true}]\n')
    (repo / "r.jsonl").write_text('{"method": "GET", "path": "/books", "status": "200", "body": {"books": []}}\n')
    assert main(["verify", "api.yaml", "--oracles", "o.yaml", "--responses", "r.jsonl", "--no-observe"]) == 2
    err = capsys.readouterr().err
    assert err == ("satori-ci: error: o.yaml:4: 'books[' is not a field path (unbalanced '[' at offset 5 in 'books['); "
                   "escape '.', '[', ']', '{', '}' and '\\' in property names with a backslash\n")
