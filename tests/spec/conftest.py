"""Small specs written for the tests, one construct each."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

WriteSpec = Callable[..., Path]


@pytest.fixture
def write(tmp_path: Path) -> WriteSpec:
    """Write `text` (dedented) to `name` under a temporary folder and return its path."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return path

    return _write
