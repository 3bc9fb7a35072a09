"""The `workflow_run` recipe for forks: the base commit, and so the config that decides where requests and secrets
go, comes from GitHub (the event and `GET /pulls/{n}`), never from an artifact the fork's own run wrote."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.demo import StagingServer, example_specs
from tests.action.conftest import PR, SPEC, ActionRun, PullRequest, make_pull_request, staging_config
from tests.servers.github_server import CREATE, PULL, FakeGitHub

SECRET = "staging-secret-5e0b"
FORK = "someone/api"
DELETE_OPERATION = ("    delete:\n      operationId: deleteBook\n      parameters:\n        - name: isbn\n"
                    "          in: path\n          required: true\n          schema: {type: string}\n"
                    "      responses:\n        \"200\":\n          description: Deleted.\n          content:\n"
                    "            application/json:\n              schema: {type: object, properties: "
                    "{deleted: {type: boolean}}}\n")






@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(login=None) as server:
        yield server


def _fork_pr(tmp_path: Path, github: FakeGitHub, staging: StagingServer, attacker: StagingServer) -> PullRequest:
    """The fork's head commit adds a DELETE operation and a `.satori.yml` that sends the staging secret to its own
    server with DELETE opted in; GitHub knows the pull request (base: main's commit, head: the fork's)."""
    v2 = example_specs()[1].read_text(encoding="utf-8")
    spec = v2.replace("  /books/{isbn}:\n", "  /books/{isbn}:\n" + DELETE_OPERATION, 1)
    evil = staging_config(attacker.base_url, extra="    requests:\n      unsafe: [\"DELETE /books/{isbn}\"]\n"
                                      "      values: {isbn: '1'}\n")
    pr = make_pull_request(tmp_path, github, {".satori.yml": staging_config(staging.base_url)},
                           {".satori.yml": evil, SPEC: spec})
    github.add_pull(PR, base_sha=pr.base_sha, head_sha=pr.head_sha, head_repo=FORK)
    return pr


def _event(pr: PullRequest, *, numbers: tuple[int, ...] = (), head_repo: str | None = FORK,
           head_sha: str | None = None) -> Path:
    run: dict[str, Any] = {"id": 99, "event": "pull_request", "head_sha": head_sha or pr.head_sha,
                           "pull_requests": [{"number": n} for n in numbers],
                           "head_repository": None if head_repo is None else {"full_name": head_repo}}
    path = pr.tmp / f"event-workflow-run-{len(list(pr.tmp.glob('event-workflow-run-*')))}.json"
    path.write_text(json.dumps({"workflow_run": run, "repository": {"full_name": "octo/api"}}))
    return path


def _run(pr: PullRequest, inputs: dict[str, str], event: Path | None = None) -> ActionRun:
    return pr.run(event="workflow_run", inputs={"runner": "native", **inputs},
                  extra_env={"STAGING_TOKEN": SECRET, "GITHUB_EVENT_PATH": str(event or _event(pr))})


def _stopped_and_sent_nothing(run: ActionRun, github: FakeGitHub, staging: StagingServer,
                              attacker: StagingServer) -> str:
    """Exit 2, one `::error` line (returned), no request to either server, no comment, the secret nowhere."""
    assert run.code == 2, run.stdout + run.stderr
    assert attacker.received == [], [(r.method, r.target) for r in attacker.received]
    assert staging.received == []
    assert github.comments == [] and github.requests_to(CREATE) == []
    assert "Traceback" not in run.stderr
    (line,) = [x for x in run.stdout.splitlines() if x.startswith("::error")]
    logged = "\n".join(x for x in run.stdout.splitlines() if not x.startswith("::add-mask::"))
    for text in (logged, run.stderr, run.summary):
        assert SECRET not in text
    return line


def test_a_forged_base_sha_stops_the_run_and_sends_nothing(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    run = _run(pr, {"pull-request": str(PR), "base-sha": pr.head_sha})  # the fork's own commit, its own config
    line = _stopped_and_sent_nothing(run, github, staging, attacker)
    assert "base-sha" in line and pr.base_sha[:12] in line, line
    assert len(github.requests_to(PULL)) == 1


@pytest.mark.parametrize("case", ["other pull request", "not in the event", "unknown", "another base repository",
                                  "another head repository", "no number"])
def test_a_forged_pull_request_stops_the_run_and_sends_nothing(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer], case: str) -> None:
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    inputs, event = {"pull-request": "8"}, None
    if case == "other pull request":  # another pull request, whose base is the fork's commit
        github.add_pull(8, base_sha=pr.head_sha, head_sha=pr.base_sha, head_repo=FORK)
    elif case == "not in the event":  # GitHub's event names pull request 7
        github.add_pull(8, base_sha=pr.base_sha, head_sha=pr.head_sha, head_repo=FORK)
        event = _event(pr, numbers=(PR,), head_repo="octo/api")
    elif case == "another base repository":
        github.add_pull(8, base_sha=pr.head_sha, head_sha=pr.head_sha, base_repo=FORK, head_repo=FORK)
    elif case == "another head repository":
        github.add_pull(8, base_sha=pr.base_sha, head_sha=pr.head_sha, head_repo="third/api")
    elif case == "no number":  # the fork's record run wrote no number: the fork's head config must not be used
        inputs = {}
    line = _stopped_and_sent_nothing(_run(pr, inputs, event), github, staging, attacker)
    assert "pull request" in line, line


def test_the_recipe_with_the_number_only_checks_with_the_base_branch_settings(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    run = _run(pr, {"pull-request": str(PR)})
    assert run.code == 1, run.stdout + run.stderr  # the bookshop's planted violations
    assert attacker.received == []
    assert staging.received and all(r.method == "GET" for r in staging.received)
    assert all(r.headers.get("Authorization") == SECRET for r in staging.received)
    (comment,) = github.comments_on(PR)
    assert "store.latitude" in comment.body and "changes where requests and secrets go" in comment.body
    assert len(github.requests_to(PULL)) == 1


def test_a_base_sha_input_that_matches_github_is_accepted(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    run = _run(pr, {"pull-request": str(PR), "base-sha": pr.base_sha[:12]})
    assert run.code == 1, run.stdout + run.stderr
    assert attacker.received == [] and staging.received
    assert len(github.comments_on(PR)) == 1


def test_the_event_alone_names_the_pull_request(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer]) -> None:
    """A pull request from a branch of this repository: GitHub lists it in `workflow_run.pull_requests`."""
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    github.add_pull(PR, base_sha=pr.base_sha, head_sha=pr.head_sha)
    run = _run(pr, {}, _event(pr, numbers=(PR,), head_repo="octo/api"))
    assert run.code == 1, run.stdout + run.stderr
    assert attacker.received == [] and staging.received
    (comment,) = github.comments_on(PR)
    assert "store.latitude" in comment.body


def test_a_head_that_moved_on_stops_the_run(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer]) -> None:
    """The pull request got a new commit after the recorded run: this run's head is not the pull request's."""
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    run = _run(pr, {"pull-request": str(PR)}, _event(pr, head_sha=pr.base_sha))
    line = _stopped_and_sent_nothing(run, github, staging, attacker)
    assert "head" in line


def test_pull_request_target_takes_the_base_from_the_event(
        tmp_path: Path, github: FakeGitHub, servers: tuple[StagingServer, StagingServer]) -> None:
    """`pull_request_target` runs with secrets on a fork's pull request: the config is the event's base commit's,
    and a `base-sha` input cannot move it."""
    staging, attacker = servers
    pr = _fork_pr(tmp_path, github, staging, attacker)
    event = pr.tmp / "event-target.json"
    event.write_text(json.dumps({"pull_request": {
        "number": PR, "base": {"sha": pr.base_sha, "repo": {"full_name": "octo/api"}},
        "head": {"sha": pr.head_sha, "repo": {"full_name": FORK}}}}))
    env = {"STAGING_TOKEN": SECRET, "GITHUB_EVENT_PATH": str(event)}
    run = pr.run(event="pull_request_target", inputs={"runner": "native"}, extra_env=env)
    assert run.code == 1, run.stdout + run.stderr
    assert attacker.received == [] and staging.received
    assert all(r.method == "GET" for r in staging.received)
    staging.received.clear()
    forged = pr.run(event="pull_request_target", inputs={"runner": "native", "base-sha": pr.head_sha},
                    extra_env=env)
    assert forged.code == 2 and attacker.received == [] and staging.received == []
    assert "base-sha" in forged.stdout
