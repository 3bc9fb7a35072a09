"""GitHub's REST spec: `load_spec` (load + resolve + fields + fingerprints) against plain parsers.

JSON: `load_spec` on `api.github.com.json` as a ratio to `json.load` of the same file, and `plan_requests` (which
operations a check sends, with which inputs) on the loaded spec as a ratio to `load_spec`.
YAML: the same document dumped once to YAML in two styles (each cached in bench/.cache, made in a
subprocess): block style by PyYAML's C dumper, and flow style by ruamel's round-trip dumper
(`default_flow_style = None`: collections of scalars in flow style, which writes plain URLs inside flow
mappings, `{url: https://x}`, refused by libyaml 0.1); `load_spec` on each as a ratio to PyYAML's C
loader (`yaml.load(f, Loader=yaml.CSafeLoader)`) on the same file.

Whole processes, as a user meets them: `satori-ci fields --json FILE > /dev/null` (this checkout's, its
bytecode compiled first, run as `python -m satori_ci`: start-up, imports, load, lines, output and exit)
against a process that only parses the file, `python3 -c 'import json,sys; json.load(open(sys.argv[1]))'
FILE` for the JSON and `yaml.load(..., Loader=yaml.CSafeLoader)` for each YAML copy; best of N of each,
interleaved (N at least `JSON_PROCESS_RUNS` for the JSON pair). Both run by this interpreter itself
(`sys.executable`, not a launcher such as pyenv's shim).

Every measurement runs in a fresh subprocess (the runs of each kind interleaved, best of N taken),
which also gives each load's peak memory: the peak resident set of that process, read from `VmHWM` in
/proc/self/status (Linux; `resource.getrusage(RUSAGE_SELF).ru_maxrss` elsewhere, which on Linux would
also count the parent's size at fork), including the interpreter and imports (printed as the baseline).

    python3 bench/spec_scale.py [--runs 3] [--with-ruamel-pure]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's satori_ci

from _npm import CACHE, OCTOKIT_OPENAPI, github_spec

JSON_TARGET = 5.0
YAML_TARGET = 1.5
PEAK_TARGET_MB = 2048.0
PLAN_TARGET = 2.0
"""The request plan of the loaded spec, as a ratio to `load_spec` (it was quadratic in the operations and
their parameters: GitHub's spec took hours)."""
PROCESS_JSON_TARGET = 4.0
PROCESS_YAML_TARGET = 1.5
JSON_PROCESS_RUNS = 9
"""Runs of the JSON whole processes at least (about a second each): `fields` scans key lines on the second core,
so a neighbour busy there slows it and not `json.load`; the best of more runs is less often one of those."""
ROOT = Path(__file__).resolve().parents[1]

_PROCESSES = {
    "python json.load": ["-c", "import json,sys; json.load(open(sys.argv[1]))"],
    "python yaml.load (CSafeLoader)": ["-c", "import yaml,sys; yaml.load(open(sys.argv[1]), Loader=yaml.CSafeLoader)"],
    "satori-ci fields --json": ["-m", "satori_ci", "fields", "--json"],
}


def _measure(kind: str, path: str) -> dict[str, Any]:
    """One load of `path` by `kind`, in this (fresh) process: seconds, peak RSS and, for load_spec, counts."""
    import yaml  # type: ignore[import-untyped,unused-ignore]

    from satori_ci.spec import load_spec  # imported by every kind: the same baseline for all

    result: dict[str, Any] = {}
    start = time.perf_counter()
    if kind == "baseline":
        pass
    elif kind == "json.load":
        with open(path, encoding="utf-8") as f:
            json.load(f)
    elif kind == "yaml.CSafeLoader":
        with open(path, encoding="utf-8") as f:
            yaml.load(f, Loader=yaml.CSafeLoader)
    elif kind == "ruamel.rt.pure":
        from ruamel.yaml import YAML

        with open(path, encoding="utf-8") as f:
            YAML(typ="rt", pure=True).load(f)
    elif kind == "load_spec":
        spec = load_spec(path)
        result.update(fields=len(spec.fields), operations=len(spec.operations),
                      responses=sum(len(op.statuses) for op in spec.operations))
    elif kind == "plan_requests":
        from satori_ci.plan import plan_requests

        spec = load_spec(path)
        start = time.perf_counter()  # the plan alone: what a check adds to reading the spec
        plan = plan_requests(spec)
        result.update(planned=len(plan.operations), skipped=len(plan.skipped))
    else:
        raise SystemExit(f"unknown measurement {kind!r}")
    result["seconds"] = time.perf_counter() - start
    result["peak_mb"] = _peak_mb()
    return result


def _peak_mb() -> float:
    """Peak resident set of this process in MB: VmHWM (this exec's own), else ru_maxrss."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _run(kind: str, path: Path) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, __file__, "--measure", kind, str(path)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{kind} on {path} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _best(kinds: list[tuple[str, Path]], runs: int) -> dict[tuple[str, Path], dict[str, Any]]:
    """Best time (and the highest peak) of `runs` fresh-process runs of each kind, interleaved."""
    best: dict[tuple[str, Path], dict[str, Any]] = {}
    for _ in range(runs):
        for kind, path in kinds:
            got = _run(kind, path)
            key = (kind, path)
            seen = best.get(key)
            if seen is None:
                best[key] = got
            else:
                peak = max(seen["peak_mb"], got["peak_mb"])
                if got["seconds"] < seen["seconds"]:
                    best[key] = got
                best[key]["peak_mb"] = peak
    return best


def _process_seconds(kind: str, path: Path) -> float:
    """Wall time of one whole process of `kind` on `path`, its output sent to /dev/null."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *_PROCESSES[kind], str(path)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False, cwd=ROOT, env=env)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{kind} on {path} failed:\n{proc.stderr}")
    return seconds


