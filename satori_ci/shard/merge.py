"""The merge of every shard's partial report into the check (pure: values in, values out).

`merge_shards` checks that every shard of 1..N is there once, ran, is unchanged since it was written,
belongs to the same check (same satori-ci version, same `check` digests) and to this merge job's check (its
binding: `Expected`, its own commit, config and specs, read from its own checkout), then concludes each spec once
with the run the shards add up to (`satori_ci.shard.runs.merge_runs`): the same `CheckReport` an unsharded check
gives, the observation store and the oracle file with the suggestions of every shard's observations. The
reports are untrusted text: what they name is rendered through `report/escape` like any response, and decides
nothing about where requests or secrets go (the merge sends no request) nor where files are written (the
oracle files and stores only at the paths this job computed, of the specs it would check).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satori_ci.check.conclude import FieldKey, conclude, secret_value
from satori_ci.check.stores import store_file_of
from satori_ci.check.target import SpecOutcome
from satori_ci.errors import ExitCode
from satori_ci.report import escape as esc
from satori_ci.report.model import CheckReport, FailOn, FieldLocation
from satori_ci.shard.binding import RunBinding, SpecBinding
from satori_ci.shard.errors import ShardReportError
from satori_ci.shard.report import CARRIER, ReadReport
from satori_ci.shard.runs import merge_runs
from satori_ci.shard.slice import Shard
from satori_ci.spec.model import ResponseField


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
