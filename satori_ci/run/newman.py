"""The Newman runner: the only module that starts `newman`.

Results are not read from Newman's JSON reporter (it holds every failure with its whole item and writes
the run as one string, which throws `RangeError: Invalid string length` on large failing runs). The
collection's test scripts print one compact line per response and per chunk of findings; the `satori`
reporter shipped in satori_ci/run/node (found by Newman through NODE_PATH) streams those lines, and one
line per request sent, to a file as they happen. This module reads that file line by line.

Bounds, the same as the native runner's: Newman runs with --ignore-redirects (a 3XX is the answer), and the
reporter, loaded into Newman's process before the first request, sets postman-request's `maxResponseSize`
(`RunConfig.max_bytes`) and a deadline of `RunConfig.timeout_s` on every exchange (Newman itself has no size
option, and --timeout-request only bounds each wait). It says so in its first line; without it the run stops
with a RunError rather than run unbounded. Last, the Newman process is killed when the whole run outlasts
`run_budget` (every request at its deadline, plus start-up and scripts).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satori_ci.observe.store import ObservationStoreError, read_field
from satori_ci.observe.summary import FieldObservations
from satori_ci.postman.collection import BASE_URL_VARIABLE, Collection, RequestItem
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import ProblemKind, RunResult
from satori_ci.run.outcome import (
    NOT_JSON,
    TOO_DEEP,
    Exchange,
    FindingLine,
    Progress,
    RunConfig,
    Tally,
    base_url_of,
    prepare,
    request_ref,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
REPORTER_DIR = Path(__file__).resolve().with_name("node")
"""Holds `newman-reporter-satori/`; put on NODE_PATH so that `newman -r satori` finds it."""
SETUP_COMMAND = "npm ci"
NEWMAN_ENV = "SATORI_NEWMAN"
"""An explicit path to the newman binary (else node_modules/.bin/newman of the checkout or the current folder,
else `newman` on PATH)."""

Sleep = Callable[[float], None]

TOO_LARGE_CODE = "ERESPONSETOOLARGE"
"""The code the reporter gives postman-request's "Maximum response size reached" error."""
BUDGET_SLACK_S = 60.0
"""Newman's start-up and the scripts' time, on top of every request at its deadline (`run_budget`)."""
PER_REQUEST_SLACK_S = 5.0
NODE_TIMER_MAX_MS = 2**31 - 1
"""The longest a Node.js timer waits: past it setTimeout fires after 1 ms (the CLI and the action refuse such a
timeout already)."""

_TIMEOUT_CODES = frozenset({"ETIMEDOUT", "ESOCKETTIMEDOUT"})
_TLS_CODES = frozenset({"EPROTO", "DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN",
                        "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
                        "ERR_TLS_CERT_ALTNAME_INVALID", "CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"})


def find_newman() -> str:
    """The newman binary to run, or RunError naming the set-up command."""
    explicit = os.environ.get(NEWMAN_ENV)
    if explicit:
        if Path(explicit).is_file():
            return explicit
        raise RunError(RunErrorKind.NEWMAN_MISSING,
                       f"{NEWMAN_ENV}={explicit}: no such file; unset it and run `{SETUP_COMMAND}` in the "
                       f"satori-ci checkout, or use --runner native")
    for root in (REPO_ROOT, Path.cwd()):
        local = root / "node_modules" / ".bin" / "newman"
        if local.is_file():
            return str(local)
    on_path = shutil.which("newman")
    if on_path:
        return on_path
    raise RunError(RunErrorKind.NEWMAN_MISSING,
                   f"newman is not installed: run `{SETUP_COMMAND}` in the satori-ci checkout ({REPO_ROOT}), "
                   "which installs the pinned newman from package-lock.json (needs Node.js 16+), "
                   "or use --runner native")


def problem_of(code: str | None, message: str) -> ProblemKind:
    """The infrastructure problem behind a Node.js request error."""
    text = (code or "").upper()
    if text in _TIMEOUT_CODES or "timed out" in message.lower():
        return ProblemKind.TIMEOUT
    if (text in _TLS_CODES or text.startswith(("ERR_SSL", "ERR_TLS", "ERR_OSSL", "CERT_"))
            or any(w in message for w in ("SSL", "TLS", "certificate"))):
        return ProblemKind.TLS
    return ProblemKind.CONNECTION


@dataclass(frozen=True)
class Assertion:
    """One `pm.test` as Newman ran it."""

    name: str
    skipped: bool
    error: str | None


