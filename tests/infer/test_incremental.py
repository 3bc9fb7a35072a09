"""Incremental inference: reuse by fingerprint, moves, human decisions, interruption."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from satori_ci.infer.incremental import REVIEW_CHANGED, update_oracle_file
from satori_ci.infer.interface import BackendRun, Inferred, OnInferred
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation

OP = OperationKey("GET", "/x", "200")


def field(path: str, fingerprint: str, op: OperationKey = OP) -> ResponseField:
    return ResponseField(op, "getX", path, path.rsplit(".", 1)[-1], "integer", FieldFacts(), "API",
                         SourceLocation("api.yaml", ""), fingerprint)


class CountingBackend:
    """Gives every field `number_min_value 0`; counts the fields it was asked about."""

    name = "counting"

    def __init__(self, interrupt_after: int | None = None) -> None:
        self.asked: list[str] = []
        self.interrupt_after = interrupt_after

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        results = []
        for f in fields:
            if self.interrupt_after is not None and len(self.asked) == self.interrupt_after:
                raise KeyboardInterrupt
            self.asked.append(f.field)
            result = Inferred(f, (Oracle(f.operation, f.field, OracleKind.NUMBER_MIN_VALUE, 0, "rules", "r"),))
            results.append(result)
            if on_inferred:
                on_inferred(result)
        return BackendRun(tuple(results))


def test_only_new_and_changed_fields_are_inferred() -> None:
    first = update_oracle_file("api.yaml", [field("a", "1"), field("b", "2")], None, CountingBackend())
    backend = CountingBackend()
    second = update_oracle_file("api.yaml", [field("a", "1"), field("b", "2*"), field("c", "3")], first.file,
                                backend)
    assert backend.asked == ["b", "c"]
    assert (second.reused, second.moved, second.inferred) == (1, 0, 2)
    assert [e.fingerprint for e in second.file.entries] == ["1", "2*", "3"]


def test_moved_fields_keep_their_oracles_and_decisions() -> None:
    first = update_oracle_file("api.yaml", [field("a", "1")], None, CountingBackend())
    entry = first.file.entries[0]
    silenced = replace(first.file, entries=(replace(entry, oracles=(replace(entry.oracles[0], enabled=False),)),))
    other = OperationKey("GET", "/y", "200")
    backend = CountingBackend()
    result = update_oracle_file("api.yaml", [field("a", "1", other)], silenced, backend)
    assert backend.asked == [] and result.moved == 1
    (moved,) = result.file.entries
    assert moved.operation == other and moved.oracles[0].operation == other
    assert moved.oracles[0].enabled is False


def test_fields_gone_from_the_spec_are_dropped_and_reported_with_the_decisions_they_held() -> None:
    first = update_oracle_file("api.yaml", [field("a", "1"), field("b", "2"), field("c", "3")], None,
                               CountingBackend())
    a, b, c = first.file.entries
    manual = Oracle(OP, "b", OracleKind.NUMBER_MAX_VALUE, 10, "manual", "ours", operation_id="getX")
    edited = replace(first.file, entries=(a, replace(b, oracles=(*b.oracles, manual)), c))
    result = update_oracle_file("api.yaml", [field("a", "1"), field("c2", "3")], edited, CountingBackend())
    assert result.moved == 1  # c moved to c2: not dropped
    assert [e.field for e in result.dropped] == ["b"]
    assert result.dropped_decisions == (manual,)
    assert update_oracle_file("api.yaml", [field("a", "1")], first.file, CountingBackend()).dropped_decisions == ()


def test_human_decisions_survive_and_are_flagged_when_the_field_changes() -> None:
    first = update_oracle_file("api.yaml", [field("a", "1")], None, CountingBackend())
    entry = first.file.entries[0]
    manual = Oracle(OP, "a", OracleKind.NUMBER_MAX_VALUE, 10, "manual", "ours", operation_id="getX")
    edited = replace(first.file, entries=(replace(entry, oracles=(replace(entry.oracles[0], enabled=False),
                                                                  manual)),))
    same = update_oracle_file("api.yaml", [field("a", "1")], edited, CountingBackend())
    assert same.file.entries[0].oracles == edited.entries[0].oracles  # unchanged fingerprint: untouched
    changed = update_oracle_file("api.yaml", [field("a", "1*")], edited, CountingBackend())
    inferred, kept = changed.file.entries[0].oracles
    assert inferred.enabled is False and inferred.review == REVIEW_CHANGED  # still silenced, flagged
    assert kept.source == "manual" and kept.review == REVIEW_CHANGED


def test_interruption_keeps_what_was_inferred() -> None:
    previous = update_oracle_file("api.yaml", [field("a", "1")], None, CountingBackend()).file
    fields = [field("a", "1*"), field("b", "2"), field("c", "3")]
    result = update_oracle_file("api.yaml", fields, previous, CountingBackend(interrupt_after=1))
    assert result.pending == 2
    assert [(e.field, e.fingerprint) for e in result.file.entries] == [("a", "1*")]
    again = CountingBackend()
    finished = update_oracle_file("api.yaml", fields, result.file, again)
    assert again.asked == ["b", "c"] and finished.pending == 0
