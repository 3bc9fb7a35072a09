"""`satori-preload.js` keeps what V8 compiled for Newman's modules and the sandbox's boot code in one file
(SATORI_CODE_CACHE): a second run reuses all of it and leaves the file as it was; a changed source, a damaged or
foreign file, an unwritable place change nothing a module does; a cached module keeps its `require`, file names
and hashbang, one that may call `import()` is left to Node.js (a cached one would lose it); satori-ci puts the
file beside the newman it runs (real Node.js, real Newman)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import Bookshop
from satori_ci.run import code_cache, newman
from tests.run.conftest import BOOKSHOP_SPEC, FIXTURES, newman_available

MAGIC = b"satori-ci code cache 1\n"

PROBE = """
const vm = require('vm');
const main = require('pkg');
const big = '/*' + 'x'.repeat(1100000) + '*/ 6 * 7';
const context = vm.createContext({});
main.dynamic().then(function (esm) {
  console.log(JSON.stringify({value: main.value, file: main.file, dir: main.dir, resolved: main.resolved,
                              paths: main.paths, isMain: main.isMain, hashbang: require('pkg/bin.js').ok,
                              esm: esm.default, boot: vm.runInContext(big, context, {timeout: 5000}),
                              named: vm.runInContext(big, context, {filename: 'other.js'})}));
});
"""


def _packages(root: Path, value: str = "one") -> Path:
    """A node_modules folder with a CommonJS package that requires and resolves, has a module that imports an ES
    module and a hashbang file."""
    package = root / "node_modules" / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    (package / "package.json").write_text('{"name": "pkg", "main": "index.js"}', encoding="utf-8")
    (package / "index.js").write_text(
        f"exports.value = require('./part').twice({value!r});\n"
        "exports.file = __filename; exports.dir = __dirname;\n"
        "exports.resolved = require.resolve('./part');\n"
        "exports.paths = Array.isArray(require.resolve.paths('x'));\n"
        "exports.isMain = require.main === module;\n"
        "exports.dynamic = require('./dynamic').load;\n", encoding="utf-8")
    (package / "dynamic.js").write_text("exports.load = function () { return import('./esm.mjs'); };\n",
                                        encoding="utf-8")
    (package / "part.js").write_text("exports.twice = function (s) { return s + s; };\n", encoding="utf-8")
    (package / "esm.mjs").write_text("export default 'esm';\n", encoding="utf-8")
    (package / "bin.js").write_text("#!/usr/bin/env node\nexports.ok = true;\n", encoding="utf-8")
    return root / "node_modules"


def _run(root: Path, cache: Path) -> dict[str, object]:
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    env = {**os.environ, "NODE_OPTIONS": newman._node_options(), "NODE_PATH": str(root / "node_modules"),
           code_cache.CODE_CACHE_ENV: str(cache)}
    done = subprocess.run(["node", "-e", PROBE], env=env, cwd=root, capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stderr == ""
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _entries(cache: Path) -> dict[str, int]:
    data = cache.read_bytes()
    assert data.startswith(MAGIC)
    index: dict[str, int] = json.loads(data[len(MAGIC):data.index(b"\n", len(MAGIC))])
    return index


def _untimed(out: str) -> str:
    return re.sub(r", [0-9.]+ s$", "", out, flags=re.MULTILINE)


def _expected(modules: Path, value: str = "oneone") -> dict[str, object]:
    return {"value": value, "file": str(modules / "pkg" / "index.js"), "dir": str(modules / "pkg"),
            "resolved": str(modules / "pkg" / "part.js"), "paths": True, "isMain": False, "hashbang": True,
            "esm": "esm", "boot": 42, "named": 42}


def test_a_second_run_reuses_every_compiled_script_and_leaves_the_file_alone(tmp_path: Path) -> None:
    modules = _packages(tmp_path)
    cache = tmp_path / "cache" / "code.bin"
    assert _run(tmp_path, cache) == _expected(modules)
    first = cache.read_bytes()
    assert len(_entries(cache)) == 4  # index.js, part.js, bin.js and the boot code; not dynamic.js, the named script
    os.utime(cache, ns=(0, 0))
    assert _run(tmp_path, cache) == _expected(modules)
    assert cache.read_bytes() == first and cache.stat().st_mtime_ns == 0


def test_a_changed_module_runs_as_changed_and_is_cached_beside_the_old(tmp_path: Path) -> None:
    modules = _packages(tmp_path)
    cache = tmp_path / "code.bin"
    _run(tmp_path, cache)
    _packages(tmp_path, value="two")
    assert _run(tmp_path, cache) == _expected(modules, value="twotwo")
    assert len(_entries(cache)) == 5


@pytest.mark.parametrize("damage", [b"", b"garbage", MAGIC + b"{not json\n", MAGIC + b'{"k": 99}\n' + b"x" * 10,
                                    MAGIC + b'{"k": -1}\n', MAGIC + b"[]\n"])
def test_a_damaged_cache_is_no_cache_and_is_written_anew(damage: bytes, tmp_path: Path) -> None:
    modules = _packages(tmp_path)
    cache = tmp_path / "code.bin"
    cache.write_bytes(damage)
    assert _run(tmp_path, cache) == _expected(modules)
    assert len(_entries(cache)) == 4


def test_a_cache_v8_rejects_is_compiled_anew(tmp_path: Path) -> None:
    modules = _packages(tmp_path)
    cache = tmp_path / "code.bin"
    _run(tmp_path, cache)
    index = _entries(cache)
    zeroed = MAGIC + json.dumps(index).encode() + b"\n" + b"\x00" * sum(index.values())
    cache.write_bytes(zeroed)
    assert _run(tmp_path, cache) == _expected(modules)
    assert cache.read_bytes() != zeroed and _entries(cache) == index  # each compiled again, under the same key


def test_an_unwritable_cache_place_changes_nothing(tmp_path: Path) -> None:
    modules = _packages(tmp_path)
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert _run(tmp_path, tmp_path / "file" / "code.bin") == _expected(modules)
    assert list(tmp_path.glob("file*")) == [tmp_path / "file"]


def test_the_cache_sits_in_the_node_modules_folder_of_the_newman_run(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    (modules / "newman" / "bin").mkdir(parents=True)
    (modules / "newman" / "bin" / "newman.js").write_text("", encoding="utf-8")
    (modules / ".bin").mkdir()
    (modules / ".bin" / "newman").symlink_to("../newman/bin/newman.js")
    expected = modules.resolve() / ".cache" / "satori-ci" / code_cache.CODE_CACHE_NAME
    assert code_cache.code_cache_file(str(modules / ".bin" / "newman")) == expected
    (tmp_path / "elsewhere").write_text("", encoding="utf-8")
    assert code_cache.code_cache_file(str(tmp_path / "elsewhere")) is None
    assert code_cache.code_cache_file(str(tmp_path / "missing")) is None


def test_newman_runs_the_same_with_its_cache_and_keeps_it(bookshop: Bookshop, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """satori-ci's Newman run writes the cache beside that newman, the next reads it back whole, and both give the
    same results; a SATORI_CODE_CACHE of the user's is not the one used."""
    real = Path(newman_available()).resolve()
    wrapper = tmp_path / "node_modules" / ".bin" / "newman"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv(newman.NEWMAN_ENV, str(wrapper))
    monkeypatch.setenv(code_cache.CODE_CACHE_ENV, str(tmp_path / "theirs.bin"))
    bookshop.plant("total_negative")
    args = ["run", str(BOOKSHOP_SPEC), "--oracles", str(FIXTURES / "bookshop.oracles.yaml"), "--base-url",
            bookshop.server.base_url, "--runner", "newman", "--no-observe"]
    assert main(args) == 1
    first = capsys.readouterr()
    cache = tmp_path / "node_modules" / ".cache" / "satori-ci" / code_cache.CODE_CACHE_NAME
    written = cache.read_bytes()
    assert len(_entries(cache)) > 500
    assert main(args) == 1
    again = capsys.readouterr()
    assert again.err == first.err and _untimed(again.out) == _untimed(first.out) and "total = -1" in first.out
    assert cache.read_bytes() == written and not (tmp_path / "theirs.bin").exists()
