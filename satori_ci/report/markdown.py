"""The sticky pull-request comment for one spec, in GitHub-flavoured Markdown, budgeted under GitHub's size limit."""

from __future__ import annotations

import json
from dataclasses import dataclass

from satori_ci.infer.interface import inferred_count
from satori_ci.observe.keys import suspect_key
from satori_ci.oracles.model import Oracle
from satori_ci.report import escape as esc
from satori_ci.report.accept_commands import MAX_OPERATION_COMMANDS, all_command, command_block
from satori_ci.report.coverage import KIND_TITLES, PER_OPERATION, coverage_of
from satori_ci.report.json_report import (
    group_violations,
    new_suggestions,
    reviewed_changes,
    suggestion_key,
    verdict,
)
from satori_ci.report.model import FailOn, SpecCheck
from satori_ci.report.oracle_text import describe
from satori_ci.report.run_text import observed_mark
from satori_ci.report.team_text import markdown_section
from satori_ci.report.verdict_text import icon, target, verdict_line
from satori_ci.run.model import RunResult
from satori_ci.spec.model import OperationKey

GITHUB_LIMIT = 65_536
MIN_BUDGET = 2_000
CUT_NOTE = "the full report is in the job summary"


@dataclass(frozen=True)
class RenderedComment:
    body: str
    overflow: str | None = None
    """The full report (without the marker) when `body` had to be shortened: for the job summary."""


@dataclass(frozen=True)
class Limits:
    """How much of each list a rendering spells out."""

    items: int  # entries of each change list (fields, oracles, problems)
    rows: int  # offending values shown per field and oracle
    groups: int  # (field, oracle) groups shown in the violation tables
    collapse: int  # lists longer than this go into `<details>`


FULL = Limits(items=300, rows=10, groups=150, collapse=10)
SHORTER = (Limits(100, 5, 100, 5), Limits(25, 3, 30, 0), Limits(5, 1, 10, 0), Limits(0, 0, 0, 0))


def marker_for(spec_path: str) -> str:
    """The hidden first line that finds this spec's sticky comment again."""
    return f"<!-- satori-ci:spec={esc.marker_path(spec_path)} -->"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _op(op: OperationKey, cell: bool = False) -> str:
    return (esc.cell_code if cell else esc.code)(str(op), 200)


def _field(path: str, cell: bool = False) -> str:
    return (esc.cell_code if cell else esc.code)(path, 200) if path else "(body)"


def _context(spec: SpecCheck, fail_on: FailOn, run_url: str | None) -> str:
    parts = [f"oracles {esc.code(spec.oracle_file)} ({spec.oracles_enabled} enabled)", f"fail-on `{fail_on.value}`"]
    if spec.run is not None:
        r = spec.run
        parts.append(f"{esc.text(r.runner)}: {_plural(r.requests, 'request')}, {r.checked} checked, {r.seconds:.1f} s")
        found = coverage_of(r)
        change = spec.change
        if change is not None:
            parts.append(change.headline())
        if found is not None:
            parts.append(found.headline())
    seen = spec.observation
    if seen is not None and (seen.responses or seen.operations):
        parts.append(f"observed {_plural(seen.responses, 'response')} ({seen.ready} of "
                     f"{_plural(seen.operations, 'operation')} ready for suggestions)")
    inf = spec.inference
    if inf is not None:
        parts.append(f"inference {esc.code(inf.backend)}: {inf.reused} reused, {inf.moved} moved, "
                     f"{esc.text(inferred_count(inf.inferred, inf.stats))}, {inf.pending} pending")
        if inf.stats.calls:
            tokens = inf.stats.prompt_tokens + inf.stats.completion_tokens
            parts.append(f"{_plural(inf.stats.calls, 'LLM call')}, {tokens:,} tokens, USD {inf.stats.cost_usd:.4f}")
    url = esc.link_url(run_url) if run_url else None
    if url:
        parts.append(f"[workflow run]({url})")
    return " · ".join(parts)


