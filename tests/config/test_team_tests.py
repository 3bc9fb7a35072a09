"""`requests.team_tests`: what the team collection's own failing tests do; a key only trusted config decides."""

from __future__ import annotations

from typing import get_args

import pytest

from satori_ci.config import ConfigError, parse_config, trust_changes
from satori_ci.config.model import TeamTests
from satori_ci.run.team import TeamTestPolicy


def _config(value: str) -> str:
    return f"specs:\n  - path: api/openapi.yaml\n    requests:\n      team_tests: {value}\n"


def test_the_models_choices_are_the_policies() -> None:
    assert get_args(TeamTests) == tuple(p.value for p in TeamTestPolicy)


@pytest.mark.parametrize("value", ["fail", "warn", "ignore"])
def test_team_tests_reads(value: str) -> None:
    requests = parse_config(_config(value), ".satori.yml").for_spec("api/openapi.yaml").requests
    assert requests.team_tests == value and requests.team_tests_or_default == value


def test_it_defaults_to_fail() -> None:
    assert parse_config("specs:\n  - path: a.yaml\n", ".satori.yml").for_spec("a.yaml").requests \
        .team_tests_or_default == "fail"


def test_a_wrong_value_is_one_line_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(_config("sometimes"), ".satori.yml")
    text = str(caught.value)
    assert text.startswith(".satori.yml:4:") and "team_tests" in text and "\n" not in text


def test_a_pull_request_cannot_weaken_it() -> None:
    base, head = parse_config(_config("fail"), "base"), parse_config(_config("ignore"), "head")
    assert trust_changes(base, head, "api/openapi.yaml") == ("specs[].requests.team_tests",)