@dataclass
class NewmanRecord:
    """What the reporter wrote about one (item, iteration)."""

    status: int | None = None
    error: dict[str, Any] | None = None
    location: str | None = None
    requested: bool = False
    result: dict[str, Any] | None = None
    findings: list[FindingLine] = field(default_factory=list)
    assertions: list[Assertion] = field(default_factory=list)
    exception: str | None = None
    observed: dict[str, Any] = field(default_factory=dict)
    """The observed fields' summaries the test script printed (JSON, by field path)."""


@dataclass
class NewmanReport:
    """The reporter's file, read: records by (item id, iteration)."""

    records: dict[tuple[str, int], NewmanRecord] = field(default_factory=dict)
    done: bool = False
    error: str | None = None
    bounds: dict[str, Any] | None = None
    """The reporter's `bounds` line: the byte cap and deadline it set (or why it could not)."""

    def record(self, item: Any, iteration: Any) -> NewmanRecord:
        key = (str(item), int(iteration) if isinstance(iteration, int) else 0)
        found = self.records.get(key)
        if found is None:
            found = self.records[key] = NewmanRecord()
        return found


def read_report(lines: Iterable[str]) -> NewmanReport:
    """Parse the reporter's lines (streamed: memory grows with the findings, never with a whole document)."""
    report = NewmanReport()
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise RunError(RunErrorKind.NEWMAN_FAILED, f"newman's satori reporter wrote a broken line: {line[:120]!r}"
                           ) from None
        kind = entry.get("type")
        if kind == "request":
            rec = report.record(entry.get("item"), entry.get("iteration"))
            rec.requested = True
            rec.status = entry.get("status")
            rec.error = entry.get("error")
            location = entry.get("location")
            rec.location = location if isinstance(location, str) else None
        elif kind == "bounds":
            report.bounds = entry
        elif kind == "result":
            data = entry.get("data") or {}
            rec = report.record(data.get("item"), data.get("iteration"))
            if "findings" in data and isinstance(data["findings"], list):
                rec.findings.extend(FindingLine(int(f["index"]), str(f["pointer"]), str(f["value"]), str(f["message"]))
                                    for f in data["findings"])
            elif "observed" in data and isinstance(data["observed"], dict):
                rec.observed.update(data["observed"])
            else:
                rec.result = data
        elif kind == "assertion":
            rec = report.record(entry.get("item"), entry.get("iteration"))
            rec.assertions.append(Assertion(str(entry.get("name")), bool(entry.get("skipped")), entry.get("error")))
        elif kind == "exception":
            rec = report.record(entry.get("item"), entry.get("iteration"))
            rec.exception = str(entry.get("message"))
        elif kind == "done":
            report.done = True
            report.error = entry.get("error")
    return report


def _exchange(item: RequestItem, rec: NewmanRecord | None) -> Exchange:
    if rec is not None and rec.result is not None and "skipped" in rec.result:
        return Exchange(skipped=str(rec.result.get("skipped") or item.skip_reason))
    if (rec is None or not rec.requested) and item.team is not None:
        return Exchange(skipped=f"{item.team.label} was not run (the collection's scripts skipped it)")
    if rec is None or not rec.requested:
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"newman left no record of the request {item.name!r}")
    if rec.error is not None:
        message = str(rec.error.get("message") or "request failed")
        code = rec.error.get("code")
        if code == TOO_LARGE_CODE:
            status = rec.error.get("status")
            return Exchange(status=status if isinstance(status, int) else None, too_large=True, used=_used(rec))
        return Exchange(problem=problem_of(code, message), detail=f"{code}: {message}" if code else message,
                        used=_used(rec))
    if rec.exception is not None and rec.result is None:
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"the test script of {item.name!r} failed: {rec.exception}")
    if rec.result is None:
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"the test script of {item.name!r} reported nothing")
    status = rec.result.get("status")
    used = _used(rec)
    if not isinstance(status, int):
        return Exchange(problem=ProblemKind.CONNECTION, detail="no response", used=used)
    if item.status_key(status) is None:
        return Exchange(status=status, location=rec.location, used=used)
    if not rec.result.get("json"):
        why = TOO_DEEP if rec.result.get("deep") is True else NOT_JSON
        return Exchange(status=status, detail=f"the body of {item.label} {why}", used=used)
    omitted = _omitted(rec.result.get("omitted"))
    expected = rec.result.get("findings")
    read = len(rec.findings) + sum(n for _, n in omitted)
    if expected != read:
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"incomplete results for {item.name!r}: {read} of {expected} findings read")
    exercised = rec.result.get("exercised")
    indices = tuple(int(i) for i in exercised if isinstance(i, int)) if isinstance(exercised, list) else ()
    return Exchange(status=status, is_json=True, findings=tuple(rec.findings), omitted=omitted, exercised=indices,
                    used=used, observed=_observed(item, rec) if item.observed else None)


