"""The fixtures the team-collection tests share: the resources app, reset before each test, and its oracles.

A test module takes them with `from tests.run.team_fixtures import app, fresh, oracles` (each module gets its own
instances: pytest scopes them per module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.run.conftest import infer_oracles
from tests.servers.resources_app import SPEC_PATH, ResourcesApp


@pytest.fixture(scope="module")
def app() -> Iterator[ResourcesApp]:
    with ResourcesApp() as running:
        yield running


@pytest.fixture()
def fresh(app: ResourcesApp) -> ResourcesApp:
    app.reset()
    return app


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(infer_oracles(SPEC_PATH, tmp_path_factory.mktemp("oracles") / "resources.oracles.yaml"))