def _bullets(entries: list[str], limits: Limits, what: str) -> list[str]:
    """A list, cut with `… and N more`, collapsed into `<details>` when long."""
    shown = [f"- {e}" for e in entries[: limits.items]]
    if len(entries) > limits.items:
        shown.append(f"- … and {len(entries) - limits.items} more")
    if len(entries) <= limits.collapse:
        return [*shown, ""]
    return [f"<details><summary>{esc.html(what)}</summary>", "", *shown, "", "</details>", ""]


def _spec_changes(spec: SpecCheck, limits: Limits) -> list[str]:
    diff = spec.field_diff
    if diff is None:
        return []
    c = diff.counts()
    if diff.is_empty:
        return [f"No response field changed ({c['unchanged']} unchanged).", ""]
    counts = (f"{c['added']} added · {c['removed']} removed · {c['changed']} changed · {c['moved']} moved · "
              f"{c['unchanged']} unchanged response fields")
    entries = [f"{sign} {_op(f.operation)} {_field(f.field)} ({esc.text(f.type, 40)})"
               for sign, fields in (("➕", diff.added), ("➖", diff.removed)) for f in fields]
    entries += [f"✏️ {_op(ch.head.operation)} {_field(ch.head.field)}: "
                + "; ".join(esc.text(n, 160) for n in ch.changes[:8])
                + (f"; … and {len(ch.changes) - 8} more" if len(ch.changes) > 8 else "") for ch in diff.changed]
    entries += [f"↪️ {_op(m.base.operation)} {_field(m.base.field)} → {_op(m.head.operation)} {_field(m.head.field)}"
                for m in diff.moved]
    return ["#### Spec changes", "", counts, "", *_bullets(entries, limits, _plural(len(entries), "field change"))]


def _oracle_cell(oracle: Oracle) -> str:
    shown = esc.cell_code(describe(oracle), 160)
    return shown if oracle.enabled else f"{shown} (disabled)"


def _reason_cell(oracle: Oracle) -> str:
    review = f"⚠️ {esc.cell(oracle.review, 160)}: " if oracle.review else ""
    return review + esc.cell(oracle.reason, 200)


def _oracle_changes(spec: SpecCheck, limits: Limits) -> list[str]:
    diff = reviewed_changes(spec.oracle_diff)
    if diff is None or diff.is_empty:
        return []
    c = diff.counts()
    rows: list[str] = []
    for f in diff.fields:
        where = f"{_op(f.operation, True)} | {_field(f.field, True)}"
        rows += [f"| {sign} | {where} | {_oracle_cell(o)} | {esc.cell_code(o.source, 60)} | {_reason_cell(o)} |"
                 for sign, oracles in (("➕", f.added), ("➖", f.removed)) for o in oracles]
        rows += [f"| ✏️ | {where} | {_oracle_cell(ch.old)} → {_oracle_cell(ch.new)} ({esc.cell(ch.what, 60)}) | "
                 f"{esc.cell_code(ch.new.source, 60)} | {_reason_cell(ch.new)} |" for ch in f.changed]
    counts = (f"{c['added']} added · {c['removed']} removed · {c['changed']} changed on "
              f"{_plural(c['fields'], 'field')}, in {esc.code(spec.oracle_file)}"
              + (" (observed suggestions are listed below)" if spec.suggestions else ""))
    table = ["| | Operation | Field | Oracle | Source | Reason |", "|---|---|---|---|---|---|", *rows[: limits.items]]
    if len(rows) > limits.items:
        table.append(f"| | … and {len(rows) - limits.items} more | | | | |")
    if not limits.items:
        table = []
    elif len(rows) > limits.collapse:
        table = [f"<details><summary>{_plural(len(rows), 'oracle change')}</summary>", "", *table, "", "</details>"]
    return ["#### Oracle changes", "", counts, "", *table, *([""] if table else [])]


