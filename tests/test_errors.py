"""One error model (`satori_ci.errors`): every kind of failure, sent through both entry points, gives the same exit
code and exactly one line of error text, never a traceback.

Each row makes one pull request (the bookshop's v1 on the base, v2 on the head) and runs `satori-ci check` on it
and the action (`entrypoint.py`) on it, each a real process. A bug, and a run error whose kind is input, are
injected by a `-c` wrapper that replaces one stage function before the entry point runs (test code only).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from satori_ci.errors import (
    ErrorKind,
    ExitCode,
    Failure,
    SatoriError,
    UsageError,
    classify,
)
from satori_ci.run.errors import RunError, RunErrorKind
from tests.action.conftest import ROOT, SPEC, PullRequest, make_pull_request
from tests.run.stalling_server import StallingServer
from tests.servers.github_server import FakeGitHub

WAIT_S = 120.0
CONFIG_WITH_COLLECTION = f"specs:\n  - path: {SPEC}\n    requests:\n      collection: postman/missing.json\n"


@dataclass(frozen=True)
class Row:
    """One failure: how to provoke it in both entry points, and what both must say."""

    name: str
    code: ExitCode
    said: str
    """Text the one line carries, in both entry points."""
    head_files: dict[str, str] = field(default_factory=dict)
    base_files: dict[str, str] = field(default_factory=dict)
    cli_args: tuple[str, ...] = ()
    inputs: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    raises: str | None = None
    """An expression: the exception `spec_check.check_spec` raises instead of checking (injected)."""
    cli_stream: str = "stderr"
    """Where the CLI's line is: `stderr` (then it is all of stderr), or `stdout` (the report's verdict)."""


ROWS = [
    Row("bad spec", ExitCode.INPUT_ERROR, "api/openapi.yaml:3: invalid YAML",
        head_files={SPEC: "openapi: 3.0.0\npaths: [\n"}),
    Row("bad config", ExitCode.INPUT_ERROR, ".satori.yml:1: 'specs' must be a list",
        head_files={".satori.yml": "specs: 3\n"}),
    Row("bad oracle file", ExitCode.INPUT_ERROR, ".satori/api.openapi.oracles.yaml:2: invalid YAML",
        head_files={".satori/api.openapi.oracles.yaml": "not: [an oracle file\n"}),
    Row("bad postman collection", ExitCode.INPUT_ERROR, "postman/missing.json",
        base_files={".satori.yml": CONFIG_WITH_COLLECTION}, cli_args=("--postman-collection", "postman/missing.json")),
    Row("run input error", ExitCode.INPUT_ERROR, "responses.json: not a JSON object",
        raises="RunError(RunErrorKind.INPUT, 'responses.json: not a JSON object')"),
    Row("unreachable staging", ExitCode.INFRASTRUCTURE, "connection refused", cli_stream="stdout"),
    Row("newman missing", ExitCode.INFRASTRUCTURE, "SATORI_NEWMAN=/nonexistent/newman: no such file",
        cli_args=("--runner", "newman"), inputs={"runner": "newman"}, env={"SATORI_NEWMAN": "/nonexistent/newman"}),
    Row("bug", ExitCode.BUG, "internal error (a bug in satori-ci): RuntimeError: boom",
        raises="RuntimeError('boom')"),
]

VERDICT = re.compile(r"^[✖⚠] ")
"""The CLI's headline of a spec that failed, on stdout: a failure that is a report's verdict (not an exception)."""


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _wrapper(raises: str | None, entry: str) -> list[str]:
    """The interpreter's arguments: `-c` code that (with `raises`) makes `spec_check.check_spec` raise it, then
    runs the entry point."""
    inject = ("import satori_ci.check.spec_check as spec_check\n"
              "from satori_ci.run.errors import RunError, RunErrorKind\n"
              f"def broken(*args, **kwargs):\n    raise {raises}\n"
              "spec_check.check_spec = broken\n") if raises else ""
    return ["-c", f"import sys\n{inject}{entry}"]


CLI_ENTRY = "from satori_ci.cli import main\nsys.exit(main(sys.argv[1:]))"
ACTION_ENTRY = f"import runpy\nrunpy.run_path({str(ROOT / 'entrypoint.py')!r}, run_name='__main__')"


def _cli(pr: PullRequest, args: list[str], raises: str | None, env: dict[str, str]
         ) -> subprocess.CompletedProcess[str]:
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SATORI_"))}
    return subprocess.run([sys.executable, *_wrapper(raises, CLI_ENTRY), *args], cwd=pr.repo,
                          env={**base_env, "PYTHONPATH": str(ROOT), **env}, capture_output=True, text=True,
                          timeout=WAIT_S, check=False)


def _check_args(pr: PullRequest, staging_url: str, *extra: str) -> list[str]:
    return ["check", "--head", SPEC, "--base", f"{pr.base_sha}:{SPEC}", "--staging-url", staging_url,
            "--runner", "native", *extra]


def _annotations(stdout: str) -> list[str]:
    """The action's error and warning lines (what it says went wrong)."""
    return [line for line in stdout.splitlines() if line.startswith(("::error", "::warning"))]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_every_failure_has_one_exit_code_and_one_line_in_both_entry_points(tmp_path: Path, row: Row) -> None:
    url = _closed_port_url()
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github, row.base_files, row.head_files)
        cli = _cli(pr, _check_args(pr, url, *row.cli_args), row.raises, row.env)
        action = pr.run(inputs={"staging-url": url, "runner": "native", **row.inputs}, extra_env=row.env,
                        argv=_wrapper(row.raises, ACTION_ENTRY))
    assert "Traceback" not in cli.stdout + cli.stderr + action.stdout + action.stderr
    assert (cli.returncode, action.code) == (row.code, row.code), (cli.stderr, action.stdout)
    if row.cli_stream == "stderr":
        (line,) = cli.stderr.splitlines()
        assert line.startswith("satori-ci: error: ") and row.said in line, line
    else:
        (line,) = [line for line in cli.stdout.splitlines() if VERDICT.search(line)]
        assert row.said in line, cli.stdout
    (annotation,) = _annotations(action.stdout)
    assert row.said in annotation, action.stdout
    if row.code == ExitCode.BUG:
        assert line.endswith(": boom (set SATORI_DEBUG=1 for a traceback)"), line
        assert "the check could not run" in action.summary and "exit code 70" in action.summary


