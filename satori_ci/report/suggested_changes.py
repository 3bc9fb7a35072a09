"""Observed suggestions reviewed in the pull request (pure): GitHub suggested changes on the oracle file (the
commands every report names are `accept_commands`).

A suggested change is a review comment on one line of the pull request's diff of the oracle file (an added or
context line of a hunk, the lines GitHub lets a comment sit on) that holds a waiting suggestion (`source:
observed`, `enabled: false`) the check still makes; its ```` ```suggestion ```` block is the line as `satori-ci
accept` would write it (`oracles.edit`, the one token changed). The line must read the same in the file and in
GitHub's patch, and come out of the encoder unchanged (no secret, no `<!--`, nothing invisible): otherwise no
comment, and the sticky comment's commands still apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from satori_ci.oracles.edit import ACCEPT, EditMismatchError, OracleRef, edit_oracles
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import OracleSites, load_oracle_sites
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.report import escape as esc
from satori_ci.report.accept_commands import all_command, oracle_command
from satori_ci.report.json_report import suggestion_key
from satori_ci.report.model import SpecCheck
from satori_ci.report.oracle_text import describe

MAX_SUGGESTED_CHANGES = 50
"""Suggestion comments one run posts at most; the review's body points to `satori-ci accept` for the rest."""
MARKER = "<!-- satori-ci:suggestions -->"
"""The first line of the review's body."""

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_WAITING = re.compile(r"\benabled\s*:\s*(?:false|False|FALSE)\b")


# -- the pull request's patch -------------------------------------------------------------------------------


def right_lines(patch: str) -> dict[int, str]:
    """The lines of the new file a review comment may sit on (added and context lines of the patch's hunks), by
    number: the text GitHub shows there. A hunk's extent comes from its `@@ -a,b +c,d @@` header."""
    out: dict[int, str] = {}
    line = old_left = new_left = 0
    for row in patch.split("\n"):
        found = _HUNK.match(row)
        if found:
            old_left = 1 if found[2] is None else int(found[2])
            line, new_left = int(found[3]), 1 if found[4] is None else int(found[4])
            continue
        sign, text = row[:1], row[1:]
        if sign == "-" and old_left:
            old_left -= 1
        elif sign == "+" and new_left:
            out[line], line, new_left = text, line + 1, new_left - 1
        elif sign == " " and old_left and new_left:
            out[line], line, old_left, new_left = text, line + 1, old_left - 1, new_left - 1
    return out


# -- the suggested changes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuggestedChange:
    """One review comment: the oracle file's path in the repository, the line (new side), its body."""

    path: str
    line: int
    body: str
    accept_all: str
    """The spec's accept-all command (plain text), for the suggestions left out of the review."""


SUGGESTION_MARKER_START = "<!-- satori-ci:suggestion="
"""How the first line of each of our suggestion comments starts (`suggestion_marker`)."""


def suggestion_marker(path: str) -> str:
    """The first line of a suggestion comment's body: whose comment it is, for the next run."""
    return f"{SUGGESTION_MARKER_START}{esc.marker_path(path)} -->"


def _waiting(sites: OracleSites, wanted: set[tuple[object, ...]]) -> Iterable[tuple[OracleRef, Oracle, int]]:
    """The suggestions still waiting that the check still makes, with the line of their `enabled` key."""
    for e, entry in enumerate(sites.file.entries):
        for i, oracle in enumerate(entry.oracles):
            line = sites.lines[e][i].get("enabled")
            if oracle.source == OBSERVED and not oracle.enabled and line and suggestion_key(oracle) in wanted:
                yield (e, i), oracle, line


def _edited_lines(before: list[str], after: str, lines: Iterable[int]) -> dict[int, str]:
    """The new text of `lines`, when the edit changed those lines and no other."""
    new = after.split("\n")
    allowed = set(lines)
    changed = {n for n, (a, b) in enumerate(zip(before, new, strict=False), start=1) if a != b}
    if len(new) != len(before) or not changed <= allowed:
        return {}
    return {n: new[n - 1] for n in changed}


def _accepted_lines(text: str, sites: OracleSites, groups: dict[int, list[OracleRef]], name: str) -> dict[int, str]:
    """Each line of `groups` as `satori-ci accept` writes it: one edit of them all, else line by line."""
    before = text.split("\n")
    try:
        return _edited_lines(before, edit_oracles(text, sites, [r for g in groups.values() for r in g], ACCEPT,
                                                  name), groups)
    except (OracleFileError, EditMismatchError):
        pass
    out: dict[int, str] = {}
    for line, refs in groups.items():
        try:
            out.update(_edited_lines(before, edit_oracles(text, sites, refs, ACCEPT, name), (line,)))
        except (OracleFileError, EditMismatchError):
            continue
    return out