def _suggestions(spec: SpecCheck, limits: Limits) -> list[str]:
    found = spec.suggestions
    if not found:
        return []
    new = new_suggestions(spec)
    fresh = sum(1 for o in found if suggestion_key(o) in new)
    rows = [f"| {'🆕' if suggestion_key(o) in new else ''} | {_op(o.operation, True)} | {_field(o.field, True)} | "
            f"{esc.cell_code(describe(o), 160)} | {_plural(o.evidence or 0, 'observation')} | "
            f"{esc.cell(o.reason, 200)} |" for o in found]
    intro = (f"{_plural(len(found), 'oracle')} held in every response observed so far ({fresh} new here), in "
             f"{esc.code(spec.oracle_file)} with `source: observed`, off until you accept them. **Accept** them all or "
             "one operation's with `satori-ci accept`, **dismiss** them for good with `satori-ci reject` (`--field "
             "PATH` and `--kind KIND` select too), then commit the oracle file:")
    table = ["| | Operation | Field | Oracle | Evidence | Why |", "|---|---|---|---|---|---|", *rows[: limits.items]]
    if len(rows) > limits.items:
        table.append(f"| | … and {len(rows) - limits.items} more | | | | |")
    if not limits.items:
        table = []
    elif len(rows) > limits.collapse:
        table = [f"<details><summary>{_plural(len(rows), 'suggestion')}</summary>", "", *table, "", "</details>"]
    commands = command_block(spec, min(limits.items, MAX_OPERATION_COMMANDS))
    return ["#### Suggested oracles (observed in responses)", "", intro, "", commands, "", *table,
            *([""] if table else [])]


def _suspects(spec: SpecCheck, limits: Limits) -> list[str]:
    run = spec.run
    if run is None or not spec.suspects:
        return []
    here: dict[tuple[str, str, str, str, str], tuple[Oracle, int]] = {}
    for v in run.violations:
        if spec.is_suspect(v.oracle):
            key = suspect_key(v.oracle)
            here[key] = (v.oracle, here.get(key, (v.oracle, 0))[1] + 1)
    for o in run.omitted:
        if spec.is_suspect(o.oracle):
            key = suspect_key(o.oracle)
            here[key] = (o.oracle, here.get(key, (o.oracle, 0))[1] + o.omitted)
    if not here:
        return []
    rows = [f"| {_op(oracle.operation, True)} | {_field(oracle.field, True)} | "
            f"{esc.cell_code(describe(oracle), 160)} | {esc.cell_code(oracle.source, 60)} | "
            f"{_plural(spec.suspects[key], 'response')} | {count} |"
            for key, (oracle, count) in here.items()]
    total = sum(count for _, count in here.values())
    intro = (f"{_plural(len(here), 'oracle')} that observed responses of the base branch already violate: "
             f"{'its' if len(here) == 1 else 'their'} {_plural(total, 'violation')} here do not fail the check. "
             "The response may be a bug, or the oracle wrong: fix the API, or silence the oracle "
             "(`enabled: false`).")
    table = ["| Operation | Field | Oracle | Source | Violating responses (base) | Violations here |",
             "|---|---|---|---|---|---|", *rows[: limits.items]]
    if len(rows) > limits.items:
        table.append(f"| … and {len(rows) - limits.items} more | | | | | |")
    if not limits.items:
        table = []
    elif len(rows) > limits.collapse:
        table = [f"<details><summary>{_plural(len(rows), 'suspect oracle')}</summary>", "", *table, "", "</details>"]
    return ["#### Suspect oracles", "", intro, "", *table, *([""] if table else [])]


def _violations(spec: SpecCheck, fail_on: FailOn, limits: Limits) -> list[str]:
    run = spec.run
    if run is None or not run.violations:
        return []
    out = ["#### Violations", ""]
    shown_groups = hidden_values = hidden_groups = 0
    mark_new = fail_on is FailOn.NEW_VIOLATIONS
    per_group = max(limits.rows, 1)
    for op, fields in group_violations(run.violations):
        rows: list[str] = []
        for field, oracles in fields:
            for n, (oracle, found) in enumerate(oracles):
                if shown_groups >= limits.groups:
                    hidden_groups += 1
                    hidden_values += len(found)
                    continue
                shown_groups += 1
                new = " 🆕" if mark_new and spec.is_new(found[0]) else ""
                new += " ⚠️ suspect" if spec.is_suspect(oracle) else ""
                shown = esc.cell_code(describe(oracle), 160) + observed_mark(oracle)
                head = f"| {_field(field, True) if n == 0 else ''} | {shown}{new} |"
                for i, v in enumerate(found[:per_group]):
                    lead = head if i == 0 else "| | |"
                    before = " (pre-existing)" if mark_new and spec.is_preexisting(v) else ""
                    rows.append(f"{lead} {esc.cell_code(v.value, 200)} | {_field(v.pointer, True)}{before} |")
                if len(found) > per_group:
                    rows.append(f"| | | … and {len(found) - per_group} more | |")
        if rows:
            out += [f"**{_op(op)}**", "", "| Field | Oracle | Offending value | At |", "|---|---|---|---|", *rows, ""]
    if hidden_groups:
        out += [f"… and {_plural(hidden_values, 'more violation')} of {_plural(hidden_groups, 'more oracle')}.", ""]
    return out


