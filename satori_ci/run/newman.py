"""The Newman runner: the only module that starts `newman`, and the only one of `run` that exports a collection.

Results are not read from Newman's JSON reporter (it holds every failure with its whole item and writes
the run as one string, which throws `RangeError: Invalid string length` on large failing runs). The
collection's test scripts print one compact line per response and per chunk of findings; the `satori`
reporter shipped in satori_ci/run/node (found by Newman through NODE_PATH) streams those lines, and one
line per request sent, to a file as they happen; `newman_report` reads that file line by line.

Bounds, the same as the native runner's: Newman runs with --ignore-redirects (a 3XX is the answer), and the
reporter, loaded into Newman's process before the first request, sets postman-request's `maxResponseSize`
(`RunConfig.max_bytes`) and a deadline of `RunConfig.timeout_s` on every exchange (Newman itself has no size
option, and --timeout-request only bounds each wait). It says so in its first line; without it the run stops
with a RunError rather than run unbounded. Last, the Newman process is killed when the whole run outlasts
`run_budget` (every request at its deadline, plus start-up and scripts).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeAlias

from satori_ci.plan.model import SkipKind
from satori_ci.plan.requests import PlannedRequest, RequestSet
from satori_ci.postman.export import BASE_URL_VARIABLE, collection_json, header_variables
from satori_ci.postman.read import TeamCollection
from satori_ci.postman.script import RESULTS_VARIABLE
from satori_ci.run.breaker import Breaker, cause_of, no_answer, not_sent, tripped_first, unsent_kind
from satori_ci.run.code_cache import code_cache_env
from satori_ci.run.discover import Discovery, discover
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import RequestRef, RunResult
from satori_ci.run.native import OUT_OF_TIME
from satori_ci.run.newman_report import TOO_LARGE_CODE, Assertion, NewmanReport, exchange_of, read_report
from satori_ci.run.outcome import Exchange, Progress, RunConfig, Tally, base_url_of, credentials, request_ref
from satori_ci.run.team import TeamTest, TeamTestOutcome

TeamSource: TypeAlias = TeamCollection
"""What the requests' given ones come from: the team's collection, whose file Newman runs with the assertions added."""

REPO_ROOT = Path(__file__).resolve().parents[2]
REPORTER_DIR = Path(__file__).resolve().with_name("node")
"""Holds `newman-reporter-satori/`; put on NODE_PATH so that `newman -r satori` finds it."""
PRELOAD = REPORTER_DIR / "satori-preload.js"
"""Required into Newman's process before Newman (NODE_OPTIONS): see the file."""
SETUP_COMMAND = "npm ci"
NEWMAN_VERSION = "6.2.2"
"""The newman package-lock.json pins (a test keeps them equal)."""
NEWMAN_ENV = "SATORI_NEWMAN"
"""An explicit path to the newman binary (else node_modules/.bin/newman of satori-ci's own checkout, else `newman`
on PATH; never one in the current folder, which may be a pull request's checkout)."""

Sleep = Callable[[float], None]

BUDGET_SLACK_S = 60.0
"""Newman's start-up and the scripts' time, on top of every request at its deadline (`run_budget`)."""
PER_REQUEST_SLACK_S = 5.0
NODE_TIMER_MAX_MS = 2**31 - 1
"""The longest a Node.js timer waits: past it setTimeout fires after 1 ms (the CLI and the action refuse such a
timeout already)."""


def setup_hint() -> str:
    """How to get Newman, for how satori-ci was installed: a checkout has the lock file (`npm ci` there), an
    installed package does not (the pinned version, globally, or `SATORI_NEWMAN`)."""
    if (REPO_ROOT / "package-lock.json").is_file():
        return (f"run `{SETUP_COMMAND}` in the satori-ci checkout ({REPO_ROOT}), which installs the pinned newman "
                "from package-lock.json (needs Node.js 16+)")
    return (f"install it with `npm install -g newman@{NEWMAN_VERSION}` (the version satori-ci is tested with; "
            f"needs Node.js 16+), or set {NEWMAN_ENV} to its path")


