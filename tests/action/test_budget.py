"""The action's budget inputs (`budget`, `time-budget`, `rate`, `concurrency`): read strictly, and kept by the run
against staging (a pull request cannot raise them: its head config is not the trusted one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from satori_ci.demo import DemoBookshop, StagingServer
from satori_ci.github import inputs
from satori_ci.github.errors import ActionConfigError
from tests.action.conftest import make_pull_request
from tests.servers.github_server import FakeGitHub


def test_the_budget_inputs_are_read_and_left_to_the_config_when_empty() -> None:
    found = inputs.ActionInputs.from_env({"INPUT_BUDGET": "40", "INPUT_TIME-BUDGET": "12.5", "INPUT_RATE": "0",
                                          "INPUT_CONCURRENCY": "4"})
    assert found.budget == (40, 12.5, 0.0, 4)
    assert inputs.ActionInputs.from_env({}).budget == (None, None, None, None)


@pytest.mark.parametrize(("name", "value"), [("budget", "0"), ("budget", "1.5"), ("time-budget", "0"),
                                             ("time-budget", "nan"), ("rate", "-1"), ("concurrency", "33"),
                                             ("concurrency", "many")])
def test_a_budget_input_out_of_range_is_a_config_error(name: str, value: str) -> None:
    with pytest.raises(ActionConfigError, match=name):
        inputs.ActionInputs.from_env({f"INPUT_{name.upper()}": value})


def test_the_run_sends_no_request_over_the_budget(tmp_path: Path) -> None:
    with FakeGitHub(login=None) as github, StagingServer() as staging:
        DemoBookshop(staging)
        # the head's config asks for more: the base commit's (none) and the input decide
        pr = make_pull_request(tmp_path, github, head_files={".satori.yml": (
            "specs:\n  - path: api/openapi.yaml\n    requests:\n      budget: 1000\n")})
        run = pr.run(inputs={"staging-url": staging.base_url, "budget": "1", "runner": "native"})
        assert len(staging.received) == 1, run.stdout + run.stderr
    assert "left out by the budget" in run.summary, run.summary