def _best_processes(kinds: list[tuple[str, Path]], runs: int) -> dict[tuple[str, Path], float]:
    """Best wall time of `runs` whole processes of each kind, interleaved."""
    best: dict[tuple[str, Path], float] = {}
    for _ in range(runs):
        for kind, path in kinds:
            seconds = _process_seconds(kind, path)
            best[(kind, path)] = min(seconds, best.get((kind, path), seconds))
    return best


def _process_line(label: str, seconds: float, base: float | None, target: float | None) -> str:
    text = f"  {label:<34} {seconds:7.2f} s"
    if base is not None:
        ratio = seconds / base
        text += f"   {ratio:5.2f}x"
        if target is not None:
            text += f" (target <= {target:g}x: {'ok' if ratio <= target else 'MISSED'})"
    return text


def _yaml_copy(json_path: Path) -> Path:
    """The spec as block-style YAML (PyYAML's C dumper), made once."""
    return _cached_copy(json_path, f"api.github.com-{OCTOKIT_OPENAPI[1]}.yaml", _TO_YAML, "YAML")


def _flow_yaml_copy(json_path: Path) -> Path:
    """The spec as ruamel's round-trip dumper writes it with collections of scalars in flow style, made once."""
    return _cached_copy(json_path, f"api.github.com-{OCTOKIT_OPENAPI[1]}-flow.yaml", _TO_FLOW_YAML,
                        "flow-style YAML (ruamel's pure-Python dumper: about a minute)")


def _cached_copy(json_path: Path, name: str, script: str, what: str) -> Path:
    target = CACHE / "github" / name
    if target.is_file():
        return target
    print(f"converting {json_path.name} to {what} once (cached at {target}) ...", flush=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".yaml.partial")
    # in a subprocess, so that this process stays small for the ones it starts
    subprocess.run([sys.executable, "-c", script, str(json_path), str(partial)], check=True)
    partial.rename(target)
    return target


_TO_YAML = """
import json, sys, yaml
with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    yaml.dump(data, out, Dumper=yaml.CSafeDumper, sort_keys=False)
"""

_TO_FLOW_YAML = """
import json, sys
from ruamel.yaml import YAML
with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
y = YAML(typ="rt")
y.default_flow_style = None
y.width = 4096
with open(sys.argv[2], "w", encoding="utf-8") as out:
    y.dump(data, out)
"""


