"""Which waiting suggestions a selection names: only observed and disabled ones, OR within a criterion, AND
across criteria, every status of an operation unless one is named, the body by `""` or `(body)`."""

from __future__ import annotations

import pytest

from satori_ci.observe.select import BODY, OperationPattern, Selection, is_waiting, select, waiting
from satori_ci.oracles.file import FieldEntry, OracleFile
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.spec.model import OperationKey

BOOKS = OperationKey("GET", "/books", "200")
BOOKS_206 = OperationKey("GET", "/books", "206")
BOOK = OperationKey("GET", "/books/{id}", "200")


def _suggestion(op: OperationKey, field: str, kind: K, value: object = None, *, source: str = OBSERVED,
                enabled: bool = False) -> Oracle:
    return Oracle(op, field, kind, value, source, "observed", enabled, evidence=30)


def _file() -> OracleFile:
    return OracleFile("api.yaml", (
        FieldEntry(BOOKS, "books[].price", "f1", (
            Oracle(BOOKS, "books[].price", K.NUMBER_MIN_VALUE, 0, "rules", "name"),
            _suggestion(BOOKS, "books[].price", K.NUMBER_MAX_VALUE, 90),
            _suggestion(BOOKS, "books[].price", K.NUMBER_SPECIFIC_VALUES, (1, 2), enabled=True),  # accepted
            _suggestion(BOOKS, "books[].price", K.STRING_IS_URL, source="manual"),  # dismissed
        )),
        FieldEntry(BOOKS, "books[].isbn", "f2", (
            _suggestion(BOOKS, "books[].isbn", K.STRING_FIXED_LENGTH, 13),
            _suggestion(BOOKS, "books[].isbn", K.STRING_IS_NUMERIC),
        )),
        FieldEntry(BOOKS_206, "books[].isbn", "f3", (_suggestion(BOOKS_206, "books[].isbn", K.STRING_IS_NUMERIC),)),
        FieldEntry(BOOK, "", "f4", (_suggestion(BOOK, "", K.ARRAY_MAX_SIZE, 10),)),
        FieldEntry(BOOK, "title", "f5", ()),
    ))


def _picked(selection: Selection) -> list[tuple[str, str, str]]:
    return [(p.oracle.operation.status, p.oracle.field, p.oracle.kind.value) for p in select(_file(), selection)]


def test_only_observed_disabled_oracles_are_waiting_in_file_order() -> None:
    found = waiting(_file())
    assert [p.ref for p in found] == [(0, 1), (1, 0), (1, 1), (2, 0), (3, 0)]
    assert all(is_waiting(p.oracle) for p in found)
    entries = _file().entries
    assert all(entries[p.ref[0]].oracles[p.ref[1]] == p.oracle for p in found)
    assert not is_waiting(entries[0].oracles[2]) and not is_waiting(entries[0].oracles[3])


def test_an_empty_selection_takes_every_waiting_suggestion() -> None:
    assert Selection().is_empty
    assert len(select(_file(), Selection())) == 5


def test_an_operation_without_status_takes_every_status() -> None:
    assert _picked(Selection(operations=(OperationPattern("get", "/books"),))) == [
        ("200", "books[].price", "number_max_value"), ("200", "books[].isbn", "string_fixed_length"),
        ("200", "books[].isbn", "string_is_numeric"), ("206", "books[].isbn", "string_is_numeric")]
    assert _picked(Selection(operations=(OperationPattern("GET", "/books", "206"),))) == [
        ("206", "books[].isbn", "string_is_numeric")]
    assert _picked(Selection(operations=(OperationPattern("GET", "/book"),))) == []  # the path is exact


def test_values_of_one_criterion_are_or_and_criteria_are_and() -> None:
    kinds = Selection(kinds=(K.STRING_IS_NUMERIC, K.ARRAY_MAX_SIZE))
    assert _picked(kinds) == [("200", "books[].isbn", "string_is_numeric"),
                              ("206", "books[].isbn", "string_is_numeric"), ("200", "", "array_max_size")]
    both = Selection(operations=(OperationPattern("GET", "/books", "200"),), kinds=kinds.kinds)
    assert _picked(both) == [("200", "books[].isbn", "string_is_numeric")]
    fields = Selection(fields=("books[].price", "books[].isbn"), kinds=(K.NUMBER_MAX_VALUE, K.STRING_FIXED_LENGTH))
    assert _picked(fields) == [("200", "books[].price", "number_max_value"),
                               ("200", "books[].isbn", "string_fixed_length")]


@pytest.mark.parametrize("name", ["", BODY])
def test_the_body_is_named_by_an_empty_path_or_body(name: str) -> None:
    assert _picked(Selection(fields=(name,))) == [("200", "", "array_max_size")]


def test_a_field_path_is_matched_exactly() -> None:
    assert _picked(Selection(fields=("books[]",))) == []
    assert _picked(Selection(fields=("price",))) == []


def test_a_kind_the_field_has_only_as_a_decision_is_not_selected() -> None:
    assert _picked(Selection(kinds=(K.NUMBER_SPECIFIC_VALUES, K.STRING_IS_URL))) == []