def _change(spec: SpecCheck, limits: Limits) -> list[str]:
    """The operations whose oracles this change adds or changes met no value, and why."""
    found = spec.change
    if found is None or not found.unexercised:
        return []
    entries = [f"{esc.code(u.label)}: {_plural(u.oracles, 'changed oracle')} not exercised, {esc.text(u.why)}"
               for u in found.unexercised]
    return [f"#### The change: {found.headline()}", "", *_bullets(entries, limits, _plural(len(entries), "operation"))]


def _coverage(run: RunResult | None, limits: Limits) -> list[str]:
    found = coverage_of(run) if run is not None else None
    if found is None or not (found.not_sent or found.unexercised):
        return []
    entries = []
    for kind, skips in found.not_sent:
        if kind in PER_OPERATION:
            entries += [f"{PER_OPERATION[kind]}, {esc.code(k.label)}: {esc.text(k.detail)}" for k in skips]
        else:
            labels = ", ".join(esc.code(k.label) for k in skips[:limits.items])
            more = f" and {len(skips) - limits.items} more" if len(skips) > limits.items else ""
            entries.append(f"not sent, {esc.text(KIND_TITLES[kind])}: {labels}{more}. {esc.text(skips[0].detail)}")
    entries += [f"no oracle exercised, {esc.code(label)}: {_plural(sent, 'request')} sent, {checked} checked, "
                f"{_plural(enabled, 'oracle')} met no value" for label, sent, checked, enabled in found.unexercised]
    return [f"#### What was checked: {found.headline()}", "",
            *_bullets(entries, limits, _plural(len(entries), "operation"))]


def _problems(run: RunResult | None, limits: Limits) -> list[str]:
    if run is None:
        return []
    entries = [f"server error {e.status} {esc.code(f'{e.request.method} {e.request.url}')}"
               + (f" ({e.attempts} attempts)" if e.attempts > 1 else "") + esc.text(e.hint) for e in run.server_errors]
    entries += [f"{esc.code(p.kind.value)} {esc.code(f'{p.request.method} {p.request.url}')}: {esc.text(p.detail)}"
               + (f" ({p.attempts} attempts)" if p.attempts > 1 else "") for p in run.infrastructure]
    entries += [f"not checked, {esc.code(u.kind.value)}{f' ({u.status})' if u.status is not None else ''} "
                f"{esc.code(f'{u.request.method} {u.request.url}')}: {esc.text(u.detail)}" for u in run.unchecked]
    entries += [f"note: {esc.text(n)}" for n in run.notes]
    if not entries:
        return []
    return ["#### Requests and responses", "", *_bullets(entries, limits, _plural(len(entries), "entry", "entries"))]


