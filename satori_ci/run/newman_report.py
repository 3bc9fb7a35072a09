"""What Newman's `satori` reporter wrote (satori_ci/run/node: JSON Lines streamed as requests finish), read into
one `Exchange` per request and iteration, as the native runner makes them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from satori_ci.observe.store import ObservationStoreError, read_field
from satori_ci.observe.summary import FieldObservations
from satori_ci.plan.requests import PlannedRequest
from satori_ci.run.errors import RunError, RunErrorKind
from satori_ci.run.model import ProblemKind
from satori_ci.run.outcome import NOT_JSON, TOO_DEEP, Exchange, FindingLine

TOO_LARGE_CODE = "ERESPONSETOOLARGE"
"""The code the reporter gives postman-request's "Maximum response size reached" error."""
_TIMEOUT_CODES = frozenset({"ETIMEDOUT", "ESOCKETTIMEDOUT"})
_TLS_CODES = frozenset({"EPROTO", "DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN",
                        "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
                        "ERR_TLS_CERT_ALTNAME_INVALID", "CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"})


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
    """One `pm.test` as Newman ran it (or, of the team's scripts, one that threw: `error` is its message)."""

    name: str
    skipped: bool
    error: str | None
    team: bool = False
    """A test of the team's own scripts (not of satori-ci's)."""


SCRIPT_ERRORS = {"test": "(error in the test script)", "prerequest": "(error in the pre-request script)"}
"""The name a team script that threw is reported under (Newman counts it as a failure, as a failed test)."""


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
    """The tests of satori-ci's own script."""
    team_tests: list[Assertion] = field(default_factory=list)
    """The team's own tests and script errors, in run order."""
    exception: str | None = None
    """The message of satori-ci's own script, when it threw."""
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
            error = entry.get("error")
            found = Assertion(str(entry.get("name")), bool(entry.get("skipped")),
                              None if error is None else str(error), entry.get("team") is True)
            (rec.team_tests if found.team else rec.assertions).append(found)
        elif kind == "exception":
            rec = report.record(entry.get("item"), entry.get("iteration"))
            if entry.get("team") is True:
                name = SCRIPT_ERRORS.get(str(entry.get("listen")), "(error in a script)")
                rec.team_tests.append(Assertion(name, False, str(entry.get("message")), True))
            else:
                rec.exception = str(entry.get("message"))
        elif kind == "done":
            report.done = True
            report.error = entry.get("error")
    return report


def exchange_of(item: PlannedRequest, rec: NewmanRecord | None) -> Exchange:
    if rec is not None and rec.result is not None and "skipped" in rec.result:
        return Exchange(skipped=str(rec.result.get("skipped") or item.skip_reason))
    if (rec is None or not rec.requested) and item.given is not None:
        return Exchange(skipped=f"{item.given.label} was not run (the collection's scripts skipped it)")
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


def _observed(item: PlannedRequest, rec: NewmanRecord) -> dict[str, FieldObservations]:
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
