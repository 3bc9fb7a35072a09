"""The action against a hostile staging: redirects to another origin, endless bodies, stalls, odd values (a lone
surrogate, 1e400) and a body nested thousands deep (both runners)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from satori_ci.check import spec_check
from satori_ci.demo import book_body, list_body
from satori_ci.github import inputs
from satori_ci.run import outcome
from satori_ci.run.outcome import RunConfig
from tests.action.conftest import PR, ROOT, PullRequest, make_pull_request
from tests.run import stalling_server
from tests.run.conftest import newman_available
from tests.run.stalling_server import STALL_FOR_S, StallingServer
from tests.run.test_bounds import Recorder, _endless, _json, _stream
from tests.servers.github_server import FakeGitHub

SECRET = "stg-header-secret-31"


@pytest.fixture(params=["native", "newman"])
def runner(request: pytest.FixtureRequest) -> str:
    if request.param == "newman":
        newman_available()
    return str(request.param)


@pytest.fixture
def elsewhere() -> Iterator[Recorder]:
    with Recorder(lambda h: _json(h, {"books": []})) as server:
        yield server


def _staging(elsewhere: Recorder) -> Recorder:
    """`/books` redirects to another origin; `/books/{isbn}` (sent with the spec's example, as the list gave no id)
    streams a JSON body that never ends."""
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/books?") or handler.path == "/books":
            _json(handler, {}, status=302, headers={"Location": f"{elsewhere.origin}/books?stolen=1"})
        elif handler.path.startswith("/books/"):
            _stream(handler, _endless())
        else:
            _json(handler, list_body() if handler.path == "/list" else book_body())
    return Recorder(answer)


def test_a_redirecting_endless_staging_gets_no_secret_elsewhere_and_the_run_goes_on(
        tmp_path: Path, elsewhere: Recorder, runner: str) -> None:
    with _staging(elsewhere) as staging, FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        run = pr.run(inputs={"staging-url": staging.origin, "runner": runner,
                             "staging-headers": f"X-Staging-Token: {SECRET}"})
        (comment,) = github.comments_on(PR)
    assert elsewhere.received == [], elsewhere.received  # the redirect was not followed
    assert any(h.get("X-Staging-Token") == SECRET for _, h in staging.received)
    body = comment.body.replace("\\", "")
    assert "redirected to" in body and "not followed" in body and "stolen" not in body
    assert "too large" in body  # the endless body of the detail operation, bounded; the run went on
    for text in (run.stdout, run.stderr, run.summary, comment.body):
        assert SECRET not in "\n".join(line for line in text.splitlines() if not line.startswith("::add-mask::"))
    assert run.code == 3, run.stdout  # no response could be checked: not green


def _stalls(path: str) -> str:
    """The list sends its headers a byte at a time; a book's detail is accepted and never answered."""
    if path == "/books":
        return "headers"
    return "silent" if path.startswith("/books/") else "ok"


TIMEOUT_S = 0.5
"""The `timeout` input here; the stalled headers come a byte every quarter of it (`trickle`)."""


@pytest.fixture
def trickle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stalled headers come a byte every quarter of the timeout (`StallingServer` runs in this process): each
    wait for a byte is answered in time, so only the deadline on the whole exchange can cut it."""
    monkeypatch.setattr(stalling_server, "BYTE_EVERY_S", TIMEOUT_S / 4)


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The retries wait 0.05 s times n, not 1 s times n (`RunConfig.backoff_s`: the action has no input for it): the
    retries are under test, not their backoff."""
    monkeypatch.setattr(spec_check, "RunConfig", functools.partial(RunConfig, backoff_s=0.05))


@pytest.mark.usefixtures("trickle", "quick_backoff")
def test_a_stalling_staging_is_cut_at_the_timeout_input(tmp_path: Path, runner: str) -> None:
    """`timeout: 0.5` bounds each whole exchange: the trickled headers are a timeout (exit 3, said in the comment),
    long before the staging server would have finished (`STALL_FOR_S`), retries included; after three in a row
    nothing more is sent."""
    with StallingServer(_stalls) as staging, FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        started = time.monotonic()
        run = pr.run(inputs={"staging-url": staging.origin, "runner": runner, "timeout": str(TIMEOUT_S)})
        seconds = time.monotonic() - started
        (comment,) = github.comments_on(PR)
    assert run.code == 3, run.stdout + run.stderr
    assert seconds < 2 * STALL_FOR_S, seconds  # 2 requests x 3 attempts x 0.5 s and the backoffs, not 6 x 45 s
    # the list's three attempts in a row got no answer: the breaker stopped the sending, one line says why
    assert re.search(rf"1 of 1 request failed \((no answer|no complete response) within {TIMEOUT_S:g} s, 3 times in "
                     r"a row: stopped sending to http:\S*//127\.0\.0\.1:\d+\)", comment.body), comment.body


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "5000", "two"])
def test_a_timeout_input_that_bounds_nothing_is_a_config_error(tmp_path: Path, value: str) -> None:
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        run = pr.run(inputs={"staging-url": "http://127.0.0.1:9", "timeout": value})
    assert run.code == 2, run.stdout + run.stderr
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "timeout" in errors[0] and "Traceback" not in run.stderr, run.stdout + run.stderr


