"""Fault detection through the CLI: mutate real recorded responses the way JSONMutator does, and count the mutants
the oracles catch, with `satori-ci` run as a user runs it (`infer`, `verify`, `accept`), in its own processes.

For each labelled operation in ../shared/data, every round mutates one value of every recorded response: a string
(replaced, one character added/removed/changed, emptied), a number (replaced, nudged, set to a boundary), a boolean
(flipped), or an array (one element removed, emptied, reordered). Mutants stay schema-valid and non-null: types are
kept, a field's declared enum, bounds and item counts are respected. A mutant is caught when `satori-ci verify`
reports a violation on it that its original response does not have.

Per operation, in a fresh git repository of its own:
- `rules`: `satori-ci infer SPEC` (the rules backend), then `verify --no-observe --list-all` on every response and
  every mutant;
- `+observed` (two-fold): `verify` on one half of the responses (even lines, then odd ones) feeds the observation
  store and writes the suggestions into the oracle file, `satori-ci accept SPEC --all` switches every one on (as a
  reviewer accepting them all would), then `verify --no-observe --list-all` checks the other half and its mutants:
  every mutant is checked once, by oracles learned without its response;
- `labels` (reference, in-process): the ground truth of labels.jsonl.

Printed: the share of mutants caught (FDR, as in the SATORI paper), the share of unmutated responses that fail
(false alarms, or real API bugs), and for `+observed` the **false-alarm oracles**: accepted observed oracles that
an unmutated held-out response violates (the goal is 0), each listed. `--observe-min N` sets the config's
`observe: min_responses`.

    python3 bench/fault_detection.py [--rounds 100] [--seed 0] [--data DIR] [--observe-min N] [--operation NAME]
                                     [--split interleaved|halves]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import string
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from satori_ci.oracles.file import load_oracle_file, normalize_value
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.run.verify import Recorded, verify_responses
from satori_ci.spec import FieldFacts, Spec, load_spec
from satori_ci.spec.model import OperationKey
from satori_ci.spec.paths import escape_name

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ALPHABET = string.ascii_letters + string.digits


# -- oracles -------------------------------------------------------------------------------------------


def label_oracles(folder: Path) -> list[Oracle]:
    out = []
    for line in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        kind = OracleKind(raw["oracle"])
        out.append(Oracle(OperationKey(raw["method"], raw["path"], str(raw["status"])), raw["field"], kind,
                          normalize_value(kind, raw.get("value")), "label", raw.get("reason", "")))
    return out


# -- mutation ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """A mutable value: where it is (keys and indexes), its field path, and its schema facts."""

    steps: tuple[str | int, ...]
    field: str
    value: Any
    facts: FieldFacts | None


def places(value: Any, facts: dict[str, FieldFacts], steps: tuple[str | int, ...] = (),
           path: str = "") -> Iterator[Place]:
    """Every non-null leaf and every array of the body, in document order."""
    if isinstance(value, dict):
        for key, child in value.items():
            child_path = f"{path}.{escape_name(key)}" if path else escape_name(key)
            yield from places(child, facts, (*steps, key), child_path)
    elif isinstance(value, list):
        yield Place(steps, path, value, facts.get(path))
        for i, child in enumerate(value):
            yield from places(child, facts, (*steps, i), path + "[]")
    elif value is not None:
        yield Place(steps, path, value, facts.get(path))


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _in_bounds(v: float, facts: FieldFacts | None) -> bool:
    if facts is None:
        return True
    low, high = facts.minimum, facts.maximum
    if isinstance(facts.exclusive_minimum, int | float) and not isinstance(facts.exclusive_minimum, bool):
        low = facts.exclusive_minimum
    if isinstance(facts.exclusive_maximum, int | float) and not isinstance(facts.exclusive_maximum, bool):
        high = facts.exclusive_maximum
    return (low is None or v >= low) and (high is None or v <= high)


def mutate_string(v: str, facts: FieldFacts | None, rng: random.Random) -> tuple[str, str] | None:
    enum = [e for e in (facts.enum or ()) if isinstance(e, str) and e != v] if facts else []
    if facts is not None and facts.enum:
        return ("string enum member", rng.choice(enum)) if enum else None
    ops = ["replace", "add", "change"] + (["remove", "empty"] if v else [])
    op = rng.choice(ops)
    if op == "replace":
        new = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12)))
    elif op == "add":
        at = rng.randint(0, len(v))
        new = v[:at] + rng.choice(ALPHABET) + v[at:]
    elif op == "change" and v:
        at = rng.randrange(len(v))
        new = v[:at] + rng.choice([c for c in ALPHABET if c != v[at]]) + v[at + 1:]
    elif op == "remove":
        at = rng.randrange(len(v))
        new = v[:at] + v[at + 1:]
    else:
        new = "" if op == "empty" else rng.choice(ALPHABET)
    return (f"string {op}", new) if new != v else None


def mutate_number(v: float, facts: FieldFacts | None, rng: random.Random) -> tuple[str, Any] | None:
    integer = isinstance(v, int)
    if facts is not None and facts.enum:
        enum = [e for e in facts.enum if _number(e) and e != v]
        return ("number enum member", rng.choice(enum)) if enum else None
    for _ in range(10):
        op = rng.choice(["replace", "nudge", "boundary"])
        if op == "replace":
            new: Any = rng.randint(-10**6, 10**6) if integer else rng.uniform(-1e6, 1e6)
        elif op == "nudge":
            delta = rng.randint(1, 10) if integer else rng.uniform(0.001, 10)
            new = v + delta if rng.random() < 0.5 else v - delta
        else:
            new = rng.choice([0, -1, 1, 2**31 - 1, -(2**31)]) if integer else rng.choice([0.0, -1.0, 1e9, -1e9])
        if new != v and _in_bounds(new, facts):
            return f"number {op}", new
    return None


def mutate_array(v: list[Any], facts: FieldFacts | None, rng: random.Random) -> tuple[str, Any] | None:
    low = (facts.min_items if facts and facts.min_items else 0) or 0
    ops = []
    if len(v) > low:
        ops.append("remove element")
        if low == 0 and v:
            ops.append("empty")
    if len(v) >= 2 and any(json.dumps(x, sort_keys=True) != json.dumps(v[0], sort_keys=True) for x in v):
        ops.append("reorder")
    if not ops:
        return None
    op = rng.choice(ops)
    if op == "remove element":
        at = rng.randrange(len(v))
        return "array remove element", v[:at] + v[at + 1:]
    if op == "empty":
        return "array empty", []
    new = list(v)
    while new == v:
        rng.shuffle(new)
    return "array reorder", new


def mutate(body: Any, facts: dict[str, FieldFacts], rng: random.Random) -> tuple[str, Any] | None:
    """One mutation of one value, chosen uniformly among the places it applies to; None when none does."""
    candidates = list(places(body, facts))
    rng.shuffle(candidates)
    for place in candidates:
        v = place.value
        if isinstance(v, bool):
            change: tuple[str, Any] | None = ("boolean flip", not v)
        elif isinstance(v, str):
            change = mutate_string(v, place.facts, rng)
        elif _number(v):
            change = mutate_number(v, place.facts, rng)
        elif isinstance(v, list):
            change = mutate_array(v, place.facts, rng)
        else:
            change = None
        if change is None:
            continue
        if not place.steps:
            return change
        mutated = copy.deepcopy(body)
        target = mutated
        for step in place.steps[:-1]:
            target = target[step]
        target[place.steps[-1]] = change[1]
        return change[0], mutated
    return None


# -- measuring, through the CLI -------------------------------------------------------------------------------


@dataclass
class Score:
    responses: int = 0
    false_alarms: int = 0
    oracles: int = 0
    mutants: int = 0
    caught: int = 0
    by_operator: Counter[str] = field(default_factory=Counter)
    caught_by_operator: Counter[str] = field(default_factory=Counter)
    false_alarm_oracles: set[str] = field(default_factory=set)
    """Accepted observed oracles an unmutated held-out response violates (`+observed` only)."""


Signature = tuple[str, str, str, str]


class Project:
    """A fresh git repository holding one operation's spec; runs `satori-ci` there, in its own process."""

    def __init__(self, root: Path, folder: Path, null_like: tuple[str, ...], observe_min: int | None) -> None:
        self.root = root
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        shutil.copyfile(folder / "spec.json", root / "spec.json")
        if observe_min is not None:
            (root / ".satori.yml").write_text(
                f"specs:\n  - path: spec.json\n    observe: {{min_responses: {observe_min}}}\n", encoding="utf-8")
        self.null_like = [a for v in null_like for a in ("--null-like", v)]

    def cli(self, *args: str, ok: tuple[int, ...] = (0,)) -> None:
        done = subprocess.run([sys.executable, "-m", "satori_ci", *args], cwd=self.root, capture_output=True,
                              text=True)
        if done.returncode not in ok:
            raise SystemExit(f"satori-ci {' '.join(args[:1])} failed ({done.returncode}): {done.stderr.strip()[-400:]}")

    def write(self, name: str, lines: list[dict[str, Any]]) -> str:
        (self.root / name).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                      encoding="utf-8")
        return name

    def verify(self, oracles: str, responses: str, observe: bool = False) -> list[set[Signature]]:
        """`verify`'s violations, per line of `responses` (observing when asked, which also writes suggestions)."""
        report = f"{responses}.report.json"
        extra = [] if observe else ["--no-observe", "--list-all", "--report", report]
        self.cli("verify", "spec.json", "--oracles", oracles, "--responses", responses, *self.null_like, *extra,
                 ok=(0, 1))
        count = len((self.root / responses).read_text(encoding="utf-8").splitlines())
        out: list[set[Signature]] = [set() for _ in range(count)]
        if observe:
            return out
        for v in json.loads((self.root / report).read_text(encoding="utf-8"))["violations"]:
            line = int(v["request"]["item"].rsplit(":", 1)[1])
            out[line - 1].add((v["field"], v["oracle"], v["pointer"], v["value"]))
            if v.get("source") == "observed":
                out[line - 1].add(("observed", f"{v['field']} {v['oracle']} {json.dumps(v.get('oracle_value'))}",
                                   "", ""))
        return out