def _line(label: str, got: dict[str, Any], base: dict[str, Any] | None, target: float | None) -> str:
    text = f"  {label:<34} {got['seconds']:7.2f} s   peak {got['peak_mb']:7.0f} MB"
    if base is not None:
        ratio = got["seconds"] / base["seconds"]
        text += f"   {ratio:5.2f}x"
        if target is not None:
            text += f" (target <= {target:g}x: {'ok' if ratio <= target else 'MISSED'})"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement; the best is kept")
    parser.add_argument("--with-ruamel-pure", action="store_true",
                        help="also time ruamel's pure-Python round-trip loader once (slow)")
    parser.add_argument("--measure", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure(*args.measure)))
        return 0

    json_path = github_spec()
    yaml_path, flow_path = _yaml_copy(json_path), _flow_yaml_copy(json_path)
    mb = json_path.stat().st_size / 1e6
    print(f"GitHub REST spec: @octokit/openapi {OCTOKIT_OPENAPI[1]}, {json_path.name} ({mb:.1f} MB), "
          f"YAML copies {yaml_path.stat().st_size / 1e6:.1f} MB (block style), "
          f"{flow_path.stat().st_size / 1e6:.1f} MB (flow style); best of {args.runs} fresh-process runs")
    yaml_copies = [("YAML (block style, PyYAML's dumper)", yaml_path),
                   ("YAML (flow style, ruamel's dumper)", flow_path)]
    kinds = [("baseline", json_path), ("json.load", json_path), ("load_spec", json_path),
             ("plan_requests", json_path)]
    for path in (yaml_path, flow_path):
        kinds += [("yaml.CSafeLoader", path), ("load_spec", path)]
    best = _best(kinds, args.runs)
    base_mb = best[("baseline", json_path)]["peak_mb"]
    print(f"peak memory: VmHWM of each fresh process (interpreter + imports alone: {base_mb:.0f} MB)")
    print("JSON")
    print(_line("json.load", best[("json.load", json_path)], None, None))
    print(_line("load_spec", best[("load_spec", json_path)], best[("json.load", json_path)], JSON_TARGET))
    plan = best[("plan_requests", json_path)]
    print(_line("plan_requests (after load_spec)", plan, best[("load_spec", json_path)], PLAN_TARGET)
          + f"   {plan['planned']:,} operations planned, {plan['skipped']:,} skipped")
    for title, path in yaml_copies:
        print(title)
        print(_line("yaml.load (CSafeLoader)", best[("yaml.CSafeLoader", path)], None, None))
        print(_line("load_spec", best[("load_spec", path)], best[("yaml.CSafeLoader", path)], YAML_TARGET))
    if args.with_ruamel_pure:
        pure = _run("ruamel.rt.pure", yaml_path)
        print(_line("ruamel round-trip, pure (1 run)", pure, best[("yaml.CSafeLoader", yaml_path)], None))
    specs = [best[("load_spec", path)] for path in (json_path, yaml_path, flow_path)]
    peak = max(spec["peak_mb"] for spec in specs)
    print(f"peak of load_spec: {peak:.0f} MB (target < {PEAK_TARGET_MB:.0f} MB: "
          f"{'ok' if peak < PEAK_TARGET_MB else 'MISSED'})")
    counts = ("fields", "operations", "responses")
    differ = [f"{title}: {spec}" for (title, _), spec in zip(yaml_copies, specs[1:], strict=True)
              if any(spec[k] != specs[0][k] for k in counts)]
    same = "same counts" if not differ else "DIFFERENT: " + "; ".join(differ)
    print(f"fields {specs[0]['fields']:,}  operations {specs[0]['operations']:,}  "
          f"responses {specs[0]['responses']:,}  (YAML copies: {same})")

    # bytecode compiled, as an installed package has it (where PYTHONDONTWRITEBYTECODE is set, every process
    # would otherwise compile again each module changed since its last .pyc)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "satori_ci")], check=True)
    fields_cmd, json_cmd, yaml_cmd = "satori-ci fields --json", "python json.load", "python yaml.load (CSafeLoader)"
    json_runs = max(args.runs, JSON_PROCESS_RUNS)
    whole = _best_processes([(json_cmd, json_path), (fields_cmd, json_path)], json_runs)
    whole |= _best_processes([(yaml_cmd, yaml_path), (fields_cmd, yaml_path), (yaml_cmd, flow_path),
                              (fields_cmd, flow_path)], args.runs)
    print("whole processes (wall time, output to /dev/null; interleaved)")
    print(f"JSON (best of {json_runs})")
    print(_process_line(json_cmd, whole[(json_cmd, json_path)], None, None))
    print(_process_line(fields_cmd, whole[(fields_cmd, json_path)], whole[(json_cmd, json_path)],
                        PROCESS_JSON_TARGET))
    for title, path in yaml_copies:
        print(f"{title} (best of {args.runs})")
        print(_process_line(yaml_cmd, whole[(yaml_cmd, path)], None, None))
        print(_process_line(fields_cmd, whole[(fields_cmd, path)], whole[(yaml_cmd, path)], PROCESS_YAML_TARGET))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
