"""Secrets never leave the action, markers cannot be forged, and a run that breaks still reports (issue 10).

Each test runs the real entrypoint (a subprocess, as the Docker image does, or `main` in-process where a bug
has to be provoked) against the local GitHub server and a local staging server that echoes the request's
credentials into its JSON body, where they become offending values of the report.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.demo import Canned, Received, StagingServer
from tests.action.conftest import PR, ROOT, ActionRun, PullRequest, git
from tests.servers.github_server import FakeGitHub

STAGING_TOKEN = "staging-token-7c1e9b"
AUTH_KEY = "satori-auth-key-52ad"
URL_PASSWORD = "url-password-3b8f"
QUERY_KEY = "query-key-a91c0d"
SECRETS = (STAGING_TOKEN, AUTH_KEY, URL_PASSWORD, QUERY_KEY,
           base64.b64encode(f"ann:{URL_PASSWORD}".encode()).decode())

ECHO_SPEC = """openapi: 3.0.3
info: {title: echo, version: "1"}
components:
  securitySchemes:
    ApiKey: {type: apiKey, in: header, name: X-Api-Key}
security: [{ApiKey: []}]
paths:
  /whoami:
    get:
      operationId: whoami
      responses:
        "200":
          description: who is calling
          content:
            application/json:
              schema:
                type: object
                properties:
                  token: {type: string, enum: [none]}
                  key: {type: string, enum: [none]}
                  basic: {type: string, enum: [none]}
                  headers: {type: string, enum: [none]}
  /broken:
    get:
      operationId: broken
      responses:
        "200":
          description: never answered
          content:
            application/json:
              schema: {type: object, properties: {ok: {type: boolean}}}
"""

QUERY_SPEC = """openapi: 3.0.3
info: {title: query, version: "1"}
components:
  securitySchemes:
    QueryKey: {type: apiKey, in: query, name: api_key}
security: [{QueryKey: []}]
paths:
  /items:
    get:
      operationId: items
      responses:
        "200":
          description: items
          content:
            application/json:
              schema: {type: object, properties: {total: {type: integer, minimum: 0}}}
"""


def _spec_with_enum(title: str, value: str) -> str:
    return f"""openapi: 3.0.3
info: {{title: {title}, version: "1"}}
paths:
  /things:
    get:
      operationId: things
      responses:
        "200":
          description: things
          content:
            application/json:
              schema:
                type: object
                properties:
                  kind: {{type: string, enum: [plain, {json.dumps(value)}]}}
