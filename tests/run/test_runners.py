"""The runner interface: runners by name (`auto` resolved in one place), and the native runner that never builds
JavaScript (the collection and its scripts are Newman's export only)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import Bookshop
from satori_ci.plan.expand import build_requests
from satori_ci.run import newman as newman_module
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.interface import RUNNER_NAMES, SENDING_RUNNERS, RequestRunner, RunnerName
from satori_ci.run.newman import NEWMAN_ENV, find_newman
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import Spec
from tests.run.conftest import BOOKSHOP_SPEC, ROOT, newman_available

MISSING = "/nonexistent/newman"


def test_the_names_users_give() -> None:
    assert RUNNER_NAMES == ("auto", "newman", "native")
    assert SENDING_RUNNERS == ("newman", "native")
    with pytest.raises(ValueError):
        RunnerName("fast")


def test_cli_choices_come_from_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    for command, names in (("check", "{auto,newman,native}"), ("demo", "{auto,newman,native}"),
                           ("run", "{auto,newman,native}")):
        with pytest.raises(SystemExit):
            main([command, "--runner", "fast"])
        assert "invalid choice: 'fast' (choose from" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert f"--runner {names}" in capsys.readouterr().out


def test_auto_is_the_native_runner_without_newman(monkeypatch: pytest.MonkeyPatch, bookshop: Bookshop,
                                                  bookshop_spec: Spec, tmp_path: Path) -> None:
    monkeypatch.setattr(newman_module, "REPO_ROOT", tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(NEWMAN_ENV, raising=False)
    runner: RequestRunner = RunnerName.AUTO.build()
    assert runner.name == "native"
    result = runner.run(build_requests(bookshop_spec, []), RunConfig(bookshop.server.base_url, retries=0))
    assert result.runner == "native" and result.requests > 0
    assert result.notes[-1].startswith("Newman not found, the native runner was used: newman is not installed")
    monkeypatch.setenv(NEWMAN_ENV, MISSING)  # asked for by path: a wrong path is an error, not a fallback
    with pytest.raises(RunError, match="no such file"):
        RunnerName.AUTO.build()


def test_a_newman_in_the_current_folder_is_never_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A checkout (a pull request's) that holds node_modules/.bin/newman does not choose what Newman is run with
    the staging secrets: only SATORI_NEWMAN, satori-ci's own checkout, or PATH do."""
    planted = tmp_path / "node_modules" / ".bin" / "newman"
    planted.parent.mkdir(parents=True)
    planted.write_text("#!/bin/sh\necho planted\n", encoding="utf-8")
    planted.chmod(0o755)
    monkeypatch.setattr(newman_module, "REPO_ROOT", tmp_path / "satori-ci")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv(NEWMAN_ENV, raising=False)
    with pytest.raises(RunError) as caught:
        find_newman()
    assert caught.value.kind is RunErrorKind.NEWMAN_MISSING
    assert RunnerName.AUTO.build().name == "native"


def test_auto_is_newman_when_it_is_installed() -> None:
    newman_available()
    assert RunnerName.AUTO.build().name == "newman"


def test_newman_asked_for_and_missing_is_a_run_error(monkeypatch: pytest.MonkeyPatch, bookshop_spec: Spec) -> None:
    monkeypatch.setenv(NEWMAN_ENV, MISSING)
    runner = RunnerName.NEWMAN.build()
    assert runner.name == "newman" and RunnerName.NATIVE.build().name == "native"
    with pytest.raises(RunError) as caught:
        runner.run(build_requests(bookshop_spec, []), RunConfig("http://127.0.0.1:9", retries=0))
    assert caught.value.kind is RunErrorKind.NEWMAN_MISSING


def test_the_native_runner_never_builds_javascript(bookshop: Bookshop) -> None:
    """A whole native run (requests, checks, chaining) without loading the Postman export or the checker's
    JavaScript."""
    code = """
import sys
from satori_ci.plan import plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.oracles.file import load_oracle_file
from satori_ci.run.interface import RunnerName
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import load_spec
spec = load_spec(sys.argv[1])
oracles = load_oracle_file(open(sys.argv[2]).read(), sys.argv[2]).enabled_oracles()
planned = build_requests(spec, oracles, sys.argv[3], (), plan_requests(spec))
result = RunnerName.NATIVE.build().run(planned, RunConfig(sys.argv[3], retries=0))
assert result.checked > 1 and result.violations == (), result
print(sorted(m for m in sys.modules if m.startswith("satori_ci.postman")))
"""
    oracles = ROOT / "tests" / "run" / "fixtures" / "bookshop.oracles.yaml"
    done = subprocess.run([sys.executable, "-c", code, str(BOOKSHOP_SPEC), str(oracles), bookshop.server.base_url],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
