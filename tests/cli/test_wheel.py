"""An installed satori-ci (a built wheel, not the checkout) runs the demo: the examples are package data.

The wheel goes into a fresh venv with `--no-deps` (no network); the dependencies come from the interpreter
running the tests, whatever it is (a venv, with or without system site-packages, or a system Python), through a
`.pth` file naming its site-packages: plain paths, so the `.pth` files there (an editable install of the checkout)
are not run and the venv's own copy of satori-ci comes first."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import site
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def running_site_packages() -> list[str]:
    """The site-packages directories of the running interpreter (the user site too when it has one)."""
    found = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        found.append(site.getusersitepackages())
    return [path for path in dict.fromkeys(found) if os.path.isdir(path)]


def builds_without_isolation() -> bool:
    """Whether the running interpreter's setuptools builds the wheel by itself: 68 (pyproject.toml's floor) with
    the `wheel` package, or 70.1 and later (the dev extra's floor: `bdist_wheel` built in)."""
    try:
        found = re.match(r"(\d+)\.(\d+)", importlib.metadata.version("setuptools"))
    except importlib.metadata.PackageNotFoundError:
        return False
    version = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    return version >= (70, 1) or (version >= (68, 0) and importlib.util.find_spec("wheel") is not None)


def build_wheel(out: Path) -> Path:
    """The checkout's wheel: with the running interpreter's setuptools when it can (no network), else in pip's
    isolated build environment."""
    isolation = ["--no-build-isolation"] if builds_without_isolation() else []
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = out.glob("satori_ci-*.whl")
    return wheel


def pip_targets_other_pythons() -> bool:
    """Whether the running interpreter's pip installs into another environment (`--python`, pip 22.3 and later)."""
    try:
        found = re.match(r"(\d+)\.(\d+)", importlib.metadata.version("pip"))
    except importlib.metadata.PackageNotFoundError:
        return False
    return found is not None and (int(found.group(1)), int(found.group(2))) >= (22, 3)


def fresh_venv(env_dir: Path, wheel: Path) -> Path:
    """A venv holding `wheel`, the running interpreter's packages after its own; its python. The running pip
    installs into it where it can (no pip bootstrapped into the venv: seconds saved), else the venv's own."""
    outside = pip_targets_other_pythons()
    venv.create(env_dir, with_pip=not outside)
    python = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)] if outside else [str(python), "-m", "pip"]
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--disable-pip-version-check", "-q", str(wheel)],
                   check=True, capture_output=True, timeout=300)  # before the .pth: only the venv
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    Path(purelib, "_satori_test_dependencies.pth").write_text("".join(f"{p}\n" for p in running_site_packages()),
                                                             encoding="utf-8")
    return python


def test_the_built_wheel_runs_the_demo_from_anywhere(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    python = fresh_venv(env_dir, build_wheel(tmp_path / "wheels"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    where = subprocess.run([str(python), "-c", "import satori_ci; print(satori_ci.__file__)"], cwd=elsewhere,
                           env=env, capture_output=True, text=True, check=True, timeout=60).stdout
    assert str(env_dir) in where, where  # the wheel's copy, not the checkout
    proc = subprocess.run([str(env_dir / "bin" / "satori-ci"), "demo", "--runner", "native"], cwd=elsewhere,
                          env={**env, "NO_COLOR": "1"}, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "oracle violations in" in proc.stdout and "api/openapi.yaml" in proc.stdout