def find_newman() -> str:
    """The newman binary to run, or RunError naming how to install it."""
    explicit = os.environ.get(NEWMAN_ENV)
    if explicit:
        if Path(explicit).is_file():
            return explicit
        raise RunError(RunErrorKind.NEWMAN_MISSING,
                       f"{NEWMAN_ENV}={explicit}: no such file; point it at the newman binary or unset it, or use "
                       "--runner native")
    local = REPO_ROOT / "node_modules" / ".bin" / "newman"  # never the current folder's: a checkout's files are
    if local.is_file():                                      # untrusted, and Newman is given the staging secrets
        return str(local)
    on_path = shutil.which("newman")
    if on_path:
        return on_path
    raise RunError(RunErrorKind.NEWMAN_MISSING, f"newman is not installed: {setup_hint()}, or use --runner native")


def _environment(team: TeamCollection | None, base_url: str, variables: dict[str, str]) -> dict[str, Any]:
    values = [{"key": k, "value": v, "type": "default", "enabled": True}
              for k, v in (team.run_environment if team is not None else ()) if k != RESULTS_VARIABLE]
    values.append({"key": RESULTS_VARIABLE, "value": "1", "type": "default", "enabled": True})
    if team is None or BASE_URL_VARIABLE not in {k for k, _ in (*team.variables, *team.run_environment)}:
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


def _node_options() -> str:
    """NODE_OPTIONS for Newman: `satori-preload.js` first (files satori-ci writes are read as the UTF-8 they are,
    not guessed at byte by byte), then the user's own."""
    preload = str(PRELOAD).replace("\\", "\\\\").replace('"', '\\"')
    existing = os.environ.get("NODE_OPTIONS", "").strip()
    return f'--require "{preload}"' + (f" {existing}" if existing else "")


def run_budget(planned: RequestSet, config: RunConfig, iterations: int) -> float:
    """Seconds one Newman run may take before it is killed: every request at its deadline, and some more for
    each script and for start-up. A backstop: each exchange is bounded by the reporter already."""
    requests = sum(1 for _ in planned.requests()) * iterations
    return BUDGET_SLACK_S + requests * (config.timeout_s + PER_REQUEST_SLACK_S)


@dataclass(frozen=True)
class _Export:
    """What one Newman invocation runs: the requests, the collection file's text, the environment's values."""

    planned: RequestSet
    collection: str
    environment: dict[str, Any]


def _export(planned: RequestSet, team: TeamCollection | None, config: RunConfig, variables: dict[str, str]) -> _Export:
    """The collection Newman runs (the run's headers read from variables, never written in it) and its environment
    (the base URL, the credentials and the headers' values); satori-ci's own requests borrow the team's auth where
    they send no credential with a value, as the native runner does."""
    templates, values = header_variables(config.headers)
    text = collection_json(planned, team, templates, unset=frozenset(k for k, v in variables.items() if not v))
    return _Export(planned, text, _environment(team, base_url_of(config), {**variables, **values}))


@dataclass
class _Watch:
    """What `_wait` watches in the reporter's lines as Newman runs: attempts without an answer (the breaker),
    the run's time budget (`deadline`); `stopped` says why Newman was stopped early, and at which request."""

    base_url: str
    breaker: Breaker
    deadline: float
    stopped: str | None = None
    tripped_at: tuple[str, int] | None = None
    seen: dict[str, int] = field(default_factory=dict)

    def request(self, entry: dict[str, Any], tell: Callable[[str], None]) -> None:
        """One request line of the reporter: answered, or a cause for the breaker."""
        error = entry.get("error")
        if not isinstance(error, dict) or error.get("code") == TOO_LARGE_CODE:
            self.breaker.record(self.base_url, None)
            return
        code, message = error.get("code"), str(error.get("message") or "request failed")
        cause = cause_of(f"{code}: {message}" if code else message)
        tell(no_answer(self.base_url, cause))
        trip = self.breaker.record(self.base_url, cause)
        if trip is not None:
            item, iteration = entry.get("item"), entry.get("iteration")
            self.tripped_at = (str(item), iteration if isinstance(iteration, int) else 0)

    def why_stop(self) -> str | None:
        """Why to stop Newman now (the breaker tripped, the time budget ran out), or None."""
        trip = self.breaker.tripped
        if trip is not None:
            return not_sent(trip)
        return OUT_OF_TIME if time.monotonic() > self.deadline else None


