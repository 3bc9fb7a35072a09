"""Oracle files edited by hand or written from a hostile spec: one-line errors with the line, never a crash;
any spec path or field name reads back as it was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from satori_ci.cli import main
from satori_ci.demo import Bookshop
from satori_ci.oracles.canonical import read_canonical
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey
from satori_ci.spec.paths import escape_name

ROOT = Path(__file__).resolve().parents[2]


def _with_value(value: str, kind: str = "number_min_value") -> str:
    return ("version: 1\nspec: api.yaml\noperations:\n  GET /x 200:\n    count:\n      fingerprint: abc\n"
            f"      oracles:\n        - kind: {kind}\n          value: {value}\n          source: manual\n")


@pytest.mark.parametrize(("value", "kind", "needle"), [
    (".nan", "number_min_value", "'value' holds .nan: numbers in an oracle file must be finite"),
    (".NaN", "number_max_value", "'value' holds .nan"),
    (".inf", "number_max_value", "'value' holds .inf"),
    ("-.inf", "number_min_value", "'value' holds -.inf"),
    ("!!float .inf", "number_min_value", "'value' holds .inf"),
    ("[1, .nan]", "number_specific_values", "'value' holds .nan"),
    ("[0, .inf]", "array_specific_sizes", "'value' holds .inf"),
    ("1" * 5000, "number_min_value", "a number of more than 4300 digits"),
    ("-" + "9" * 5000, "number_max_value", "a number of more than 4300 digits"),
    ("!!int " + "9" * 5000, "number_max_value", "a number of more than 4300 digits"),
    ("1" * 400, "number_min_value", "'value' holds a number out of range"),
    ("1" * 310, "array_min_size", "'value' holds a number out of range"),
    ("0x" + "f" * 5000, "number_min_value", "'value' holds a number out of range"),
    ("[1, " + "2" * 1000 + "]", "array_specific_sizes", "'value' holds a number out of range"),
    ("1.7e308", "number_min_value", "'value' holds a number out of range"),
    ("1e400", "number_min_value", "value '1e400' does not fit number_min_value"),  # overflows: read as text
])
def test_non_finite_and_huge_numbers_are_one_line_errors_with_the_line(value: str, kind: str, needle: str) -> None:
    with pytest.raises(OracleFileError) as info:
        load_oracle_file(_with_value(value, kind), "o.yaml")
    message = str(info.value)
    assert message.startswith("o.yaml:9: ") and needle in message, message
    assert "\n" not in message and len(message) < 300


@pytest.mark.parametrize(("text", "line"), [
    ("version: 1\nspec: .nan\n", 2),
    ("version: .inf\n", 1),
    ("version: 1\noperations:\n  GET /x 200:\n    a:\n      fingerprint: " + "7" * 500 + "\n", 5),
    ("version: 1\noperations:\n  GET /x 200:\n    a:\n      fingerprint: x\n      oracles: [.nan]\n", 6),
    ("version: 1\noperations:\n  GET /x 200:\n    a:\n      fingerprint: x\n      context: -.inf\n", 6),
    ("version: 1\noperations:\n  GET /x 200:\n    a:\n      fingerprint: x\n      oracles:\n"
     "        - {kind: string_is_url, reason: " + "8" * 4400 + "}\n", 7),
])
def test_bad_numbers_anywhere_name_their_line(text: str, line: int) -> None:
    with pytest.raises(OracleFileError) as info:
        load_oracle_file(text, "o.yaml")
    assert str(info.value).startswith(f"o.yaml:{line}: ") and "\n" not in str(info.value)


@pytest.mark.parametrize("value", ["1" + "0" * 308, "-1e308", "1e308", "[0, 1, 1" + "0" * 300 + "]"])
def test_numbers_up_to_1e308_are_read(value: str) -> None:
    kind = "array_specific_sizes" if value.startswith("[") else "number_min_value"
    loaded = load_oracle_file(_with_value(value, kind), "o.yaml")
    text = dump_oracle_file(loaded)
    assert dump_oracle_file(load_oracle_file(text, "o.yaml")) == text


def test_a_hostile_number_through_the_cli_is_exit_2_and_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "o.yaml").write_text(_with_value(".nan"))
    assert main(["oracle-diff", "o.yaml", "o.yaml"]) == 2
    err = capsys.readouterr().err
    assert err == "satori-ci: error: o.yaml:9: 'value' holds .nan: numbers in an oracle file must be finite\n"


SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\r", "\n", "\t", "\x00", "\x1b", "\x7f", "\x9f",
              "\ufeff", "\u202e", "\u200b", "\U000e0041", "\ufffe", "\uffff", '"', "\\", "#", ": ", "- ", "'", "&a",
              "*a", "!!int", "{", "}", "[", "]", ",", "?", "|", ">", "%", "@", "`", "<<", "~", "null", " "]
OP = OperationKey("GET", "/x", "200")


def _one(operation: OperationKey, field: str, spec: str = "api/openapi.yaml") -> OracleFile:
    oracle = Oracle(operation, field, OracleKind.STRING_SPECIFIC_VALUES, (field, "a"), "declared", f"spec: {field}")
    return OracleFile(spec, (FieldEntry(operation, field, "f" + field, (oracle,), context=field or None),))


def _round_trips(data: OracleFile) -> str:
    text = dump_oracle_file(data)
    loaded = load_oracle_file(text, "o.yaml")
    assert loaded == data
    again = dump_oracle_file(loaded)
    assert again == text
    return text


@pytest.mark.parametrize("char", SEPARATORS)
def test_separators_and_controls_in_paths_and_field_names_round_trip(char: str) -> None:
    text = _round_trips(_one(OperationKey("GET", f"/a{char}b", "200"), escape_name(f"x{char}y"),
                             spec=f"api/{char}.yaml"))
    assert len(text.splitlines()) == len(dump_oracle_file(_one(OP, "xy")).splitlines())  # no line was broken


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x7f", "\u202e", "\ufeff"])
def test_line_breaks_and_invisible_characters_are_written_as_escapes(char: str) -> None:
    text = dump_oracle_file(_one(OperationKey("GET", f"/a{char}b", "200"), f"x{char}y", spec=f"{char}.yaml"))
    assert char not in text
    assert f"\\u{ord(char):04x}" in text


def test_keys_longer_than_yamls_limit_round_trip() -> None:
    for size in (990, 998, 999, 1000, 1021, 1022, 1023, 1024, 5000):
        _round_trips(_one(OperationKey("GET", "/" + "p" * size, "200"), "f" * size))


def test_a_lone_surrogate_is_refused_with_one_line() -> None:
    with pytest.raises(OracleFileError) as info:
        dump_oracle_file(_one(OP, "a\ud800b"))
    assert "lone surrogate (U+D800)" in str(info.value) and "\n" not in str(info.value)


_CANONICAL = dump_oracle_file(_one(OP, "fmt"))
"""The emitter's own lines (the fast reader's form): line 11 `spec:`, 13 the operation, 14 the field, 15
`fingerprint:`, 16 `context:`, 18 the oracle line."""


@pytest.mark.parametrize(("old", "new", "line"), [
    ('["fmt", "a"]', '["fmt", "\\ud800"]', 18),  # a string_specific_values value
    ('["fmt", "a"]', '["fmt", "x\\uDBFFy"]', 18),
    ('"spec: fmt"}', '"spec: \\udc00"}', 18),  # the reason
    ('"declared"', '"\\udfff"', 18),  # the source
    ('fingerprint: "ffmt"', 'fingerprint: "\\ud800"', 15),
    ('context: "fmt"', 'context: "\\ud800"', 16),
    ('spec: "api/openapi.yaml"', 'spec: "api/\\ud800.yaml"', 11),
    ('    "fmt":', '    "f\\ud800":', 14),  # a field name (a key)
    ('"GET /x 200":', '"GET /x\\udc00 200":', 13),  # an operation label (a key)
])
def test_a_lone_surrogate_escape_in_the_emitters_lines_is_one_line_naming_its_line(old: str, new: str,
                                                                                    line: int) -> None:
    assert read_canonical(_CANONICAL) is not None  # the fast reader's form...
    hostile = _CANONICAL.replace(old, new, 1)
    assert hostile != _CANONICAL and read_canonical(hostile) is None  # ...that it never reads with a surrogate in it
    with pytest.raises(OracleFileError) as info:
        load_oracle_file(hostile, "o.yaml")
    message = str(info.value)
    assert message.startswith(f"o.yaml:{line}: ") and "lone surrogate" in message, message
    assert "\n" not in message and len(message) < 300, message
    message.encode("utf-8")  # printable: the surrogate is shown as its escape


@pytest.mark.parametrize(("value", "kind", "escape"), [
    ('["a", "\\ud800"]', "string_specific_values", "\\ud800"),
    ('["\\U0000d800"]', "string_specific_values", "\\ud800"),  # a YAML escape JSON does not know
    ('[a, "b\\uDC00"]', "string_specific_values", "\\udc00"),
    ('["ok \\ud83d"]', "string_specific_values", "\\ud83d"),
])
def test_a_lone_surrogate_escape_in_hand_edited_yaml_is_one_line_naming_its_line(value: str, kind: str,
                                                                                  escape: str) -> None:
    text = _with_value(value, kind)
    assert read_canonical(text) is None  # the YAML loader reads it
    with pytest.raises(OracleFileError) as info:
        load_oracle_file(text, "o.yaml")
    message = str(info.value)
    assert message.startswith("o.yaml:9: 'value' holds a lone surrogate") and escape in message, message
    assert "\n" not in message


def test_a_lone_surrogate_in_a_block_list_or_a_key_names_the_line() -> None:
    text = ("version: 1\noperations:\n  GET /x 200:\n    count:\n      fingerprint: abc\n      oracles:\n"
            "        - kind: string_specific_values\n          value:\n            - ok\n            - \"\\udfff\"\n")
    with pytest.raises(OracleFileError, match=r"^o\.yaml:8: 'value' holds a lone surrogate \(\\udfff\)"):
        load_oracle_file(text, "o.yaml")
    keyed = "version: 1\noperations:\n  GET /x 200:\n    \"c\\ud800\": {fingerprint: abc}\n"
    with pytest.raises(OracleFileError, match=r"^o\.yaml:4: the key 'c\\ud800' holds a lone surrogate"):
        load_oracle_file(keyed, "o.yaml")


def test_an_escaped_surrogate_pair_is_two_surrogates_in_yaml_and_the_error_says_how_to_write_it() -> None:
    with pytest.raises(OracleFileError) as info:
        load_oracle_file(_with_value('["\\ud83d\\ude00"]', "string_specific_values"), "o.yaml")
    assert str(info.value) == ("o.yaml:9: 'value' holds the escapes \\ud83d\\ude00, a UTF-16 surrogate pair that "
                               "YAML reads as two lone surrogates: write \\U0001F600 or the character itself")
    [entry] = load_oracle_file(_with_value('["\\U0001F600", "\U0001f600"]', "string_specific_values"),
                               "o.yaml").entries
    assert entry.oracles[0].value == ("\U0001f600", "\U0001f600")


def test_a_lone_surrogate_in_an_oracle_file_through_the_cli_is_exit_2_and_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A pull request that writes `"\\ud800"` into an enum used to crash `run --runner newman` with a
    UnicodeEncodeError when the collection was written."""
    monkeypatch.chdir(tmp_path)
    fixture = ROOT / "tests" / "run" / "fixtures" / "bookshop.oracles.yaml"
    text = fixture.read_text(encoding="utf-8").replace('"audiobook"]', '"audiobook", "\\ud800"]', 1)
    line = text[:text.index("\\ud800")].count("\n") + 1
    (tmp_path / "o.yaml").write_text(text, encoding="utf-8")
    spec = str(ROOT / "satori_ci" / "examples" / "bookshop" / "openapi.v2.yaml")
    shop = Bookshop()
    with shop.server:
        for args in (["run", spec, "--oracles", "o.yaml", "--base-url", shop.server.base_url, "--runner", "newman"],
                     ["run", spec, "--oracles", "o.yaml", "--base-url", shop.server.base_url, "--runner", "native"],
                     ["collection", spec, "--oracles", "o.yaml", "--out", "c.json"]):
            assert main(args) == 2, args
            captured = capsys.readouterr()
            assert captured.out == "" and captured.err == (
                f"satori-ci: error: o.yaml:{line}: 'value' holds a lone surrogate (\\ud800): half of a UTF-16 "
                "surrogate pair without its other half, not Unicode text\n"), captured.err
        assert shop.server.received == []  # refused before anything was sent
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.yaml"]


