"""Check inferred oracles against the real recorded responses of the labelled data set (--data DIR).

Every oracle that a real response violates is listed, with how often and one example, and judged:
a *real API bug* when the labelled ground truth holds the same oracle (the labellers found the API
breaking its own documentation), else a *false alarm* of the backend.

    python3 bench/false_alarms.py [--backend rules|declared] [--data DIR]   (default ../shared/data)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _data
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import add_data_option, require_data

from satori_ci.infer.factory import make_backend
from satori_ci.oracles.check import check_body
from satori_ci.oracles.model import Oracle
from satori_ci.report.oracle_text import describe
from satori_ci.spec import load_spec


def _value_key(value: object) -> object:
    if isinstance(value, list | tuple):
        return frozenset(float(v) if isinstance(v, int | float) else v for v in value)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def labelled(folder: Path) -> set[tuple[str, str, object]]:
    out = set()
    for line in (folder / "labels.jsonl").read_text().splitlines():
        label = json.loads(line)
        out.add((label["field"], label["oracle"], _value_key(label.get("value"))))
    return out


def run_folder(folder: Path, backend_name: str) -> tuple[int, int, list[str]]:
    meta = json.loads((folder / "meta.json").read_text())
    spec = load_spec(str(folder / "spec.json"))
    fields = [f for f in spec.fields if f.operation.method == meta["method"] and f.operation.path == meta["path"]]
    first = json.loads((folder / "fields.jsonl").read_text().splitlines()[0])
    fields = [f for f in fields if f.operation_id == first.get("operation_id")]
    oracles: list[Oracle] = [o for r in make_backend(backend_name).infer(fields).results for o in r.oracles]
    labels = labelled(folder) if (folder / "labels.jsonl").exists() else set()
    hits: Counter[int] = Counter()
    example: dict[int, str] = {}
    responses = [json.loads(line) for line in (folder / "responses.jsonl").read_text().splitlines()]
    by_status: dict[str, list[Oracle]] = defaultdict(list)
    for oracle in oracles:
        by_status[oracle.operation.status].append(oracle)
    for number, response in enumerate(responses, 1):
        applicable = by_status.get(str(response.get("status")), [])
        for finding in check_body(applicable, response["body"], meta.get("null_like", [])):
            index = applicable.index(finding.oracle)
            key = id(applicable[index])
            hits[key] += 1
            example.setdefault(key, f"response {number} {finding.pointer}: {finding.message}")
    lines = []
    for oracle in oracles:
        if hits[id(oracle)]:
            verdict = ("real API bug (labelled)" if (oracle.field, oracle.kind.value, _value_key(oracle.value))
                       in labels else "FALSE ALARM")
            lines.append(f"  {verdict}: {oracle.field} {describe(oracle)} violated in {hits[id(oracle)]} "
                         f"value(s); e.g. {example[id(oracle)]} [reason: {oracle.reason}]")
    return len(oracles), len(responses), lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="rules", choices=("rules", "declared"))
    add_data_option(parser)
    args = parser.parse_args()
    folders = sorted(p for p in require_data(args.data).iterdir() if (p / "responses.jsonl").exists())
    if not folders:
        print(f"no data folders with responses.jsonl under {args.data}", file=sys.stderr)
        return 2
    total_false = total_bugs = 0
    for folder in folders:
        count, responses, lines = run_folder(folder, args.backend)
        false = sum("FALSE ALARM" in line for line in lines)
        total_false += false
        total_bugs += len(lines) - false
        print(f"{folder.name}: {count} oracles, {responses} responses, {len(lines)} violated "
              f"({false} false alarms, {len(lines) - false} real API bugs)")
        for line in lines:
            print(line)
    print(f"{args.backend}: {total_false} false alarm oracle(s), {total_bugs} real API bug oracle(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
