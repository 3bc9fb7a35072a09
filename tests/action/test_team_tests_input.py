"""The action's `team-tests` input: trusted, it wins over the trusted config's `requests.team_tests`."""

from __future__ import annotations

import pytest

from satori_ci.action.targets import team_tests
from satori_ci.github.errors import ActionConfigError
from satori_ci.run.team import TeamTestPolicy


def test_the_input_wins_over_the_trusted_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INPUT_TEAM-TESTS", "warn")
    assert team_tests("fail") is TeamTestPolicy.WARN


def test_without_the_input_the_trusted_config_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INPUT_TEAM-TESTS", raising=False)
    monkeypatch.delenv("INPUT_TEAM_TESTS", raising=False)
    assert team_tests("ignore") is TeamTestPolicy.IGNORE and team_tests("fail") is TeamTestPolicy.FAIL


def test_a_wrong_input_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INPUT_TEAM-TESTS", "sometimes")
    with pytest.raises(ActionConfigError) as caught:
        team_tests("fail")
    assert str(caught.value) == "input 'team-tests' must be one of fail, warn, ignore, not 'sometimes'"
