"""`JsonKeyLines` (regex passes + key numbering) against a plain token-by-token scan of the text."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from typing import Any

import pytest

from satori_ci.spec.json_loader import (
    _LINE_BREAK,
    BACKGROUND_SCAN_CHARS,
    JsonKeyLines,
    key_closings,
    load_json,
    start_key_line_scan,
)

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def _reference(text: str) -> dict[tuple[str, ...], int]:
    """Every key's path (unescaped tokens) -> the line of the key, one token at a time."""
    lines: dict[tuple[str, ...], int] = {}
    stack: list[list[Any]] = []  # [path, is_object, index, last key]
    expect_key = False
    line, counted = 1, 0
    for match in _TOKEN.finditer(text):
        tok = match.group()
        line += text.count("\n", counted, match.start())
        counted = match.start()
        if tok in "{[":
            if stack:
                parent = stack[-1]
                path = (*parent[0], parent[3] if parent[1] else str(parent[2]))
            else:
                path = ()
            stack.append([path, tok == "{", 0, None])
            expect_key = tok == "{"
        elif tok in "}]":
            stack.pop()
            expect_key = False
        elif tok == ",":
            stack[-1][2] += 1
            expect_key = stack[-1][1]
        elif tok == ":":
            expect_key = False
        elif expect_key:
            key = json.loads(tok)
            stack[-1][3] = key
            lines[(*stack[-1][0], key)] = line
    return lines


def _random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice([1, -2.5, True, None, "x", 'q"uote', "a\\b", "{[:,]}", "é😀", "line\nbreak", ""])
    if roll < 0.6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["a", "b/c", "d~e", "0", "1", '"', "\\", ": ", "{}", "ü", "$ref", "x y"]
    return {k: _random_value(rng, depth + 1) for k in rng.sample(keys, rng.randint(0, 5))}


def _reformat(text: str, rng: random.Random, key_per_line: bool = False) -> str:
    """The same JSON with random (valid) whitespace around every structural token outside strings (with
    `key_per_line`, a line break after each `{` and `,`: every key starts a line)."""
    out: list[str] = []
    pos = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]', text):
        out.append(text[pos:match.start()])
        tok = match.group()
        pad = rng.choice(["", " ", "\n", "\n  ", "\t", "\r\n", " \n "])
        if key_per_line and tok in "{,":
            pad = rng.choice(["\n", "\r\n", "\n\t ", " \n\n "])
        out.append(tok + pad)
        pos = match.end()
    out.append(text[pos:])
    return "".join(out)


@pytest.mark.parametrize("seed", range(40))
def test_key_lines_match_a_token_scan(seed: int) -> None:
    rng = random.Random(seed)
    value = {"root": _random_value(rng, 0), "list": [_random_value(rng, 1) for _ in range(3)]}
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1, 2]))
    text = _reformat(text, rng, key_per_line=seed % 2 == 1)
    parsed = load_json(text, "t.json")
    lines = JsonKeyLines(text, parsed)
    expected = _reference(text)
    for path, line in expected.items():
        assert lines.line(list(path)) == line, path
        assert lines.line([*path, "no such key"]) == line  # the deepest key that exists
    assert lines.line([]) == 1
    assert lines.line(["missing"]) == 1


def test_list_items_take_the_line_of_the_key_above() -> None:
    text = '{\n "a": [\n  {"b": 1},\n  {\n   "c": {"d": 2}\n  }\n ]\n}\n'
    lines = JsonKeyLines(text, load_json(text, "t.json"))
    assert lines.line(["a", "1", "c", "d"]) == 5
    assert lines.line(["a", "1"]) == 2
    assert lines.line(["a", "0", "b"]) == 3
    assert lines.line(["a", "7"]) == 2


@pytest.mark.parametrize("seed", range(10))
def test_closing_counts_found_by_a_walk_are_those_the_parse_records(seed: int) -> None:
    text = json.dumps(_random_value(random.Random(seed), 0))
    recorded: dict[int, int] = {}
    value = load_json(text, "t.json", closings=recorded)
    assert key_closings(value) == recorded
    assert JsonKeyLines(text, value).line(["b/c"]) == JsonKeyLines(text, value, recorded).line(["b/c"])


