"""Precision and recall of an offline backend against the labelled data in ../shared/data.

Usage: python bench/quality.py [--backend declared|rules] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import DEFAULT_DATA, match_key, read_jsonl, same_value

from satori_ci.infer.factory import make_backend
from satori_ci.oracles.kinds import OracleKind
from satori_ci.spec import ResponseField, Spec, load_spec

BACKENDS = ("declared", "rules")


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def scores(self) -> tuple[float, float, float]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return p, r, f1


@dataclass
class Outcome:
    total: Tally = field(default_factory=Tally)
    by_kind: dict[str, Tally] = field(default_factory=dict)
    false_positives: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    false_negatives: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def count(self, kind: str, outcome: str) -> None:
        for tally in (self.total, self.by_kind.setdefault(kind, Tally())):
            setattr(tally, outcome, getattr(tally, outcome) + 1)


def compare(folder: str, predicted: list[dict[str, Any]], labels: list[dict[str, Any]], out: Outcome) -> None:
    """Match predicted lines against labels (contract §3) and record the outcome."""
    unmatched = list(labels)
    for line in predicted:
        hit = next((lab for lab in unmatched if match_key(lab) == match_key(line)
                    and same_value(lab.get("value"), line.get("value"))), None)
        if hit is None:
            out.count(line["oracle"], "fp")
            out.false_positives.append((folder, line))
        else:
            unmatched.remove(hit)
            out.count(line["oracle"], "tp")
    for lab in unmatched:
        out.count(lab["oracle"], "fn")
        out.false_negatives.append((folder, lab))


def _value(line: dict[str, Any]) -> str:
    value = line.get("value")
    return "" if value is None else f" {value}"


def report(name: str, out: Outcome) -> None:
    print(f"{'kind':<26} {'tp':>4} {'fp':>4} {'fn':>4} {'P':>6} {'R':>6} {'F1':>6}")
    order = [k.value for k in OracleKind]
    for kind in sorted(out.by_kind, key=order.index):
        t = out.by_kind[kind]
        p, r, f1 = t.scores()
        print(f"{kind:<26} {t.tp:>4} {t.fp:>4} {t.fn:>4} {p:>6.2f} {r:>6.2f} {f1:>6.2f}")
    print(f"\nfalse positives ({len(out.false_positives)}):")
    for folder, line in out.false_positives:
        print(f"  {folder}: {line['field']} {line['oracle']}{_value(line)}  -- {line.get('reason', '')}")
    print(f"\nfalse negatives ({len(out.false_negatives)}):")
    for folder, line in out.false_negatives:
        print(f"  {folder}: {line['field']} {line['oracle']}{_value(line)}  -- label: {line.get('reason', '')}")
    p, r, f1 = out.total.scores()
    t = out.total
    print(f"\n{name}: P={p:.2f} R={r:.2f} F1={f1:.2f} (tp={t.tp} fp={t.fp} fn={t.fn})")


def labelled_operation_fields(folder: Path) -> tuple[Spec, list[ResponseField]]:
    """The spec of a labelled folder (read by the real loader) and the fields of its labelled operation."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    first = read_jsonl(folder / "fields.jsonl")[0]
    spec = load_spec(str(folder / "spec.json"))
    fields = [f for f in spec.fields if f.operation.method == meta["method"] and f.operation.path == meta["path"]
              and f.operation_id == first.get("operation_id")]
    return spec, fields


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="rules")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of labelled operations")
    args = parser.parse_args(argv)
    folders = sorted(
        d for d in args.data.iterdir() if (d / "labels.jsonl").is_file() and (d / "fields.jsonl").is_file()
    )
    if not folders:
        print(f"no labelled folders under {args.data}", file=sys.stderr)
        return 2
    out = Outcome()
    name = args.backend
    for folder in folders:
        spec, fields = labelled_operation_fields(folder)
        backend = make_backend(args.backend, context=spec.fields)
        name = backend.name
        run = backend.infer(fields)
        predicted = [o.interchange() for inferred in run.results for o in inferred.oracles]
        before = Tally(out.total.tp, out.total.fp, out.total.fn)
        compare(folder.name, predicted, read_jsonl(folder / "labels.jsonl"), out)
        t = Tally(out.total.tp - before.tp, out.total.fp - before.fp, out.total.fn - before.fn)
        p, r, f1 = t.scores()
        print(f"{folder.name:<24} P={p:.2f} R={r:.2f} F1={f1:.2f} (tp={t.tp} fp={t.fp} fn={t.fn})")
    print()
    report(name, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