def _line_of(x: dict[str, Any], body: Any | None = None) -> dict[str, Any]:
    return {**x, "body": x["body"] if body is None else body}


def _score(score: Score, project: Project, oracles: str, originals: list[tuple[int, dict[str, Any]]],
           mutants: list[tuple[int, str, dict[str, Any]]], tag: str) -> None:
    """Add the false alarms on `originals` and the mutants caught (mutants of other responses are not scored)."""
    before_list = project.verify(oracles, project.write(f"{tag}.originals.jsonl", [x for _, x in originals]))
    before = {i: found for (i, _), found in zip(originals, before_list, strict=True)}
    score.responses += len(originals)
    score.false_alarms += sum(1 for found in before_list if found)
    for found in before_list:
        score.false_alarm_oracles.update(s[1] for s in found if s[0] == "observed")
    mine = [m for m in mutants if m[0] in before]
    after = project.verify(oracles, project.write(f"{tag}.mutants.jsonl", [m for _, _, m in mine]))
    for (i, operator, _), found in zip(mine, after, strict=True):
        score.mutants += 1
        score.by_operator[operator] += 1
        if {s for s in found if s[0] != "observed"} - before[i]:
            score.caught += 1
            score.caught_by_operator[operator] += 1


def _count_oracles(project: Project, oracles: str, method: str, path: str, source: str | None = None) -> int:
    text = (project.root / oracles).read_text(encoding="utf-8")
    file = load_oracle_file(text, oracles)
    return sum(1 for e in file.entries for o in e.oracles if e.operation.method == method and
               e.operation.path == path and o.enabled and (source is None or o.source == source))


