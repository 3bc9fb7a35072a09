"""The observation store: per operation and status, what its 2XX JSON responses looked like, field by field.

Kept next to the oracle file (`.satori/<spec>.observed.json`) and committed with it. Per operation: the number
of responses observed, up to `MAX_REQUESTS` digests of the distinct requests that gave them (a hash of method
and URL: no parameter value is kept), one `FieldObservations` per response field, and per oracle how many
observed responses violated it since it last held (`violated`: what makes an oracle "suspect", see
`satori_ci.observe.update.suspects`): a run in which an oracle met values and none broke it clears its count.

The file is JSON with sorted keys, one field a line, so that it is deterministic and its diffs are readable;
it is bounded by the spec (fields the spec no longer has are pruned) and by the summaries' own bounds. It is read
back strictly, through its model (`store_model`): a file that is not one is one `ObservationStoreError` line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from satori_ci.observe.keys import oracle_key
from satori_ci.observe.store_model import FORMAT_VERSION, FieldFile, OperationFile, StoreFile, first_problem
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
    without_values,
)
from satori_ci.oracles.check import escape_surrogates
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import operation_label, parse_operation_label
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey

MAX_REQUESTS = 64
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


# -- reading (through the file's model, `store_model`) ---------------------------------------------------------


def _counts(found: list[tuple[str, int]] | None) -> Counts | None:
    return None if found is None else tuple(sorted(found))


def _field(found: FieldFile) -> FieldObservations:
    s, n, b, a = found.string, found.number, found.boolean, found.array
    return FieldObservations(
        found.responses, found.values,
        None if s is None else StringStats(s.responses, s.min_length, s.max_length, s.url, s.numeric, s.email,
                                           s.date, s.time, _counts(s.values), s.counter),
        None if n is None else NumberStats(n.responses, canonical_number(n.min), canonical_number(n.max),
                                           _counts(n.values)),
        None if b is None else BooleanStats(b.responses, b.true, b.false),
        None if a is None else ArrayStats(a.responses, a.min_size, a.max_size, a.ascending, a.descending,
                                          a.informative, _counts(a.sizes)),
        found.objects)


def _operation(found: OperationFile) -> OperationObservations:
    return OperationObservations(
        found.responses, tuple(sorted(set(found.requests or ())))[:MAX_REQUESTS],
        {path: _field(summary) for path, summary in found.fields or ()},
        {path: dict(counts) for path, counts in found.violated or ()})


def _fail(name: str, exc: ValidationError, raw: Any, field_only: bool = False) -> ObservationStoreError:
    where, message = first_problem(exc.errors(include_url=False, include_context=False), raw, field_only)
    return ObservationStoreError(f"{name}: {where}: {message}" if where else f"{name}: {message}")


def read_field(raw: Any, name: str) -> FieldObservations:
    """One field summary from its JSON (`field_json`): ObservationStoreError when it is not one."""
    try:
        return _field(FieldFile.model_validate(raw))
    except ValidationError as exc:
        raise _fail(name, exc, raw, field_only=True) from None


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
    try:
        found = StoreFile.model_validate(raw)
    except ValidationError as exc:
        raise _fail(name, exc, raw) from None
    operations: dict[OperationKey, OperationObservations] = {}
    for label, operation in found.operations or ():
        key = parse_operation_label(label)
        assert key is not None  # the model's keys are labels
        operations[key] = _operation(operation)
    return ObservationStore(found.spec if isinstance(found.spec, str) else "", operations)


def store_path(oracle_file: str) -> str:
    """The store next to an oracle file: `x.oracles.yaml` -> `x.observed.json` (else `<file>.observed.json`)."""
    suffix = ".oracles.yaml"
    if oracle_file.endswith(suffix):
        return oracle_file[: -len(suffix)] + ".observed.json"
    return oracle_file + ".observed.json"