class _Stopped(Exception):
    """Newman was stopped before the end of its run by `_Watch`."""


def _run_once(newman: str, export: _Export, config: RunConfig, iterations: int, workdir: Path,
              name: str, watch: _Watch) -> NewmanReport:
    collection_file = workdir / f"{name}.collection.json"
    environment_file = workdir / f"{name}.environment.json"
    results = workdir / f"{name}.results.jsonl"
    collection_file.write_text(export.collection, encoding="utf-8")
    _write_private(environment_file, json.dumps(export.environment))
    deadline_ms = min(max(1, int(config.timeout_s * 1000)), NODE_TIMER_MAX_MS)
    budget = run_budget(export.planned, config, iterations)
    command = [
        newman, "run", str(collection_file), "--environment", str(environment_file),
        "--reporters", "satori", "--reporter-satori-export", str(results),
        "--reporter-satori-max-response-bytes", str(config.max_bytes),
        "--reporter-satori-deadline-ms", str(deadline_ms),
        "--iteration-count", str(iterations), "--timeout-request", str(deadline_ms), "--ignore-redirects",
        "--color", "off", "--disable-unicode",
    ]
    if config.insecure:
        command.append("--insecure")
    if export.planned.budget.rate > 0:  # `requests.rate`: Newman waits between two requests
        command += ["--delay-request", str(math.ceil(1000 / export.planned.budget.rate))]
    env = code_cache_env(newman, {**os.environ, "NODE_PATH": _node_path(), "NODE_OPTIONS": _node_options()})
    errors = workdir / f"{name}.stderr.txt"
    try:
        with errors.open("wb") as stderr_file:
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr_file, cwd=workdir)
            try:
                returncode = _wait(process, results, budget, export.planned, iterations, config.progress, watch)
            except _Stopped:
                returncode = -1
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
    if not results.is_file():
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman wrote no results (exit {returncode}): {_tail(stderr) or 'no message'}")
    with results.open(encoding="utf-8") as handle:
        lines = handle if watch.stopped is None else (line for line in handle if line.endswith("\n"))
        report = read_report(lines)  # a stopped Newman may have left its last line half written
    bounds = report.bounds or {"error": "the satori reporter wrote no bounds line (an older copy?)"}
    if bounds.get("error"):
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman: cannot bound response sizes and times ({bounds['error']}): run `{SETUP_COMMAND}` "
                       "in the satori-ci checkout for the pinned newman, or use --runner native")
    if not report.done and watch.stopped is None:
        raise RunError(RunErrorKind.NEWMAN_FAILED,
                       f"newman stopped before the end of the run (exit {returncode}): {_tail(stderr)}")
    if report.error:
        raise RunError(RunErrorKind.NEWMAN_FAILED, f"newman: {report.error}")
    return report


POLL_S = 0.1