def _labels_score(folder: Path, spec: Spec, originals: list[Recorded], mutants: list[tuple[int, str, Recorded]],
                  null_like: tuple[str, ...]) -> Score:
    """The ground truth's FDR, in-process (a reference line, not the product)."""
    oracles = label_oracles(folder)
    score = Score(oracles=len(oracles), responses=len(originals))
    before = _signatures(spec, oracles, originals, null_like)
    score.false_alarms = sum(1 for found in before if found)
    after = _signatures(spec, oracles, [m for _, _, m in mutants], null_like)
    for (i, operator, _), found in zip(mutants, after, strict=True):
        score.mutants += 1
        score.by_operator[operator] += 1
        if found - before[i]:
            score.caught += 1
            score.caught_by_operator[operator] += 1
    return score


def _signatures(spec: Spec, oracles: list[Oracle], recorded: list[Recorded],
                null_like: tuple[str, ...]) -> list[set[Signature]]:
    result = verify_responses(spec, oracles, recorded, null_like)
    out: list[set[Signature]] = [set() for _ in recorded]
    index = {r.where: i for i, r in enumerate(recorded)}
    for v in result.violations:
        out[index[v.request.item]].add((v.field, v.oracle.kind.value, v.pointer, v.value))
    return out


def _fold(i: int, n: int, split: str) -> int:
    """The fold of line i: alternate lines (`interleaved`), or the first half and the second (`halves`: the order
    the responses were recorded in, a harsher test of what holds out of sample)."""
    return i % 2 if split == "interleaved" else int(i >= n // 2)


def measure(folder: Path, rounds: int, seed: int, observe_min: int | None, work: Path,
            split: str = "interleaved") -> dict[str, Score]:
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    null_like = tuple(meta.get("null_like") or ())
    spec = load_spec(str(folder / "spec.json"))
    first = json.loads((folder / "fields.jsonl").read_text(encoding="utf-8").splitlines()[0])
    fields = [f for f in spec.fields if f.operation.method == meta["method"] and f.operation.path == meta["path"]
              and f.operation_id == first.get("operation_id")]
    facts = {f.field: f.facts for f in fields}
    lines = [json.loads(x) for x in (folder / "responses.jsonl").read_text(encoding="utf-8").splitlines() if x]
    rng = random.Random(f"{seed}:{folder.name}")
    mutants: list[tuple[int, str, dict[str, Any]]] = []
    for _ in range(rounds):
        for i, original in enumerate(lines):
            change = mutate(original["body"], facts, rng)
            if change is not None:
                mutants.append((i, change[0], _line_of(original, change[1])))
    recorded = [Recorded(f"{folder.name}:{i + 1}", x["method"], x["path"], str(x["status"]), x["body"],
                         str(x.get("query") or ""), str(x.get("path_params") or "")) for i, x in enumerate(lines)]
    recorded_mutants = [(i, op, replace(recorded[i], where=f"m{n}", body=m["body"]))
                        for n, (i, op, m) in enumerate(mutants)]
    project = Project(work / folder.name, folder, null_like, observe_min)
    project.cli("infer", "spec.json", "--oracles", "rules.oracles.yaml", "--quiet")
    everything = list(enumerate(lines))
    rules = Score(oracles=_count_oracles(project, "rules.oracles.yaml", meta["method"], meta["path"]))
    _score(rules, project, "rules.oracles.yaml", everything, mutants, "rules")
    observed = Score()
    for fold in (0, 1):
        oracles = f"fold{fold}.oracles.yaml"
        shutil.copyfile(project.root / "rules.oracles.yaml", project.root / oracles)
        train = project.write(f"fold{fold}.train.jsonl",
                              [x for i, x in everything if _fold(i, len(lines), split) == fold])
        project.verify(oracles, train, observe=True)
        project.cli("accept", "spec.json", "--oracles", oracles, "--all")
        observed.oracles += _count_oracles(project, oracles, meta["method"], meta["path"])
        held = [(i, x) for i, x in everything if _fold(i, len(lines), split) != fold]
        _score(observed, project, oracles, held, mutants, f"fold{fold}")
    observed.oracles //= 2
    labels = _labels_score(folder, spec, recorded, recorded_mutants, null_like)
    return {"rules": rules, "+observed": observed, "labels": labels}


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}%" if b else "    -"


