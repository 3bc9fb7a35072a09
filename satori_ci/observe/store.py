"""The observation store: per operation and status, what its 2XX JSON responses looked like, field by field.

Kept next to the oracle file (`.satori/<spec>.observed.json`) and committed with it. Per operation: the number
of responses observed, up to `MAX_REQUESTS` digests of the distinct requests that gave them (a hash of method
and URL: no parameter value is kept), one `FieldObservations` per response field, and per oracle how many
observed responses violated it since it last held (`violated`: what makes an oracle "suspect", see
`satori_ci.observe.update.suspects`): a run in which an oracle met values and none broke it clears its count.

The file is JSON with sorted keys, one field a line, so that it is deterministic and its diffs are readable;
it is bounded by the spec (fields the spec no longer has are pruned) and by the summaries' own bounds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from satori_ci.observe.summary import (
    FORMATS,
    ArrayStats,
    BooleanStats,
    Counts,
    FieldObservations,
    NumberStats,
    StringStats,
    canonical_number,
    merge_fields,
    number_text,
    without_values,
)
from satori_ci.oracles.check import escape_surrogates
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import operation_label, parse_operation_label
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey

FORMAT_VERSION = 1
MAX_REQUESTS = 16
"""Distinct request digests kept per operation (enough to tell one request from several)."""
MAX_STORE_BYTES = 32 * 1024 * 1024


class ObservationStoreError(OracleFileError):
    """A store file that cannot be read; `str(err)` is one line naming the file and what is wrong (an input
    error, like an oracle file that cannot be read)."""


@dataclass(frozen=True)
class OperationObservations:
    responses: int = 0
    """2XX JSON responses observed."""
    requests: tuple[str, ...] = ()
    """Digests of the distinct requests they answered (sorted, at most `MAX_REQUESTS`)."""
    fields: Mapping[str, FieldObservations] = field(default_factory=dict)
    violated: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Field path -> oracle key (`oracle_key`) -> responses that violated that oracle since it last held."""
    held: frozenset[tuple[str, str]] = frozenset()
    """(field path, oracle key) of the oracles a run exercised without a violation: merged after a store, they
    clear its counts (a run's value; never written to the file)."""


@dataclass(frozen=True)
class ObservationStore:
    spec: str = ""
    operations: Mapping[OperationKey, OperationObservations] = field(default_factory=dict)

    def operation(self, key: OperationKey) -> OperationObservations | None:
        return self.operations.get(key)

    def violations(self, oracle: Oracle) -> int:
        """Observed responses that violated this oracle (same operation, field, kind and value)."""
        found = self.operations.get(oracle.operation)
        return found.violated.get(oracle.field, {}).get(oracle_key(oracle), 0) if found else 0