def _wait(process: subprocess.Popen[bytes], export: Path, budget: float, planned: RequestSet, iterations: int,
          progress: Progress | None, watch: _Watch) -> int:
    """Newman's exit code; on the way, `progress` is told of every request the reporter records (the file grows
    as requests finish), and `watch` of every one: when it says to stop, the process is killed (`_Stopped`).
    Past `budget` seconds the process is killed (TimeoutExpired)."""
    total = sum(1 for _ in planned.requests()) * iterations
    labels = {item.id: item.label for item in planned.requests()}
    deadline = time.monotonic() + budget
    done, offset = 0, 0
    while True:
        try:
            code = process.wait(timeout=POLL_S)
        except subprocess.TimeoutExpired:
            code = None
        if export.is_file():
            with export.open("rb") as handle:
                handle.seek(offset)
                chunk = handle.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]
            offset += len(complete)
            for line in complete.splitlines():
                if line.startswith(b'{"type":"request"'):
                    done += 1
                    entry = json.loads(line)
                    if progress is not None:
                        progress(min(done, total), total, labels.get(str(entry.get("item")), ""))
                    watch.request(entry, _teller(progress, min(done, total), total))
        if code is not None:
            return code
        watch.stopped = watch.why_stop()
        if watch.stopped is not None:
            _stop(process)
            raise _Stopped
        if time.monotonic() > deadline:
            _stop(process)
            raise subprocess.TimeoutExpired(process.args, budget)


def _teller(progress: Progress | None, done: int, total: int) -> Callable[[str], None]:
    """Tells `progress` about an attempt that got no answer (a heartbeat says so)."""
    def tell(text: str) -> None:
        if progress is not None:
            progress(done, total, text)
    return tell


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.splitlines()[-lines:])


def _pairs(planned: RequestSet, iterations: int) -> Iterator[tuple[int, PlannedRequest]]:
    for iteration in range(iterations):
        for item in planned.requests():
            yield iteration, item


def run_newman(planned: RequestSet, config: RunConfig, sleep: Sleep = time.sleep,
               reports: list[NewmanReport] | None = None, team: TeamCollection | None = None) -> RunResult:
    """Run the requests with Newman, retry those that met infrastructure problems, read the results. `team`: the
    team's collection the requests' given ones come from (its file is what runs, with the assertions added).
    A staging that does not answer trips the breaker before Newman starts (`discover`) or while it runs (then
    Newman is stopped), and so does the time budget: what was not sent is reported so.

    `reports`, when given, receives the raw report of every Newman invocation (the first run, then retries).
    """
    newman = find_newman()
    started = time.monotonic()
    breaker = Breaker()
    watch = _Watch(base_url_of(config), breaker, started + planned.budget.seconds)
    if planned.given is None:
        found = discover(planned, config, breaker)
        planned = found.planned
        if breaker.tripped is not None:
            return _not_started(found, config, started)
    variables, notes = credentials(planned, config)
    final: dict[tuple[str, int], tuple[Exchange, int]] = {}
    with tempfile.TemporaryDirectory(prefix="satori-newman-") as tmp:
        workdir = Path(tmp)
        report = _run_once(newman, _export(planned, team, config, variables), config, config.iterations, workdir,
                           "run", watch)
        if reports is not None:
            reports.append(report)
        for iteration, item in _pairs(planned, config.iterations):
            found_ex = _exchange(item, report, (item.id, iteration), watch)
            if found_ex is not None:
                final[(item.id, iteration)] = (found_ex, 1)
        by_id = {item.id: item for item in planned.requests()}
        for attempt in range(1, config.retries + 1 if planned.given is None else 1):
            pending = [key for key, (ex, tries) in final.items() if ex.retryable(tries, config.retries)]
            if not pending or watch.stopped is not None:
                break
            sleep(config.backoff_s * attempt)
            copies = {f"{item_id}~{iteration}": (item_id, iteration) for item_id, iteration in pending}
            subset = planned.subset((item_id, copy) for copy, (item_id, _) in copies.items())
            chained = {k: v for key in pending for k, v in final[key][0].used}
            retry = _run_once(newman, _export(subset, None, config, {**variables, **chained}), config, 1, workdir,
                              f"retry{attempt}", watch)
            if reports is not None:
                reports.append(retry)
            for copy, (item_id, iteration) in copies.items():
                again = _exchange(by_id[item_id], retry, (copy, 0), watch)
                if again is not None:
                    final[(item_id, iteration)] = (again, attempt + 1)
                    if watch.tripped_at == (copy, 0):
                        watch.tripped_at = (item_id, iteration)
    tally = Tally("newman", planned, config)
    base_url = base_url_of(config)
    trip = breaker.tripped
    refs: dict[tuple[str, int], RequestRef] = {}
    for iteration, item in _pairs(planned, config.iterations):
        if (item.id, iteration) not in final:
            tally.skip(item.label, unsent_kind(trip), watch.stopped or not_sent(trip))
            continue
        ex, attempts = final[(item.id, iteration)]
        if trip is not None and watch.tripped_at == (item.id, iteration):
            ex = replace(ex, detail=trip.line)
        refs[(item.id, iteration)] = request_ref(item, iteration, base_url, ex.used)
        tally.add(item, refs[(item.id, iteration)], ex, attempts)
    if planned.given is not None:
        _team_results(tally, report, planned, refs)
    return tripped_first(tally.result(time.monotonic() - started, (*planned.notes, *notes), planned), trip)