def _suggestion_block(line: str) -> str | None:
    """The ```` ```suggestion ```` block holding `line` as it is, or None when encoding would change it."""
    block = esc.fenced(line, "suggestion")
    return block if block.split("\n")[1:-1] == [line] else None


def _explained(oracle: Oracle) -> str:
    where = f"{esc.code(str(oracle.operation), 200)} {esc.code(oracle.field, 200) if oracle.field else '(body)'}"
    evidence = oracle.evidence or 0
    said = f" ({esc.text(oracle.reason, 300)})" if oracle.reason else ""
    return (f"{esc.code(describe(oracle), 200)} on {where}, held in {evidence} observed "
            f"{'response' if evidence == 1 else 'responses'}{said}")


def suggestion_body(spec: SpecCheck, path: str, oracles: Sequence[Oracle], block: str) -> str:
    """A suggestion comment: the marker, what is suggested and why, how to dismiss it, the suggestion block."""
    lines = [suggestion_marker(path)]
    lines += [f"**Suggested oracle (observed):** {_explained(o)}." for o in oracles]
    rejects = ", ".join(esc.code(oracle_command(spec, "reject", o), 2_000) for o in oracles)
    lines += ["", f"Commit this suggestion to switch it on (`enabled: true`); to dismiss it for good: {rejects}.",
              "", block]
    return "\n".join(lines) + "\n"


def suggested_changes(spec: SpecCheck, path: str, text: str, patch: str | None) -> tuple[SuggestedChange, ...]:
    """The suggestion comments for the oracle file `path` (`text`: its content at the pull request's head;
    `patch`: GitHub's patch of it), in line order."""
    if spec.error is not None or not spec.suggestions or not patch:
        return ()
    commentable = right_lines(patch)
    if not any(_WAITING.search(row) for row in commentable.values()):
        return ()  # nothing to suggest on the diff: the file is not parsed
    try:
        sites = load_oracle_sites(text, path)
    except OracleFileError:
        return ()
    before = text.split("\n")
    groups: dict[int, list[tuple[OracleRef, Oracle]]] = {}
    for ref, oracle, line in _waiting(sites, {suggestion_key(o) for o in spec.suggestions}):
        if line <= len(before) and commentable.get(line, "\0").rstrip("\r") == before[line - 1].rstrip("\r"):
            groups.setdefault(line, []).append((ref, oracle))
    accepted = _accepted_lines(text, sites, {n: [r for r, _ in g] for n, g in groups.items()}, path)
    out = []
    for line in sorted(accepted):
        block = _suggestion_block(accepted[line].rstrip("\r"))
        if block is not None:
            body = suggestion_body(spec, path, [o for _, o in groups[line]], block)
            out.append(SuggestedChange(path, line, body, all_command(spec)))
    return tuple(out)


def review_body(posted: Sequence[SuggestedChange], left_out: Sequence[SuggestedChange]) -> str:
    """The review's own text: what its comments are, and the commands for the suggestions it leaves out."""
    count = f"{len(posted)} observed oracle{'' if len(posted) == 1 else 's'}"
    lines = [MARKER, f"satori-ci suggests {count} on lines of this pull request's oracle files: commit a "
                     "suggestion to switch its oracle on, or dismiss it with the `satori-ci reject` command its "
                     "comment names."]
    if left_out:
        commands = ", ".join(esc.code(c, 2_000) for c in dict.fromkeys(s.accept_all for s in left_out))
        lines += ["", f"{len(left_out)} more suggestion{'' if len(left_out) == 1 else 's'} on this diff "
                      f"{'is' if len(left_out) == 1 else 'are'} not shown here (at most {MAX_SUGGESTED_CHANGES} a "
                      f"run): accept them all with {commands}, or see the sticky comment."]
    return "\n".join(lines) + "\n"


def new_changes(changes: Sequence[SuggestedChange], existing: set[tuple[str, int, str]],
                limit: int = MAX_SUGGESTED_CHANGES) -> tuple[list[SuggestedChange], list[SuggestedChange]]:
    """(the comments to post, the ones left out past `limit`): those without an identical comment of ours on the
    same line (`existing`: path, line, body with `\\n` line breaks)."""
    fresh = [c for c in changes if (c.path, c.line, c.body) not in existing]
    return fresh[:limit], fresh[limit:]
