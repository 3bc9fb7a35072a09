"""A YAML document nested deeper than libyaml's composer can recurse is refused with one line, not a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from satori_ci.spec.yaml_loader import MAX_DEPTH, load_yaml, shallow_enough

ROOT = Path(__file__).resolve().parents[2]
HEAD = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\n'


def _deep(shape: str, levels: int) -> str:
    if shape == "flow-sequences":
        return HEAD + "x-deep: " + "[" * levels + "]" * levels + "\n"
    if shape == "flow-mappings":
        return HEAD + "x-deep: " + "{a: " * levels + "1" + "}" * levels + "\n"
    if shape == "anchored-flow":
        return HEAD + "x-deep: " + "".join(f"&a{i} [" for i in range(levels)) + "]" * levels + "\n"
    if shape == "compact-block":
        return HEAD + "x-deep:\n  " + "- " * levels + "x\n"
    return HEAD + "x-deep:\n" + "".join(" " * i + "k:\n" for i in range(1, levels)) + " " * levels + "k: 1\n"


def _fields(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    spec = tmp_path / "deep.yaml"
    spec.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "satori_ci", "fields", str(spec)], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("shape", ["flow-sequences", "flow-mappings", "anchored-flow", "compact-block"])
def test_a_document_deeper_than_the_composer_can_go_is_refused_in_one_line(tmp_path: Path, shape: str) -> None:
    proc = _fields(tmp_path, _deep(shape, 100_000))  # the composer overflows the C stack near 30,000; a scan of all
    # 100,000 levels would take minutes (libyaml goes with the square of the depth): the refusal comes at 10,001
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-500:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "nested more than 10,000 levels deep (the limit)" in lines[0], proc.stderr[-500:]


@pytest.mark.parametrize("shape", ["flow-sequences", "flow-mappings", "anchored-flow", "compact-block",
                                   "indented-block"])
def test_the_cheap_bound_never_calls_a_deep_document_shallow(shape: str) -> None:
    text = _deep(shape, 300).encode()
    assert not shallow_enough(text, limit=299), shape
    assert shallow_enough(text, limit=100_000), shape
    load_yaml(text, "deep.yaml")  # 300 levels: read


def test_a_document_as_deep_as_the_limit_is_composed_without_a_crash(tmp_path: Path) -> None:
    proc = _fields(tmp_path, HEAD + "x-deep: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n")
    assert proc.returncode == 2 and "nested too deeply" in proc.stderr, proc.stderr[-500:]  # the constructor's
