"""Run the JavaScript checker in one `node` process for a whole batch of inputs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from satori_ci.postman.checker_js import CHECKER_JS

HARNESS = Path(__file__).with_name("js_harness.js")
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the JavaScript checker cannot run")


def run_node(**batch: Any) -> dict[str, Any]:
    """Send one batch (`cases`, `predicates`, `json`) to the harness and return its parsed output."""
    assert NODE is not None
    payload = json.dumps({"checker": CHECKER_JS, **batch})
    done = subprocess.run([NODE, str(HARNESS)], input=payload.encode("utf-8"), capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    result: dict[str, Any] = json.loads(done.stdout.decode("utf-8"))
    return result
