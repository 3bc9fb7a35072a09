"""Accepting and rejecting suggestions in the oracle file's text: one token of one line per oracle changes, in
any way a person may have written the oracle; what the scanner cannot pin is refused, and an edit that would
read back as anything but the intended change is a bug that writes nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from satori_ci.oracles.edit import ACCEPT, REJECT, EditMismatchError, changed_file, edit_oracles
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import FieldEntry, OracleFile, OracleSites, dump_oracle_file, load_oracle_sites
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.spec.model import OperationKey
from tests.oracles.test_file_hostile import _oracle_files

OP = OperationKey("GET", "/books", "200")


def _observed(field: str, kind: K, value: object = None, reason: str = "observed: in 30 responses") -> Oracle:
    return Oracle(OP, field, kind, value, OBSERVED, reason, False, evidence=30)


def _written() -> str:
    """A file as satori-ci writes it: a rules oracle and three suggestions, one with a reason that reads like
    the tokens to change."""
    return dump_oracle_file(OracleFile("api.yaml", (
        FieldEntry(OP, "books[].price", "f1", (
            Oracle(OP, "books[].price", K.NUMBER_MIN_VALUE, 0, "rules", "enabled: false"),
            _observed("books[].price", K.NUMBER_MAX_VALUE, 90, 'enabled: false, source: "observed"'),
        )),
        FieldEntry(OP, "books[].isbn", "f2", (
            _observed("books[].isbn", K.STRING_FIXED_LENGTH, 13),
            _observed("books[].isbn", K.STRING_IS_NUMERIC),
        )),
    )))


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def _edit(text: str, refs: list[tuple[int, int]], change: object = ACCEPT) -> str:
    assert change is ACCEPT or change is REJECT
    return edit_oracles(text, load_oracle_sites(text, "o.yaml"), refs, change, "o.yaml")


def test_a_file_satori_ci_wrote_is_edited_as_the_emitter_would_write_it() -> None:
    text = _written()
    sites = load_oracle_sites(text, "o.yaml")
    for change in (ACCEPT, REJECT):
        edited = edit_oracles(text, sites, [(0, 1), (1, 1)], change, "o.yaml")
        assert edited == dump_oracle_file(changed_file(sites.file, [(0, 1), (1, 1)], change))
        assert len(_changed_lines(text, edited)) == 2


def test_only_the_token_changes_and_text_that_looks_like_it_stays() -> None:
    text = _written()
    [(old, new)] = _changed_lines(text, _edit(text, [(0, 1)]))
    assert old.replace("evidence: 30, enabled: false", "evidence: 30, enabled: true") == new
    assert 'reason: "enabled: false, source: \\"observed\\""' in new
    [(old, new)] = _changed_lines(text, _edit(text, [(0, 1)], REJECT))
    assert old.replace('value: 90, source: "observed"', 'value: 90, source: "manual"') == new
    assert new.count('"observed\\"') == 1 and "evidence: 30" in new  # the reason and the evidence stay


def test_empty_refs_change_nothing() -> None:
    assert _edit(_written(), []) == _written()


HAND = """\
# our oracles, reviewed
version: 1
spec: api.yaml

operations:
  GET /books 200:   # the list
    books[].isbn:
      fingerprint: f2
      oracles:
        # two suggestions to look at
        - kind: string_fixed_length
          value: 13
          source: observed   # from staging
          evidence: 30
          enabled: False     # until we know
        -   {kind: string_is_numeric,   source: 'observed', enabled: false }   # enabled: false here too
    books[].title:
      fingerprint: f3
      oracles: [{kind: string_specific_values, value: ["a, enabled: false"], source: observed, enabled: false},
                {"kind": "string_fixed_length", "value": 3, "source": "observed", "enabled":false}]
