"""Fault detection: mutate real recorded responses the way JSONMutator does and count the mutants the oracles catch.

For each labelled operation in ../shared/data, every round mutates one value of every recorded response:
a string (replaced, one character added/removed/changed, emptied), a number (replaced, nudged, set to a
boundary), a boolean (flipped), or an array (one element removed, emptied, reordered). Mutants stay
schema-valid and non-null: types are kept, a field's declared enum, bounds and item counts are respected
(an enum string becomes another member of the enum). The mutated responses go through the same check as
`satori-ci verify`. A mutant is caught when it has a violation its original response does not have.

Printed per operation and oracle source: (a) `rules`, the rules backend's inference; (b) `+observed`, the
rules plus the oracles `satori_ci.observe` proposes from observed responses, learned from one half of the
operation's recorded responses and checked on the mutants (and the unmutated responses) of the other half,
both ways round (even lines learn and odd lines are checked, then the reverse: two-fold cross-validation,
so every mutant is checked once, by oracles learned without its response); (c) `labels`, the ground truth
in labels.jsonl. For each: the share of mutants caught (the fault detection rate, FDR, as in the SATORI
paper), the share of unmutated responses that already fail (false alarms, or real API bugs), and the share
that fail on something else than the known real bugs (`other`: a violation of a (field, kind) that no label
violated on the unmutated responses; labels.notes.md documents those). The observed oracles are all
accepted (enabled), as a reviewer would accept them; `--observe-min N` is the responses an operation needs
before anything is proposed (default 20, of the 25 of a half), `--alpha` the level of the confidence tests.

    python3 bench/fault_detection.py [--rounds 100] [--seed 0] [--data DIR] [--observe-min 20] [--alpha 0.01]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import string
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from satori_ci.observe.apply import apply_proposals
from satori_ci.observe.fields import observed_fields
from satori_ci.observe.propose import ProposalSettings, propose
from satori_ci.oracles.file import FieldEntry, OracleFile, normalize_value
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import OBSERVED, Oracle
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


def rules_oracles(spec: Spec, fields: list[Any]) -> list[Oracle] | None:
    try:
        from satori_ci.infer.rules import RulesBackend
    except ImportError:
        return None
    return [o for r in RulesBackend(spec=spec).infer(fields).results for o in r.oracles]


def learned_oracles(spec: Spec, fields: list[Any], existing: list[Oracle], train: list[Recorded],
                    null_like: tuple[str, ...], settings: ProposalSettings) -> list[Oracle]:
    """The observed oracles proposed from `train` that the oracle file would take next to `existing`, accepted."""
    result = verify_responses(spec, [], train, null_like, observe=observed_fields(fields))
    assert result.observed is not None
    entries = [FieldEntry(f.operation, f.field, f.fingerprint,
                          tuple(o for o in existing if o.operation == f.operation and o.field == f.field))
               for f in fields]
    merged = apply_proposals(OracleFile("", tuple(entries)), propose(result.observed, fields, settings))
    return [replace(o, enabled=True) for e in merged.entries for o in e.oracles if o.source == OBSERVED]


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


# -- measuring ------------------------------------------------------------------------------------------


@dataclass
class Score:
    responses: int = 0
    false_alarms: int = 0
    other_alarms: int = 0
    """False alarms that are not the known real bugs (a (field, kind) no label violated on real responses)."""
    oracles: int = 0
    mutants: int = 0
    caught: int = 0
    by_operator: Counter[str] = field(default_factory=Counter)
    caught_by_operator: Counter[str] = field(default_factory=Counter)


def _signatures(spec: Spec, oracles: list[Oracle], recorded: list[Recorded],
                null_like: tuple[str, ...]) -> list[set[tuple[str, str, str, str]]]:
    result = verify_responses(spec, oracles, recorded, null_like)
    out: list[set[tuple[str, str, str, str]]] = [set() for _ in recorded]
    index = {r.where: i for i, r in enumerate(recorded)}
    for v in result.violations:
        out[index[v.request.item]].add((v.field, v.oracle.kind.value, v.pointer, v.value))
    return out


Signature = tuple[str, str, str, str]


def _score(score: Score, spec: Spec, oracles: list[Oracle], originals: list[tuple[int, Recorded]],
           mutants: list[tuple[int, str, Recorded]], null_like: tuple[str, ...], known: set[tuple[str, str]]) -> None:
    """Add the false alarms on `originals` and the mutants caught (mutants of other responses are not scored)."""
    before_list = _signatures(spec, oracles, [r for _, r in originals], null_like)
    before = {i: found for (i, _), found in zip(originals, before_list, strict=True)}
    score.responses += len(originals)
    score.false_alarms += sum(1 for s in before_list if s)
    score.other_alarms += sum(1 for s in before_list if any((f, k) not in known for f, k, _, _ in s))
    mine = [m for m in mutants if m[0] in before]
    after = _signatures(spec, oracles, [m for _, _, m in mine], null_like)
    for (i, operator, _), found in zip(mine, after, strict=True):
        score.mutants += 1
        score.by_operator[operator] += 1
        if found - before[i]:
            score.caught += 1
            score.caught_by_operator[operator] += 1


def measure(folder: Path, rounds: int, seed: int, settings: ProposalSettings | None = None) -> dict[str, Score]:
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    null_like = tuple(meta.get("null_like") or ())
    spec = load_spec(str(folder / "spec.json"))
    first = json.loads((folder / "fields.jsonl").read_text(encoding="utf-8").splitlines()[0])
    fields = [f for f in spec.fields if f.operation.method == meta["method"] and f.operation.path == meta["path"]
              and f.operation_id == first.get("operation_id")]
    facts = {f.field: f.facts for f in fields}
    sources: dict[str, list[Oracle]] = {"labels": label_oracles(folder)}
    inferred = rules_oracles(spec, fields)
    if inferred is not None:
        sources["rules"] = inferred
    lines = [json.loads(x) for x in (folder / "responses.jsonl").read_text(encoding="utf-8").splitlines() if x]
    originals = [Recorded(f"{folder.name}:{i + 1}", x["method"], x["path"], str(x["status"]), x["body"],
                          str(x.get("query") or ""), str(x.get("path_params") or ""))
                 for i, x in enumerate(lines)]
    rng = random.Random(f"{seed}:{folder.name}")
    mutants: list[tuple[int, str, Recorded]] = []
    for r in range(rounds):
        for i, original in enumerate(originals):
            change = mutate(original.body, facts, rng)
            if change is not None:
                mutants.append((i, change[0], Recorded(f"{original.where}#{r}", original.method, original.path,
                                                       original.status, change[1])))
    known = {(f, k) for s in _signatures(spec, sources["labels"], originals, null_like) for f, k, _, _ in s}
    everything = list(enumerate(originals))
    scores: dict[str, Score] = {}
    for name, oracles in sources.items():
        score = scores[name] = Score(oracles=len(oracles))
        _score(score, spec, oracles, everything, mutants, null_like, known)
    if "rules" in sources:
        score = scores["+observed"] = Score()
        for fold in (0, 1):
            train = [r for i, r in everything if i % 2 == fold]
            held = [(i, r) for i, r in everything if i % 2 != fold]
            learned = learned_oracles(spec, fields, sources["rules"], train, null_like,
                                      settings or ProposalSettings())
            score.oracles += len(sources["rules"]) + len(learned)
            _score(score, spec, [*sources["rules"], *learned], held, mutants, null_like, known)
        score.oracles //= 2
    return {name: scores[name] for name in ("rules", "+observed", "labels") if name in scores}


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}%" if b else "    -"


def _line(name: str, source: str, s: Score) -> str:
    return (f"{name:<22} {source:<10} {s.oracles:>7} {s.responses:>9} {s.mutants:>8} {_pct(s.caught, s.mutants):>7} "
            f"{_pct(s.false_alarms, s.responses):>13} {_pct(s.other_alarms, s.responses):>7}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=100, help="mutants per recorded response (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--observe-min", type=int, default=ProposalSettings().min_responses, metavar="N",
                        help="observed responses an operation needs before oracles are proposed (default 20)")
    parser.add_argument("--alpha", type=float, default=ProposalSettings().alpha,
                        help="the confidence tests' level: how unlikely by chance a proposal must be (default 0.01)")
    args = parser.parse_args(argv)
    folders = sorted(d for d in args.data.iterdir() if (d / "responses.jsonl").is_file()
                     and (d / "labels.jsonl").is_file()) if args.data.is_dir() else []
    if not folders:
        print(f"no labelled operations with responses under {args.data}", file=sys.stderr)
        return 2
    settings = ProposalSettings(min_responses=args.observe_min, alpha=args.alpha)
    print(f"{'operation':<22} {'oracles':<10} {'count':>7} {'responses':>9} {'mutants':>8} {'FDR':>7} "
          f"{'false alarms':>13} {'other':>7}")
    totals: dict[str, Score] = {}
    rates: dict[str, list[float]] = {}
    for folder in folders:
        for name, s in measure(folder, args.rounds, args.seed, settings).items():
            print(_line(folder.name, name, s))
            t = totals.setdefault(name, Score())
            for attr in ("responses", "false_alarms", "other_alarms", "mutants", "caught", "oracles"):
                setattr(t, attr, getattr(t, attr) + getattr(s, attr))
            t.by_operator.update(s.by_operator)
            t.caught_by_operator.update(s.caught_by_operator)
            rates.setdefault(name, []).append(s.caught / s.mutants if s.mutants else 0.0)
    for name, t in totals.items():
        print(_line("all (pooled)", name, t))
    for name, found in rates.items():
        print(f"{'mean of operations':<22} {name:<10} {'':>7} {'':>9} {'':>8} {100 * sum(found) / len(found):6.1f}%")
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
