"""A staging server that stalls (issue 18): `--timeout` bounds every exchange as a whole, in both runners.

`requests`' timeout, and Newman's --timeout-request, bound each wait for a byte, so a server that sends its
headers or its body one byte at a time, each sooner than that wait, would hold a request for as long as it likes.
Each run here is a `satori-ci run` (the native one in its own process, Newman's in this one, side by side) against
`StallingServer`, whose stalls last `STALL_FOR_S`: a run that ends well before that was cut by its own deadline
(the bound is generous on purpose: it proves "did not wait for the server", not a speed). The timeout is
`TIMEOUT_S` (1 s) and the stalls send a byte every `BYTE_EVERY_S` (0.25 s; 1 s in `stalling_server`): each wait
for a byte is a quarter of the timeout, so only the deadline on the whole exchange can cut it.
"""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.errors import ExitCode
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file
from tests import in_process
from tests.run import stalling_server
from tests.run.conftest import ROOT, concurrently, newman_available
from tests.run.stalling_server import STALL_FOR_S, StallingServer
from tests.run.test_bounds import _oracles, _spec

STALLS = {"/headers": "headers", "/body": "body", "/silent": "silent"}
TIMEOUT_S = 1
BYTE_EVERY_S = 0.25
"""A stall's byte every this long: well within each wait for a byte (`TIMEOUT_S`), so only the deadline on the
whole exchange cuts it; a stall's bytes last past `STALL_FOR_S` (212 header bytes, 237 body bytes)."""


@pytest.fixture(autouse=True)
def trickle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stalls of `StallingServer` (in this process) send a byte every `BYTE_EVERY_S`."""
    monkeypatch.setattr(stalling_server, "BYTE_EVERY_S", BYTE_EVERY_S)


def _stall(path: str) -> str:
    return STALLS.get(path, "ok")


def _oracle_file(tmp: Path, name: str) -> Path:
    spec = _spec(tmp, ["/headers", "/fine", "/body", "/silent"])  # three stalls in a row would stop the run
    by_field = {(o.operation, o.field): o for o in _oracles(spec)}
    entries = [FieldEntry(f.operation, f.field, f.fingerprint, (by_field[(f.operation, f.field)],))
               for f in spec.fields if (f.operation, f.field) in by_field]
    path = tmp / name / "bounds.oracles.yaml"
    path.parent.mkdir()
    path.write_text(dump_oracle_file(OracleFile(spec.source, tuple(entries))), encoding="utf-8")
    return path


def _run(tmp: Path, origin: str, runner: str, *extra: str, process: bool) -> tuple[int, dict[str, Any], float, str]:
    """(exit code, JSON report, seconds, stderr) of `satori-ci run --timeout 1`, in its own process or (not
    `process`) in this one (the oracle file: the runner's own copy, see `_both`)."""
    oracles = tmp / runner / "bounds.oracles.yaml"
    report = tmp / f"{runner}.report.json"
    args = ["run", str(tmp / "bounds.json"), "--oracles", str(oracles), "--base-url", origin, "--runner", runner,
            "--timeout", str(TIMEOUT_S), "--retries", "0", "--report", str(report), *extra]
    started = time.monotonic()
    if process:
        done: in_process.Done | subprocess.CompletedProcess[str] = subprocess.run(
            [sys.executable, "-m", "satori_ci", *args], cwd=tmp, capture_output=True, text=True,
            timeout=4 * STALL_FOR_S, check=False, env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT),
                                                        "HOME": str(tmp)})
    else:
        done = in_process.satori(tmp, *args, env={**in_process.clean_env(), "HOME": str(tmp)})
    seconds = time.monotonic() - started
    written = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    return done.returncode, written, seconds, done.stderr


