"""GitHub's REST spec: `load_spec` (load + resolve + fields + fingerprints) against plain parsers.

JSON: `load_spec` on `api.github.com.json` as a ratio to `json.load` of the same file.
YAML: the same document dumped once to YAML with PyYAML's C dumper (cached in bench/.cache), then
`load_spec` on it as a ratio to PyYAML's C loader (`yaml.load(f, Loader=yaml.CSafeLoader)`).

Whole processes, as a user meets them: `satori-ci fields --json FILE > /dev/null` (this checkout's, run
as `python -m satori_ci`: start-up, imports, load, lines, output and exit) against a process that only
parses the file, `python3 -c 'import json,sys; json.load(open(sys.argv[1]))' FILE` for the JSON and
`yaml.load(..., Loader=yaml.CSafeLoader)` for the YAML copy; best of N of each, interleaved.

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
PROCESS_JSON_TARGET = 8.0
PROCESS_YAML_TARGET = 1.5
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


def _best(kinds: list[tuple[str, Path]], runs: int) -> dict[str, dict[str, Any]]:
    """Best time (and the highest peak) of `runs` fresh-process runs of each kind, interleaved."""
    best: dict[str, dict[str, Any]] = {}
    for _ in range(runs):
        for kind, path in kinds:
            got = _run(kind, path)
            key = f"{kind} {path.suffix}"
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
    target = CACHE / "github" / f"api.github.com-{OCTOKIT_OPENAPI[1]}.yaml"
    if target.is_file():
        return target
    print(f"converting {json_path.name} to YAML once (cached at {target}) ...", flush=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".yaml.partial")
    # in a subprocess, so that this process stays small for the ones it starts
    subprocess.run([sys.executable, "-c", _TO_YAML, str(json_path), str(partial)], check=True)
    partial.rename(target)
    return target


_TO_YAML = """
import json, sys, yaml
with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    yaml.dump(data, out, Dumper=yaml.CSafeDumper, sort_keys=False)
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
    yaml_path = _yaml_copy(json_path)
    mb = json_path.stat().st_size / 1e6
    print(f"GitHub REST spec: @octokit/openapi {OCTOKIT_OPENAPI[1]}, {json_path.name} ({mb:.1f} MB), "
          f"YAML copy {yaml_path.stat().st_size / 1e6:.1f} MB; best of {args.runs} fresh-process runs")
    kinds = [("baseline", json_path), ("json.load", json_path), ("load_spec", json_path),
             ("yaml.CSafeLoader", yaml_path), ("load_spec", yaml_path)]
    best = _best(kinds, args.runs)
    base_mb = best["baseline .json"]["peak_mb"]
    spec_json, spec_yaml = best["load_spec .json"], best["load_spec .yaml"]
    print(f"peak memory: VmHWM of each fresh process (interpreter + imports alone: {base_mb:.0f} MB)")
    print("JSON")
    print(_line("json.load", best["json.load .json"], None, None))
    print(_line("load_spec", spec_json, best["json.load .json"], JSON_TARGET))
    print("YAML")
    print(_line("yaml.load (CSafeLoader)", best["yaml.CSafeLoader .yaml"], None, None))
    print(_line("load_spec", spec_yaml, best["yaml.CSafeLoader .yaml"], YAML_TARGET))
    if args.with_ruamel_pure:
        pure = _run("ruamel.rt.pure", yaml_path)
        print(_line("ruamel round-trip, pure (1 run)", pure, best["yaml.CSafeLoader .yaml"], None))
    peak = max(spec_json["peak_mb"], spec_yaml["peak_mb"])
    print(f"peak of load_spec: {peak:.0f} MB (target < {PEAK_TARGET_MB:.0f} MB: "
          f"{'ok' if peak < PEAK_TARGET_MB else 'MISSED'})")
    same = all(spec_json[k] == spec_yaml[k] for k in ("fields", "operations", "responses"))
    yaml_counts = "same counts" if same else f"DIFFERENT: {spec_yaml}"
    print(f"fields {spec_json['fields']:,}  operations {spec_json['operations']:,}  "
          f"responses {spec_json['responses']:,}  (YAML copy: {yaml_counts})")

    fields_cmd, json_cmd, yaml_cmd = "satori-ci fields --json", "python json.load", "python yaml.load (CSafeLoader)"
    whole = _best_processes([(json_cmd, json_path), (fields_cmd, json_path), (yaml_cmd, yaml_path),
                             (fields_cmd, yaml_path)], args.runs)
    print(f"whole processes (wall time, output to /dev/null; best of {args.runs}, interleaved)")
    print("JSON")
    print(_process_line(json_cmd, whole[(json_cmd, json_path)], None, None))
    print(_process_line(fields_cmd, whole[(fields_cmd, json_path)], whole[(json_cmd, json_path)],
                        PROCESS_JSON_TARGET))
    print("YAML")
    print(_process_line(yaml_cmd, whole[(yaml_cmd, yaml_path)], None, None))
    print(_process_line(fields_cmd, whole[(fields_cmd, yaml_path)], whole[(yaml_cmd, yaml_path)],
                        PROCESS_YAML_TARGET))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
