"""The partial report of one shard of a sharded check, and the merge of every shard's report into the check
(pure: text and values in, values out; the CLI and the action read and write the files).

A partial report is one JSON object:

    {"format": "satori-ci shard report", "version": 2, "satori_ci": "<version>", "shard": "2/4",
     "status": "ok" | "failed", "error": null | "why the shard could not run", "exit_code": 0, "notes": [...],
     "binding": [commit, base, config digest] | null,
     "specs": [{"check": "<sha256>", "common": null | {...}, "run": ..., "fields": ..., "locations": ...,
                "binding": [spec, [[file, sha256], ...], oracle file, its sha256, the store's sha256]}],
     "digest": "<sha256>"}

Per spec (`ShardSpec` of `satori_ci.pipeline`, written by `satori_ci.report.codec`): what only this shard has
(its part of the run, and the fields and locations the merge needs for that part), and what every shard has
(`common`: the frame, i.e. everything before the run; the order of a run of the whole collection; a digest of
the run's inputs: requests, staging origin, header names, runner, bounds). Shard 1 carries `common` (the earlier
oracle file written against the inferred one: an entry that did not change is its index there); every shard
writes `check`, the digest of `common` as it computed it (specs, field diff, inferred and earlier oracle files,
observation stores, suspects, run order, inputs), which names the check the shard belongs to. `digest` is the
digest of the report's own content. Both only say that the shards agree with each other and that a report was
not cut short: anyone who can write an artifact can recompute them.

`binding` is what the report was written for, as the shard job read its checkout: the commit (and base), the
trusted config's digest (`RunBinding`), and per spec the digests of its documents, of the oracle file and of the
store, and where the oracle file is (`pipeline.SpecBinding`). The merge job computes the same values itself
(`Expected`: its own commit, config and specs, read from its own checkout) and refuses a report whose binding
differs; it writes the oracle files and stores only at the paths it computed, of the specs it would check.

`merge_shards` checks that every shard of 1..N is there once, ran, is unchanged since it was written,
belongs to the same check (same satori-ci version, same `check` digests) and to this merge job's check (its
binding), then concludes each spec once with the run the shards add up to (`satori_ci.run.shards.merge_runs`):
the same `CheckReport` an unsharded check gives, the observation store and the oracle file with the suggestions
of every shard's observations. The reports are untrusted text (they travel through CI artifacts): their size and
number of values are bounded before they are parsed, they are read strictly, rendered through `report/escape`
like any response, and decide nothing about where requests or secrets go (the merge sends no request) nor where
files are written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from satori_ci import __version__
from satori_ci.config import ProjectConfig
from satori_ci.errors import ErrorKind, ExitCode, SatoriError
from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.pipeline import (
    CheckFrame,
    FieldKey,
    ShardSpec,
    SpecBinding,
    SpecOutcome,
    conclude,
    secret_value,
    store_file_of,
)
from satori_ci.plan.shards import Shard, ShardError, parse_shard
from satori_ci.report import escape as esc
from satori_ci.report.codec import CodecError, decode, encode_as
from satori_ci.report.model import CheckReport, FailOn, FieldLocation
from satori_ci.run.model import RunResult
from satori_ci.run.shards import RunOrder, merge_runs
from satori_ci.spec.model import ResponseField

KIND = "satori-ci shard report"
VERSION = 2
MAX_REPORT_BYTES = 96 * 1024 * 1024
"""A partial report's size, at most: checked before it is read. GitHub's REST spec (13 MB, 77,000 fields) gives
reports of 32 MiB (shard 1 of 4, carrying the frame) and 45 MiB once an observation store is committed."""
MAX_REPORT_VALUES = 12_000_000
"""JSON values (arrays, objects and items after the first: counted as brackets and commas) in a partial report,
at most: checked before it is parsed (an empty array is 3 bytes of JSON and 72 of memory). GitHub's spec's
reports hold at most 5.5 million."""
CARRIER = 1
"""The shard whose report carries what every shard has (`common`)."""
_KEYS = frozenset({"format", "version", "satori_ci", "shard", "status", "error", "exit_code", "notes", "binding",
                   "specs", "digest"})
_SPEC_KEYS = frozenset({"check", "common", "run", "fields", "locations", "binding"})
_COMMON_KEYS = frozenset({"frame", "previous", "order", "inputs"})


class ShardReportError(SatoriError, kind=ErrorKind.INFRASTRUCTURE):
    """Partial reports that cannot be merged: one line, and the exit code it stands for (2: a report that is not
    one, or reports of different checks; 3: a shard missing or failed)."""

    def __init__(self, code: ExitCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    @property
    def error_kind(self) -> ErrorKind:
        return ErrorKind.of_code(self.code)


@dataclass(frozen=True)
class RunBinding:
    """What every partial report of one check is bound to besides its specs, as a job computes it from its own
    checkout and trusted inputs (the shard job writes it, the merge job computes it again)."""

    commit: str | None
    """The commit checked: the action's head commit (`GITHUB_SHA` when there is no pull request); on the command
    line `git rev-parse HEAD` (None outside a repository: the specs' digests still bind the report)."""
    base: str | None
    """The base commit a pull request is compared with (the action); None on the command line."""
    config: str
    """`config_digest` of the trusted config."""


def config_digest(config: ProjectConfig) -> str:
    """The digest of a config's values (not of the name of the file they were read from)."""
    plain = replace(config, source=None, specs=tuple(replace(s, source="") for s in config.specs))
    return _sha(encode_as(ProjectConfig, plain))


@dataclass(frozen=True)
class ShardReport:
    """What one shard of a sharded check hands to the merge."""

    shard: Shard
    specs: tuple[ShardSpec, ...] = ()
    failed: str | None = None
    """Why the shard could not run (one line); then `specs` is empty and the merge names this shard."""
    exit_code: int = 0
    """The shard's own exit code when it failed (2 input, 3 infrastructure)."""
    notes: tuple[str, ...] = ()
    """What the command said about its inputs (`note: ...` lines), printed again by the merge."""
    binding: RunBinding | None = None
    """None only in the report of a shard that could not run."""


@dataclass(frozen=True)
class Common:
    """What every shard has of one spec (the carrier's, as read)."""

    frame: CheckFrame
    order: RunOrder | None
    inputs: str


@dataclass(frozen=True)
class SpecPart:
    """One spec of a partial report, as read."""

    check: str
    """The digest of what every shard has of the spec: the same in every shard of one check."""
    common: Common | None
    """Carried by shard 1 only."""
    run: RunResult | None
    fields: tuple[tuple[int, ResponseField], ...]
    locations: tuple[tuple[int, FieldKey, FieldLocation], ...]
    binding: SpecBinding


@dataclass(frozen=True)
class ReadReport:
    """A partial report as the merge reads it."""

    shard: Shard
    specs: tuple[SpecPart, ...] = ()
    failed: str | None = None
    exit_code: int = 0
    notes: tuple[str, ...] = ()
    binding: RunBinding | None = None


# -- writing ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreviousFile:
    """The earlier oracle file written against the inferred one: an entry equal to the inferred file's entry at
    an index is that index (a pull request changes few of them)."""

    spec: str
    entries: tuple[int | FieldEntry, ...]


def _previous_of(previous: OracleFile | None, inferred: OracleFile | None) -> PreviousFile | None:
    if previous is None:
        return None
    index: dict[FieldEntry, int] = {}
    for n, entry in enumerate(inferred.entries if inferred is not None else ()):
        try:
            index.setdefault(entry, n)
        except TypeError:  # an entry that cannot be hashed is written whole
            continue
    entries: list[int | FieldEntry] = []
    for entry in previous.entries:
        try:
            found = index.get(entry)
        except TypeError:
            found = None
        entries.append(entry if found is None else found)
    return PreviousFile(previous.spec, tuple(entries))


def _previous_file(found: PreviousFile | None, inferred: OracleFile | None) -> OracleFile | None:
    if found is None:
        return None
    known = inferred.entries if inferred is not None else ()
    entries = []
    for entry in found.entries:
        if isinstance(entry, int):
            if not 0 <= entry < len(known):
                raise CodecError(f"previous: no entry {entry} in the inferred oracle file")
            entries.append(known[entry])
        else:
            entries.append(entry)
    return OracleFile(found.spec, tuple(entries))


Fields = tuple[tuple[int, ResponseField], ...]
Locations = tuple[tuple[int, FieldKey, FieldLocation], ...]


def _canonical(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=True).encode("utf-8", "surrogatepass")


def _sha(value: Any) -> str:
    return hashlib.sha256(_canonical(value)).hexdigest()


def _common_data(part: ShardSpec) -> dict[str, Any]:
    frame = part.frame
    return {"frame": encode_as(CheckFrame, replace(frame, previous=None)),
            "previous": encode_as(PreviousFile | None, _previous_of(frame.previous, frame.inferred)),
            "order": encode_as(RunOrder | None, part.order), "inputs": part.inputs}


def content_digest(data: dict[str, Any]) -> str:
    """The digest of a partial report's content (everything but the digest itself)."""
    return _sha({k: v for k, v in data.items() if k != "digest"})


def shard_report_data(report: ShardReport, redact: Callable[[Any], Any] = lambda data: data) -> dict[str, Any]:
    """The report as JSON data: `common` (shard 1 only) redacted string by string by `redact` (and the run's part
    too: it holds responses' values), then given the digests."""
    specs = []
    for part in report.specs:
        common = _common_data(part)
        specs.append({
            "check": _sha(common), "common": redact(common) if report.shard.index == CARRIER else None,
            "run": redact(encode_as(RunResult | None, part.run)), "fields": redact(encode_as(Fields, part.fields)),
            "locations": redact(encode_as(Locations, part.locations)),
            "binding": encode_as(SpecBinding | None, part.binding),  # paths and digests: compared, not shown
        })
    data: dict[str, Any] = {
        "format": KIND, "version": VERSION, "satori_ci": __version__, "shard": str(report.shard),
        "status": "failed" if report.failed is not None else "ok", "error": redact(report.failed),
        "exit_code": int(report.exit_code), "notes": redact(list(report.notes)),
        "binding": encode_as(RunBinding | None, report.binding), "specs": specs,
    }
    data["digest"] = content_digest(data)
    return data


def shard_report_text(report: ShardReport, redact: Callable[[Any], Any] = lambda data: data) -> str:
    """The file: `shard_report_data` as JSON, one line (the same bytes for the same report)."""
    return json.dumps(shard_report_data(report, redact), ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")) + "\n"


# -- reading ---------------------------------------------------------------------------------------------------


def _read_spec(data: Any, where: str, carrier: bool) -> SpecPart:
    if not isinstance(data, dict) or set(data) != _SPEC_KEYS:
        raise CodecError(f"{where}: expected the keys {', '.join(sorted(_SPEC_KEYS))}")
    check, raw = data["check"], data["common"]
    if not isinstance(check, str):
        raise CodecError(f"{where}.check: expected a string")
    common = None
    if carrier:
        if not isinstance(raw, dict) or set(raw) != _COMMON_KEYS or not isinstance(raw["inputs"], str):
            raise CodecError(f"{where}.common: expected the keys {', '.join(sorted(_COMMON_KEYS))}")
        frame = decode(CheckFrame, raw["frame"], f"{where}.common.frame")
        previous = decode(PreviousFile | None, raw["previous"], f"{where}.common.previous")
        common = Common(replace(frame, previous=_previous_file(previous, frame.inferred)),
                        decode(RunOrder | None, raw["order"], f"{where}.common.order"), raw["inputs"])
    return SpecPart(check, common, decode(RunResult | None, data["run"], f"{where}.run"),
                    decode(Fields, data["fields"], f"{where}.fields"),
                    decode(Locations, data["locations"], f"{where}.locations"),
                    decode(SpecBinding, data["binding"], f"{where}.binding"))


def json_values(text: str | bytes) -> int:
    """How many JSON values `text` holds, at most (brackets and commas, inside strings too): what parsing it
    builds."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{") + text.count(b",")
    return text.count("[") + text.count("{") + text.count(",")


def read_shard_report_bytes(data: bytes, name: str) -> ReadReport:
    """A partial report from its bytes (at most MAX_REPORT_BYTES + 1 of them: the reader stops there), its size
    and number of values checked before it is decoded."""
    if len(data) > MAX_REPORT_BYTES:
        raise report_too_large(name)
    _check_values(json_values(data), name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ShardReportError(ExitCode.INPUT_ERROR, f"{name}: not UTF-8 (byte {exc.start}): not a shard "
                               "report") from None
    return read_shard_report(text, name)


def report_too_large(name: str) -> ShardReportError:
    """The error for a report past MAX_REPORT_BYTES (exit 2)."""
    return ShardReportError(ExitCode.INPUT_ERROR, f"{name}: larger than {MAX_REPORT_BYTES // (1024 * 1024)} MiB, "
                            "more than the partial report of a spec far larger than GitHub's: not read")


def _check_values(count: int, name: str) -> None:
    if count > MAX_REPORT_VALUES:
        raise ShardReportError(ExitCode.INPUT_ERROR, f"{name}: {count:,} JSON values, more than the "
                               f"{MAX_REPORT_VALUES:,} values the partial report of a spec far larger than GitHub's "
                               "holds: not parsed")


def read_shard_report(text: str, name: str) -> ReadReport:
    """A partial report from its text (ShardReportError, exit 2, naming `name` when it is not one)."""
    def bad(message: str) -> ShardReportError:
        return ShardReportError(ExitCode.INPUT_ERROR, f"{name}: {message}")

    if len(text) > MAX_REPORT_BYTES:
        raise report_too_large(name)
    _check_values(json_values(text), name)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise bad(f"not JSON ({' '.join(str(exc).split())[:120]})") from None
    if not isinstance(data, dict) or data.get("format") != KIND:
        raise bad("not a satori-ci shard report (written by `satori-ci check --shard I/N --shard-report FILE`)")
    if data.get("version") != VERSION:
        raise bad(f"shard report version {str(data.get('version'))[:20]!r}, this satori-ci reads {VERSION}")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise bad(f"unknown key {unknown[0][:40]!r}")
    if data.get("satori_ci") != __version__:
        raise bad(f"written by satori-ci {str(data.get('satori_ci'))[:20]}, this is {__version__}: merge with the "
                  "version the shards ran")
    try:
        shard = parse_shard(str(data.get("shard", "")))
    except ShardError as exc:
        raise bad(str(exc)) from None
    if data.get("digest") != content_digest(data):
        raise bad(f"shard {shard}: its content does not match its digest (changed or cut short after it was "
                  "written)")
    status, error = data.get("status"), data.get("error")
    if status not in ("ok", "failed") or not (error is None or isinstance(error, str)):
        raise bad("status must be ok or failed, error a string or null")
    code, notes = data.get("exit_code", 0), data.get("notes", [])
    if isinstance(code, bool) or not isinstance(code, int) or not (isinstance(notes, list)
                                                                    and all(isinstance(n, str) for n in notes)):
        raise bad("exit_code must be an integer, notes a list of strings")
    if status == "failed":
        return ReadReport(shard, failed=" ".join((error or "the shard failed").split())[:1000], exit_code=code,
                          notes=tuple(notes))
    specs = data.get("specs")
    if not isinstance(specs, list):
        raise bad("specs must be a list")
    try:
        binding = decode(RunBinding, data.get("binding"), "binding")
        parts = tuple(_read_spec(s, f"specs[{n}]", shard.index == CARRIER) for n, s in enumerate(specs))
    except CodecError as exc:
        raise bad(f"shard {shard}: {str(exc)[:300]}") from None
    return ReadReport(shard, parts, None, 0, tuple(notes), binding)


# -- merging ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Merged:
    """The check the shards add up to: its report, and per spec what to write back (as `check_spec` gives; the
    oracle file at `Expected`'s path)."""

    report: CheckReport
    outcomes: tuple[SpecOutcome, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Expected:
    """The check this merge job would make, as it computes it itself (never read from a report): its commit and
    config, and the specs it selects with their documents, oracle files and stores as its checkout has them."""

    run: RunBinding
    specs: tuple[SpecBinding, ...]


def files_named(reports: Sequence[tuple[str, ReadReport]]) -> dict[str, tuple[str, ...]]:
    """Per spec, the documents shard 1's report says the spec was read from (the merge job digests its own copies
    of them: a report that leaves one out or names another does not match the other shards' reports)."""
    for _, report in sorted(reports, key=lambda item: item[1].shard.index != CARRIER):
        return {part.binding.spec: tuple(name for name, _ in part.binding.files) for part in report.specs}
    return {}


def _short(value: str | None) -> str:
    return "none" if value is None else value[:12]


def _run_differs(theirs: RunBinding | None, ours: RunBinding) -> str | None:
    """How a report's run binding differs from this job's (None: it does not)."""
    if theirs is None:  # pragma: no cover - read_shard_report gives every report that ran a binding
        return "without saying for what"
    if theirs.commit != ours.commit:
        return f"for commit {_short(theirs.commit)}, and this job checks {_short(ours.commit)}"
    if theirs.base != ours.base:
        return f"against base commit {_short(theirs.base)}, and this job's is {_short(ours.base)}"
    if theirs.config != ours.config:
        return "under another config than this job's (.satori.yml: the trusted one in the action)"
    return None


def _spec_differs(theirs: SpecBinding, ours: SpecBinding) -> str | None:
    """How a report's spec binding differs from this job's (None: it does not)."""
    if theirs.spec != ours.spec:
        return f"of the spec {_shown(theirs.spec)}, and this job checks {ours.spec} there"
    if theirs.oracle_file != ours.oracle_file:
        return (f"with the oracle file of {ours.spec} at {_shown(theirs.oracle_file)}, and this job's is at "
                f"{ours.oracle_file}{SAME_FOLDER}")
    if theirs.files != ours.files:
        local = dict(ours.files)
        changed = next((name for name, digest in theirs.files if local.get(name, "") != digest), None)
        return (f"when {ours.spec} was not as this job reads it"
                f"{f' ({_shown(changed)} differs)' if changed and changed != ours.spec else ''}")
    if theirs.oracle != ours.oracle:
        return f"when the oracle file {ours.oracle_file} was not as this job reads it"
    if theirs.store != ours.store:
        return f"when the observation store {store_file_of(Path(ours.oracle_file)).as_posix()} was not as this " \
            "job reads it"
    return None


SAME_FOLDER = "; refused: give the shard jobs and this one the same oracles-dir (--oracles on the command line)"
"""The end of the line that refuses a report whose oracle file is elsewhere than this job's."""
SAME_CHECK = "; refused: merge the reports of this check's shards (this commit, config and checkout)"


def _shown(value: str) -> str:
    """A path a report names, as an error line shows it: one line, control characters escaped, cut."""
    return esc.clip(esc.visible(value), 200)


def _names(specs: Sequence[str]) -> str:
    shown = ", ".join(_shown(s) for s in specs[:5]) + (f" and {len(specs) - 5} more" if len(specs) > 5 else "")
    return shown or "no spec"


def _bound(ordered: Sequence[tuple[str, ReadReport]], expected: Expected) -> None:
    """Every report is of the check this job would make (ShardReportError, exit 2, naming the first that is not):
    the same specs, commit, config, documents, oracle files and stores, the oracle files where this job puts
    them."""
    theirs = [part.binding.spec for part in ordered[0][1].specs]
    ours = [spec.spec for spec in expected.specs]
    if theirs != ours:
        raise ShardReportError(ExitCode.INPUT_ERROR, f"the shard reports check {_names(theirs)}, and this job "
                               f"checks {_names(ours)}: merge the reports of this job's check (the same specs: "
                               "the config's, the specs input, or --head)")
    for name, report in ordered:
        why = _run_differs(report.binding, expected.run)
        for part, spec in zip(report.specs, expected.specs, strict=True):
            if why is not None:
                break
            why = _spec_differs(part.binding, spec)
            frame = part.common.frame if part.common is not None else None
            if why is None and frame is not None and (frame.check.spec, frame.check.oracle_file) != (
                    spec.spec, spec.oracle_file):
                why = f"naming {_shown(frame.check.spec)} and {_shown(frame.check.oracle_file)} in its frame"
            if why is None and frame is not None and frame.store_file not in (
                    "", store_file_of(Path(spec.oracle_file)).as_posix()):
                why = f"naming the store {_shown(frame.store_file)} in its frame"
        if why is not None:
            advice = "" if why.endswith(SAME_FOLDER) else SAME_CHECK
            raise ShardReportError(ExitCode.INPUT_ERROR, f"{name}: shard {report.shard} was written {why}{advice}")


def _shards(items: Sequence[Shard]) -> str:
    return ", ".join(str(s) for s in sorted(items))


def _complete(reports: Sequence[tuple[str, ReadReport]]) -> list[tuple[str, ReadReport]]:
    """The reports (with their names) in shard order, once each, all ran and of one check (ShardReportError
    otherwise)."""
    if not reports:
        raise ShardReportError(ExitCode.INFRASTRUCTURE, "no shard report to merge")
    counts = sorted({r.shard.count for _, r in reports})
    if len(counts) > 1:
        shown = ", ".join(f"{name} is {r.shard}" for name, r in reports[:4])
        raise ShardReportError(ExitCode.INPUT_ERROR, f"the reports are of different numbers of shards ({shown}): "
                               "merge the reports of one run")
    by_index: dict[int, list[tuple[str, ReadReport]]] = {}
    for name, r in reports:
        by_index.setdefault(r.shard.index, []).append((name, r))
    twice = sorted(i for i, found in by_index.items() if len(found) > 1)
    if twice:
        names = " and ".join(name for name, _ in by_index[twice[0]][:2])
        raise ShardReportError(ExitCode.INPUT_ERROR, f"shard {twice[0]}/{counts[0]} is given twice ({names}): give "
                               "each shard's report once")
    count = counts[0]
    missing = [Shard(i, count) for i in range(1, count + 1) if i not in by_index]
    failed = sorted(((name, r) for name, r in reports if r.failed is not None), key=lambda x: x[1].shard)
    if missing or failed:
        parts = []
        if missing:
            parts.append(f"missing shard{'s' if len(missing) > 1 else ''} {_shards(missing)} of {count}")
        if failed:
            name, first = failed[0]
            which = _shards([r.shard for _, r in failed])
            parts.append(f"shard{'s' if len(failed) > 1 else ''} {which} failed ({name}: {first.failed})")
        raise ShardReportError(ExitCode.INFRASTRUCTURE, "; ".join(parts) + ": the check needs every shard")
    ordered = [by_index[i][0] for i in range(1, count + 1)]
    checks: dict[tuple[str, ...], list[Shard]] = {}
    for _, r in ordered:
        checks.setdefault(tuple(s.check for s in r.specs), []).append(r.shard)
    if len(checks) > 1:
        groups = sorted(checks.values(), key=lambda g: (-len(g), g))
        odd = _shards([s for g in groups[1:] for s in g])
        raise ShardReportError(ExitCode.INPUT_ERROR, f"shard(s) {odd} checked something else than shard(s) "
                               f"{_shards(groups[0])} (their specs, oracles, stores or requests differ): merge the "
                               "reports of one run")
    return ordered


def merge_shards(reports: Sequence[tuple[str, ReadReport]], fail_on: FailOn, expected: Expected,
                 secret: Callable[[str], bool] = secret_value) -> Merged:
    """The check that every shard's report (with the name to call it by) adds up to: what `check` gives for
    the whole plan. ShardReportError (one line) when a shard is missing, failed, given twice, of another
    check, or of another check than `expected` (what this job computed itself)."""
    named = _complete(reports)
    _bound(named, expected)
    ordered = [r for _, r in named]
    outcomes = []
    for n, carried in enumerate(ordered[0].specs):
        common = carried.common
        if common is None:  # pragma: no cover - shard 1 always carries it (read_shard_report)
            raise ShardReportError(ExitCode.INPUT_ERROR, f"shard {ordered[0].shard} does not carry spec {n}")
        parts = [r.specs[n] for r in ordered]
        runs = [p.run for p in parts if p.run is not None]
        run = merge_runs(runs, common.order) if runs and common.order is not None else None
        fields: dict[int, ResponseField] = {}
        table: dict[FieldKey, tuple[int, FieldLocation]] = {}
        for p in parts:
            fields.update(p.fields)
            for index, key, where in p.locations:
                table.setdefault(key, (index, where))

        def locate(wanted: Any, table: dict[FieldKey, tuple[int, FieldLocation]] = table
                   ) -> dict[FieldKey, FieldLocation]:
            found = sorted((index, key, where) for key, (index, where) in table.items() if key in wanted)
            return {key: where for _, key, where in found}

        outcomes.append(conclude(common.frame, run, [fields[i] for i in sorted(fields)], locate, secret))
    notes = tuple(dict.fromkeys(n for r in ordered for n in r.notes))
    return Merged(CheckReport(tuple(o.check for o in outcomes), fail_on), tuple(outcomes), notes)
