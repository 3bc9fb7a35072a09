"""Fixtures for the run stage: the staging server on 127.0.0.1, the fixture specs, and Newman."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest

from satori_ci.cli import main
from satori_ci.demo import Bookshop, StagingServer
from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import Oracle
from satori_ci.run.errors import RunError
from satori_ci.run.newman import SETUP_COMMAND, find_newman
from satori_ci.spec import Spec, load_spec

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().with_name("fixtures")
BOOKSHOP_SPEC = ROOT / "satori_ci" / "examples" / "bookshop" / "openapi.v2.yaml"
SHARED_DATA = ROOT.parent / "shared" / "data"

T = TypeVar("T")


def newman_available() -> str:
    """The newman binary; tests that need it fail (not skip) when Node.js is there but `npm ci` was not run."""
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH: Newman cannot run")
    try:
        return find_newman()
    except RunError as exc:
        pytest.fail(f"{exc} (the README's set-up runs `{SETUP_COMMAND}`)")


@pytest.fixture(scope="session")
def newman() -> str:
    return newman_available()


def concurrently(jobs: list[Callable[[], T]], workers: int = 3) -> list[T]:
    """Run slow jobs (Newman runs: ~2 s of start-up each) side by side; results in job order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [f.result() for f in [pool.submit(job) for job in jobs]]


def infer_oracles(spec: Path, out: Path) -> Path:
    """`satori-ci infer SPEC --oracles OUT` (the rules), asserted to succeed: the oracle file runs start from."""
    assert main(["infer", str(spec), "--oracles", str(out), "--quiet"]) == 0
    return out


def oracles_of(path: Path) -> list[Oracle]:
    return load_oracle_file(path.read_text(encoding="utf-8"), str(path)).enabled_oracles()


@pytest.fixture(scope="session")
def bookshop_spec() -> Spec:
    return load_spec(str(BOOKSHOP_SPEC))


@pytest.fixture(scope="session")
def bookshop_oracles() -> list[Oracle]:
    return oracles_of(FIXTURES / "bookshop.oracles.yaml")


@pytest.fixture(scope="session")
def inventory_spec() -> Spec:
    return load_spec(str(FIXTURES / "inventory.yaml"))


@pytest.fixture(scope="session")
def inventory_oracles() -> list[Oracle]:
    return oracles_of(FIXTURES / "inventory.oracles.yaml")


@pytest.fixture
def staging() -> Iterator[StagingServer]:
    """An empty staging server: add routes, queue responses."""
    with StagingServer() as server:
        yield server


@pytest.fixture
def bookshop() -> Iterator[Bookshop]:
    """The bookshop example API answering correctly (plant a fault with `.plant(name)`)."""
    shop = Bookshop()
    with shop.server:
        yield shop


def spec_routes(server: StagingServer, spec: Spec) -> None:
    """A route without default for every operation of the spec: answers only what is queued."""
    for op in spec.operations:
        server.route(op.method, op.path)


@pytest.fixture(scope="session", autouse=True)
def private_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The runs' working folders (Newman's `satori-newman-*`) in a folder of this session's: tests that look for
    files left behind see only their own, whatever else runs on the machine."""
    import tempfile

    folder = tmp_path_factory.mktemp("runs-tmp")
    before = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = before
