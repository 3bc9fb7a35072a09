"""An installed satori-ci (a built wheel, not the checkout) runs the demo: the examples are package data."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_built_wheel_runs_the_demo_from_anywhere(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(wheels), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("satori_ci-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)  # dependencies from this interpreter
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(python), "-c", "import satori_ci; print(satori_ci.__file__)"], cwd=elsewhere,
                           env=env, capture_output=True, text=True, check=True, timeout=60).stdout
    assert str(env_dir) in where, where  # the wheel's copy, not the checkout
    proc = subprocess.run([str(env_dir / "bin" / "satori-ci"), "demo", "--runner", "native"], cwd=elsewhere,
                          env={**env, "NO_COLOR": "1"}, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "oracle violations in" in proc.stdout and "api/openapi.yaml" in proc.stdout
