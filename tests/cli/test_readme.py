"""The README's set-up commands work as written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _bash_blocks() -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", README, flags=re.DOTALL)]


def test_the_first_command_is_the_demo_and_the_second_the_ci_test_command() -> None:
    demo, tests = _bash_blocks()[:2]
    assert demo == "pip install -e . && satori-ci demo"
    assert tests in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_the_demo_prints_the_expected_violations(tmp_path: Path) -> None:
    command = [shutil.which("satori-ci") or "", "demo"] if shutil.which("satori-ci") else [
        sys.executable, "-m", "satori_ci", "demo"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.run([*command, "--runner", "native"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=180, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # the list and, through the ids it lists (chaining), the detail operation
    assert "6 oracle violations in 6 fields of api/openapi.yaml" in out
    assert "24 of 24 oracles exercised · 2 of 2 operations reached" in out
    for needle in ('books[].language  string_fixed_length 2', '"eng"  at /books/1/language',
                   "GET /books/{isbn} 200", '"eng"  at /language',
                   "books[].store.latitude  number_max_value 90", "123.4  at /books/1/store/latitude",
                   '"yesterday"  at /books/2/store/updated_at', "enum gained 'audiobook'"):
        assert needle in out
    assert "\x1b[" not in out  # plain when not a terminal
    assert "in CI this check would exit with code 1" in proc.stderr
