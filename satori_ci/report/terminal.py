"""The check's findings for a terminal: plain text, ANSI colours only when asked."""

from __future__ import annotations

from functools import partial

from satori_ci.infer.interface import inferred_count
from satori_ci.observe.keys import suspect_key
from satori_ci.oracles.model import Oracle
from satori_ci.report import escape as esc
from satori_ci.report import team_text
from satori_ci.report.accept_commands import all_command, operation_commands
from satori_ci.report.coverage import KIND_TITLES, PER_OPERATION, coverage_of, grouped_unchecked
from satori_ci.report.json_report import (
    Outcome,
    group_violations,
    new_suggestions,
    reviewed_changes,
    suggestion_key,
    verdict,
)
from satori_ci.report.model import CheckReport, FailOn, SpecCheck
from satori_ci.report.oracle_text import describe
from satori_ci.report.run_text import observed_mark
from satori_ci.report.verdict_text import verdict_words
from satori_ci.run.model import RunResult, Violation
from satori_ci.spec.model import OperationKey

ITEMS = 200
"""Entries of each list spelled out; the JSON report has them all."""
ROWS = 10
"""Offending values shown per field and oracle."""

_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_SYMBOLS = {Outcome.ERROR: ("✖", "red"), Outcome.VIOLATIONS: ("✖", "red"), Outcome.TOLERATED: ("⚠", "yellow"),
            Outcome.UNREACHABLE: ("⚠", "yellow"), Outcome.NOT_RUN: ("ℹ", "cyan"), Outcome.CLEAN: ("✔", "green"),
            Outcome.SERVER_ERRORS: ("✖", "red"), Outcome.AUTH_FAILED: ("⚠", "yellow"),
            Outcome.NOTHING_CHECKED: ("⚠", "yellow"), Outcome.CHANGE_UNCHECKED: ("⚠", "yellow"),
            Outcome.TEAM_TESTS_FAILED: ("✖", "red")}


def _paint(colour: bool, text: str, *styles: str) -> str:
    if not colour or not styles:
        return text
    return "\x1b[" + ";".join(_CODES[s] for s in styles) + "m" + text + "\x1b[0m"


def _t(value: str, limit: int = 300) -> str:
    return esc.terminal(value, limit)


def _name(op: OperationKey, field: str) -> str:
    return f"{_t(str(op), 200)}  {_t(field, 200) if field else '(body)'}"


def _more(lines: list[str], indent: str) -> list[str]:
    if len(lines) <= ITEMS:
        return lines
    return [*lines[:ITEMS], f"{indent}… and {len(lines) - ITEMS} more (the JSON report has them all)"]


def _said(o: Oracle) -> str:
    disabled = "" if o.enabled else ", disabled"
    reason = f": {_t(o.reason, 200)}" if o.reason else ""
    review = f" [{_t(o.review, 160)}]" if o.review else ""
    return f"{_t(describe(o), 160)}  ({_t(o.source, 60)}{disabled}{reason}){review}"


def _violations(spec: SpecCheck, fail_on: FailOn, paint: partial[str]) -> list[str]:
    if spec.run is None or not spec.run.violations:
        return []
    out = [paint("Violations", "bold")]
    for op, fields in group_violations(spec.run.violations):
        out.append(f"  {_t(str(op), 200)}")
        for field, oracles in fields:
            for oracle, found in oracles:
                new = " " + paint("[new]", "cyan") if fail_on is FailOn.NEW_VIOLATIONS and spec.is_new(found[0]) else ""
                new += " " + paint("[suspect]", "yellow") if spec.is_suspect(oracle) else ""
                out.append(f"    {paint(_t(field, 200) if field else '(body)', 'bold')}  "
                           f"{_t(describe(oracle), 160)}{observed_mark(oracle)}{new}")
                out += [f"      {paint(_t(v.value, 80), 'red')}  at {_t(v.pointer, 200) or '(body)'}{_why(v)}"
                        + (" [pre-existing]" if fail_on is FailOn.NEW_VIOLATIONS and spec.is_preexisting(v) else "")
                        for v in found[:ROWS]]
                if len(found) > ROWS:
                    out.append(f"      … and {len(found) - ROWS} more")
    return out


def _why(v: Violation) -> str:
    """What is wrong when the value alone does not say it (an array's size): `  (has 30 elements, more than 24)`."""
    if v.oracle.kind.value.startswith("array_") and " has " in v.message:
        return f"  ({_t('has ' + v.message.rsplit(' has ', 1)[1], 120)})"
    return ""


