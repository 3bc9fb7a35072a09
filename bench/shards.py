"""Sharded check: one `satori-ci check` against N shards run as N concurrent processes, then `satori-ci merge`.

On GitHub's REST spec (@octokit/openapi, as bench/spec_scale.py loads it; `--spec FILE` for another) in a
scratch repository with its oracle file inferred first (as a pull request finds it committed) and a
`.satori.yml` giving the common path parameters (owner, repo, org, ...), against a local staging server
(bench/replay_staging.py: every GET operation answered with a body built from the spec's examples and schemas,
after `--latency-ms`, a staging server's round trip). Printed: the operations and requests, the wall time of
the unsharded check, of the N shards side by side (N processes on this machine's CPUs) and of the merge, their
ratio, each shard run alone (what one job of a CI matrix takes, on its own runner) and the matrix's time
(slowest shard + merge), the requests the shards sent for each other's chained ids, the partial reports' size,
and whether the merged report (JSON, run time left out) equals the unsharded one.

    python3 bench/shards.py [--shards 4] [--runner native|newman] [--latency-ms 50] [--operations N] [--spec FILE]
                            [--no-alone]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _npm import github_spec  # noqa: E402
from replay_staging import ReplayStaging  # noqa: E402

from satori_ci.spec import load_spec  # noqa: E402

SPEC = "api/spec.json"
CONFIG = """\
specs:
  - path: api/spec.json
    requests:
      values: {owner: octocat, repo: hello-world, org: github, username: octocat, enterprise: acme,
               team_slug: justice-league, gist_id: aa5a315d61ae9438b18d, package_type: npm,
               package_name: hello, ref: main, branch: main, tag: v1.0.0, path: README.md, sha: a1b2c3}
