"""Checking recorded responses offline: one JSON object a line (`method`, `path`, `status`, `body`).

A line may also be just `{"body": ...}` when the operation is given (`--operation`). Paths may be the
spec's templates (`/books/{isbn}`) or concrete paths (`/books/978...`). This is how teams replay
traffic, and how the benchmarks measure fault detection. A body nested deeper than the runners check
(`MAX_DEPTH`) is a response not checked, as in a run, however deep it goes.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from satori_ci.observe.fields import ObservedFields
from satori_ci.observe.store import ObservationLog, request_digest
from satori_ci.observe.summary import summarize
from satori_ci.oracles.check import deeper_than
from satori_ci.oracles.model import Oracle
from satori_ci.plan.requests import match_status
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import RequestRef, ResponseProblem, ResponseProblemKind, RunResult, Violation, ViolationCap
from satori_ci.run.outcome import TOO_DEEP, FindingLine, checked_lines, loads_like_javascript, may_nest_past
from satori_ci.spec.model import Operation, OperationKey, Spec
from satori_ci.spec.paths import FieldPathError
from satori_ci.spec.paths import parse as parse_field_path
from satori_ci.spec.routes import parse_template


@dataclass(frozen=True)
class Recorded:
    """One recorded response."""

    where: str
    """`FILE:LINE`."""
    method: str
    path: str
    """As recorded (a template or a concrete path)."""
    status: str | None
    body: Any
    query: str = ""
    path_params: str = ""
    """As recorded (`name=value;` pairs): tells apart requests to a path template."""
    too_deep: bool = False
    """The body nests past `MAX_DEPTH` (`body` is then None): not checked."""


@dataclass(frozen=True)
class OperationChoice:
    """The operation named with `--operation`: method, path template and, optionally, status."""

    method: str
    path: str
    status: str | None = None


def read_responses(text: str, name: str, default: OperationChoice | None = None) -> list[Recorded]:
    """Parse JSON Lines of recorded responses (numbers read as JavaScript reads them)."""
    out: list[Recorded] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        entry, too_deep = _read_line(line)
        if not isinstance(entry, dict):
            raise RunError(RunErrorKind.INPUT, f"{where}: not a JSON object")
        if "body" not in entry:
            raise RunError(RunErrorKind.INPUT, f"{where}: no 'body'")
        too_deep = too_deep or (may_nest_past(line) and deeper_than(entry["body"]))
        method = entry.get("method", default.method if default else None)
        path = entry.get("path", default.path if default else None)
        if not isinstance(method, str) or not isinstance(path, str):
            raise RunError(RunErrorKind.INPUT,
                           f"{where}: needs 'method' and 'path' (or pass --operation \"METHOD /path\")")
        status = entry.get("status", default.status if default else None)
        query = entry.get("query")
        params = entry.get("path_params")
        out.append(Recorded(where, method.upper(), path, None if status is None else str(status),
                            None if too_deep else entry["body"], query if isinstance(query, str) else "",
                            params if isinstance(params, str) else "", too_deep))
    return out


_TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[\[\]{}:,]|[^\s\[\]{}:,"]+')


_NOT_READ = object()
"""A member of a line nested past what json.loads reads."""


def _read_line(line: str) -> tuple[Any, bool]:
    """The line's JSON value (None when it is not JSON) and whether its body nests too deep to be read."""
    try:
        return loads_like_javascript(line), False
    except ValueError:
        return None, False
    except RecursionError:
        entry = _top_level_scalars(line)
        return entry, entry is not None and entry.get("body") is _NOT_READ


def _top_level_scalars(line: str) -> dict[str, Any] | None:
    """The members of a JSON object, arrays and objects left `_NOT_READ`, read without decoding those (a body
    nested past what json.loads reads); None when the line is not an object."""
    out: dict[str, Any] = {}
    depth, key, expect_key = 0, None, False
    for match in _TOKEN.finditer(line):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth == 1:
                if token != "{":
                    return None
                expect_key = True
            elif depth == 2 and key is not None:
                out[key] = _NOT_READ
                key = None
        elif token in "]}":
            depth -= 1
        elif depth != 1 or token == ":":
            continue
        elif token == ",":
            expect_key = True
        elif expect_key:
            key, expect_key = _scalar(token), False
        elif isinstance(key, str):
            out[key] = _scalar(token)
            key = None
    return out if depth == 0 else None


def _scalar(token: str) -> Any:
    try:
        return loads_like_javascript(token)
    except (ValueError, RecursionError):
        return None