def request_digest(method: str, url: str) -> str:
    """Twelve hex digits standing for one request (method and URL with its query): tells requests apart."""
    return hashlib.sha256(f"{method.upper()} {url}".encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _value_text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return json.dumps(value, ensure_ascii=False)
    return number_text(value)


def oracle_key(oracle: Oracle) -> str:
    """`kind` or `kind value`, the value canonical (lists as sorted sets, numbers as JavaScript writes them)."""
    if oracle.value is None:
        return oracle.kind.value
    if isinstance(oracle.value, tuple | list):
        items = sorted({_value_text(v) for v in oracle.value})
        return f"{oracle.kind.value} [{', '.join(items)}]"
    return f"{oracle.kind.value} {_value_text(oracle.value)}"


# -- merging ---------------------------------------------------------------------------------------------------


def _merge_violated(a: Mapping[str, Mapping[str, int]], b: Mapping[str, Mapping[str, int]],
                    cleared: frozenset[tuple[str, str]] = frozenset()) -> dict[str, dict[str, int]]:
    out = {f: {k: n for k, n in keys.items() if (f, k) not in cleared} for f, keys in a.items()}
    out = {f: keys for f, keys in out.items() if keys}
    for f, keys in b.items():
        mine = out.setdefault(f, {})
        for key, n in keys.items():
            mine[key] = mine.get(key, 0) + n
    return out


def merge_operations(a: OperationObservations, b: OperationObservations) -> OperationObservations:
    """`b` observed after `a`: summaries and counts add up, and the oracles `b` saw hold lose `a`'s counts."""
    fields = dict(a.fields)
    for path, found in b.fields.items():
        merged = merge_fields(fields.get(path), found)
        if merged is not None:
            fields[path] = merged
    requests = tuple(sorted(set(a.requests) | set(b.requests))[:MAX_REQUESTS])
    violated = _merge_violated(a.violated, b.violated, b.held)
    held = frozenset(k for k in a.held | b.held if k[1] not in violated.get(k[0], {}))
    return OperationObservations(a.responses + b.responses, requests, fields, violated, held)


def merge_stores(a: ObservationStore, b: ObservationStore) -> ObservationStore:
    """Everything both observed, `b` after `a` (the spec name of `a`, else of `b`)."""
    operations = dict(a.operations)
    for key, found in b.operations.items():
        operations[key] = merge_operations(operations[key], found) if key in operations else found
    return ObservationStore(a.spec or b.spec, operations)


class ObservationLog:
    """Collects a run's responses into a store, one checked 2XX JSON response at a time (memory: the summaries)."""

    def __init__(self) -> None:
        self._operations: dict[OperationKey, OperationObservations] = {}
        self._exercised: dict[OperationKey, set[tuple[str, str]]] = {}

    def add(self, operation: OperationKey, request: str, fields: Mapping[str, FieldObservations],
            violated: Iterable[Oracle] = (), exercised: Iterable[Oracle] = ()) -> None:
        """One response: its request's digest, its per-field summary, the oracles it violated and the oracles
        that met a value in it."""
        broken: dict[str, dict[str, int]] = {}
        for oracle in violated:
            broken.setdefault(oracle.field, {})[oracle_key(oracle)] = 1
        self._exercised.setdefault(operation, set()).update((o.field, oracle_key(o)) for o in exercised)
        one = OperationObservations(1, (request,), dict(fields), broken)
        before = self._operations.get(operation)
        self._operations[operation] = one if before is None else merge_operations(before, one)

    def store(self, spec: str = "") -> ObservationStore:
        """The run's observations; `held` names the exercised oracles that no response of the run violated."""
        operations = {}
        for op, found in self._operations.items():
            held = frozenset(k for k in self._exercised.get(op, set()) if k[1] not in found.violated.get(k[0], {}))
            operations[op] = OperationObservations(found.responses, found.requests, found.fields, found.violated,
                                                   held)
        return ObservationStore(spec, operations)

    def __bool__(self) -> bool:
        return bool(self._operations)


def pruned(store: ObservationStore, fields: Iterable[tuple[OperationKey, str]], oracles: Iterable[Oracle]
           ) -> ObservationStore:
    """Only the (operation, field) pairs of the spec, and violation counts of oracles that still exist."""
    wanted: dict[OperationKey, set[str]] = {}
    for op, path in fields:
        wanted.setdefault(op, set()).add(path)
    keys: dict[tuple[OperationKey, str], set[str]] = {}
    for oracle in oracles:
        keys.setdefault((oracle.operation, oracle.field), set()).add(oracle_key(oracle))
    operations: dict[OperationKey, OperationObservations] = {}
    for op, found in store.operations.items():
        if op not in wanted:
            continue
        kept = {p: f for p, f in found.fields.items() if p in wanted[op]}
        violated = {}
        for path, counts in found.violated.items():
            live = {k: n for k, n in counts.items() if k in keys.get((op, path), set())}
            if live:
                violated[path] = live
        operations[op] = OperationObservations(found.responses, found.requests, kept, violated)
    return ObservationStore(store.spec, operations)


def scrubbed(store: ObservationStore, drop: Callable[[str], bool]) -> ObservationStore:
    """The store without the string sets that hold a value `drop` refuses (a secret the redactor knows)."""
    operations = {op: OperationObservations(found.responses, found.requests,
                                            {p: without_values(f, drop) for p, f in found.fields.items()},
                                            found.violated)
                  for op, found in store.operations.items()}
    return ObservationStore(store.spec, operations)


# -- JSON ------------------------------------------------------------------------------------------------------


def _counts_json(counts: Counts | None) -> dict[str, int] | None:
    return None if counts is None else dict(counts)


def field_json(found: FieldObservations) -> dict[str, Any]:
    """The summary as the store (and the JavaScript twin) writes it; empty sections left out."""
    out: dict[str, Any] = {"responses": found.responses, "values": found.values}
    if (s := found.string) is not None:
        out["string"] = {"responses": s.responses, "min_length": s.min_length, "max_length": s.max_length,
                         **{name: s.format_count(name) for name, _ in FORMATS}, "values": _counts_json(s.values)}
    if (n := found.number) is not None:
        out["number"] = {"responses": n.responses, "min": n.min, "max": n.max, "values": _counts_json(n.values)}
    if (b := found.boolean) is not None:
        out["boolean"] = {"responses": b.responses, "true": b.true, "false": b.false}
    if (a := found.array) is not None:
        out["array"] = {"responses": a.responses, "min_size": a.min_size, "max_size": a.max_size,
                        "ascending": a.ascending,
                        "descending": a.descending, "informative": a.informative, "sizes": _counts_json(a.sizes)}
    if found.objects:
        out["objects"] = found.objects
    return out


def _line(value: Any) -> str:
    """One line of JSON; a lone surrogate (from a hand-written oracle file) as its escape, so it stays writable."""
    return escape_surrogates(json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False))


