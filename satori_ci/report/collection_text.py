"""What `satori-ci collection` says about the collection it wrote: counts that add up, each note once (pure)."""

from __future__ import annotations

from satori_ci.plan.model import SkipKind
from satori_ci.plan.requests import RequestSet
from satori_ci.report.coverage import distinct
from satori_ci.report.run_text import UNSAFE_LISTED, unsafe_summary


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def written_line(path: str, planned: RequestSet, oracles: int) -> str:
    """`wrote FILE: 15 requests for 9 operations, 150 enabled oracles: 13 of team.json's 15 requests (2 non-safe ones
    not opted in left out), 2 added for the operations it does not call`."""
    requests = list(planned.requests())
    operations = len({r.label for r in requests})
    given = planned.given
    if given is None:
        return (f"wrote {path}: {_plural(len(requests), 'request')} for {_plural(operations, 'operation')}, "
                f"{_plural(oracles, 'enabled oracle')}")
    left = len(planned.left_out)
    kept = len(given.requests) - left
    added = sum(1 for r in requests if r.given is None)
    dropped = f" ({left} non-safe one{'s' if left != 1 else ''} not opted in left out)" if left else ""
    return (f"wrote {path}: {_plural(kept + added, 'request')} for {_plural(operations, 'operation')}, "
            f"{_plural(oracles, 'enabled oracle')}: {kept} of {given.source}'s "
            f"{_plural(len(given.requests), 'request')}{dropped}, {added} added for the operations it does not call")


def collection_notes(planned: RequestSet) -> tuple[str, ...]:
    """The plan's notes, then why each operation is not sent, each once; more than a few non-safe operations in one
    note, as a run's report says them (GitHub's spec has 670)."""
    skipped = distinct(planned.skipped)
    unsafe = [k for k in skipped if k.kind is SkipKind.UNSAFE_METHOD]
    grouped = len(unsafe) > UNSAFE_LISTED
    lines = [f"{k.label}: not sent: {k.detail}" for k in skipped
             if not (grouped and k.kind is SkipKind.UNSAFE_METHOD)]
    if grouped:
        lines.append(f"not sent: {unsafe_summary(unsafe)}")
    return tuple(dict.fromkeys((*planned.notes, *lines)))