def _both(tmp: Path, server: StallingServer, *extra: str) -> list[tuple[str, tuple[int, dict[str, Any], float, str]]]:
    """Both runners side by side: the native one in its own process, Newman's (the longer: Node.js starts) in this
    one (only one run at a time can own this process's file descriptors 1 and 2)."""
    newman_available()
    for runner in ("native", "newman"):  # each its own: a run writes an observation store next to it
        _oracle_file(tmp, runner)
    with server:
        origin = server.origin
        results = concurrently([lambda: _run(tmp, origin, "native", *extra, process=True),
                                lambda: _run(tmp, origin, "newman", *extra, process=False)])
    for runner, (_, _, seconds, _) in zip(("native", "newman"), results, strict=True):
        print(f"{runner}: {seconds:.1f} s")  # the measured times (pytest -s shows them)
    return list(zip(("native", "newman"), results, strict=True))


def test_a_stalling_staging_is_cut_at_the_timeout_in_both_runners(tmp_path: Path) -> None:
    """Headers a byte at a time, a body a byte at a time, an accepted connection never answered: each is a
    timeout (an infrastructure problem, exit 3) at `--timeout`, and the request between them is checked (three in a
    row would stop sending: `run.breaker`)."""
    server = StallingServer(_stall)
    origin = server.origin
    for runner, (code, report, seconds, stderr) in _both(tmp_path, server):
        assert seconds < STALL_FOR_S * 2 / 3, (runner, seconds)  # cut by the deadline, not by the server
        problems = report.get("infrastructure")
        assert isinstance(problems, list), (runner, stderr)
        assert sorted((p["kind"], p["request"]["url"]) for p in problems) == sorted(
            ("timeout", f"{origin}{path}") for path in STALLS), (runner, problems)
        assert report["checked"] == 1 and report["requests"] == 4, runner
        assert code == ExitCode.INFRASTRUCTURE, (runner, stderr)


def _tls_context(tmp: Path) -> ssl.SSLContext:
    """A server context with a fresh self-signed certificate for 127.0.0.1 (made by the openssl command)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    key, cert = tmp / "key.pem", tmp / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True, timeout=60)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


# `--insecure` was asked for: urllib3's warning about it (the native run's, or Newman's probe's) is not shown
@pytest.mark.filterwarnings("error:Unverified HTTPS request")
def test_a_stalling_tls_staging_is_cut_at_the_timeout_too(tmp_path: Path) -> None:
    """The same stalls under TLS (a self-signed staging, `--insecure`): the deadline cuts a TLS connection too."""
    server = StallingServer(_stall, tls=_tls_context(tmp_path))
    origin = server.origin
    for runner, (code, report, seconds, stderr) in _both(tmp_path, server, "--insecure"):
        assert seconds < STALL_FOR_S * 2 / 3, (runner, seconds)
        assert sorted((p["kind"], p["request"]["url"]) for p in report.get("infrastructure", ())) == sorted(
            ("timeout", f"{origin}{path}") for path in STALLS), (runner, stderr)
        assert report["checked"] == 1 and code == ExitCode.INFRASTRUCTURE, (runner, stderr)
        assert "Unverified HTTPS request" not in stderr, (runner, stderr)


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9", "soon"])
def test_a_timeout_that_bounds_nothing_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         command: str, value: str) -> None:
    """`--timeout` is more than 0 and at most an hour: a NaN, an infinity or a value Node.js cannot wait for
    (past 2^31 ms its timers fire at once) is one line and exit 2, never a run with no deadline."""
    _oracle_file(tmp_path, "o")
    spec = str(tmp_path / "bounds.json")
    args = {"run": ["run", spec, "--oracles", str(tmp_path / "o" / "bounds.oracles.yaml"), "--base-url", "http://127.0.0.1:9"],
            "check": ["check", "--head", spec, "--staging-url", "http://127.0.0.1:9", "--no-write"]}[command]
    try:
        code = main([*args, "--timeout", value])
    except SystemExit as exc:  # argparse
        code = exc.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert code == ExitCode.INPUT_ERROR and len(err.strip().splitlines()) == 1, err
    assert "--timeout" in err and "internal error" not in err, err
