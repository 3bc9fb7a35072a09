"""Observed suggestions in the oracle file: written and read back byte for byte, merged without duplicates,
reviewers' decisions kept across runs and across changes of the field."""

from __future__ import annotations

from dataclasses import replace

import pytest

from satori_ci.infer.incremental import REVIEW_CHANGED, carry_decisions
from satori_ci.observe.apply import apply_proposals, pending
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.spec.model import OperationKey

OP = OperationKey("GET", "/things", "200")


def observed(kind: K, value: object = None, evidence: int = 25, field: str = "id", enabled: bool = False) -> Oracle:
    return Oracle(OP, field, kind, value, OBSERVED, f"observed: in {evidence} responses", enabled,
                  evidence=evidence)


def file_of(*oracles: Oracle, field: str = "id") -> OracleFile:
    return OracleFile("api.yaml", (FieldEntry(OP, field, "fp1", tuple(oracles)),))


def oracles(file: OracleFile) -> list[Oracle]:
    return [o for e in file.entries for o in e.oracles]


def test_observed_oracles_round_trip_byte_for_byte() -> None:
    data = file_of(Oracle(OP, "id", K.STRING_IS_URL, source="rules", reason="name"),
                   observed(K.STRING_FIXED_LENGTH, 22, 37),
                   observed(K.STRING_SPECIFIC_VALUES, ("a", "b"), 0, enabled=True))
    text = dump_oracle_file(data)
    assert ('- {kind: string_fixed_length, value: 22, source: "observed", evidence: 37, enabled: false, '
            'reason: "observed: in 37 responses"}') in text
    assert "`source: observed` lines: suggestions" in text
    again = load_oracle_file(text, "o.yaml")
    assert again == data and dump_oracle_file(again) == text
    assert oracles(again)[1].evidence == 37 and oracles(again)[0].evidence is None


@pytest.mark.parametrize("value", ["-1", "1.5", "true", '"3"'])
def test_a_bad_evidence_is_refused_with_its_line(value: str) -> None:
    text = ("version: 1\noperations:\n  GET /things 200:\n    id:\n      fingerprint: x\n      oracles:\n"
            f"        - {{kind: string_is_url, source: observed, evidence: {value}, enabled: false}}\n")
    with pytest.raises(OracleFileError, match="'evidence' of an oracle of 'id' must be a count"):
        load_oracle_file(text, "o.yaml")


def test_a_proposal_enters_disabled_and_re_observation_only_updates_its_evidence() -> None:
    first = apply_proposals(file_of(), [observed(K.STRING_FIXED_LENGTH, 22, 25)])
    assert oracles(first) == [observed(K.STRING_FIXED_LENGTH, 22, 25)] and pending(first) == tuple(oracles(first))
    again = apply_proposals(first, [observed(K.STRING_FIXED_LENGTH, 22, 40)])
    assert [(o.evidence, o.enabled) for o in oracles(again)] == [(40, False)]
    accepted = file_of(replace(oracles(again)[0], enabled=True))
    later = apply_proposals(accepted, [observed(K.STRING_FIXED_LENGTH, 22, 55)])
    assert [(o.evidence, o.enabled) for o in oracles(later)] == [(55, True)]  # never duplicated, never re-disabled
    assert pending(later) == ()


def test_an_accepted_oracle_stays_when_the_observations_change() -> None:
    accepted = observed(K.NUMBER_MAX_VALUE, 10, enabled=True)
    later = apply_proposals(file_of(accepted), [observed(K.NUMBER_MAX_VALUE, 12, 30)])
    assert oracles(later) == [accepted]
    assert oracles(apply_proposals(file_of(accepted), [])) == [accepted]


def test_a_waiting_suggestion_follows_the_observations() -> None:
    waiting = file_of(observed(K.STRING_SPECIFIC_VALUES, ("a", "b")), observed(K.STRING_IS_URL))
    moved = apply_proposals(waiting, [observed(K.STRING_SPECIFIC_VALUES, ("a", "b", "c"), 90)])
    assert oracles(moved) == [observed(K.STRING_SPECIFIC_VALUES, ("a", "b", "c"), 90)]  # url no longer holds


def test_an_oracle_the_field_already_has_is_not_proposed() -> None:
    declared = Oracle(OP, "id", K.STRING_SPECIFIC_VALUES, ("a", "b", "c"), "declared", "spec: enum")
    rules = Oracle(OP, "id", K.STRING_IS_URL, None, "rules", "name")
    silenced = Oracle(OP, "id", K.STRING_FIXED_LENGTH, 3, "rules", "x", enabled=False)
    dismissed = Oracle(OP, "id", K.STRING_IS_NUMERIC, None, "manual", "not numeric", enabled=False)
    start = file_of(declared, rules, silenced, dismissed)
    proposals = [observed(K.STRING_SPECIFIC_VALUES, ("a", "b")), observed(K.STRING_IS_URL),
                 observed(K.STRING_FIXED_LENGTH, 22), observed(K.STRING_IS_NUMERIC)]
    assert apply_proposals(start, proposals) == start
    # a waiting suggestion that rules now cover goes away
    assert oracles(apply_proposals(file_of(rules, observed(K.STRING_IS_URL)), [observed(K.STRING_IS_URL)])) == \
        [rules]


def test_fields_the_file_does_not_have_get_no_proposal() -> None:
    assert apply_proposals(file_of(), [observed(K.STRING_IS_URL, field="other")]) == file_of()


def test_a_changed_field_keeps_accepted_suggestions_and_drops_waiting_ones() -> None:
    accepted = observed(K.STRING_FIXED_LENGTH, 22, enabled=True)
    previous = FieldEntry(OP, "id", "old", (observed(K.STRING_IS_URL), accepted,
                                            Oracle(OP, "id", K.STRING_IS_NUMERIC, None, "rules", "x",
                                                   enabled=False)))
    inferred = (Oracle(OP, "id", K.STRING_IS_URL, None, "rules", "now from the spec"),)
    carried = carry_decisions(inferred, previous)
    assert [(o.kind, o.source, o.enabled, o.review) for o in carried] == [
        (K.STRING_IS_URL, "rules", True, None),  # the waiting suggestion was nobody's decision
        (K.STRING_FIXED_LENGTH, OBSERVED, True, REVIEW_CHANGED),
        (K.STRING_IS_NUMERIC, "rules", False, REVIEW_CHANGED),
    ]
    assert not observed(K.STRING_IS_URL).is_decision and accepted.is_decision