def dump_store(store: ObservationStore) -> str:
    """The store's text: sorted keys, one field a line, the same bytes for the same observations."""
    out = ["{\n", f' "operations": {{{"" if store.operations else "}"}\n']
    labels = sorted((operation_label(k), k) for k in store.operations)
    for i, (label, key) in enumerate(labels):
        found = store.operations[key]
        out.append(f"  {_line(label)}: {{\n")
        out.append('   "fields": {' + ("" if found.fields else "},") + "\n")
        paths = sorted(found.fields)
        for j, path in enumerate(paths):
            comma = "," if j < len(paths) - 1 else ""
            out.append(f"    {_line(path)}: {_line(field_json(found.fields[path]))}{comma}\n")
        if found.fields:
            out.append("   },\n")
        out.append(f'   "requests": {_line(list(found.requests))},\n')
        out.append(f'   "responses": {found.responses},\n')
        out.append(f'   "violated": {_line({f: dict(k) for f, k in found.violated.items()})}\n')
        out.append("  }" + ("," if i < len(labels) - 1 else "") + "\n")
    if store.operations:
        out.append(" },\n")
    else:
        out[-1] = out[-1].rstrip("\n") + ",\n"
    out.append(f' "spec": {_line(store.spec)},\n')
    out.append(f' "version": {FORMAT_VERSION}\n')
    out.append("}\n")
    return "".join(out)


