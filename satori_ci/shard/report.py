"""The partial report of one shard of a sharded check: written, and read back with its size, number of values and
digests checked (pure: text and values in, values out; the CLI and the action read and write the files).

A partial report is one JSON object:

    {"format": "satori-ci shard report", "version": 2, "satori_ci": "<version>", "shard": "2/4",
     "status": "ok" | "failed", "error": null | "why the shard could not run", "exit_code": 0, "notes": [...],
     "binding": [commit, base, config digest] | null,
     "specs": [{"check": "<sha256>", "common": null | {...}, "run": ..., "fields": ..., "locations": ...,
                "binding": [spec, [[file, sha256], ...], oracle file, its sha256, the store's sha256]}],
     "digest": "<sha256>"}

Per spec (`ShardSpec` of `satori_ci.shard.job`, written by `satori_ci.shard.codec`): what only this shard has
(its part of the run, and the fields and locations the merge needs for that part), and what every shard has
(`common`: the frame, i.e. everything before the run; the order of a run of the whole collection; a digest of
the run's inputs: requests, staging origin, header names, runner, bounds). Shard 1 carries `common` (the earlier
oracle file written against the inferred one: an entry that did not change is its index there); every shard
writes `check`, the digest of `common` as it computed it (specs, field diff, inferred and earlier oracle files,
observation stores, suspects, run order, inputs), which names the check the shard belongs to. `digest` is the
digest of the report's own content. Both only say that the shards agree with each other and that a report was
not cut short: anyone who can write an artifact can recompute them.

`binding` is what the report was written for, as the shard job read its checkout (`satori_ci.shard.binding`):
the commit (and base), the trusted config's digest (`RunBinding`), and per spec the digests of its documents, of
the oracle file and of the store, and where the oracle file is (`SpecBinding`). The merge job computes the same
values itself and refuses a report whose binding differs (`satori_ci.shard.merge`).

The reports are untrusted text (they travel through CI artifacts): their size and number of values are bounded
before they are parsed, and they are read strictly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from satori_ci import __version__
from satori_ci.check.conclude import FieldKey
from satori_ci.check.frame import CheckFrame
from satori_ci.errors import ExitCode
from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.report.model import FieldLocation
from satori_ci.run.model import RunResult
from satori_ci.shard.binding import RunBinding, SpecBinding
from satori_ci.shard.codec import CodecError, decode, digest, encode_as
from satori_ci.shard.errors import ShardError, ShardReportError
from satori_ci.shard.job import ShardSpec
from satori_ci.shard.runs import RunOrder
from satori_ci.shard.slice import Shard, parse_shard
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


def _common_data(part: ShardSpec) -> dict[str, Any]:
    frame = part.frame
    return {"frame": encode_as(CheckFrame, replace(frame, previous=None)),
            "previous": encode_as(PreviousFile | None, _previous_of(frame.previous, frame.inferred)),
            "order": encode_as(RunOrder | None, part.order), "inputs": part.inputs}


def content_digest(data: dict[str, Any]) -> str:
    """The digest of a partial report's content (everything but the digest itself)."""
    return digest({k: v for k, v in data.items() if k != "digest"})


def shard_report_data(report: ShardReport, redact: Callable[[Any], Any] = lambda data: data) -> dict[str, Any]:
    """The report as JSON data: `common` (shard 1 only) redacted string by string by `redact` (and the run's part
    too: it holds responses' values), then given the digests."""
    specs = []
    for part in report.specs:
        common = _common_data(part)
        specs.append({
            "check": digest(common), "common": redact(common) if report.shard.index == CARRIER else None,
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
