"""Shared test settings."""

from __future__ import annotations

import compileall
import contextlib
import gc
import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci import collector

PACKAGE = Path(__file__).resolve().parents[1] / "satori_ci"
TESTS = Path(__file__).resolve().parent


NO_PUBLIC_CA = TESTS / "no-public-ca.pem"
"""A throwaway self-signed certificate, the only CA the tests trust: they never reach the internet, and each TLS
client (the LLM tests make 66) loads it in 0.5 ms instead of the system's bundle in 45 ms."""


def pytest_configure(config: pytest.Config) -> None:
    """Before the workers start, the package compiled to bytecode once (0.7 s): the `satori-ci` processes the tests
    start, and each worker, then read it. Where `PYTHONDONTWRITEBYTECODE` is set, as on many CI machines, every
    one of those processes would otherwise compile every module it imports, again."""
    _collect_garbage_once_at_the_end(config)
    collector.run_less_often()
    os.environ["SSL_CERT_FILE"] = str(NO_PUBLIC_CA)  # read by OpenSSL's defaults and httpx (the openai client)
    os.environ.pop("SSL_CERT_DIR", None)
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(PACKAGE, quiet=2)
        if config.getoption("numprocesses", None):
            _rewrite_test_modules_once(config)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (the test modules, what they import, the items) lives as long as the process: frozen,
    the collector's passes skip it. With `satori_ci.collector`'s thresholds (set in `pytest_configure`, as a `satori-ci`
    process sets them), the four workers' collector time went from about 17 s of CPU to 8 s."""
    del session
    gc.freeze()


def _collect_garbage_once_at_the_end(config: pytest.Config) -> None:
    """pytest looks for exceptions raised where nothing could catch them (`__del__`, callbacks) with five full garbage
    collections as each process ends (0.8 s for the five after the collection alone, more after a worker's tests);
    one finds what these tests leave. Set through the key pytest keeps for this (internal API): if it goes, the
    default stays."""
    with contextlib.suppress(ImportError, AttributeError):
        from _pytest import unraisableexception

        config.stash[unraisableexception.gc_collect_iterations_key] = 1


def _test_modules(config: pytest.Config) -> Iterator[Path]:
    """The test modules and conftest files under the paths the run was given (all of tests/ by default)."""
    for arg in config.args or [str(TESTS)]:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path.is_file():
            yield path
        elif path.is_dir():
            root = TESTS if path in TESTS.parents else path  # the checkout: its tests, not node_modules' Python
            if root == TESTS or TESTS in root.parents:
                yield from (p for p in sorted(root.rglob("*.py"))
                            if p.name.startswith("test_") or p.name == "conftest.py")


def _rewrite_test_modules_once(config: pytest.Config) -> None:
    """Before the workers start, the test modules' assertion rewriting (pytest's, ~7 s of CPU for the suite), and the
    plugins' (`_plugin_modules`), done once and cached in `__pycache__`, split over the cores: every worker collects
    every module and imports the plugins, and where
    `PYTHONDONTWRITEBYTECODE` is set none would cache its rewrite, so each would do all of it again. This uses pytest's
    own rewriting functions (internal API); if they change, nothing is cached and the workers rewrite as before."""
    try:
        from _pytest.assertion import rewrite

        def cached(fn: Path) -> Path:
            return rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)

        state = config.stash[rewrite.assertstate_key]
        modules = [*_test_modules(config), *_plugin_modules(state)]
        todo = [fn for fn in dict.fromkeys(modules) if rewrite._read_pyc(fn, cached(fn)) is None]

        def rewrite_all(files: list[Path]) -> None:
            for fn in files:
                with contextlib.suppress(OSError, SyntaxError):  # the workers report it, as without the cache
                    if rewrite.try_makedirs(cached(fn).parent):
                        stat, code = rewrite._rewrite_test(fn, config)
                        rewrite._write_pyc(state, code, stat, cached(fn))
    except (ImportError, AttributeError, KeyError):
        return
    share = (os.cpu_count() or 1) if hasattr(os, "fork") else 1
    chunks = [todo[i::share] for i in range(share)]
    children = []
    for chunk in chunks[1:]:
        pid = os.fork()
        if pid == 0:  # a copy of this process: rewrites its share, then leaves without pytest's exit handlers
            try:
                rewrite_all(chunk)
            finally:
                os._exit(0)
        children.append(pid)
    rewrite_all(chunks[0])
    for pid in children:
        os.waitpid(pid, 0)


def _plugin_modules(state: Any) -> Iterator[Path]:
    """The modules of the installed pytest plugins (hypothesis, xdist, anyio): pytest rewrites the assertions of every
    module of a plugin's distribution too, so each worker would rewrite those it imports (~1 s of CPU) again."""
    hook = state.hook
    for name in sorted(hook._must_rewrite if hook is not None else ()):
        with contextlib.suppress(ImportError, ValueError):  # a name pytest marked that is no module here
            spec = importlib.util.find_spec(name)
            if spec is None:
                continue
            folders = spec.submodule_search_locations
            if folders:
                yield from (p for folder in folders for p in sorted(Path(folder).rglob("*.py")))
            elif spec.origin and spec.origin.endswith(".py"):
                yield Path(spec.origin)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: twice as many workers as cores (4 on 2 cores). Many tests wait (on a local server's answer, a
    timeout): another worker uses the core meanwhile. Each worker collects every module (about 3 s of CPU); with
    the slowest files first, 4 workers on 2 cores took 119 and 125 s where 3 took 130 and 134 (interleaved runs)."""
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest files first (`tests/durations.json`, `python3 -m tests.durations`), each file's tests in their
    order: the workers take whole files in this order, and the last ones taken are short."""
    del config
    try:
        known: dict[str, float] = json.loads((TESTS / "durations.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    slowest = max(known.values(), default=0.0)

    def seconds(item: pytest.Item) -> float:
        name = item.nodeid.split("::", 1)[0]
        return known.get(name, slowest)  # a new file may be slow: early

    items.sort(key=seconds, reverse=True)  # stable: a file's tests keep their order