"""


def _header(received: Received, name: str) -> str:
    return next((v for k, v in received.headers.items() if k.lower() == name.lower()), "")


def _echo(received: Received, params: dict[str, str]) -> Canned:
    return Canned({"token": _header(received, "X-Staging-Token"), "key": _header(received, "X-Api-Key"),
                   "basic": _header(received, "Authorization"), "headers": json.dumps(received.headers)})


@pytest.fixture
def echo() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/whoami", _echo)
        server.route("GET", "/broken", lambda r, p: Canned({"error": "down"}, status=500))
        server.route("GET", "/items", lambda r, p: Canned({"total": 1}))
        yield server


def _pull_request(tmp_path: Path, github: FakeGitHub, head_files: dict[str, str]) -> PullRequest:
    """A repository whose pull request adds `head_files` (new specs: every oracle is inferred and run)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.invalid")
    git(repo, "config", "user.name", "ci")
    (repo / "README.md").write_text("api\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    for name, text in head_files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "head")
    return PullRequest(repo, base, git(repo, "rev-parse", "HEAD"), tmp_path, github)


def _everything(run: ActionRun, github: FakeGitHub, tmp_path: Path) -> dict[str, str]:
    """Every channel the action writes to, the `::add-mask::` lines (which the runner hides) left out."""
    logged = "\n".join(line for line in run.stdout.splitlines() if not line.startswith("::add-mask::"))
    report = tmp_path / "satori-ci-report.json"
    return {"stdout": logged, "stderr": run.stderr, "summary": run.summary,
            "outputs": json.dumps(run.outputs), "report": report.read_text() if report.exists() else "",
            "comments": "\n".join(c.body for c in github.comments_on(PR))}


def _assert_no_secret(channels: dict[str, str]) -> None:
    for name, text in channels.items():
        for secret in SECRETS:
            assert secret not in text, (name, secret)


def _runner(request: pytest.FixtureRequest) -> str:
    runner: str = request.param
    if runner == "newman":
        from tests.run.conftest import newman_available

        newman_available()
    return runner


@pytest.fixture(params=["native", "newman"])
def runner(request: pytest.FixtureRequest) -> str:
    return _runner(request)


def test_echoed_credentials_never_reach_the_comment_summary_log_outputs_or_report(
        tmp_path: Path, echo: StagingServer, runner: str) -> None:
    host = echo.base_url.removeprefix("http://")
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/echo.yaml": ECHO_SPEC})
        run = pr.run(inputs={"staging-url": f"http://ann:{URL_PASSWORD}@{host}", "runner": runner,
                             "staging-headers": f"X-Staging-Token: {STAGING_TOKEN}"},
                     extra_env={"SATORI_AUTH_APIKEY": AUTH_KEY})
        channels = _everything(run, github, tmp_path)
    assert echo.received, run.stdout + run.stderr
    sent = echo.received[0].headers
    assert STAGING_TOKEN in json.dumps(sent) and AUTH_KEY in json.dumps(sent)  # the echo had them to give back
    assert run.code in (1, 3), run.stdout + run.stderr
    (comment,) = github.comments_on(PR)
    assert "/token" in comment.body and "***" in comment.body  # the offending values are there, redacted
    assert f"::add-mask::{STAGING_TOKEN}" in run.stdout and f"::add-mask::{AUTH_KEY}" in run.stdout
    _assert_no_secret(channels)
    json.loads(channels["report"])  # redacted string by string: still JSON


def test_a_query_key_and_a_url_password_are_masked_when_staging_is_unreachable(tmp_path: Path, runner: str) -> None:
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/query.yaml": QUERY_SPEC})
        run = pr.run(inputs={"staging-url": f"http://ann:{URL_PASSWORD}@127.0.0.1:9", "runner": runner},
                     extra_env={"SATORI_AUTH_QUERYKEY": QUERY_KEY})
        channels = _everything(run, github, tmp_path)
    assert run.code == 3, run.stdout + run.stderr
    (comment,) = github.comments_on(PR)
    assert "127.0.0.1:9" in comment.body
    assert "::warning" in run.stdout
    _assert_no_secret(channels)


def test_a_key_parameter_read_from_the_environment_is_masked_in_urls(tmp_path: Path) -> None:
    """`requests.values: {api_key: {env: …}}`: not a declared credential, still a key: never shown."""
    spec = QUERY_SPEC.replace("security: [{QueryKey: []}]\n", "").replace(
        "      operationId: items\n",
        "      operationId: items\n      parameters:\n        - {name: api_key, in: query, required: true, "
        "schema: {type: string}}\n")
    config = ("specs:\n  - path: api/query.yaml\n    requests:\n      values:\n        api_key: {env: ITEMS_KEY}\n")
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/query.yaml": spec})
        (pr.repo / ".satori.yml").write_text(config)  # the base commit has none: the workspace one is used on push
        run = pr.run(inputs={"staging-url": "http://127.0.0.1:9", "runner": "native"}, event="push",
                     extra_env={"ITEMS_KEY": QUERY_KEY})
        channels = _everything(run, github, tmp_path)
    assert run.code == 3, run.stdout + run.stderr
    assert "api_key=***" in channels["summary"].replace("\\", "")
    _assert_no_secret(channels)


def test_an_enum_value_holding_another_specs_marker_cannot_take_its_comment(tmp_path: Path) -> None:
    marker_b = "<!-- satori-ci:spec=api/b.yaml -->"
    files = {"api/a.yaml": _spec_with_enum("a", f"x {marker_b} y"), "api/b.yaml": _spec_with_enum("b", "other")}
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, files)
        first = pr.run(inputs={"specs": "api/a.yaml, api/b.yaml"})  # A's comment is posted first
        assert first.code == 0, first.stdout + first.stderr
        a, b = github.comments_on(PR)
        a_body, b_body = a.body, b.body
        second = pr.run(inputs={"specs": "api/a.yaml, api/b.yaml"})  # finds each comment again: both resolved
        after = {c.id: c.body for c in github.comments_on(PR)}
    assert a_body.startswith("<!-- satori-ci:spec=api/a.yaml -->\n") and "a.yaml" in a_body.split("\n")[1]
    assert b_body.startswith(f"{marker_b}\n") and "b.yaml" in b_body.split("\n")[1]
    assert "plain" in a_body and "satori-ci:spec=api/b.yaml" in a_body  # the enum value is shown...
    assert marker_b not in a_body and "<!--" not in a_body.split("\n", 1)[1]  # ...with its `<!--` broken
    assert second.code == 0 and sorted(after) == sorted([a.id, b.id])
    assert after[a.id].startswith("<!-- satori-ci:spec=api/a.yaml -->\n")
    assert after[b.id].startswith(f"{marker_b}\n")


def test_an_input_error_still_writes_the_summary_and_a_comment_then_resolves(tmp_path: Path) -> None:
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/query.yaml": QUERY_SPEC})
        (pr.repo / ".satori.yml").write_text("specs: [\n")
        broken = pr.run(extra_env={"SATORI_AUTH_QUERYKEY": QUERY_KEY})
        (comment,) = github.comments_on(PR)
        assert broken.code == 2, broken.stdout + broken.stderr
        assert "::error title=satori-ci::" in broken.stdout and "Traceback" not in broken.stderr
        assert "the check could not run" in broken.summary and ".satori.yml" in broken.summary
        assert comment.body.startswith("<!-- satori-ci:run -->\n") and "could not run" in comment.body
        (pr.repo / ".satori.yml").unlink()
        fixed = pr.run(extra_env={"SATORI_AUTH_QUERYKEY": QUERY_KEY})
        bodies = {c.id: c.body for c in github.comments_on(PR)}
    assert fixed.code == 0, fixed.stdout + fixed.stderr
    assert "Resolved" in bodies[comment.id]