class _Reader:
    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, message: str) -> ObservationStoreError:
        return ObservationStoreError(f"{self.name}: {where}: {message}" if where else f"{self.name}: {message}")

    def mapping(self, raw: Any, where: str, keys: Iterable[str] = (), optional: Iterable[str] = ()) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(where, "expected an object")
        allowed = set(keys) | set(optional)
        if keys or optional:
            unknown = sorted(set(raw) - allowed)
            if unknown:
                raise self.fail(where, f"unknown key {unknown[0]!r}")
            missing = sorted(set(keys) - set(raw))
            if missing:
                raise self.fail(where, f"missing key {missing[0]!r}")
        return raw

    def count(self, raw: Any, where: str) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise self.fail(where, "expected a count (an integer, 0 or more)")
        return raw

    def number(self, raw: Any, where: str) -> int | float:
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise self.fail(where, "expected a number")
        return canonical_number(raw)

    def counts(self, raw: Any, where: str) -> Counts | None:
        if raw is None:
            return None
        found = self.mapping(raw, where)
        return tuple(sorted((str(k), self.count(v, f"{where}.{k}")) for k, v in found.items()))

    def field(self, raw: Any, where: str) -> FieldObservations:
        top = self.mapping(raw, where, ("responses", "values"), ("string", "number", "boolean", "array", "objects"))
        string = number = boolean = array = None
        if "string" in top:
            s = self.mapping(top["string"], f"{where}.string",
                             ("responses", "min_length", "max_length", *(n for n, _ in FORMATS)), ("values",))
            string = StringStats(self.count(s["responses"], where), self.count(s["min_length"], where),
                                 self.count(s["max_length"], where),
                                 **{n: self.count(s[n], f"{where}.string.{n}") for n, _ in FORMATS},
                                 values=self.counts(s.get("values"), f"{where}.string.values"))
        if "number" in top:
            n = self.mapping(top["number"], f"{where}.number", ("responses", "min", "max"), ("values",))
            number = NumberStats(self.count(n["responses"], where), self.number(n["min"], f"{where}.number.min"),
                                 self.number(n["max"], f"{where}.number.max"),
                                 self.counts(n.get("values"), f"{where}.number.values"))
        if "boolean" in top:
            b = self.mapping(top["boolean"], f"{where}.boolean", ("responses", "true", "false"))
            boolean = BooleanStats(*(self.count(b[k], f"{where}.boolean.{k}") for k in ("responses", "true", "false")))
        if "array" in top:
            keys = ("responses", "min_size", "max_size", "ascending", "descending", "informative")
            a = self.mapping(top["array"], f"{where}.array", keys, ("sizes",))
            c = {k: self.count(a[k], f"{where}.array.{k}") for k in keys}
            array = ArrayStats(c["responses"], c["min_size"], c["max_size"], c["ascending"], c["descending"],
                               c["informative"],
                               self.counts(a.get("sizes"), f"{where}.array.sizes"))
        return FieldObservations(self.count(top["responses"], where), self.count(top["values"], where), string,
                                 number, boolean, array, self.count(top.get("objects", 0), f"{where}.objects"))

    def operation(self, raw: Any, where: str) -> OperationObservations:
        top = self.mapping(raw, where, ("responses",), ("requests", "fields", "violated"))
        requests = top.get("requests") or []
        if not isinstance(requests, list) or not all(isinstance(r, str) for r in requests):
            raise self.fail(f"{where}.requests", "expected a list of strings")
        fields = {str(k): self.field(v, f"{where}.fields.{k}")
                  for k, v in self.mapping(top.get("fields") or {}, f"{where}.fields").items()}
        violated: dict[str, dict[str, int]] = {}
        for path, counts in self.mapping(top.get("violated") or {}, f"{where}.violated").items():
            violated[str(path)] = {str(k): self.count(v, f"{where}.violated.{path}.{k}")
                                   for k, v in self.mapping(counts, f"{where}.violated.{path}").items()}
        return OperationObservations(self.count(top["responses"], f"{where}.responses"),
                                     tuple(sorted(set(requests)))[:MAX_REQUESTS], fields, violated)


def read_field(raw: Any, name: str) -> FieldObservations:
    """One field summary from its JSON (`field_json`): ObservationStoreError when it is not one."""
    return _Reader(name).field(raw, "")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_store(text: str, name: str) -> ObservationStore:
    """Read a store file (ObservationStoreError, one line, when it is not one)."""
    if len(text) > MAX_STORE_BYTES:
        raise ObservationStoreError(f"{name}: larger than {MAX_STORE_BYTES // (1024 * 1024)} MiB: not a store file")
    try:
        raw = json.loads(text, parse_constant=_reject_constant) if text.strip() else {}
    except (ValueError, RecursionError) as exc:
        raise ObservationStoreError(f"{name}: not JSON ({' '.join(str(exc).split())[:200]})") from None
    reader = _Reader(name)
    top = reader.mapping(raw, "", (), ("version", "spec", "operations"))
    if top.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        raise reader.fail("version", f"unsupported store version {top.get('version')!r}")
    operations: dict[OperationKey, OperationObservations] = {}
    for label, found in reader.mapping(top.get("operations") or {}, "operations").items():
        key = parse_operation_label(str(label))
        if key is None:
            raise reader.fail(f"operations.{label}", "not 'METHOD /path STATUS'")
        operations[key] = reader.operation(found, f"operations.{label}")
    spec = top.get("spec", "")
    return ObservationStore(spec if isinstance(spec, str) else "", operations)


def store_path(oracle_file: str) -> str:
    """The store next to an oracle file: `x.oracles.yaml` -> `x.observed.json` (else `<file>.observed.json`)."""
    suffix = ".oracles.yaml"
    if oracle_file.endswith(suffix):
        return oracle_file[: -len(suffix)] + ".observed.json"
    return oracle_file + ".observed.json"