class OperationIndex:
    """Finds the spec operation of a recorded method and path (template or concrete)."""

    def __init__(self, operations: Iterable[Operation]) -> None:
        self.exact: dict[tuple[str, str], Operation] = {}
        self.patterns: list[tuple[int, re.Pattern[str], Operation]] = []
        for op in operations:
            self.exact[(op.method, op.path)] = op
            self.patterns.append((op.path.count("{"), parse_template(op.path).pattern(), op))
        self.patterns.sort(key=lambda entry: entry[0])

    def find(self, method: str, path: str) -> Operation | None:
        found = self.exact.get((method, path))
        if found is not None:
            return found
        bare = path.split("?", 1)[0]
        for _, pattern, op in self.patterns:
            if op.method == method and pattern.match(bare):
                return op
        return None


def verify_responses(spec: Spec, oracles: Sequence[Oracle], recorded: Sequence[Recorded],
                     null_like: Sequence[str] = (), per_oracle: int | None = None,
                     observe: ObservedFields | None = None) -> RunResult:
    """Check every recorded response against the enabled oracles of its operation and status.

    `per_oracle`: list at most that many violations of each oracle and count the rest (the CLI passes
    `VIOLATIONS_PER_ORACLE`, as the runs keep); None lists them all (the benchmarks score every one).
    `observe`: the fields to summarize, by operation and status: every checked response then feeds the
    result's `observed` store (a request is told apart by method, path, path parameters and query)."""
    started = time.monotonic()
    index = OperationIndex(spec.operations)
    by_key: dict[OperationKey, list[Oracle]] = {}
    notes: list[str] = []
    for oracle in oracles:
        try:
            parse_field_path(oracle.field)
        except FieldPathError as exc:  # a hand-edited oracle file: said, not a crash (as the collection does)
            notes.append(f"{oracle.operation}: {exc}; its {oracle.kind.value} oracle is not checked")
            continue
        if oracle.enabled:
            by_key.setdefault(oracle.operation, []).append(oracle)
    checked = 0
    cap = ViolationCap(per_oracle)
    unchecked: list[ResponseProblem] = []
    log = ObservationLog() if observe is not None else None
    for entry in recorded:
        url = entry.path + (f"?{entry.query}" if entry.query else "")
        ref = RequestRef(entry.where, 0, entry.method, url, entry.where)
        op = index.find(entry.method, entry.path)
        if op is None:
            unchecked.append(ResponseProblem(ref, ResponseProblemKind.UNKNOWN_OPERATION, _status_int(entry.status),
                                             f"no operation {entry.method} {entry.path} in {spec.source}"))
            continue
        status = entry.status if entry.status is not None else (op.statuses[0] if op.statuses else None)
        matched = match_status(status, op.statuses) if status is not None else None
        if matched is None:
            unchecked.append(ResponseProblem(ref, ResponseProblemKind.UNEXPECTED_STATUS, _status_int(status),
                                             f"HTTP {status}, expected {' or '.join(op.statuses) or 'none'}"))
            continue
        key = OperationKey(op.method, op.path, matched)
        if entry.too_deep:
            unchecked.append(ResponseProblem(ref, ResponseProblemKind.NOT_JSON, _status_int(status),
                                             f"the body of {op.method} {op.path} {TOO_DEEP}"))
            continue
        mine = by_key.get(key, [])
        checked += 1
        findings, exercised = checked_lines(mine, entry.body, null_like)
        for f in findings:
            cap.add(_violation(key, mine, f, ref))
        if log is not None and observe is not None:
            where = url + (f"#{entry.path_params}" if entry.path_params else "")
            log.add(key, request_digest(entry.method, where), summarize(observe.get(key, ()), entry.body, null_like),
                    {id(mine[f.index]): mine[f.index] for f in findings}.values(),
                    [mine[i] for i in exercised])
    return RunResult("verify", len(recorded), checked, tuple(cap.kept), (), tuple(unchecked),
                     time.monotonic() - started, tuple(notes), omitted=cap.omitted,
                     observed=log.store(spec.file) if log is not None else None)


def _violation(key: OperationKey, oracles: Sequence[Oracle], f: FindingLine, ref: RequestRef) -> Violation:
    oracle = oracles[f.index]
    return Violation(key, oracle.field, oracle, f.pointer, f.value, f.message, ref)


def _status_int(status: str | None) -> int | None:
    return int(status) if status is not None and status.isdigit() else None


def dumps_line(method: str, path: str, status: str, body: Any) -> str:
    """One recorded-response line (the format `read_responses` reads)."""
    return json.dumps({"method": method, "path": path, "status": status, "body": body}, ensure_ascii=False)
