"""The architecture as written holds in the code: import contracts, the ARCHITECTURE.md table, module sizes."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "satori_ci"
MAX_LINES = 450
LONG_REASON = "over 450 lines because"


def _lint_imports() -> str:
    found = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(found).exists():
        pytest.fail("lint-imports is not installed: pip install -e '.[dev]'")
    return found


def test_every_import_contract_is_kept() -> None:
    proc = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["id"] == "layers")["layers"]


def test_the_architecture_page_draws_the_layers_of_the_contract() -> None:
    page = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- layers: generated from pyproject.toml -->\n```\n(.*?)```", page, re.S)
    assert block, "ARCHITECTURE.md has no layers block"
    assert block.group(1) == render_layers(_layers())


def render_layers(layers: list[str]) -> str:
    """The contract's layers, top first, as ARCHITECTURE.md shows them."""
    return "".join(f"{' | '.join(p.strip() for p in layer.split('|'))}\n" for layer in layers)


def _table() -> dict[str, set[str]]:
    """Package -> the packages its row says it may import."""
    rows: dict[str, set[str]] = {}
    for line in (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines():
        row = re.match(r"\| `satori_ci/([a-z_]+)/?` \|.*\| ([^|]*) \|$", line)
        if row:
            named = set(re.findall(r"`([a-z_]+)", row.group(2)))
            rows[row.group(1)] = named | ({"everything"} if "everything" in row.group(2) else set())
    return rows


def test_the_architecture_table_names_every_import_a_package_makes() -> None:
    graph = grimp.build_graph("satori_ci")
    table = _table()
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert set(packages) <= set(table), f"packages without a row: {sorted(set(packages) - set(table))}"
    wrong = {}
    for package in packages:
        imported = set()
        for module in graph.find_descendants(f"satori_ci.{package}") | {f"satori_ci.{package}"}:
            for target in graph.find_modules_directly_imported_by(module):
                parts = target.split(".")
                if parts[0] == "satori_ci" and len(parts) > 1 and parts[1] != package:
                    imported.add(parts[1])
        allowed = table[package]
        if "everything" not in allowed and not imported <= allowed:
            wrong[package] = sorted(imported - allowed)
    assert not wrong, f"imports the ARCHITECTURE.md table does not name: {wrong}"


def test_no_module_is_over_450_lines_without_saying_why() -> None:
    long = []
    for path in [*PACKAGE.rglob("*.py"), ROOT / "entrypoint.py"]:
        lines = path.read_text(encoding="utf-8").count("\n")
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if lines > MAX_LINES and LONG_REASON not in docstring:
            long.append(f"{path.relative_to(ROOT)}: {lines}")
    assert not long, long


def test_no_module_lies_loose_at_the_package_root() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "errors.py"], loose