def _line(name: str, source: str, s: Score) -> str:
    flagged = str(len(s.false_alarm_oracles)) if source == "+observed" else "-"
    return (f"{name:<22} {source:<10} {s.oracles:>7} {s.responses:>9} {s.mutants:>8} {_pct(s.caught, s.mutants):>7} "
            f"{_pct(s.false_alarms, s.responses):>13} {flagged:>10}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=100, help="mutants per recorded response (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--observe-min", type=int, default=None, metavar="N",
                        help="the config's observe: min_responses (default: the product's)")
    parser.add_argument("--split", choices=("interleaved", "halves"), default="interleaved",
                        help="the two folds: alternate lines (default), or the first and the second half of the file")
    parser.add_argument("--operation", action="append", default=[], metavar="NAME",
                        help="only this data folder (repeatable)")
    args = parser.parse_args(argv)
    folders = sorted(d for d in args.data.iterdir() if (d / "responses.jsonl").is_file()
                     and (d / "labels.jsonl").is_file()
                     and (not args.operation or d.name in args.operation)) if args.data.is_dir() else []
    if not folders:
        print(f"no labelled operations with responses under {args.data}", file=sys.stderr)
        return 2
    print(f"{'operation':<22} {'oracles':<10} {'count':>7} {'responses':>9} {'mutants':>8} {'FDR':>7} "
          f"{'false alarms':>13} {'FA oracles':>10}")
    totals: dict[str, Score] = {}
    rates: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="satori-fdr-") as work:
        for folder in folders:
            for name, s in measure(folder, args.rounds, args.seed, args.observe_min, Path(work), args.split).items():
                print(_line(folder.name, name, s), flush=True)
                t = totals.setdefault(name, Score())
                for attr in ("responses", "false_alarms", "mutants", "caught", "oracles"):
                    setattr(t, attr, getattr(t, attr) + getattr(s, attr))
                t.by_operator.update(s.by_operator)
                t.caught_by_operator.update(s.caught_by_operator)
                t.false_alarm_oracles.update(f"{folder.name}: {o}" for o in s.false_alarm_oracles)
                rates.setdefault(name, []).append(s.caught / s.mutants if s.mutants else 0.0)
    for name, t in totals.items():
        print(_line("all (pooled)", name, t))
    for name, found in rates.items():
        print(f"{'mean of operations':<22} {name:<10} {'':>7} {'':>9} {'':>8} {100 * sum(found) / len(found):6.1f}%")
    base, observed = totals["rules"], totals["+observed"]
    if base.caught:
        ratio = observed.caught / observed.mutants / (base.caught / base.mutants)
        print(f"\n+observed / rules (pooled FDR): {ratio:.2f}x")
    print(f"false-alarm oracles (accepted observed oracles a held-out response violates): "
          f"{len(observed.false_alarm_oracles)}")
    for line in sorted(observed.false_alarm_oracles):
        print(f"  {line}")
    print("\nFDR by mutation (all operations):")
    names = list(totals)
    print(f"{'mutation':<24} {'mutants':>8} " + " ".join(f"{n:>10}" for n in names))
    first = totals[names[0]]
    for operator in sorted(first.by_operator):
        print(f"{operator:<24} {first.by_operator[operator]:>8} "
              + " ".join(f"{_pct(totals[n].caught_by_operator[operator], totals[n].by_operator[operator]):>10}"
                         for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
