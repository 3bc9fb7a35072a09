"""A JSON document's text (`decode_text`): a large one with a few non-ASCII characters is read as ASCII with those
characters escaped; the values, keys, lines and errors are those of its plain UTF-8 text."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from satori_ci.spec import load_spec
from satori_ci.spec.errors import SpecError
from satori_ci.spec.json_loader import _ASCII_CHUNK, _escaped_ascii, decode_text, load_json

ODD = ["é", "😀", "\u2028", "\u00ff", "中文", "\U0010ffff", "\u0100", "ü\"\\", "\ufeff"]


def _big(rng: random.Random, odd: int, indent: int | None = 1) -> bytes:
    """A spec-like document of about 550 KB with `odd` non-ASCII strings (keys and values) at random places."""
    props = {f"p{i}": {"type": "string", "description": "plain text " * 3} for i in range(6000)}
    for _ in range(odd):
        name = rng.choice(sorted(props))
        char = rng.choice(ODD)
        props[name]["description"] = f"a {char} here"
        props[f"k{char}{rng.randrange(10**6)}"] = {"type": "integer", "title": char * rng.randint(1, 3)}
    return json.dumps({"openapi": "3.0.3", "props": props}, indent=indent, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("odd", [0, 1, 3, 12])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_escaped_text_parses_to_the_same_value_with_the_same_lines(odd: int, seed: int) -> None:
    data = _big(random.Random(seed), odd)
    assert len(data) > 8 * _ASCII_CHUNK
    text = decode_text(data, "api.json")
    plain = data.decode("utf-8")
    assert text.isascii()
    assert text.count("\n") == plain.count("\n")
    closings: dict[int, int] = {}
    assert load_json(text, "api.json", [], closings) == json.loads(plain)
    if odd:
        assert text != plain  # escaped, not decoded
        assert sys.getsizeof(text) < 1.1 * len(data)  # a byte per character, not two or four


def test_a_byte_order_mark_is_skipped() -> None:
    data = b"\xef\xbb\xbf" + _big(random.Random(3), 2)
    assert decode_text(data, "api.json") == decode_text(data[3:], "api.json")
    assert decode_text(b'\xef\xbb\xbf{"a": 1}', "a.json") == '{"a": 1}'


def test_characters_split_by_a_chunk_boundary_are_read_whole() -> None:
    for shift in range(4):
        data = (b'{"a": "' + b"x" * (_ASCII_CHUNK - 8 + shift) + "😀é".encode() + b'", "b": "'
                + b"y" * 10 * _ASCII_CHUNK + b'"}')
        text = decode_text(data, "a.json")
        assert text.isascii() and json.loads(text) == json.loads(data.decode("utf-8"))


def test_a_text_of_many_non_ascii_characters_is_decoded_as_it_is() -> None:
    data = json.dumps({"d": "中文" * 200_000}, ensure_ascii=False).encode("utf-8")
    assert _escaped_ascii(data) is None
    assert decode_text(data, "a.json") == data.decode("utf-8")


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe2\x82"])
def test_bytes_that_are_not_utf8_are_refused_at_the_same_byte(bad: bytes) -> None:
    for prefix in (b"", b"\xef\xbb\xbf"):
        data = prefix + b'{"a": "' + b"x" * 10 * _ASCII_CHUNK + bad + "é".encode() + b'"}'
        with pytest.raises(SpecError) as caught:
            decode_text(data, "a.json")
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            assert str(caught.value) == f"a.json: not UTF-8 text (byte {exc.start})"


@pytest.mark.parametrize("broken", ['{"a": "é" "b"}', '{"a": é}', '{"é": 1,\n é}', '{"a": "😀\n"}', '{"a": "😀"}}',
                                    '{"a": [1,\n 2 😀]}', '{"a": "unterminated é'])
def test_invalid_json_is_refused_with_the_same_message(broken: str) -> None:
    filler = '{"x": "' + "y" * 10 * _ASCII_CHUNK + '"}'
    data = f'[{filler},\n{broken}]'.encode()
    assert decode_text(data, "a.json").isascii()
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(data.decode("utf-8"))
    with pytest.raises(SpecError) as ours:
        load_json(decode_text(data, "a.json"), "a.json", [], {})
    assert str(ours.value) == f"a.json:{plain.value.lineno}: invalid JSON: {plain.value.msg}"


def test_fields_keep_their_non_ascii_names_examples_and_source_lines(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {
        "prénom": {"type": "string", "example": "Zoë 😀"},
        **{f"f{i}": {"type": "string", "description": "d" * 400} for i in range(4000)},
        "emoji_😀": {"type": "string", "enum": ["🪲", "中"]}}}
    doc = {"openapi": "3.0.3", "info": {"title": "Ünïcode", "version": "1"}, "paths": {"/p": {"get": {"responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}}}}}
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    assert decode_text(path.read_bytes(), "api.json").isascii()
    spec = load_spec(str(path))
    by_name = {f.field: f for f in spec.fields}
    assert spec.title == "Ünïcode"
    assert by_name["prénom"].facts.example == "Zoë 😀" and by_name["emoji_😀"].facts.enum == ("🪲", "中")
    lines = path.read_text(encoding="utf-8").splitlines()
    for name in ("prénom", "emoji_😀", "f3999"):
        line = spec.line_of(by_name[name].location)
        assert line is not None and lines[line - 1].strip().startswith(json.dumps(name, ensure_ascii=False))


def test_a_duplicate_non_ascii_key_is_named_at_its_line() -> None:
    filler = '"x": "' + "y" * 10 * _ASCII_CHUNK + '"'
    data = f'{{{filler},\n"prénom😀": 1,\n"a": 2,\n"prénom😀": 3}}'.encode()
    assert decode_text(data, "a.json").isascii()
    with pytest.raises(SpecError) as caught:
        load_json(decode_text(data, "a.json"), "a.json", [], {})
    assert str(caught.value) == "a.json:4: duplicate key 'prénom😀'"