@pytest.mark.parametrize("indent", [1, 2, "\t"])
def test_pretty_printed_keys_found_by_their_line_breaks_match_the_token_scan(indent: int | str) -> None:
    rng = random.Random(7)
    value = {"root": _random_value(rng, 0), "list": [_random_value(rng, 1) for _ in range(20)], "": {"": [{}]}}
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    closings: dict[int, int] = {}
    lines = JsonKeyLines(text, load_json(text, "t.json", closings=closings), closings)
    assert _LINE_BREAK.findall(text).count('"') == max(closings.values())  # every key starts a line: the quick pass
    for path, line in _reference(text).items():
        assert lines.line(list(path)) == line, path


def test_a_key_not_starting_its_line_sends_every_key_to_the_full_scan() -> None:
    text = '{\n "a": {"b": 1},\n "c": [\n  "d\\": x",\n  {"e": 2}\n ],\n "f": 3\n}\n'
    lines = JsonKeyLines(text, load_json(text, "t.json"))
    assert [lines.line(p) for p in (["a"], ["a", "b"], ["c"], ["c", "1", "e"], ["f"])] == [2, 2, 3, 5, 7]


def test_lines_of_a_document_nested_past_the_recursion_limit() -> None:
    depth = 600
    text = '{"a":\n' * depth + "1" + "}" * depth
    value = load_json(text, "deep.json")
    lines = JsonKeyLines(text, value)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # counting keys by recursion fails: the count falls back to a stack
    try:
        assert lines.line(["a"] * depth) == depth
        assert lines.line(["a"] * 3) == 3
    finally:
        sys.setrecursionlimit(limit)


# -- the scan done by a forked child while the text is parsed ---------------------------------------------------
# In a process of its own: a test's process may run other threads (servers of earlier tests), where no child is
# forked.

_FORKED_SCANS = """
import json, sys
from satori_ci.forked import ForkedBytes
from satori_ci.spec.json_loader import JsonKeyLines, load_json, start_key_line_scan

texts, paths = json.loads(sys.stdin.read())
found = {}
for name, text in texts.items():
    closings = {}
    scan = start_key_line_scan(text)
    value = load_json(text, "big.json", closings=closings)
    forked, here = JsonKeyLines(text, value, closings, scan), JsonKeyLines(text, value, closings)
    found[name] = [scan is not None, [forked.line(p) for p in paths[name]] == [here.line(p) for p in paths[name]]]
small = '{\\n "a": {\\n  "b": 1\\n },\\n "c": 2\\n}\\n'
for name, sent in (("nothing", b""), ("a partial item", b"\\x01\\x02\\x03"), ("too many", b"\\x00" * 64)):
    lines = JsonKeyLines(small, load_json(small, "t.json"), scan=ForkedBytes.start(lambda: sent))
    found[name] = [lines.line(p) for p in (["a"], ["a", "b"], ["c"])]
print(json.dumps(found))
"""


def _large_spec_text(key_per_line: bool) -> str:
    rng = random.Random(11)
    value = {f"k{i}": _random_value(rng, 0) for i in range(150)}
    text = json.dumps(value, indent=1, ensure_ascii=False)
    if not key_per_line:
        text = text.replace('{\n  "a"', '{"a"')  # some keys no longer start their line: the full scan
    return text[:-2] + ',\n "pad": "' + "p" * BACKGROUND_SCAN_CHARS + '"\n}'  # long enough for a child


def test_lines_found_by_a_forked_scan_are_those_found_here() -> None:
    texts = {f"key per line: {flag}": _large_spec_text(flag) for flag in (True, False)}
    paths = {name: [list(path) for path in _reference(text)] for name, text in texts.items()}
    for name, text in texts.items():
        quick = _LINE_BREAK.findall(text).count('"') == len(paths[name])
        assert quick is name.endswith("True")  # the quick pass, and the full scan
        assert len(paths[name]) > 500
    proc = subprocess.run([sys.executable, "-c", _FORKED_SCANS], input=json.dumps([texts, paths]),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"key per line: True": [True, True], "key per line: False": [True, True],
                                       "nothing": [2, 3, 5], "a partial item": [2, 3, 5], "too many": [2, 3, 5]}


def test_a_short_text_is_scanned_here() -> None:
    assert start_key_line_scan('{"a": 1}') is None
