"""Long steps show a progress bar on a terminal (requests done/total, current operation), nothing elsewhere."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.demo import Bookshop, StagingServer, example_specs
from tests.run.conftest import FIXTURES, newman_available

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        Bookshop(server)
        yield server


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run satori-ci with stderr on a pseudo-terminal (stdout a pipe): its exit code and what the terminal got."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "satori_ci", *args], stdout=subprocess.PIPE, stderr=slave,
                            env=env, cwd=ROOT)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    code = proc.wait(timeout=120)
    os.close(master)
    return code, seen.decode("utf-8", "replace")


@pytest.mark.parametrize("runner", ["native", "newman"])
def test_run_shows_requests_done_and_the_current_operation_on_a_terminal(staging: StagingServer, runner: str
                                                                        ) -> None:
    if runner == "newman":
        newman_available()
    spec = str(example_specs()[1])
    code, terminal = _on_a_terminal(["run", spec, "--oracles", str(FIXTURES / "bookshop.oracles.yaml"),
                                     "--base-url", staging.base_url, "--runner", runner, "--no-observe"])
    assert code == 0, terminal
    assert "requests" in terminal and "/4" in terminal, terminal
    assert "GET /books" in terminal


def test_no_progress_when_stderr_is_not_a_terminal(staging: StagingServer) -> None:
    spec = str(example_specs()[1])
    proc = subprocess.run([sys.executable, "-m", "satori_ci", "run", spec, "--oracles",
                           str(FIXTURES / "bookshop.oracles.yaml"), "--base-url", staging.base_url, "--runner",
                           "native", "--no-observe"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 0 and "\r" not in proc.stderr and "requests" not in proc.stderr