def test_an_invalid_input_still_writes_the_summary_without_quoting_a_secret(tmp_path: Path) -> None:
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/query.yaml": QUERY_SPEC})
        run = pr.run(inputs={"fail-on": "sometimes", "staging-headers": f"X-Staging-Token: {STAGING_TOKEN}"})
    assert run.code == 2 and "Traceback" not in run.stderr
    assert "::error title=satori-ci::fail-on must be one of" in run.stdout
    assert "the check could not run" in run.summary and "fail-on" in run.summary
    assert f"::add-mask::{STAGING_TOKEN}" in run.stdout
    _assert_no_secret(_everything(run, github, tmp_path))


# -- a bug in the action: main in-process, check_spec made to raise -----------------------------------

def _action_env(pr: PullRequest, monkeypatch: pytest.MonkeyPatch, inputs: dict[str, str]) -> None:
    for key in list(os.environ):
        if key.startswith(("INPUT_", "GITHUB_", "OPENAI_", "SATORI_AUTH_")):
            monkeypatch.delenv(key)
    event = pr.tmp / "event.json"
    event.write_text(json.dumps({"pull_request": {
        "number": PR, "base": {"sha": pr.base_sha, "repo": {"full_name": "octo/api"}},
        "head": {"sha": pr.head_sha, "repo": {"full_name": "octo/api"}}}}))
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "octo/api",
           "GITHUB_WORKSPACE": str(pr.repo), "GITHUB_API_URL": pr.github.base_url, "GITHUB_RUN_ID": "42",
           "GITHUB_OUTPUT": str(pr.tmp / "outputs.txt"), "GITHUB_STEP_SUMMARY": str(pr.tmp / "summary.md"),
           "RUNNER_TEMP": str(pr.tmp), "INPUT_GITHUB-TOKEN": "ghs_secret_token_123",
           **{f"INPUT_{k.upper()}": v for k, v in inputs.items()}}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(pr.repo)


def test_an_internal_error_still_writes_the_summary_and_a_comment_and_exits_70(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from satori_ci.action import run as action_run
    from satori_ci.action.main import main

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"boom near {STAGING_TOKEN}\nsecond line")

    monkeypatch.setattr(action_run, "check_spec", broken)
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/query.yaml": QUERY_SPEC})
        _action_env(pr, monkeypatch, {"staging-headers": f"X-Staging-Token: {STAGING_TOKEN}"})
        before = signal.getsignal(signal.SIGTERM)
        code = main()
        assert signal.getsignal(signal.SIGTERM) is before  # main() leaves the process's SIGTERM handler as it was
        comments = github.comments_on(PR)
    out, err = capsys.readouterr()
    summary = (tmp_path / "summary.md").read_text()
    assert code == 70
    (comment,) = comments
    assert comment.body.startswith("<!-- satori-ci:spec=api/query.yaml -->\n")
    assert "could not run" in comment.body and "RuntimeError" in comment.body
    assert "the check could not run" in summary and "internal error" in summary and "RuntimeError" in summary
    (error_line,) = [line for line in out.splitlines() if line.startswith("::error")]
    assert "RuntimeError: boom near ***" in error_line and "%0A" not in error_line  # one line
    assert "Traceback" not in out + err
    logged = "\n".join(line for line in out.splitlines() if not line.startswith("::add-mask::"))
    for text in (logged, err, summary, comment.body):
        assert STAGING_TOKEN not in text


def test_the_process_still_exits_70_with_a_summary_when_the_check_crashes_in_a_subprocess(tmp_path: Path) -> None:
    """The same through `python entrypoint.py`: a hostile oracle file that a check cannot read is an input
    error (2), anything else unexpected is a bug (70); either way a summary and one `::error` line, no traceback."""
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, github, {"api/query.yaml": QUERY_SPEC})
        env_file = pr.tmp / "sitecustomize.py"
        env_file.write_text("import satori_ci.check.spec_check as p\n"
                            "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
                            "p.check_spec = boom\n")
        run = pr.run(extra_env={"PYTHONPATH": f"{pr.tmp}{os.pathsep}{ROOT}"}, argv=[str(ROOT / "entrypoint.py")])
    assert run.code == 70, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and "::error title=satori-ci::internal error" in run.stdout
    assert "the check could not run" in run.summary


def test_entrypoint_is_importable_without_side_effects() -> None:
    proc = subprocess.run([sys.executable, "-c", "import entrypoint"], cwd=ROOT, capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
