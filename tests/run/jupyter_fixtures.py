"""The fixtures the tests on the converted Jupyter collection share: the Jupyter app, its requests cleared before a
test, and its oracles.

A test module takes them with `app, fresh, oracles = jupyter_fixtures.app, jupyter_fixtures.fresh, ...` (each module
gets its own instances: pytest scopes them per module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.run.conftest import infer_oracles
from tests.servers.jupyter_app import SPEC_PATH, JupyterApp


@pytest.fixture(scope="module")
def app() -> Iterator[JupyterApp]:
    with JupyterApp() as running:
        yield running


@pytest.fixture()
def fresh(app: JupyterApp) -> JupyterApp:
    app.server.clear()
    return app


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(infer_oracles(SPEC_PATH, tmp_path_factory.mktemp("oracles") / "jupyter.oracles.yaml"))
