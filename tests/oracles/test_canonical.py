"""The oracle file's fast reader: the emitter's canonical lines read without YAML give exactly what the YAML
loader gives, and anything else is left to the YAML loader (so hand edits and their errors read as before)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings

from satori_ci.oracles.canonical import read_canonical
from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey
from satori_ci.spec.yaml_loader import load_yaml
from tests.oracles.test_file_hostile import EDGE_FILES, _oracle_files

BOOKSHOP = Path(__file__).resolve().parents[1] / "run" / "fixtures" / "bookshop.oracles.yaml"
OP = OperationKey("GET", "/things/{id}", "200")


def _yaml(text: str) -> object:
    return load_yaml(text.encode("utf-8", "surrogatepass"), "o.yaml")[0]


def _every_attribute() -> OracleFile:
    oracles = (Oracle(OP, "items[].size", OracleKind.NUMBER_SPECIFIC_VALUES, (1, 2.5, -3), "observed", "seen",
                      enabled=False, evidence=40),
               Oracle(OP, "items[].size", OracleKind.NUMBER_MIN_VALUE, 0, "manual", "ours", review="needs review"),
               Oracle(OP, "items[].size", OracleKind.STRING_IS_URL, None, "rules", "caf\u00e9 \u2028 \"q\" \\"))
    return OracleFile("api/things.yaml", (FieldEntry(OP, "items[].size", "abc", oracles, context="ctx"),
                                          FieldEntry(OP, "empty", "def", ())))


def test_files_the_emitter_writes_are_read_without_yaml_and_the_same() -> None:
    for text in (BOOKSHOP.read_text(encoding="utf-8"), dump_oracle_file(_every_attribute())):
        raw = read_canonical(text)
        assert raw is not None
        assert raw == _yaml(text)
    data = _every_attribute()
    assert load_oracle_file(dump_oracle_file(data), "o.yaml") == data
    empty = dump_oracle_file(OracleFile("api.yaml", ()))
    assert read_canonical(empty) == _yaml(empty)


@settings(max_examples=200, deadline=None)
@example(EDGE_FILES[0])  # long keys (`? `) and a `\U` escape: left to the YAML loader
@example(EDGE_FILES[1])  # every attribute, short keys: read by the fast reader
@given(_oracle_files())
def test_whenever_the_fast_reader_reads_a_file_it_reads_what_yaml_reads(data: OracleFile) -> None:
    text = dump_oracle_file(data)
    raw = read_canonical(text)
    if raw is not None:
        assert raw == _yaml(text)
    elif "\\U" not in text and "\n  ? " not in text and "\n    ? " not in text:
        pytest.fail("a file the emitter wrote was not read by the fast reader")


LINE = '        - {kind: number_min_value, value: 0, source: "rules", enabled: true, reason: "r"}'


@pytest.mark.parametrize("edited", [
    LINE.replace('"rules"', "rules"),                      # plain scalar
    LINE.replace('"rules"', "'rules'"),                    # single quotes
    LINE.replace("value: 0, source", "source").replace('enabled: true', 'value: 0, enabled: true'),  # reordered
    LINE.replace("enabled: true", "enabled: yes"),          # YAML 1.1 boolean
    LINE + "  # ours",                                      # comment after the value
    LINE.replace("{kind", "{ kind"),                       # spacing
    LINE.replace("value: 0", "value: 0x10"),               # hex
    "        -   {kind: number_min_value, value: 0, source: \"rules\", enabled: true, reason: \"r\"}",
])
def test_hand_edits_are_read_by_the_yaml_loader(edited: str) -> None:
    text = dump_oracle_file(OracleFile("a.yaml", (FieldEntry(OP, "n", "f", (
        Oracle(OP, "n", OracleKind.NUMBER_MIN_VALUE, 0, "rules", "r"),)),)))
    assert LINE in text
    edited_text = text.replace(LINE, edited)
    assert read_canonical(edited_text) is None
    try:
        expected = _yaml(edited_text)
    except Exception:
        return
    assert expected is not None


def test_a_mistake_in_a_canonical_looking_file_still_names_its_line() -> None:
    text = dump_oracle_file(OracleFile("a.yaml", (FieldEntry(OP, "n", "f", (
        Oracle(OP, "n", OracleKind.NUMBER_MIN_VALUE, 0, "rules", "r"),)),)))
    broken = text.replace("kind: number_min_value", "kind: number_at_least")
    assert read_canonical(broken) is not None  # well-formed: the reader's complaint needs the YAML's lines
    with pytest.raises(Exception) as info:
        load_oracle_file(broken, "o.yaml")
    assert "o.yaml:" in str(info.value) and "number_at_least" in str(info.value)
    duplicated = text.replace('    "n":\n', '    "n":\n      fingerprint: "x"\n', 1)
    assert read_canonical(duplicated) is None


def test_the_escape_table_holds_every_character_the_escaped_pattern_names() -> None:
    from satori_ci.oracles import canonical

    named = {code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF
             and canonical._ESCAPED.match(chr(code))}
    assert set(canonical._ESCAPES) == named
    assert canonical.literal("a\x85b\U000e0041\u2028") == '"a\\u0085b\\U000e0041\\u2028"'