"""


def test_hand_formatting_comments_and_every_style_stay_byte_for_byte() -> None:
    accepted = _edit(HAND, [(0, 0), (0, 1), (1, 0), (1, 1)])
    assert _changed_lines(HAND, accepted) == [
        ("          enabled: False     # until we know\n", "          enabled: True     # until we know\n"),
        ("        -   {kind: string_is_numeric,   source: 'observed', enabled: false }   # enabled: false here too\n",
         "        -   {kind: string_is_numeric,   source: 'observed', enabled: true }   # enabled: false here too\n"),
        ('      oracles: [{kind: string_specific_values, value: ["a, enabled: false"], source: observed, '
         'enabled: false},\n',
         '      oracles: [{kind: string_specific_values, value: ["a, enabled: false"], source: observed, '
         'enabled: true},\n'),
        ('                {"kind": "string_fixed_length", "value": 3, "source": "observed", "enabled":false}]\n',
         '                {"kind": "string_fixed_length", "value": 3, "source": "observed", "enabled":true}]\n'),
    ]
    rejected = _edit(HAND, [(0, 0), (0, 1), (1, 1)], REJECT)
    assert [new for _, new in _changed_lines(HAND, rejected)] == [
        "          source: manual   # from staging\n",
        "        -   {kind: string_is_numeric,   source: 'manual', enabled: false }   # enabled: false here too\n",
        '                {"kind": "string_fixed_length", "value": 3, "source": "manual", "enabled":false}]\n',
    ]


def test_one_of_several_oracles_on_a_line() -> None:
    line = ("      oracles: [{kind: string_is_url, source: observed, enabled: false}, "
            "{kind: string_is_email, source: observed, enabled: false}]\n")
    text = "operations:\n  GET /x 200:\n    a:\n" + line
    [(_, new)] = _changed_lines(text, _edit(text, [(0, 1)]))
    assert new == line.replace("enabled: false}]", "enabled: true}]")


def test_line_breaks_and_a_missing_last_one_are_kept() -> None:
    text = _written().replace("\n", "\r\n")
    edited = _edit(text, [(1, 0)])
    assert edited.count("\r\n") == text.count("\r\n") and "\n" not in edited.replace("\r\n", "")
    assert _edit(HAND.rstrip("\n"), [(1, 1)]) == _edit(HAND, [(1, 1)]).rstrip("\n")


@pytest.mark.parametrize(("oracles", "why"), [
    ("        - kind: string_is_url\n          source: observed\n          enabled:\n            false\n",
     "the value on the next line"),
    ("        - {kind: string_is_url, source: observed, enabled: !!bool false}\n", "a tag"),
    ('        - {kind: string_is_url, source: "obs\\x65rved", enabled: false}\n', "an escape"),
])
def test_a_token_the_scanner_cannot_pin_asks_for_a_hand_edit(oracles: str, why: str) -> None:
    text = "operations:\n  GET /x 200:\n    a:\n      oracles:\n" + oracles
    change = REJECT if "escape" in why else ACCEPT
    with pytest.raises(OracleFileError, match=r"o\.yaml:\d+: cannot find the '\w+' of the string_is_url oracle "
                                              r"of GET /x 200 a .*; edit it by hand"):
        _edit(text, [(0, 0)], change)


ANCHOR = "      oracles:\n        - &s {kind: string_is_url, source: observed, enabled: false}\n"


@pytest.mark.parametrize(("fields", "refs"), [
    (ANCHOR + "    b:\n      oracles:\n        - *s\n", (({},), ({},))),  # one oracle at two places
    ("      oracles: &l [{kind: string_is_url, source: observed, enabled: false}]\n    b:\n      oracles: *l\n",
     (({},), ({},))),  # a list of oracles at two places
    (ANCHOR + "        - {<<: *s, kind: string_is_email}\n", (({}, {"kind": 6}),)),  # merged into another
])
def test_an_oracle_written_once_for_several_is_refused(fields: str, refs: object) -> None:
    text = "operations:\n  GET /x 200:\n    a:\n" + fields
    sites = load_oracle_sites(text, "o.yaml")
    assert sites.lines == refs
    for ref in ((0, 0), (len(sites.lines) - 1, len(sites.lines[-1]) - 1)):
        with pytest.raises(OracleFileError, match=r"^o\.yaml: cannot find the 'enabled'"):
            _edit(text, [ref])


def test_sites_give_the_line_of_every_key() -> None:
    sites = load_oracle_sites(HAND, "o.yaml")
    assert sites.lines[0][0] == {"kind": 11, "value": 12, "source": 13, "evidence": 14, "enabled": 15}
    assert sites.lines[0][1] == {"kind": 16, "source": 16, "enabled": 16}
    assert sites.lines[1][1]["enabled"] == 20
    assert load_oracle_sites("", "o.yaml") == OracleSites(OracleFile("", ()), ())


def test_an_edit_that_reads_back_otherwise_is_a_bug_and_nothing_is_returned() -> None:
    # the key's line starts inside a string that spans lines: the scanner finds the string's `enabled: false`
    text = ("operations:\n  GET /x 200:\n    a:\n      oracles:\n"
            '        - {kind: string_is_url, source: observed, reason: "a\n'
            '           enabled: false, ", enabled: false}\n')
    with pytest.raises(EditMismatchError, match="does not read as the intended change"):
        _edit(text, [(0, 0)])


def test_changed_file_changes_only_the_refs() -> None:
    text = _written()
    file = load_oracle_sites(text, "o.yaml").file
    changed = changed_file(file, [(1, 0)], REJECT)
    assert changed.entries[0] == file.entries[0]
    assert changed.entries[1].oracles[0] == replace(file.entries[1].oracles[0], source="manual")
    assert changed.entries[1].oracles[1] == file.entries[1].oracles[1]


@settings(max_examples=150, deadline=None)
@given(_oracle_files())
def test_any_file_satori_ci_writes_is_edited_as_the_emitter_would_write_it(data: OracleFile) -> None:
    entries = tuple(replace(e, oracles=(replace(e.oracles[0], source=OBSERVED, enabled=False, evidence=7),
                                        *e.oracles[1:])) for e in data.entries)
    text = dump_oracle_file(OracleFile(data.spec, entries))
    sites = load_oracle_sites(text, "o.yaml")
    by_yaml = load_oracle_sites(text.replace("\nversion: 1\n", "\nversion:  1\n"), "o.yaml")  # not canonical
    assert sites == by_yaml
    refs = [(e, 0) for e in range(len(entries))]
    for change in (ACCEPT, REJECT):
        edited = edit_oracles(text, sites, refs, change, "o.yaml")
        assert edited == dump_oracle_file(changed_file(sites.file, refs, change))


@pytest.mark.parametrize(("line", "end"), [
    ('"a\\"b" x', 6), ('"a\\\\" x', 5), ('"unclosed', None), ('"ends in a backslash\\', None),
    ("'it''s' x", 7), ("'''", None), ("'a'''", 5), ("'' x", 2), ('"é\u2028" x', 4),
])
def test_a_quoted_scalar_ends_at_its_closing_quote(line: str, end: int | None) -> None:
    from satori_ci.oracles.edit import _quoted_end

    assert _quoted_end(line, 0) == end