def test_a_path_not_starting_with_a_slash_reads_back() -> None:
    _round_trips(_one(OperationKey("GET", "users", "200"), "id"))
    _round_trips(_one(OperationKey("GET", "", "200"), "id"))


def test_escaped_keys_written_by_hand_are_read() -> None:
    text = 'version: 1\noperations:\n  "GET /a\\u2028b 200":\n    "x\\u0085y": {fingerprint: f}\n'
    entry = load_oracle_file(text, "o.yaml").entries[0]
    assert entry.operation.path == "/a\u2028b" and entry.field == "x\x85y"


_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
_LONG = st.builds(lambda unit, size: (unit * (size // len(unit) + 1))[:size],
                  st.text(alphabet=st.sampled_from("a\u2028\x85é\U0001f600"), min_size=1, max_size=12),
                  st.integers(990, 1100))
"""Names around the emitter's plain-key limit (1000 characters as written), of a drawn run of `_MIX`'s characters
repeated: drawing each of 1,000 characters on its own took most of the property tests' time."""
_METHODS = st.sampled_from(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
_STATUSES = st.sampled_from(["200", "201", "204", "2XX", "2xx"])


_NAMES = st.one_of(_TEXT.filter(bool), _LONG)
_FIELD_PATHS = st.one_of(st.just(""), st.lists(st.tuples(_NAMES, st.sampled_from(["", "[]", "{}", "[][]"])),
                                                min_size=1, max_size=3)
                         .map(lambda steps: ".".join(escape_name(name) + suffix for name, suffix in steps)))
"""Field paths of the contract: any property names, escaped, with arrays and maps along the way."""


_OPERATIONS = st.lists(st.tuples(_METHODS, st.one_of(_TEXT.map(lambda t: "/" + t), _TEXT, _LONG), _STATUSES),
                       min_size=1, max_size=4, unique=True)
_FIELDS = st.lists(_FIELD_PATHS, min_size=1, max_size=4, unique=True)
_SOURCES = st.sampled_from(["declared", "rules", "manual"])
_OPTIONAL_TEXT = st.none() | _TEXT.filter(bool)
_NUMBERS = st.integers(-(10**308), 10**308) | st.floats(-1e308, 1e308)
"""The strategies `_oracle_files` draws from, built once (not at every draw)."""


@st.composite
def _oracle_files(draw: st.DrawFn) -> OracleFile:
    entries = []
    for method, path, status in draw(_OPERATIONS):
        operation = OperationKey(method, path, status)
        for field in draw(_FIELDS):
            oracles = (Oracle(operation, field, OracleKind.STRING_SPECIFIC_VALUES, (draw(_TEXT), field),
                              draw(_SOURCES), draw(_TEXT), draw(st.booleans()), review=draw(_OPTIONAL_TEXT)),
                       Oracle(operation, field, OracleKind.NUMBER_MIN_VALUE, draw(_NUMBERS), "rules", ""))
            entries.append(FieldEntry(operation, field, draw(_TEXT), oracles, draw(_OPTIONAL_TEXT)))
    return OracleFile(draw(_TEXT), tuple(entries))


def _file(spec: str, operations: list[tuple[str, str, str, list[str]]], number: float, review: str | None,
          context: str | None) -> OracleFile:
    """An oracle file of `_oracle_files`' shape: each field with a string_specific_values and a number_min_value."""
    entries = []
    for method, path, status, fields in operations:
        operation = OperationKey(method, path, status)
        for field in fields:
            oracles = (Oracle(operation, field, OracleKind.STRING_SPECIFIC_VALUES, (field[-3:], field), "manual",
                              field[:3], False, review=review),
                       Oracle(operation, field, OracleKind.NUMBER_MIN_VALUE, number, "rules", ""))
            entries.append(FieldEntry(operation, field, field[:2], oracles, context))
    return OracleFile(spec, tuple(entries))


_MIX = "a\u2028\x85é\U0001f600"
"""`_LONG`'s characters: plain, the two YAML line breaks that are written as escapes, two and four UTF-8 bytes."""
EDGE_FILES = (
    # keys at the emitter's plain-key limit (1000 characters as written: quotes and escapes included) and past it,
    # of each of `_LONG`'s characters, with array and map steps; the empty field; a `\U` escape (a tag character);
    # the smallest integer; no review, no context
    _file("", [("GET", "/" + _MIX * 199, "2XX", ["", "é" * 996 + "[]", "é" * 997 + "[]", "\x85" * 1100 + "{}",
                                                "a" * 990 + "." + "\U0001f600" * 1000]),
               ("DELETE", _MIX * 220, "2xx", [escape_name("a.b[]") + "[][]", "\U000e0041"])], -(10**308), None, None),
    # short keys only (the fast reader's lines): separators, a BOM, a bidi override, quotes, an empty path; the
    # largest float; a review and a context
    _file("api/\u202e.yaml", [("PATCH", "x\u2028y: \"#", "201", [escape_name("\ufeff{}") + "{}", "é"]),
                              ("TRACE", "", "204", ["x"])], 1e308, "needs review: x", "c\x85"),
)
"""Shapes the property tests always try (`@example`), whatever they draw."""


@settings(max_examples=200, deadline=None)
@example(EDGE_FILES[0])
@example(EDGE_FILES[1])
@given(_oracle_files())
def test_any_unicode_path_and_field_name_round_trips_byte_for_byte(data: OracleFile) -> None:
    text = dump_oracle_file(data)
    loaded = load_oracle_file(text, "o.yaml")
    assert dump_oracle_file(loaded) == text
    assert {e.key for e in loaded.entries} == {e.key for e in data.entries}
    assert loaded.by_key() == data.by_key()
