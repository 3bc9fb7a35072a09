"""Newman's start-up with and without the code cache `satori-preload.js` keeps (SATORI_CODE_CACHE).

`satori-ci run --runner newman` on the bookshop example (4 requests, 22 oracles: a run that is almost all start-up)
against its local staging app, N times each way, interleaved: with the cache beside the checkout's newman (the
default) and without it (the same newman through a wrapper outside any node_modules folder, where satori-ci keeps
no cache). Printed: the CPU seconds of the Newman process (user + system, from the children's rusage) for each way,
best and median, their ratio, and the cost of the run that writes the cache (the cache file removed first).

    python3 bench/newman_start.py [--runs 9]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from satori_ci.cli import main as cli
from satori_ci.demo import Bookshop
from satori_ci.run import code_cache, newman

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "satori_ci" / "examples" / "bookshop" / "openapi.v2.yaml"
ORACLES = ROOT / "tests" / "run" / "fixtures" / "bookshop.oracles.yaml"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_run(binary: str, base_url: str) -> float:
    """Newman's CPU seconds for one `satori-ci run`."""
    os.environ[newman.NEWMAN_ENV] = binary
    before = _children_cpu()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli(["run", str(SPEC), "--oracles", str(ORACLES), "--base-url", base_url, "--runner", "newman",
                    "--no-observe"])
    if code != 0:
        raise SystemExit(f"satori-ci run exited {code}")
    return _children_cpu() - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="runs each way (default 9)")
    args = parser.parse_args(argv)
    binary = newman.find_newman()
    cache = code_cache.code_cache_file(binary)
    if cache is None:
        print(f"{binary} is not in a node_modules folder: satori-ci keeps no code cache for it", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder, Bookshop().server as server:
        wrapper = Path(folder) / "newman"
        wrapper.write_text(f'#!/bin/sh\nexec "{Path(binary).resolve()}" "$@"\n', encoding="utf-8")
        wrapper.chmod(0o755)
        cache.unlink(missing_ok=True)
        writing = _one_run(binary, server.base_url)
        times: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(args.runs):
            times["without"].append(_one_run(str(wrapper), server.base_url))
            times["with"].append(_one_run(binary, server.base_url))
    print(f"Newman CPU seconds per run, bookshop example, {args.runs} runs each way (cache: {cache}, "
          f"{cache.stat().st_size / 1e6:.1f} MB)")
    for way, values in times.items():
        print(f"  {way + ' cache':<14} best {min(values):.3f}  median {statistics.median(values):.3f}")
    print(f"  writing run    {writing:.3f}")
    print(f"  ratio with/without: best {min(times['with']) / min(times['without']):.2f}, "
          f"median {statistics.median(times['with']) / statistics.median(times['without']):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
