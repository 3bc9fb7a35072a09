"""The action end to end, as the Docker image runs it: `entrypoint.py` with `INPUT_*` set (the first run of the
first test as a real process, the others in this one: `PullRequest.run`)."""

from __future__ import annotations

from satori_ci.demo import StagingServer
from tests.action.conftest import PR, ROOT, SPEC, PullRequest
from tests.servers.github_server import CREATE, primary_rate_limit, server_error
from tests.servers.github_server import forbidden as github_forbidden


def test_comment_created_then_updated_then_resolved(pull_request: PullRequest, staging: StagingServer) -> None:
    inputs = {"staging-url": staging.base_url, "runner": "native"}
    first = pull_request.run(inputs=inputs, argv=[str(ROOT / "entrypoint.py")])
    assert first.code == 1, first.stderr + first.stdout
    (comment,) = pull_request.github.comments_on(PR)
    assert comment.body.startswith("<!-- satori-ci:spec=api/openapi.yaml -->")
    assert "oracle violations" in comment.body and "store.latitude" in comment.body
    printed = [line for line in (first.stdout + first.stderr + first.summary).splitlines()
               if not line.startswith("::add-mask::")]
    assert not any("ghs_secret_token_123" in line for line in printed)  # the runner hides masked values
    assert "::add-mask::ghs_secret_token_123" in first.stdout
    assert f"::error file={SPEC},line=" in first.stdout
    assert int(first.outputs["violations"]) > 0 and int(first.outputs["oracles-added"]) > 0
    assert first.outputs["oracle-files"] == ".satori/api.openapi.oracles.yaml"
    assert "store.latitude" in first.summary

    second = pull_request.run(inputs=inputs)  # the oracle file in the workspace is now up to date
    assert second.code == 1
    (again,) = pull_request.github.comments_on(PR)
    assert again.id == comment.id and "oracle violations" in again.body

    DemoBookshop_fixed(staging)
    third = pull_request.run(inputs=inputs)
    assert third.code == 0, third.stdout
    (resolved,) = pull_request.github.comments_on(PR)
    assert resolved.id == comment.id and "resolved" in resolved.body.lower()


def DemoBookshop_fixed(staging: StagingServer) -> None:
    from satori_ci.demo import Bookshop

    staging._routes.clear()
    Bookshop(staging)


def test_fork_without_write_access_falls_back_to_the_summary(pull_request: PullRequest,
                                                             staging: StagingServer) -> None:
    pull_request.github.fail(CREATE, github_forbidden(), forever=True)
    run = pull_request.run(inputs={"staging-url": staging.base_url, "runner": "native"}, fork=True)
    assert run.code == 1  # the violations still fail the check
    assert pull_request.github.comments_on(PR) == []
    assert "::notice" in run.stdout and "job summary" in run.stdout
    assert "store.latitude" in run.summary


def test_a_comment_failure_never_turns_a_clean_run_red(pull_request: PullRequest) -> None:
    pull_request.github.fail(CREATE, github_forbidden(), forever=True)
    run = pull_request.run()  # no staging URL: nothing to violate
    assert run.code == 0, run.stdout + run.stderr
    assert "no staging URL" in run.summary


def test_github_500_then_success(pull_request: PullRequest, staging: StagingServer) -> None:
    pull_request.github.fail(CREATE, server_error(500))
    run = pull_request.run(inputs={"staging-url": staging.base_url, "runner": "native"})
    assert run.code == 1
    assert len(pull_request.github.comments_on(PR)) == 1


def test_rate_limited_comment_falls_back(pull_request: PullRequest) -> None:
    pull_request.github.fail(CREATE, primary_rate_limit(reset=4_000_000_000), forever=True)
    run = pull_request.run()
    assert run.code == 0
    assert "::notice" in run.stdout


def test_staging_down_is_an_infrastructure_error(pull_request: PullRequest) -> None:
    run = pull_request.run(inputs={"staging-url": "http://127.0.0.1:9", "runner": "native"})
    assert run.code == 3, run.stdout + run.stderr
    assert len(pull_request.github.comments_on(PR)) == 1


def test_llm_without_key_uses_rules(pull_request: PullRequest) -> None:
    run = pull_request.run(inputs={"backend": "llm"})
    assert run.code == 0, run.stdout + run.stderr
    assert "::notice" in run.stdout and "rules" in run.stdout


def test_a_spec_that_does_not_parse_on_head(pull_request: PullRequest) -> None:
    (pull_request.repo / SPEC).write_text("openapi: 3.0.0\npaths: [\n")
    run = pull_request.run()
    assert run.code == 2
    (comment,) = pull_request.github.comments_on(PR)
    assert "invalid YAML" in comment.body


def test_push_event_checks_without_commenting(pull_request: PullRequest, staging: StagingServer) -> None:
    run = pull_request.run(inputs={"staging-url": staging.base_url, "runner": "native"}, event="push")
    assert run.code == 1
    assert pull_request.github.comments_on(PR) == []
    assert "store.latitude" in run.summary


def test_workflow_run_recipe_comments_with_explicit_pr_and_base(pull_request: PullRequest,
                                                                 staging: StagingServer) -> None:
    pull_request.github.add_pull(PR, base_sha=pull_request.base_sha, head_sha=pull_request.head_sha,
                                 head_repo="someone/api")  # what GitHub's API says, which the inputs must match
    run = pull_request.run(event="workflow_run", inputs={
        "staging-url": staging.base_url, "runner": "native", "pull-request": str(PR),
        "base-sha": pull_request.base_sha})
    assert run.code == 1, run.stdout + run.stderr
    (comment,) = pull_request.github.comments_on(PR)
    assert "store.latitude" in comment.body and "enum gained 'audiobook'" in comment.body