def _problems(run: RunResult | None, paint: partial[str]) -> list[str]:
    if run is None:
        return []
    lines = [f"  server error {e.status} {_t(e.request.method, 10)} {_t(e.request.url, 200)}"
             + (f" ({e.attempts} attempts)" if e.attempts > 1 else "") + _t(e.hint) for e in run.server_errors]
    lines += [f"  {p.kind.value} {_t(p.request.method, 10)} {_t(p.request.url, 200)}: {_t(p.detail)}"
              + (f" ({p.attempts} attempts)" if p.attempts > 1 else "") for p in run.infrastructure]
    lines += [f"  not checked, {u.kind.value}{f' ({u.status})' if u.status is not None else ''} "
              + (f"{count} responses, e.g. " if count > 1 else "")
              + f"{_t(u.request.method, 10)} {_t(u.request.url, 200)}: {_t(u.detail)}"
              for u, count in grouped_unchecked(run)]
    lines += [f"  note: {_t(n)}" for n in run.notes]
    return [paint("Requests and responses", "bold"), *_more(lines, "  ")] if lines else []


def _team(run: RunResult | None, paint: partial[str]) -> list[str]:
    """The team collection's failing tests and its opted-in requests."""
    if run is None or not team_text.shown(run):
        return []
    lines = [f"  {e}" for e in team_text.entries(run, partial(_t, limit=200), _t)]
    return [paint(team_text.title(run), "bold"), *_more(lines, "  ")]


def _coverage(run: RunResult | None, paint: partial[str]) -> list[str]:
    found = coverage_of(run) if run is not None else None
    if found is None or not (found.not_sent or found.unexercised):
        return []
    lines = []
    for kind, skips in found.not_sent:
        if kind in PER_OPERATION:
            lines += [f"  {PER_OPERATION[kind]}, {_t(k.label, 200)}: {_t(k.detail)}" for k in skips]
        else:
            labels = ", ".join(_t(k.label, 200) for k in skips[:ROWS])
            more = f" and {len(skips) - ROWS} more" if len(skips) > ROWS else ""
            lines.append(f"  not sent, {KIND_TITLES[kind]}: {labels}{more}. {_t(skips[0].detail)}")
    lines += [f"  no oracle exercised, {_t(label, 200)}: {sent} sent, {checked} checked, {enabled} oracle(s) met "
              "no value" for label, sent, checked, enabled in found.unexercised]
    return [paint(f"What was checked: {found.headline()}", "bold"), *_more(lines, "  ")]


def _change(spec: SpecCheck, paint: partial[str]) -> list[str]:
    found = spec.change
    if found is None or not found.unexercised:
        return []
    lines = [f"  {_t(u.label, 200)}: {u.oracles} changed oracle(s) not exercised, {_t(u.why)}"
             for u in found.unexercised]
    return [paint(f"The change: {found.headline()}", "bold"), *_more(lines, "  ")]


def _suspects(spec: SpecCheck, paint: partial[str]) -> list[str]:
    run = spec.run
    if run is None or not spec.suspects:
        return []
    counts: dict[tuple[str, str, str, str, str], tuple[Oracle, int]] = {}
    for oracle, n in [*((v.oracle, 1) for v in run.violations), *((o.oracle, o.omitted) for o in run.omitted)]:
        if spec.is_suspect(oracle):
            key = suspect_key(oracle)
            counts[key] = (oracle, counts.get(key, (oracle, 0))[1] + n)
    if not counts:
        return []
    lines = [f"  {_name(o.operation, o.field)}  {_t(describe(o), 160)}  ({_t(o.source, 60)}): {n} here, "
             f"{spec.suspects[key]} response(s) on the base branch" for key, (o, n) in counts.items()]
    head = (f"Suspect oracles: {len(counts)} oracle(s) that observed responses of the base branch already violate; "
            "their violations here do not fail the check (a bug in the API, or a wrong oracle: fix the API or set "
            "enabled: false)")
    return [paint(head, "bold"), *_more(lines, "  ")]


def _suggestions(spec: SpecCheck, paint: partial[str]) -> list[str]:
    if not spec.suggestions:
        return []
    new = new_suggestions(spec)
    lines = [f"  {paint('new', 'cyan') + ' ' if suggestion_key(o) in new else ''}{_name(o.operation, o.field)}  "
             f"{_t(describe(o), 160)}  (evidence {o.evidence or 0}: {_t(o.reason, 200)})" for o in spec.suggestions]
    head = (f"Suggested oracles (observed in responses): {len(lines)}, off until you accept them, in "
            f"{_t(spec.oracle_file, 200)}")
    one_each = " (or one operation's: --operation \"METHOD /path\")" if operation_commands(spec) else ""
    how = [f"  accept them all: {_t(all_command(spec), 2_000)}{one_each}",
           f"  dismiss them for good: {_t(all_command(spec, 'reject'), 2_000)} (--field PATH and --kind KIND "
           "select too; then commit the oracle file)"]
    return [paint(head, "bold"), *_more(lines, "  "), *how]


