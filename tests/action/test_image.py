"""The action's image: built from the Dockerfile, it runs the demo (where a Docker daemon answers; the release
workflow does the same before it pushes the image)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=20, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not _docker_answers(), reason="no Docker daemon answers here (the image is built where one does)")
def test_the_image_builds_and_runs_the_demo() -> None:
    tag = "satori-ci-test:local"
    built = subprocess.run(["docker", "build", "-q", "-t", tag, "."], cwd=ROOT, capture_output=True, text=True,
                           timeout=1800, check=False)
    if built.returncode != 0 and ("pull access denied" in built.stderr or "failed to resolve" in built.stderr
                                  or "dial tcp" in built.stderr):
        pytest.skip(f"the base image cannot be pulled here: {built.stderr.strip().splitlines()[-1]}")
    assert built.returncode == 0, built.stderr
    demo = subprocess.run(["docker", "run", "--rm", "--entrypoint", "satori-ci", tag, "demo"], capture_output=True,
                          text=True, timeout=600, check=False)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "6 oracle violations" in demo.stdout