def test_the_timeout_input_has_the_clis_bound() -> None:
    assert inputs.MAX_TIMEOUT_S == outcome.MAX_TIMEOUT_S
    assert inputs.ActionInputs.from_env({"INPUT_TIMEOUT": " 2.5 "}).timeout_s == 2.5
    assert inputs.ActionInputs.from_env({}).timeout_s == 30.0


def _odd_values_staging() -> Recorder:
    """`/books` answers a lone surrogate (`"\\ud800"` as a JSON escape) as a format and `1e400` as a rating;
    `/books/{isbn}` a body nested 5000 deep."""
    listed = json.dumps(list_body()).replace('"paperback"', '"\\ud800"', 1).replace("4.5", "1e400", 1)

    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/books/"):
            _raw(handler, '{"isbn": "9780441172719", "store": ' + "[" * 5000 + "]" * 5000 + "}")
        else:
            _raw(handler, listed)
    return Recorder(answer)


def _raw(handler: BaseHTTPRequestHandler, text: str) -> None:
    payload = text.encode("utf-8")
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def test_odd_values_and_a_deep_body_are_reported_not_crashed_on(tmp_path: Path, runner: str) -> None:
    """Issue 18: the run is checked and reported (exit 1 for the violations, not 2 or 3), every output stays
    writable, and the JSON ones valid."""
    with _odd_values_staging() as staging, FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        run = pr.run(inputs={"staging-url": staging.origin, "runner": runner})
        (comment,) = github.comments_on(PR)
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert run.code == 1, run.stdout + run.stderr
    for text in (comment.body, run.summary):
        assert "ud800" in text and "Infinity" in text, text
        assert "nested deeper than 256 levels" in text, text
    report = json.loads(Path(run.outputs["report"]).read_text(encoding="utf-8"))
    messages = json.dumps(report)
    assert "\\\\ud800" in messages and "is greater than" in messages
    for store in (pr.repo / ".satori").rglob("*.observed.json"):
        assert json.loads(store.read_text(encoding="utf-8"))


def _action_env(pr: PullRequest, inputs: dict[str, str], tmp: Path) -> dict[str, str]:
    """The environment `PullRequest.run` gives the action, with TMPDIR a folder of the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "OPENAI_"))}
    (pr.tmp / "outputs.txt").write_text("")
    (pr.tmp / "summary.md").write_text("")
    env.update({
        "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(pr.event()), "GITHUB_REPOSITORY": "octo/api",
        "GITHUB_WORKSPACE": str(pr.repo), "GITHUB_API_URL": pr.github.base_url,
        "GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "42", "GITHUB_SHA": pr.head_sha,
        "GITHUB_OUTPUT": str(pr.tmp / "outputs.txt"), "GITHUB_STEP_SUMMARY": str(pr.tmp / "summary.md"),
        "RUNNER_TEMP": str(pr.tmp), "INPUT_GITHUB-TOKEN": "ghs_secret_token_123", "PYTHONPATH": str(ROOT),
        "TMPDIR": str(tmp), **{f"INPUT_{k.upper()}": v for k, v in inputs.items()}})
    return env


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            args = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            if text in args:
                found.append(args)
    return found


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_cancelled_run_says_so_and_leaves_nothing_behind(tmp_path: Path, runner: str, signum: int) -> None:
    """GitHub cancels a job (`cancel-in-progress`) with a signal: the run stops at once with exit 130, the job
    summary says it was cancelled, and no temporary file (in `.satori/` or the temporary folder) nor Newman
    process outlives it."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    with StallingServer(lambda path: "silent") as staging, FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        env = _action_env(pr, {"staging-url": staging.origin, "runner": runner, "timeout": "60"}, temp)
        proc = subprocess.Popen([sys.executable, str(ROOT / "entrypoint.py")], cwd=pr.repo, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not staging.received and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert staging.received, "the run never reached staging"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    summary = (pr.tmp / "summary.md").read_text()
    assert proc.returncode == 130, out + err
    assert "cancelled" in summary and "Traceback" not in out + err, summary + out + err
    assert [p.name for p in (pr.repo / ".satori").iterdir() if p.name.startswith(".")] == []
    assert list(temp.iterdir()) == []
    assert _processes_mentioning(str(temp)) == []