"""


def limited(raw: dict[str, Any], operations: int) -> dict[str, Any]:
    """The spec with only its first `operations` paths that have a GET (in document order)."""
    paths = raw.get("paths") or {}
    kept: dict[str, Any] = {}
    for path, item in paths.items():
        if len(kept) >= operations:
            break
        if isinstance(item, dict) and "get" in item:
            kept[path] = item
    return {**raw, "paths": kept}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _satori(*args: str) -> list[str]:
    return [sys.executable, "-m", "satori_ci", *args]


def _timeless(report: dict[str, Any]) -> dict[str, Any]:
    for spec in report.get("specs", []):
        if spec.get("run"):
            spec["run"]["seconds"] = 0
    return report


def _first_difference(a: Any, b: Any, where: str = "$") -> str | None:
    if type(a) is not type(b):
        return where
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            found = _first_difference(a.get(key), b.get(key), f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where} (lengths {len(a)} and {len(b)})"
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{where}[{n}]")
            if found:
                return found
        return None
    return None if a == b else where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shards", type=int, default=4, help="shards run side by side (default 4)")
    parser.add_argument("--runner", choices=("native", "newman"), default="native", help="default native")
    parser.add_argument("--latency-ms", type=float, default=50.0,
                        help="the staging server's delay before each response (default 50; 0: as fast as it goes)")
    parser.add_argument("--operations", type=int, help="only the first N paths with a GET (default: all)")
    parser.add_argument("--spec", type=Path, help="a JSON OpenAPI spec (default: GitHub's REST spec)")
    parser.add_argument("--no-alone", dest="alone", action="store_false",
                        help="do not also run each shard alone (what one job of a CI matrix takes)")
    args = parser.parse_args(argv)
    source = args.spec or github_spec()
    raw = json.loads(source.read_text(encoding="utf-8"))
    if args.operations:
        raw = limited(raw, args.operations)
    with tempfile.TemporaryDirectory(prefix="satori-bench-shards-") as tmp:
        repo = Path(tmp) / "repo"
        (repo / "api").mkdir(parents=True)
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        (repo / SPEC).write_text(json.dumps(raw), encoding="utf-8")
        (repo / ".satori.yml").write_text(CONFIG, encoding="utf-8")
        started = time.perf_counter()
        subprocess.run(_satori("infer", SPEC, "--quiet"), cwd=repo, env=_env(), check=True, capture_output=True)
        inferred_s = time.perf_counter() - started
        spec = load_spec(str(repo / SPEC))
        with ReplayStaging(spec, latency_s=args.latency_ms / 1000) as staging:
            check = _satori("check", "--head", SPEC, "--staging-url", staging.base_url, "--runner", args.runner,
                            "--quiet")
            started = time.perf_counter()
            whole = subprocess.run([*check, "--json", "--no-write"], cwd=repo, env=_env(), capture_output=True,
                                   text=True, check=False)
            whole_s = time.perf_counter() - started
            whole_requests = staging.received()
            reports = [Path(tmp) / f"shard-{i}.json" for i in range(1, args.shards + 1)]
            started = time.perf_counter()
            shards = [subprocess.Popen([*check, "--shard", f"{i}/{args.shards}", "--shard-report", str(report)],
                                       cwd=repo, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       text=True)
                      for i, report in enumerate(reports, start=1)]
            ended: dict[int, float] = {}
            while len(ended) < len(shards):
                for n, process in enumerate(shards):
                    if n not in ended and process.poll() is not None:
                        ended[n] = time.perf_counter() - started
                time.sleep(0.05)
            shards_s = time.perf_counter() - started
            for process in shards:
                err = process.stderr.read() if process.stderr else ""
                if process.returncode != 0:
                    print(f"a shard failed (exit {process.returncode}): {err.strip()[-300:]}", file=sys.stderr)
                    return 3
            shard_requests = staging.received() - whole_requests
            alone = []
            for i, report in enumerate(reports, start=1):  # one at a time: what each job of a matrix takes
                if not args.alone:
                    break
                started = time.perf_counter()
                subprocess.run([*check, "--shard", f"{i}/{args.shards}", "--shard-report", str(report)], cwd=repo,
                               env=_env(), capture_output=True, check=True)
                alone.append(time.perf_counter() - started)
        started = time.perf_counter()
        merged = subprocess.run(_satori("merge", *map(str, reports), "--json", "--no-write"), cwd=repo, env=_env(),
                                capture_output=True, text=True, check=False)
        merge_s = time.perf_counter() - started
        if not merged.stdout:
            print(f"the merge failed (exit {merged.returncode}): {merged.stderr.strip()[-300:]}", file=sys.stderr)
            return 3
        a, b = _timeless(json.loads(whole.stdout)), _timeless(json.loads(merged.stdout))
        run = a["specs"][0]["run"] or {}
        sizes = [r.stat().st_size for r in reports]
    print(f"{source.name}{f' (first {args.operations} paths with a GET)' if args.operations else ''}: "
          f"{staging.operations} GET operations served ({len(run.get('operations', []))} operations in the coverage), "
          f"{run.get('requests', 0)} requests sent ({run.get('checked', 0)} checked), "
          f"{run.get('oracles_exercised', 0)} oracles exercised, {len(a['specs'][0]['violations'])} violations "
          f"listed; runner {args.runner}, staging latency {args.latency_ms:g} ms, {os.cpu_count()} CPUs")
    print(f"  oracle file inferred first (the committed one): {inferred_s:.1f} s")
    print(f"  unsharded check          {whole_s:7.1f} s  (exit {whole.returncode}, {whole_requests} requests)")
    print(f"  {args.shards} shards side by side   {shards_s:7.1f} s  (done at "
          f"{', '.join(f'{ended[n]:.1f}' for n in sorted(ended))} s; {shard_requests} requests, "
          f"{shard_requests - whole_requests:+d} for other shards' chained ids)")
    print(f"  merge                    {merge_s:7.1f} s  (exit {merged.returncode}; partial reports "
          f"{', '.join(f'{s / 1e6:.1f}' for s in sizes)} MB)")
    total = shards_s + merge_s
    print(f"  sharded total            {total:7.1f} s  = {whole_s / total:.2f}x the unsharded check's speed "
          f"(the {args.shards} processes share {os.cpu_count()} CPUs)")
    if alone:
        matrix = max(alone) + merge_s
        print(f"  each shard alone         {', '.join(f'{t:.1f}' for t in alone)} s: as a CI matrix (a runner per "
              f"shard) {matrix:.1f} s = {whole_s / matrix:.2f}x")
    difference = _first_difference(a, b)
    print(f"  merged report equals the unsharded one (JSON, run time left out): "
          f"{'yes' if difference is None else f'NO, first difference at {difference}'}")
    return 0 if difference is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
