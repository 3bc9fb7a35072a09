"""One error model (`satori_ci.errors`): every kind of failure, sent through both entry points, gives the same exit
code and exactly one line of error text, never a traceback.

Each row makes one pull request (the bookshop's v1 on the base, v2 on the head) and runs `satori-ci check` on it
and the action on it. The bug row runs both as real processes (`python -m satori_ci`, `entrypoint.py`): the
process's own exit code and streams, nothing but one line; the other rows run both in the test's process
(`tests.in_process`: the same exit code and file descriptors 1 and 2). The interrupts run real processes (signals).
A bug, and a run error whose kind is input, are injected by replacing one stage function (test
code only): a `-c` wrapper does it before the entry point runs in a process.
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
from functools import partial
from pathlib import Path
from typing import Any

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
from satori_ci.run.outcome import RunConfig
from tests import in_process
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

AS_PROCESSES = {"bug"}
"""The rows run as real processes of both entry points; the others run in the test's process."""
BACKOFF_S = 0.05
"""The wait before a retry in the rows run in the test's process (the product's 1 s, then 2 s: 3 s of waiting per
entry point for the unreachable staging, which neither `check` nor the action has an option for). The retries
themselves, and the breaker that trips on them, are as they are."""

VERDICT = re.compile(r"^[✖⚠] ")
"""The CLI's headline of a spec that failed, on stdout: a failure that is a report's verdict (not an exception)."""


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _broken(raises: str) -> str:
    """Code defining `broken`, a stand-in for `spec_check.check_spec` that raises `raises`."""
    return ("from satori_ci.run.errors import RunError, RunErrorKind\n"
            f"def broken(*args, **kwargs):\n    raise {raises}\n")


def _wrapper(raises: str | None, entry: str) -> list[str]:
    """The interpreter's arguments: `-c` code that (with `raises`) makes `spec_check.check_spec` raise it, then
    runs the entry point."""
    inject = ("import satori_ci.check.spec_check as spec_check\n" + _broken(raises) +
              "spec_check.check_spec = broken\n") if raises else ""
    return ["-c", f"import sys\n{inject}{entry}"]


CLI_ENTRY = "import runpy\nrunpy.run_module('satori_ci', run_name='__main__', alter_sys=True)"
"""`python -m satori_ci ARGS`."""
ACTION_ENTRY = f"import runpy\nrunpy.run_path({str(ROOT / 'entrypoint.py')!r}, run_name='__main__')"


def _cli(pr: PullRequest, args: list[str], raises: str | None, env: dict[str, str]
         ) -> subprocess.CompletedProcess[str]:
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SATORI_"))}
    return subprocess.run([sys.executable, *_wrapper(raises, CLI_ENTRY), *args], cwd=pr.repo,
                          env={**base_env, "PYTHONPATH": str(ROOT), **env}, capture_output=True, text=True,
                          timeout=WAIT_S, check=False)


def _in_this_process(monkeypatch: pytest.MonkeyPatch, raises: str | None) -> None:
    """What the `-c` wrapper does, done here: `check_spec` raises `raises` wherever the entry points call it; and
    the short `BACKOFF_S` between retries."""
    from satori_ci.action import run as action_run
    from satori_ci.check import spec_check
    from satori_ci.cli import check_commands

    monkeypatch.setattr(spec_check, "RunConfig", partial(RunConfig, backoff_s=BACKOFF_S))
    if raises is None:
        return
    namespace: dict[str, Any] = {}
    exec(_broken(raises), namespace)
    for module in (spec_check, check_commands, action_run):
        monkeypatch.setattr(module, "check_spec", namespace["broken"])


def _check_args(pr: PullRequest, staging_url: str, *extra: str) -> list[str]:
    return ["check", "--head", SPEC, "--base", f"{pr.base_sha}:{SPEC}", "--staging-url", staging_url,
            "--runner", "native", *extra]


def _annotations(stdout: str) -> list[str]:
    """The action's error and warning lines (what it says went wrong)."""
    return [line for line in stdout.splitlines() if line.startswith(("::error", "::warning"))]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_every_failure_has_one_exit_code_and_one_line_in_both_entry_points(tmp_path: Path, row: Row,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    url = _closed_port_url()
    inputs = {"staging-url": url, "runner": "native", **row.inputs}
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github, row.base_files, row.head_files)
        args = _check_args(pr, url, *row.cli_args)
        if row.name in AS_PROCESSES:
            cli: subprocess.CompletedProcess[str] | in_process.Done = _cli(pr, args, row.raises, row.env)
            action = pr.run(inputs=inputs, extra_env=row.env, argv=_wrapper(row.raises, ACTION_ENTRY))
        else:
            _in_this_process(monkeypatch, row.raises)
            cli = in_process.satori(pr.repo, *args, env={**in_process.clean_env(), **row.env})
            action = pr.run(inputs=inputs, extra_env=row.env)
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
