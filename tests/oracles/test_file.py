"""The oracle file: deterministic text, byte-for-byte round trip, clear errors on bad edits."""

from __future__ import annotations

import pytest

from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey

OP = OperationKey("GET", "/businesses/search", "200")
OTHER = OperationKey("GET", "/a b", "201")


def _file() -> OracleFile:
    price = Oracle(OP, "businesses[].price", OracleKind.STRING_SPECIFIC_VALUES, ("$", "$$", 'a"b\n</script>'),
                   "declared", "spec: enum", True)
    lat = Oracle(OP, "businesses[].coordinates.latitude", OracleKind.NUMBER_MIN_VALUE, -90, "rules",
                 "name 'latitude': in [-90, 90]", False, review="needs review: x")
    url = Oracle(OTHER, "a\\.b", OracleKind.STRING_IS_URL, None, "manual", "", True)
    return OracleFile("api/openapi.yaml", (
        FieldEntry(OP, "businesses[].price", "f1", (price,)),
        FieldEntry(OP, "businesses[].coordinates.latitude", "f2", (lat,)),
        FieldEntry(OP, "total", "f3", ()),
        FieldEntry(OTHER, "a\\.b", "f4", (url,)),
    ))


def test_round_trip_is_byte_for_byte() -> None:
    text = dump_oracle_file(_file())
    loaded = load_oracle_file(text, "x.yaml")
    assert dump_oracle_file(loaded) == text
    entries = loaded.by_key()
    price = entries[("GET", "/businesses/search", "200", "businesses[].price")].oracles[0]
    lat = entries[("GET", "/businesses/search", "200", "businesses[].coordinates.latitude")].oracles[0]
    assert price.value == ("$", "$$", 'a"b\n</script>')
    assert lat.enabled is False and lat.review == "needs review: x"
    assert loaded.entries[0].operation == OTHER  # operations sorted by path


def test_operations_are_sorted_and_one_oracle_is_one_line() -> None:
    text = dump_oracle_file(_file())
    assert text.index('"GET /a b 201"') < text.index('"GET /businesses/search 200"')
    assert sum(1 for line in text.splitlines() if line.startswith("        - {")) == 3


def test_hand_edits_in_plain_yaml_are_read() -> None:
    text = """
version: 1
spec: api.yaml
operations:
  GET /x 200:
    count:
      fingerprint: abc
      oracles:
        - kind: number_min_value
          value: 0
          source: manual
          reason: counts are never negative
        - {kind: string_is_url, enabled: false}
"""
    loaded = load_oracle_file(text, "x.yaml")
    first, second = loaded.entries[0].oracles
    assert first.kind is OracleKind.NUMBER_MIN_VALUE and first.value == 0 and first.source == "manual"
    assert second.enabled is False and second.source == "manual"


@pytest.mark.parametrize(("text", "needle"), [
    ("version: 1\noperations:\n  GET /x 200:\n    a: {fingerprint: x, oracles: [{kind: nope}]}\n",
     "unknown oracle kind 'nope'"),
    ("version: 1\noperations:\n  GET /x 200:\n    a: {fingerprint: x, oracles: [{kind: number_min_value, "
     "value: abc}]}\n", "does not fit number_min_value"),
    ("version: 1\noperations:\n  GET /x 200:\n    a: {fingerprint: x, colour: red}\n", "unknown key 'colour'"),
    ("version: 1\noperations:\n  nonsense:\n    a: {fingerprint: x}\n", "x.yaml:3: 'nonsense' is not"),
    ("version: 1\noperations:\n  GET /x 200:\n    a: {fingerprint: x}\n    a: {fingerprint: y}\n",
     "duplicate key 'a'"),
    ("version: 2\n", "unsupported oracle file version"),
    ("operations: [\n", "invalid YAML"),
])
def test_bad_oracle_files_are_one_line_errors(text: str, needle: str) -> None:
    with pytest.raises(OracleFileError) as info:
        load_oracle_file(text, "x.yaml")
    assert needle in str(info.value) and "\n" not in str(info.value)