def _howto(spec: SpecCheck) -> list[str]:
    run = spec.run
    example = run.violations[0].oracle if run is not None and run.violations else None
    if example is None and (spec.oracle_diff is None or spec.oracle_diff.is_empty):
        return []
    out = ["<details><summary>How to accept or silence an oracle</summary>", "",
           f"The oracles of {esc.code(spec.spec)} are in {esc.code(spec.oracle_file)}, reviewed like code:", "",
           "- **Silence** an oracle that is wrong for this API: set `enabled: false` on its line.",
           '- **Accept** a change the API really made: edit the oracle\'s `value` and set `source: "manual"`, '
           "so that inference keeps your decision.",
           f"- **Accept observed suggestions** (`source: observed`): {esc.code(all_command(spec), 2_000)} (or "
           "`--operation \"METHOD /path\"`, `--field`, `--kind`); **dismiss** them for good with `satori-ci reject`.",
           "- Commit the updated oracle file (and the observation store next to it) to this pull request: the next "
           "run checks against it.", ""]
    if example is not None:
        def lit(value: object) -> str:
            return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        value = "" if example.value is None else f"value: {esc.clip(lit(example.value), 200)}, "
        line = (f"- {{kind: {example.kind.value}, {value}source: \"manual\", enabled: false, "
                f"reason: {lit(example.reason)}}}")
        snippet = (f"operations:\n  {lit(str(example.operation))}:\n    {lit(example.field)}:\n      oracles:\n"
                   f"        {esc.clip(line, 400)}")
        out += ["For example, to silence the first oracle broken above:", "", esc.fenced(snippet, "yaml"), ""]
    return [*out, "</details>", ""]


def render_body(spec: SpecCheck, fail_on: FailOn, limits: Limits = FULL, run_url: str | None = None,
                cut: bool = False) -> str:
    """The comment's text without the marker, spelling out as much as `limits` allow."""
    lines = [f"### {verdict_line(spec, fail_on, verdict(spec, fail_on))}", "", _context(spec, fail_on, run_url), ""]
    for notice in spec.notices:
        lines += ["> [!WARNING]", f"> {esc.text(notice)}", ""]
    if cut:
        link = f" ([workflow run]({url}))" if (url := esc.link_url(run_url or "")) else ""
        lines += ["> [!NOTE]", f"> Shortened to fit GitHub's comment size limit: {CUT_NOTE}{link}.", ""]
    if spec.error is None:
        lines += [*_violations(spec, fail_on, limits), *markdown_section(spec.run, limits.items, limits.collapse),
                  *_suspects(spec, limits), *_problems(spec.run, limits), *_change(spec, limits),
                  *_coverage(spec.run, limits), *_oracle_changes(spec, limits), *_suggestions(spec, limits),
                  *_spec_changes(spec, limits), *_howto(spec)]
    return "\n".join(lines).rstrip("\n") + "\n"


def render_comment(spec: SpecCheck, fail_on: FailOn, *, budget: int = 60_000,
                   run_url: str | None = None) -> RenderedComment:
    """The comment's body (marker first), under `budget` characters; the full text as overflow when cut."""
    if not MIN_BUDGET <= budget <= GITHUB_LIMIT:
        raise ValueError(f"budget must be between {MIN_BUDGET} and {GITHUB_LIMIT} characters, not {budget}")
    marker = marker_for(spec.spec)
    full = render_body(spec, fail_on, FULL, run_url)
    if len(marker) + 1 + len(full) < budget:
        return RenderedComment(f"{marker}\n{full}")
    for limits in SHORTER:
        body = f"{marker}\n{render_body(spec, fail_on, limits, run_url, cut=True)}"
        if len(body) < budget:
            return RenderedComment(body, full)
    found = verdict(spec, fail_on)  # escaped text is never clipped: a cut could leave a code span open
    for head in (verdict_line(spec, fail_on, found), f"{icon(spec, found.outcome)} {esc.code(spec.spec, 60)}"):
        body = f"{marker}\n### {head}\n\nShortened to fit GitHub's comment size limit: {CUT_NOTE}.\n"
        if len(body) < budget:
            return RenderedComment(body, full)
    raise ValueError(f"a comment on {spec.spec!r} cannot fit in {budget} characters")


def render_resolved(spec: SpecCheck) -> str:
    """The comment once a pull request that had findings is clean again (same marker)."""
    lines = [marker_for(spec.spec), f"### ✅ Resolved: no oracle violations left in {esc.code(spec.spec)}", ""]
    run = spec.run
    if run is not None and run.checked:
        lines.append(f"The earlier findings are fixed: {_plural(spec.oracles_enabled, 'oracle')} checked against "
                     f"{target(run)} ({_plural(run.checked, 'response')}), none broken.")
    else:
        lines.append("The earlier findings of this check are gone.")
    return "\n".join(lines) + "\n"
