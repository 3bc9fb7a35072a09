"""GitHub workflow-command annotations on the spec line of each field with a violation or an oracle change."""

from __future__ import annotations

from satori_ci.oracles.model import Oracle
from satori_ci.report import escape as esc
from satori_ci.report.accept_commands import oracle_command
from satori_ci.report.change_coverage import exercised_identities
from satori_ci.report.json_report import group_violations, new_suggestions, reviewed_changes, suggestion_key
from satori_ci.report.model import CheckReport, SpecCheck
from satori_ci.report.oracle_text import describe
from satori_ci.report.run_text import observed_mark
from satori_ci.spec.model import OperationKey

LEVELS = ("error", "warning", "notice")
MESSAGE_LIMIT = 1_000


def command(level: str, message: str, *, file: str | None = None, line: int | None = None,
            title: str | None = None) -> str:
    """One `::level file=F,line=L,title=T::message` line, properties and message escaped for the runner."""
    props = []
    if file:
        props.append(f"file={esc.command_property(file)}")
    if file and line is not None:
        props.append(f"line={int(line)}")
    if title:
        props.append(f"title={esc.command_property(esc.terminal(title, 200))}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{esc.command_data(esc.terminal(message, MESSAGE_LIMIT))}"


def _where(spec: SpecCheck, op: OperationKey, field: str) -> tuple[str, int | None]:
    loc = spec.locations.get((op.method, op.path, op.status, field))
    return (loc.file, loc.line) if loc is not None else (spec.spec, None)


def _named(op: OperationKey, field: str) -> str:
    return f"{op} {field or '(body)'}"


def _violations(spec: SpecCheck, report: CheckReport, out: dict[str, list[str]]) -> None:
    if spec.run is None:
        return
    failing = {id(v) for v in spec.failing_violations(report.fail_on)}
    for op, fields in group_violations(spec.run.violations):
        for field, oracles in fields:
            found = [v for _, group in oracles for v in group]
            level = "error" if any(id(v) in failing for v in found) else "warning"
            parts = [f"{describe(o)}{observed_mark(o)}: {g[0].value} at {g[0].pointer or '(body)'}"
                     + (f" (and {len(g) - 1} more)" if len(g) > 1 else "") for o, g in oracles]
            file, line = _where(spec, op, field)
            message = f"{len(found)} value(s) break {len(oracles)} oracle(s): " + "; ".join(parts)
            out[level].append(command(level, message, file=file, line=line,
                                      title=f"Oracle violation: {_named(op, field)}"))


def _oracle_changes(spec: SpecCheck, out: dict[str, list[str]]) -> None:
    diff = reviewed_changes(spec.oracle_diff)
    if diff is None:
        return

    def said(o: Oracle) -> str:
        extra = "" if o.enabled else ", disabled"
        return f"{describe(o)} ({o.source}{extra}{': ' + o.reason if o.reason else ''})"

    new = new_suggestions(spec)
    for o in spec.suggestions:
        if suggestion_key(o) in new:
            file, line = _where(spec, o.operation, o.field)
            out["notice"].append(command("notice", f"{describe(o)} ({o.reason}); accept it with "
                                         f"`{oracle_command(spec, 'accept', o)}`", file=file, line=line,
                                         title=f"Suggested oracle (observed): {_named(o.operation, o.field)}"))
    for f in diff.fields:
        file, line = _where(spec, f.operation, f.field)
        name = _named(f.operation, f.field)
        for o in f.added:
            out["notice"].append(command("notice", said(o), file=file, line=line, title=f"Oracle added: {name}"))
        for o in f.removed:
            out["warning"].append(command("warning", said(o), file=file, line=line, title=f"Oracle removed: {name}"))
        for ch in f.changed:
            level = "warning" if not ch.new.enabled or ch.new.review else "notice"
            review = f"; {ch.new.review}" if ch.new.review else ""
            out[level].append(command(level, f"{said(ch.old)} -> {said(ch.new)}{review}", file=file, line=line,
                                      title=f"Oracle changed ({ch.what}): {name}"))


def _change(spec: SpecCheck, out: dict[str, list[str]]) -> None:
    """One annotation per operation whose changed oracles met no value, on its first changed field's line: an error
    when the change counts as unchecked (it fails the check), a notice otherwise."""
    found = spec.change
    if found is None:
        return
    level = "error" if found.short else "notice"
    exercised = exercised_identities(spec.run) if spec.run is not None else frozenset()
    for u in found.unexercised:
        first = min(i for i in spec.changed if i[:2] == (u.method, u.path) and i not in exercised)
        file, line = _where(spec, OperationKey(first[0], first[1], first[2]), first[3])
        out[level].append(command(level, f"{u.oracles} oracle(s) this change adds or changes met no value: {u.why}",
                                  file=file, line=line, title=f"Change not exercised: {u.label}"))


def _capped(level: str, lines: list[str], cap: int) -> list[str]:
    """At most `cap` lines; when there are more, the last one says how many were left out."""
    if len(lines) <= cap:
        return lines
    keep = max(cap - 1, 0)
    left = len(lines) - keep
    more = command(level, f"{left} more {level} annotation(s) not shown: see the job summary", title="satori-ci")
    return [*lines[:keep], more]


def render_annotations(report: CheckReport, cap: int = 10) -> list[str]:
    """Errors for fields with failing violations, warnings for the rest and for weakened oracles, notices else."""
    out: dict[str, list[str]] = {level: [] for level in LEVELS}
    for spec in report.specs:
        if spec.error is not None:
            out["error"].append(command("error", spec.error, file=spec.spec, title="satori-ci: spec not checked"))
            continue
        _violations(spec, report, out)
        run = spec.run
        if run is not None and run.infrastructure:
            first = run.infrastructure[0]
            out["warning"].append(command(
                "warning", f"{len(run.infrastructure)} request(s) failed, first: {first.request.method} "
                f"{first.request.url}: {first.detail}", file=spec.spec, title="satori-ci: staging unreachable"))
        _change(spec, out)
        _oracle_changes(spec, out)
    return [line for level in LEVELS for line in _capped(level, out[level], cap)]