def _observed(item: RequestItem, rec: NewmanRecord) -> dict[str, FieldObservations]:
    """The summaries the test script printed, read as the native runner computes them."""
    expected = rec.result.get("observed") if rec.result is not None else None
    if expected != len(rec.observed):
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"incomplete results for {item.name!r}: {len(rec.observed)} of "
                       f"{expected} field summaries read")
    try:
        return {str(path): read_field(raw, str(path)) for path, raw in rec.observed.items()}
    except ObservationStoreError as exc:
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"a broken field summary for {item.name!r}: {exc}") from None


def _omitted(found: Any) -> tuple[tuple[int, int], ...]:
    """The script's `omitted`: [oracle index, findings not printed] pairs."""
    if not isinstance(found, list):
        return ()
    return tuple(sorted((int(pair[0]), int(pair[1])) for pair in found
                        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, int) for x in pair)))


def _used(rec: NewmanRecord) -> tuple[tuple[str, str], ...]:
    """The chain variables the request was sent with, as its test script reported them."""
    found = rec.result.get("vars") if rec.result is not None else None
    if not isinstance(found, dict):
        return ()
    return tuple((str(k), str(v)) for k, v in found.items() if isinstance(v, str))


def _environment(collection: Collection, base_url: str, variables: dict[str, str]) -> dict[str, Any]:
    values = [{"key": k, "value": v, "type": "default", "enabled": True}
              for k, v in (collection.team.environment if collection.team is not None else ())]
    team = collection.team
    if team is None or BASE_URL_VARIABLE not in {k for k, _ in (*team.variables, *team.environment)}:
        values.append({"key": BASE_URL_VARIABLE, "value": base_url, "type": "default", "enabled": True})
    values.extend({"key": k, "value": v, "type": "secret", "enabled": True} for k, v in sorted(variables.items()))
    return {"name": "satori-ci run", "values": values}


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def _node_path() -> str:
    existing = os.environ.get("NODE_PATH")
    return str(REPORTER_DIR) + (os.pathsep + existing if existing else "")


def run_budget(collection: Collection, config: RunConfig, iterations: int) -> float:
    """Seconds one Newman run may take before it is killed: every request at its deadline, and some more for
    each script and for start-up. A backstop: each exchange is bounded by the reporter already."""
    requests = sum(1 for _ in collection.items()) * iterations
    return BUDGET_SLACK_S + requests * (config.timeout_s + PER_REQUEST_SLACK_S)


def _run_once(newman: str, collection: Collection, config: RunConfig, variables: dict[str, str],
              iterations: int, workdir: Path, name: str) -> NewmanReport:
    collection_file = workdir / f"{name}.collection.json"
    environment_file = workdir / f"{name}.environment.json"
    export = workdir / f"{name}.results.jsonl"
    collection_file.write_text(collection.to_json(), encoding="utf-8")
    _write_private(environment_file, json.dumps(_environment(collection, base_url_of(config), variables)))
    deadline_ms = min(max(1, int(config.timeout_s * 1000)), NODE_TIMER_MAX_MS)
    budget = run_budget(collection, config, iterations)
    command = [
        newman, "run", str(collection_file), "--environment", str(environment_file),
        "--reporters", "satori", "--reporter-satori-export", str(export),
        "--reporter-satori-max-response-bytes", str(config.max_bytes),
        "--reporter-satori-deadline-ms", str(deadline_ms),
        "--iteration-count", str(iterations), "--timeout-request", str(deadline_ms), "--ignore-redirects",
        "--color", "off", "--disable-unicode",
    ]
    if config.insecure:
        command.append("--insecure")
    env = {**os.environ, "NODE_PATH": _node_path()}
    errors = workdir / f"{name}.stderr.txt"
    try:
        with errors.open("wb") as stderr_file:
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr_file, cwd=workdir)
            try:
                returncode = _wait(process, export, budget, collection, iterations, config.progress)
            except BaseException:  # Ctrl-C, SIGTERM (the action cancelled): Newman stops with us
                _stop(process)
                raise
    except subprocess.TimeoutExpired:
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman did not finish within {budget:g} s (every request at its {config.timeout_s:g} s "
                       "deadline and more): stopped") from None
    except FileNotFoundError as exc:
        raise RunError(RunErrorKind.NEWMAN_MISSING,
                       f"cannot start newman ({exc.filename or newman}): is Node.js installed? Run "
                       f"`{SETUP_COMMAND}` in the satori-ci checkout, or use --runner native") from None
    finally:
        environment_file.unlink(missing_ok=True)
    stderr = errors.read_text(encoding="utf-8", errors="replace").strip()
    if not export.is_file():
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman wrote no results (exit {returncode}): {_tail(stderr) or 'no message'}")
    with export.open(encoding="utf-8") as handle:
        report = read_report(handle)
    bounds = report.bounds or {"error": "the satori reporter wrote no bounds line (an older copy?)"}
    if bounds.get("error"):
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman: cannot bound response sizes and times ({bounds['error']}): run `{SETUP_COMMAND}` "
                       "in the satori-ci checkout for the pinned newman, or use --runner native")
    if not report.done:
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman stopped before the end of the run (exit {returncode}): {_tail(stderr)}")
    if report.error:
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"newman: {report.error}")
    return report


