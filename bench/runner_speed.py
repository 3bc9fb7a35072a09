"""Runner speed: Newman against the native runner on the same replayed responses.

A staging server on 127.0.0.1 replays the recorded responses of one labelled operation of ../shared/data
(cycled up to `--responses`); each runner sends the operation's sample request that many times
(`--iterations`) and checks every response against the labels. Printed: wall time per response for each
runner, the ratio, and whether both found the same violations.

    python3 bench/runner_speed.py [--folder yelp-getBusinesses] [--responses 1000] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from satori_ci.demo import Canned, StagingServer
from satori_ci.oracles.file import normalize_value
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan.expand import build_requests
from satori_ci.run.model import RunResult
from satori_ci.run.native import run_native
from satori_ci.run.newman import run_newman
from satori_ci.run.outcome import RunConfig
from satori_ci.spec import load_spec
from satori_ci.spec.model import OperationKey

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def labels(folder: Path) -> list[Oracle]:
    out = []
    for line in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            kind = OracleKind(raw["oracle"])
            out.append(Oracle(OperationKey(raw["method"], raw["path"], str(raw["status"])), raw["field"], kind,
                              normalize_value(kind, raw.get("value")), "label"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--folder", default="yelp-getBusinesses", help="a folder of ../shared/data")
    parser.add_argument("--responses", type=int, default=1000, help="responses replayed per runner (default 1000)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    folder = args.data / args.folder
    if not (folder / "responses.jsonl").is_file():
        print(f"no recorded responses in {folder}", file=sys.stderr)
        return 2
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    recorded = [json.loads(x) for x in (folder / "responses.jsonl").read_text(encoding="utf-8").splitlines() if x]
    replay = [Canned(recorded[i % len(recorded)]["body"]) for i in range(args.responses)]
    spec = load_spec(str(folder / "spec.json"))
    collection = build_requests(spec, labels(folder), null_like=tuple(meta.get("null_like") or ()))
    items = list(collection.requests())
    if len(items) != 1:
        print(f"{folder.name}: expected one request, the collection has {len(items)}", file=sys.stderr)
        return 2
    server = StagingServer()
    server.route(meta["method"], meta["path"])
    results: dict[str, tuple[RunResult, float]] = {}
    with server:
        config = RunConfig(server.base_url, retries=0, iterations=args.responses)
        for name, runner in (("native", run_native), ("newman", run_newman)):
            server.clear()
            server.enqueue(meta["method"], meta["path"], replay)
            started = time.perf_counter()
            result = runner(collection, config)
            results[name] = (result, time.perf_counter() - started)
    print(f"{folder.name}: {args.responses} replayed responses, {len(labels(folder))} oracles")
    for name, (result, seconds) in results.items():
        print(f"  {name:<7} {seconds:7.2f} s  {1000 * seconds / args.responses:7.2f} ms/response  "
              f"({result.checked} checked, {len(result.violations)} violations)")
    native, newman = results["native"], results["newman"]
    print(f"  newman / native: {newman[1] / native[1]:.1f}x")
    same = native[0].violations == newman[0].violations
    print(f"  same violations: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
