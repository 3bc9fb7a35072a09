"""Shared test settings."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "satori_ci"


def pytest_configure(config: pytest.Config) -> None:
    """Before the workers start, the package compiled to bytecode once (0.7 s): the `satori-ci` processes the tests
    start, and each worker, then read it. Where `PYTHONDONTWRITEBYTECODE` is set, as on many CI machines, every
    one of those processes would otherwise compile every module it imports, again."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(PACKAGE, quiet=2)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core, four at most beyond the cores. Many tests wait (on a local server's answer, a
    timeout, Newman's start): another worker uses the core meanwhile."""
    cores = os.cpu_count() or 1
    return min(2 * cores, cores + 4)