def _sigint(disposition: signal.Handlers) -> Callable[[], None]:
    """What the child starts with for SIGINT: the default, or ignored (a background job of a CI step's script)."""
    def preexec() -> None:
        signal.signal(signal.SIGINT, disposition)

    return preexec


@pytest.mark.parametrize(("signum", "sigint"), [
    (signal.SIGTERM, signal.SIG_DFL), (signal.SIGINT, signal.SIG_DFL), (signal.SIGINT, signal.SIG_IGN)],
    ids=["SIGTERM", "SIGINT", "SIGINT-inherited-ignored"])
def test_an_interrupt_is_130_and_one_line_in_both_entry_points(tmp_path: Path, signum: int,
                                                               sigint: signal.Handlers) -> None:
    with StallingServer(lambda path: "silent") as staging, FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SATORI_"))}
        cli = _interrupted(staging, signum, [sys.executable, "-m", "satori_ci", *_check_args(
            pr, staging.origin, "--timeout", "60")], pr.repo, {**env, "PYTHONPATH": str(ROOT)}, _sigint(sigint))
        action_env = pr.action_env(inputs={"staging-url": staging.origin, "runner": "native", "timeout": "60"})
        action = _interrupted(staging, signum, [sys.executable, str(ROOT / "entrypoint.py")], pr.repo, action_env,
                              _sigint(sigint))
    assert (cli.returncode, action.returncode) == (ExitCode.INTERRUPTED, ExitCode.INTERRUPTED), (cli, action)
    assert cli.stderr == "satori-ci: interrupted\n", cli.stderr
    assert "Traceback" not in cli.stdout + action.stdout + action.stderr
    (annotation,) = _annotations(action.stdout)
    assert annotation.startswith("::warning title=satori-ci::cancelled (SIGINT or SIGTERM)"), annotation
    assert "exit code 130" in (pr.tmp / "summary.md").read_text()


def _interrupted(staging: StallingServer, signum: int, command: list[str], cwd: Path, env: dict[str, str],
                 preexec: Callable[[], None]) -> subprocess.CompletedProcess[str]:
    """`command` sent `signum` once it waits on the silent staging server."""
    seen = len(staging.received)
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=preexec)
    try:
        deadline = time.monotonic() + WAIT_S
        while len(staging.received) == seen and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(staging.received) > seen, "the run never reached staging"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


# -- the classification itself -----------------------------------------------------------------------------------


class _Unavailable(SatoriError, kind=ErrorKind.INFRASTRUCTURE):
    pass


@pytest.mark.parametrize(("exc", "failure"), [
    (UsageError("--x goes with --y"), Failure(ExitCode.INPUT_ERROR, ErrorKind.INPUT, "--x goes with --y")),
    (_Unavailable("staging: down"), Failure(ExitCode.INFRASTRUCTURE, ErrorKind.INFRASTRUCTURE, "staging: down")),
    (RunError(RunErrorKind.INPUT, "r.json: no 'body'"),
     Failure(ExitCode.INPUT_ERROR, ErrorKind.INPUT, "r.json: no 'body'")),
    (RunError(RunErrorKind.NEWMAN_FAILED, "newman crashed"),
     Failure(ExitCode.INFRASTRUCTURE, ErrorKind.INFRASTRUCTURE, "newman crashed")),
    (KeyboardInterrupt(), Failure(ExitCode.INTERRUPTED, ErrorKind.INTERRUPTED, "interrupted")),
    (KeyError("x"), Failure(ExitCode.BUG, ErrorKind.BUG, "internal error (a bug in satori-ci): KeyError: 'x'")),
    (ValueError("two\nlines"),
     Failure(ExitCode.BUG, ErrorKind.BUG, "internal error (a bug in satori-ci): ValueError: two lines")),
])
def test_classify(exc: BaseException, failure: Failure) -> None:
    assert classify(exc) == failure


def test_an_error_type_must_state_its_kind() -> None:
    with pytest.raises(TypeError, match="must state its kind"):
        type("Unstated", (SatoriError,), {})


def test_every_stage_error_is_a_satori_error_of_its_kind() -> None:
    from satori_ci.config import ConfigError
    from satori_ci.github.errors import ActionConfigError, GitHubUnavailable
    from satori_ci.infer.llm.batch import BatchError, BatchErrorKind
    from satori_ci.oracles.errors import OracleFileError
    from satori_ci.shard.errors import ShardError, ShardReportError
    from satori_ci.spec.errors import SpecError, SpecErrorKind

    inputs = [SpecError(SpecErrorKind.SYNTAX, "s"), OracleFileError("o"), ActionConfigError("a"), ConfigError("c"),
              ShardError("s"),
              BatchError("b", BatchErrorKind.INPUT), ShardReportError(ExitCode.INPUT_ERROR, "r")]
    infrastructure = [GitHubUnavailable("g"), BatchError("b"), ShardReportError(ExitCode.INFRASTRUCTURE, "r")]
    assert [classify(e).code for e in inputs] == [ExitCode.INPUT_ERROR] * len(inputs)
    assert [classify(e).code for e in infrastructure] == [ExitCode.INFRASTRUCTURE] * len(infrastructure)
