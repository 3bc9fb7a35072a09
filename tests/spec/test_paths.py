"""Field path syntax (contract §1): names with escapes, arrays and maps, and the paths that are not paths."""

from __future__ import annotations

import pytest

from satori_ci.spec.paths import ITEMS, MAP_VALUES, FieldPathError, Prop, escape_name, parse


@pytest.mark.parametrize(("path", "segments"), [
    ("", ()),
    ("a.b", (Prop("a"), Prop("b"))),
    ("a[].b{}", (Prop("a"), ITEMS, Prop("b"), MAP_VALUES)),
    ("[][]", (ITEMS, ITEMS)),
    (r"a\.b\[\]\{\}\\c", (Prop("a.b[]{}\\c"),)),
    (r"\\", (Prop("\\"),)),
    ("é\u2028x.y", (Prop("é\u2028x"), Prop("y"))),
])
def test_paths_split_into_their_segments(path: str, segments: tuple[object, ...]) -> None:
    assert parse(path) == segments


@pytest.mark.parametrize(("path", "message"), [
    ("a\\", "dangling backslash"), ("a.\\", "dangling backslash"), ("a..b", "empty property name"),
    ("a.", "ends with '.'"), ("a[", "unbalanced '['"), ("a]", "unbalanced ']'"), ("a{x}", "unbalanced '{'"),
    ("[]a", "expected '.'"), (".a", "empty property name"),
])
def test_what_is_not_a_path_is_refused_naming_why(path: str, message: str) -> None:
    with pytest.raises(FieldPathError, match=message.replace("[", r"\[").replace("{", r"\{").replace(".", r"\.")):
        parse(path)


def test_any_name_escaped_reads_back() -> None:
    for name in ["a.b", "[]", "{}", "\\", "x\\.y", "", "é", "a" * 3000 + "." + "b"]:
        escaped = escape_name(name)
        assert parse(escaped) == ((Prop(name),) if name else ())