def _oracle_changes(spec: SpecCheck, paint: partial[str]) -> list[str]:
    diff = reviewed_changes(spec.oracle_diff)
    if diff is None or diff.is_empty:
        return []
    c = diff.counts()
    lines: list[str] = []
    for f in diff.fields:
        name = _name(f.operation, f.field)
        lines += [f"  {paint('+', 'green')} {name}  {_said(o)}" for o in f.added]
        lines += [f"  {paint('-', 'red')} {name}  {_said(o)}" for o in f.removed]
        lines += [f"  {paint('~', 'yellow')} {name}  {_said(ch.old)} -> {_said(ch.new)} [{_t(ch.what, 60)}]"
                  for ch in f.changed]
    head = (f"Oracle changes: {c['added']} added, {c['removed']} removed, {c['changed']} changed on "
            f"{c['fields']} field(s), in {_t(spec.oracle_file, 200)}")
    return [paint(head, "bold"), *_more(lines, "  ")]


def _spec_changes(spec: SpecCheck, paint: partial[str]) -> list[str]:
    diff = spec.field_diff
    if diff is None:
        return []
    c = diff.counts()
    head = (f"Spec changes: {c['added']} added, {c['removed']} removed, {c['changed']} changed, {c['moved']} moved, "
            f"{c['unchanged']} unchanged response fields")
    lines = [f"  + {_name(f.operation, f.field)} ({_t(f.type, 40)})" for f in diff.added]
    lines += [f"  - {_name(f.operation, f.field)} ({_t(f.type, 40)})" for f in diff.removed]
    lines += [f"  ~ {_name(ch.head.operation, ch.head.field)}: " + "; ".join(_t(n, 160) for n in ch.changes)
              for ch in diff.changed]
    lines += [f"  > {_name(m.base.operation, m.base.field)} -> {_name(m.head.operation, m.head.field)}"
              for m in diff.moved]
    return [paint(head, "bold"), *_more(lines, "  ")]


def _context(spec: SpecCheck, fail_on: FailOn) -> str:
    parts = [f"oracles {_t(spec.oracle_file, 200)} ({spec.oracles_enabled} enabled)", f"fail-on {fail_on.value}"]
    if spec.run is not None:
        r = spec.run
        parts.append(f"{_t(r.runner, 20)}: {r.requests} request(s), {r.checked} checked, {r.seconds:.1f} s")
        found = coverage_of(r)
        change = spec.change
        if change is not None:
            parts.append(change.headline())
        if found is not None:
            parts.append(found.headline())
    seen = spec.observation
    if seen is not None and (seen.responses or seen.operations):
        parts.append(f"observed {seen.responses} response(s) ({seen.ready} of {seen.operations} operation(s) ready "
                     "for suggestions)")
    if spec.inference is not None:
        i = spec.inference
        parts.append(f"inference {_t(i.backend, 40)}: {i.reused} reused, {i.moved} moved, "
                     f"{_t(inferred_count(i.inferred, i.stats), 400)}, {i.pending} pending")
    return "  " + " · ".join(parts)


def render_spec(spec: SpecCheck, fail_on: FailOn, colour: bool) -> str:
    """One spec: verdict, context, then violations, problems, oracle changes, spec changes and what to do."""
    paint = partial(_paint, colour)
    found = verdict(spec, fail_on)
    symbol, hue = _SYMBOLS[found.outcome]
    words = verdict_words(spec, fail_on, found, code=partial(_t, limit=200), text=_t)
    out = [paint(f"{symbol} {words}", hue, "bold"), paint(_context(spec, fail_on), "dim")]
    out += [paint(f"  ! {_t(n, 500)}", "yellow") for n in spec.notices]
    if spec.error is None:
        for section in (_violations(spec, fail_on, paint), _team(spec.run, paint), _suspects(spec, paint),
                        _problems(spec.run, paint), _change(spec, paint), _coverage(spec.run, paint),
                        _oracle_changes(spec, paint), _suggestions(spec, paint), _spec_changes(spec, paint)):
            if section:
                out += ["", *section]
        run = spec.run
        if (run is not None and run.violations) or (spec.oracle_diff is not None and not spec.oracle_diff.is_empty):
            out += ["", f"To silence an oracle, set enabled: false on its line in {_t(spec.oracle_file, 200)}; to "
                    "accept a change the API made, edit its value and set source: \"manual\". Then commit the file."]
    return "\n".join(out) + "\n"


def render_terminal(report: CheckReport, colour: bool) -> str:
    """Every spec, then one line with the totals and the exit code."""
    parts = [render_spec(s, report.fail_on, colour) for s in report.specs]
    code = report.exit_code
    errors = f", {report.server_errors} server error(s)" if report.server_errors else ""
    errors += f", {report.team_tests_failing} failing team test(s)" if report.team_tests_failing else ""
    failed = sum(1 for s in report.specs if s.error is not None)
    checked = (f"{len(report.specs) - failed} of {len(report.specs)} spec(s) checked" if failed
               else f"{len(report.specs)} spec(s) checked")
    total = (f"{checked}, {report.violations} violation(s){errors}, "
             f"exit code {int(code)} ({code.name.lower()})")
    hue = "green" if code == 0 else "red" if code == 1 else "yellow"
    return "\n".join([*parts, _paint(colour, total, hue, "bold")]) + "\n"