POLL_S = 0.1


def _wait(process: subprocess.Popen[bytes], export: Path, budget: float, collection: Collection, iterations: int,
          progress: Progress | None) -> int:
    """Newman's exit code; on the way, `progress` is told of every request the reporter records (the file grows
    as requests finish). Past `budget` seconds the process is killed (TimeoutExpired)."""
    total = sum(1 for _ in collection.items()) * iterations
    labels = {item.id: item.label for item in collection.items()}
    deadline = time.monotonic() + budget
    done, offset = 0, 0
    while True:
        try:
            code = process.wait(timeout=POLL_S)
        except subprocess.TimeoutExpired:
            code = None
        if progress is not None and export.is_file():
            with export.open("rb") as handle:
                handle.seek(offset)
                chunk = handle.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]
            offset += len(complete)
            for line in complete.splitlines():
                if line.startswith(b'{"type":"request"'):
                    done += 1
                    item = json.loads(line).get("item")
                    progress(min(done, total), total, labels.get(str(item), ""))
        if code is not None:
            return code
        if time.monotonic() > deadline:
            _stop(process)
            raise subprocess.TimeoutExpired(process.args, budget)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.splitlines()[-lines:])


def _pairs(collection: Collection, iterations: int) -> Iterator[tuple[int, RequestItem]]:
    for iteration in range(iterations):
        for item in collection.items():
            yield iteration, item


def run_newman(collection: Collection, config: RunConfig, sleep: Sleep = time.sleep,
               reports: list[NewmanReport] | None = None) -> RunResult:
    """Run the collection with Newman, retry the requests that met infrastructure problems, read the results.

    `reports`, when given, receives the raw report of every Newman invocation (the first run, then retries).
    """
    newman = find_newman()
    started = time.monotonic()
    collection, variables, notes = prepare(collection, config)
    with tempfile.TemporaryDirectory(prefix="satori-newman-") as tmp:
        workdir = Path(tmp)
        report = _run_once(newman, collection, config, variables, config.iterations, workdir, "run")
        if reports is not None:
            reports.append(report)
        final: dict[tuple[str, int], tuple[Exchange, int]] = {}
        for iteration, item in _pairs(collection, config.iterations):
            final[(item.id, iteration)] = (_exchange(item, report.records.get((item.id, iteration))), 1)
        by_id = {item.id: item for item in collection.items()}
        for attempt in range(1, config.retries + 1 if collection.team is None else 1):
            pending = [key for key, (ex, tries) in final.items() if ex.retryable(tries, config.retries)]
            if not pending:
                break
            sleep(config.backoff_s * attempt)
            copies = {f"{item_id}~{iteration}": (item_id, iteration) for item_id, iteration in pending}
            subset = collection.subset((item_id, copy) for copy, (item_id, _) in copies.items())
            chained = {k: v for key in pending for k, v in final[key][0].used}
            retry = _run_once(newman, subset, config, {**variables, **chained}, 1, workdir, f"retry{attempt}")
            if reports is not None:
                reports.append(retry)
            for copy, (item_id, iteration) in copies.items():
                final[(item_id, iteration)] = (_exchange(by_id[item_id], retry.records.get((copy, 0))), attempt + 1)
    tally = Tally("newman", collection, config)
    base_url = base_url_of(config)
    for iteration, item in _pairs(collection, config.iterations):
        ex, attempts = final[(item.id, iteration)]
        tally.add(item, request_ref(item, iteration, base_url, ex.used), ex, attempts)
    return tally.result(time.monotonic() - started, (*collection.notes, *notes), collection)
