"""A pull request as the Docker action sees it: a git repository, an event file, local servers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from satori_ci.demo import Canned, DemoBookshop, StagingServer, example_specs
from tests import in_process
from tests.servers.github_server import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
SPEC = "api/openapi.yaml"
PR = 7


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@dataclass
class ActionRun:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class PullRequest:
    repo: Path
    base_sha: str
    head_sha: str
    tmp: Path
    github: FakeGitHub
    env: dict[str, str] = field(default_factory=dict)

    def event(self, *, fork: bool = False, name: str = "pull_request") -> Path:
        head_repo = "someone/api" if fork else "octo/api"
        payload: dict[str, object] = {"repository": {"full_name": "octo/api"}}
        if name == "pull_request":
            payload["pull_request"] = {
                "number": PR,
                "base": {"sha": self.base_sha, "repo": {"full_name": "octo/api"}},
                "head": {"sha": self.head_sha, "repo": {"full_name": head_repo}},
            }
        elif name == "push":
            payload.update({"before": self.base_sha, "after": self.head_sha})
        elif name == "workflow_run":
            payload["workflow_run"] = {"head_sha": self.head_sha, "pull_requests": [],
                                       "head_repository": {"full_name": "someone/api"}}
        path = self.tmp / f"event-{name}-{fork}.json"
        path.write_text(json.dumps(payload))
        return path

    def run(self, *, inputs: dict[str, str] | None = None, fork: bool = False, event: str = "pull_request",
            extra_env: dict[str, str] | None = None, argv: Sequence[str] | None = None) -> ActionRun:
        """The action's entry point as the Docker image runs it, in this process (`in_process.action`); given `argv`,
        a real `python ARGV` process instead (e.g. `entrypoint.py` itself, or a `-c` wrapper that runs it)."""
        env = self.action_env(inputs=inputs, fork=fork, event=event, extra_env=extra_env)
        if argv is None:
            proc: in_process.Done | subprocess.CompletedProcess[str] = in_process.action(self.repo, env)
        else:
            proc = subprocess.run([sys.executable, *argv], cwd=self.repo, env=env, capture_output=True, text=True,
                                  timeout=300, check=False)
        return ActionRun(proc.returncode, proc.stdout, proc.stderr,
                         _read_outputs((self.tmp / "outputs.txt").read_text()), (self.tmp / "summary.md").read_text())

    def action_env(self, *, inputs: dict[str, str] | None = None, fork: bool = False, event: str = "pull_request",
                   extra_env: dict[str, str] | None = None) -> dict[str, str]:
        """The environment the action runs with: the event, the inputs, empty outputs and summary files."""
        outputs = self.tmp / "outputs.txt"
        summary = self.tmp / "summary.md"
        outputs.write_text("")
        summary.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "OPENAI_"))}
        env.update({
            "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(self.event(fork=fork, name=event)),
            "GITHUB_REPOSITORY": "octo/api", "GITHUB_WORKSPACE": str(self.repo),
            "GITHUB_API_URL": self.github.base_url, "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "42", "GITHUB_SHA": self.head_sha, "GITHUB_OUTPUT": str(outputs),
            "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(self.tmp),
            "INPUT_GITHUB-TOKEN": "ghs_secret_token_123", "PYTHONPATH": str(ROOT),
        })
        env.update({f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()})
        env.update(extra_env or {})
        return env


def _read_outputs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            i += 1
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            out[name] = value_text
        i += 1
    return out


def staging_config(url: str, header_var: str = "STAGING_TOKEN", extra: str = "") -> str:
    """A `.satori.yml` sending the spec's requests to `url` with `Authorization` from `header_var`."""
    return (f"specs:\n  - path: {SPEC}\n    staging:\n      url: {url}\n      headers:\n"
            f"        Authorization: {header_var}\n{extra}")


@pytest.fixture
def servers() -> Iterator[tuple[StagingServer, StagingServer]]:
    """The team's staging (the bookshop) and an attacker's server that answers the bookshop's routes."""
    with StagingServer() as staging, StagingServer() as attacker:
        DemoBookshop(staging)
        attacker.route("GET", "/books", lambda r, p: Canned({"books": []}))
        attacker.route("GET", "/books/{isbn}", lambda r, p: Canned({}))
        attacker.route("DELETE", "/books/{isbn}", lambda r, p: Canned({"deleted": True}))
        yield staging, attacker


@pytest.fixture
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        DemoBookshop(server)
        yield server


def make_pull_request(tmp_path: Path, github: FakeGitHub, base_files: dict[str, str] | None = None,
                      head_files: dict[str, str] | None = None) -> PullRequest:
    """A repository whose main branch has the bookshop v1 spec, its oracle file and `base_files`; the PR brings
    v2 and `head_files`."""
    repo = tmp_path / "repo"
    (repo / "api").mkdir(parents=True)
    v1, v2 = example_specs()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.invalid")
    git(repo, "config", "user.name", "ci")
    shutil.copy(v1, repo / SPEC)
    _write(repo, base_files)
    inferred = in_process.satori(repo, "infer", SPEC, "--quiet")
    assert inferred.returncode == 0, inferred.stderr
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    base = git(repo, "rev-parse", "HEAD")
    shutil.copy(v2, repo / SPEC)
    _write(repo, head_files)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v2")
    return PullRequest(repo, base, git(repo, "rev-parse", "HEAD"), tmp_path, github)


def _write(repo: Path, files: dict[str, str] | None) -> None:
    for name, text in (files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")


@pytest.fixture
def pull_request(tmp_path: Path) -> Iterator[PullRequest]:
    """A repository whose main branch has the bookshop v1 spec and its oracle file; the PR brings v2."""
    with FakeGitHub(login=None) as github:
        yield make_pull_request(tmp_path, github)