def _team_results(tally: Tally, report: NewmanReport, planned: RequestSet, refs: dict[tuple[str, int], RequestRef]
                  ) -> None:
    """The team's own tests, on every request of the run (on its requests, and on satori-ci's through its collection
    and folder scripts), and the answers of its requests outside the plan, from Newman's report, in run order."""
    given = {r.id: r for r in planned.given.requests} if planned.given is not None else {}
    planned_ids = {r.id for r in planned.requests()}
    for (item, iteration), rec in report.records.items():
        request = given.get(item)
        ref = refs.get((item, iteration)) or (RequestRef(item, iteration, request.method, request.url, request.label)
                                              if request is not None else RequestRef(item, iteration, "", ""))
        for found in rec.team_tests:
            tally.team.test(TeamTest(found.name, ref, _outcome(found), found.error or ""))
        if request is not None and item not in planned_ids and rec.requested:
            tally.team.sent(request, rec.status if rec.error is None else None)


def _outcome(found: Assertion) -> TeamTestOutcome:
    if found.skipped:
        return TeamTestOutcome.SKIPPED
    return TeamTestOutcome.PASSED if found.error is None else TeamTestOutcome.FAILED


def _exchange(item: PlannedRequest, report: NewmanReport, key: tuple[str, int], watch: _Watch) -> Exchange | None:
    """The exchange of one request as Newman's report has it; None for a request a stopped run did not finish."""
    record = report.records.get(key)
    if watch.stopped is None:
        return exchange_of(item, record)
    if record is None or not record.requested:
        return None
    try:
        return exchange_of(item, record)
    except RunError:  # stopped between the request and the end of its test script
        return None


def _not_started(found: Discovery, config: RunConfig, started: float) -> RunResult:
    """The result of a run whose staging tripped the breaker before Newman started: that request's problem, and
    every other request not sent."""
    planned, trip = found.planned, found.failure
    tally = Tally("newman", planned, config)
    line = ""
    if trip is not None:
        request, ex, attempts = trip
        tally.add(request, request_ref(request, 0, base_url_of(config), ex.used), ex, attempts)
        line = ex.detail
    for group in planned.groups:
        tally.skip(group.name, SkipKind.UNANSWERED, f"not sent: {line}" if line else "not sent: staging did not answer")
    result = tally.result(time.monotonic() - started, planned.notes, planned)
    return replace(result, infrastructure=tuple(sorted(result.infrastructure, key=lambda p: p.detail != line)))


class NewmanRunner:
    """The Newman runner (`RequestRunner`): the requests exported as a Postman collection, run by Newman."""

    name = "newman"

    def __init__(self, team: TeamCollection | None = None) -> None:
        self.team = team

    def run(self, planned: RequestSet, config: RunConfig) -> RunResult:
        return run_newman(planned, config, team=self.team)
