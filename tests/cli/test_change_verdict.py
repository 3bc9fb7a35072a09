"""`satori-ci check` gives a verdict about the change: a pull request whose added or changed oracles the run could
not reach is not green (exit 4, "0 of M"), and says which operation was not reached and why."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.cli import main
from tests.servers.resources_app import SPEC_PATH, ResourcesApp

TENANT = "/tenants/{tenant_id}/settings"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def app() -> Iterator[ResourcesApp]:
    with ResourcesApp() as found:
        yield found


def _check(app: ResourcesApp, *extra: str) -> list[str]:
    return ["check", "--base", "HEAD:api/openapi.yaml", "--head", "api/openapi.yaml", "--staging-url", app.base_url,
            "--runner", "native", "--quiet", "--no-observe", "--header", f"Authorization: Bearer {app.TOKEN}", *extra]


@pytest.fixture
def repo(tmp_path: Path, app: ResourcesApp, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> Path:
    """The resources app's spec with its reviewed oracles committed; then a change to the one operation no value
    reaches (tenants cannot be listed): a new plan, a bound on seats, a new region."""
    (tmp_path / "api").mkdir()
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "t@example.invalid")
    _git(tmp_path, "config", "user.name", "t")
    shutil.copy(SPEC_PATH, tmp_path / "api" / "openapi.yaml")
    monkeypatch.chdir(tmp_path)
    main(["check", "--head", "api/openapi.yaml", "--quiet", "--no-observe"])  # the reviewed oracles, no staging
    capsys.readouterr()
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "v1")
    spec = tmp_path / "api" / "openapi.yaml"
    text = spec.read_text()
    for old, new in (("enum: [free, pro, enterprise]", "enum: [free, pro, team, enterprise]"),
                     ("enum: [eu-west, us-east, ap-south]", "enum: [eu-west, eu-central, us-east, ap-south]"),
                     ("minimum: 1\n          description: Number of licensed seats.",
                      "minimum: 1\n          maximum: 100000\n          description: Number of licensed seats.")):
        assert old in text
        text = text.replace(old, new)
    spec.write_text(text)
    return tmp_path


def _report(app: ResourcesApp, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, object]]:
    code = main(_check(app, "--json", "--no-write", *extra))
    return code, json.loads(capsys.readouterr().out)


def test_a_change_no_request_reached_is_not_green(repo: Path, app: ResourcesApp,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _report(app, capsys)
    assert code == 4
    assert report["exit_code"] == 4 and report["verdict"] == "change_unchecked"
    spec = report["specs"][0]  # type: ignore[index]
    assert spec["outcome"] == "change_unchecked"
    change = spec["change"]
    assert change["changed"] >= 3 and change["exercised"] == 0 and change["required"] == 1
    assert [(u["method"], u["path"]) for u in change["unexercised"]] == [("GET", TENANT)]
    assert change["unexercised"][0]["why"].startswith("not sent: needs a value for {tenant_id}")
    assert spec["counts"]["violations"] == 0 and spec["run"]["oracles_exercised"] > 0  # the rest was checked

    assert main(_check(app, "--no-write")) == 4
    out = capsys.readouterr().out
    assert f"The change to api/openapi.yaml went unchecked: 0 of {change['changed']} oracles it adds or changes" in out
    assert f"The change: 0 of {change['changed']} oracles this change adds or changes exercised" in out
    assert f"GET {TENANT}: {change['changed']} changed oracle(s) not exercised, not sent: needs a value" in out
    assert "exit code 4 (change_unchecked)" in out


def test_the_change_reached_is_green_and_counted(repo: Path, app: ResourcesApp,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _report(app, capsys, "--value", "tenant_id=acme")
    change = report["specs"][0]["change"]  # type: ignore[index]
    assert code == 0, report
    assert change["exercised"] == change["changed"] and change["unexercised"] == []
    assert main(_check(app, "--no-write", "--value", "tenant_id=acme")) == 0
    out = capsys.readouterr().out
    changed = change["changed"]
    assert f"No violations in api/openapi.yaml: {changed} of {changed} oracles this change adds" in out


@pytest.mark.parametrize(("minimum", "code"), [("0", 0), ("0%", 0), ("1", 4), ("50%", 4)])
def test_min_changed_exercised_from_the_flag(repo: Path, app: ResourcesApp, capsys: pytest.CaptureFixture[str],
                                             minimum: str, code: int) -> None:
    assert _report(app, capsys, "--min-changed-exercised", minimum)[0] == code


def test_min_changed_exercised_from_the_config(repo: Path, app: ResourcesApp,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".satori.yml").write_text("specs:\n  - path: api/openapi.yaml\n    requests:\n"
                                      "      min_changed_exercised: 0\n")
    assert _report(app, capsys)[0] == 0
    assert _report(app, capsys, "--min-changed-exercised", "1")[0] == 4  # the flag wins


@pytest.mark.parametrize("bad", ["-1", "150%", "lots", "1.5"])
def test_a_bad_minimum_is_one_line_and_exit_2(repo: Path, app: ResourcesApp, capsys: pytest.CaptureFixture[str],
                                             bad: str) -> None:
    assert main(_check(app, "--no-write", "--min-changed-exercised", bad)) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("satori-ci: error: --min-changed-exercised must be a whole number (0 or more) or a share like "
                   "50%")
