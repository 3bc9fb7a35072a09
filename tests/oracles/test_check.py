"""check_body: the contract's checking semantics, messages and JSON rendering."""

from __future__ import annotations

from typing import Any

import pytest

from satori_ci.oracles.check import Finding, check_body, js_number, to_json, truncate_json
from satori_ci.oracles.kinds import OracleKind as K
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey

OP = OperationKey("GET", "/businesses/search", "200")


def oracle(field: str, kind: K, value: Any = None, enabled: bool = True) -> Oracle:
    return Oracle(OP, field, kind, value, enabled=enabled)


def where(findings: list[Finding]) -> list[tuple[str, Any]]:
    return [(f.pointer, f.value) for f in findings]


def test_the_contract_example() -> None:
    price = oracle("businesses[].price", K.STRING_SPECIFIC_VALUES, ("$", "$$", "$$$", "$$$$"))
    body = {"businesses": [{"price": "$"}, {}, {"price": None}, {"price": "$$$$$"}]}
    [finding] = check_body([price], body)
    assert finding == Finding(price, "/businesses/3/price", "$$$$$",
                              'price = "$$$$$" is not one of ["$", "$$", "$$$", "$$$$"]')


def test_every_place_of_a_nested_field() -> None:
    body = {"a": [{"b": [{"c": 1}, {"c": -1}]}, {"b": []}, {"b": [{"c": -2}]}]}
    found = check_body([oracle("a[].b[].c", K.NUMBER_MIN_VALUE, 0)], body)
    assert where(found) == [("/a/0/b/1/c", -1), ("/a/2/b/0/c", -2)]
    assert found[0].message == "c = -1 is less than 0"


def test_map_values_and_pointer_escaping() -> None:
    body = {"m~/": {"x/y": "no", "ok": "https://x", "t~": 3}}
    found = check_body([oracle("m~/{}", K.STRING_IS_URL)], body)
    assert where(found) == [("/m~0~1/x~1y", "no"), ("/m~0~1/t~0", 3)]
    assert [f.message for f in found] == ['m~/{} = "no" is not an absolute URL', "m~/{} = 3 is not a string"]


def test_escaped_property_names() -> None:
    body = {"a.b": {"c": "x"}, "a": {"b": {"c": "y"}}}
    found = check_body([oracle("a\\.b.c", K.STRING_FIXED_LENGTH, 2)], body)
    assert [(f.pointer, f.message) for f in found] == [("/a.b/c", 'c = "x" has 1 characters, not 2')]


def test_root_array_and_body_itself() -> None:
    body = [{"id": 1}, {"id": "two"}, 3]
    found = check_body([oracle("[].id", K.NUMBER_MAX_VALUE, 1), oracle("", K.ARRAY_MAX_SIZE, 2),
                        oracle("[]", K.ARRAY_MIN_SIZE, 1)], body)
    assert [(f.pointer, f.message) for f in found] == [
        ("/1/id", 'id = "two" is not a number'),
        ("", 'body = [{"id": 1}, {"id": "two"}, 3] has 3 elements, more than 2'),
        ("/0", 'body[] = {"id": 1} is not an array'),
        ("/1", 'body[] = {"id": "two"} is not an array'),
        ("/2", "body[] = 3 is not an array"),
    ]


def test_absent_null_and_null_like_are_skipped_on_any_type() -> None:
    oracles = [oracle("n", K.NUMBER_MIN_VALUE, 0), oracle("s", K.STRING_IS_DATE), oracle("b", K.BOOLEAN_ALWAYS_TRUE)]
    for body in ({}, {"n": None, "s": None, "b": None}, {"n": "N/A", "s": "N/A", "b": ""}):
        assert check_body(oracles, body, null_like=("N/A", "")) == []
    assert len(check_body(oracles, {"n": "N/A", "s": "N/A", "b": ""})) == 3


def test_wrong_type_violates_every_oracle_on_the_field() -> None:
    oracles = [oracle("x", K.NUMBER_MIN_VALUE, 0), oracle("x", K.NUMBER_SPECIFIC_VALUES, [1]),
               oracle("x", K.STRING_IS_NUMERIC), oracle("x", K.BOOLEAN_ALWAYS_TRUE), oracle("x", K.ARRAY_MIN_SIZE, 0)]
    assert [f.message for f in check_body(oracles, {"x": True})] == [
        "x = true is not a number", "x = true is not a number", "x = true is not a string",
        "x = true is not an array",
    ]
    assert check_body(oracles, {"x": "5"})[0].message == 'x = "5" is not a number'


def test_wrong_type_container_counts_as_absent() -> None:
    oracles = [oracle("transactions[]", K.STRING_SPECIFIC_VALUES, ["pickup"]), oracle("loc.city", K.STRING_IS_URL),
               oracle("m{}", K.NUMBER_MIN_VALUE, 0), oracle("a[].b", K.NUMBER_MIN_VALUE, 0)]
    body = {"transactions": "pickup", "loc": ["x"], "m": [1, -1], "a": [None, 5, "x", [{"b": -1}]]}
    assert check_body(oracles, body) == []


def test_null_elements_skipped_by_order_counted_by_size() -> None:
    oracles = [oracle("xs", K.ARRAY_NUMBER_ASC_ORDER), oracle("xs", K.ARRAY_SPECIFIC_SIZES, (2,)),
               oracle("xs", K.ARRAY_NUMBER_DESC_ORDER)]
    found = check_body(oracles, {"xs": [1, None, 2]})
    assert [f.message for f in found] == [
        "xs = [1, null, 2] has 3 elements, not one of [2]",
        "xs = [1, null, 2] is not in descending order: 2 at index 2 follows 1",
    ]
    found = check_body(oracles[:1], {"xs": [1, "N/A", "x", 0.5]}, null_like=["N/A"])
    assert found[0].message == 'xs = [1, "N/A", "x", 0.5] is not an array of numbers: "x" at index 2'


def test_order_of_findings_is_oracle_then_document() -> None:
    oracles = [oracle("a[]", K.NUMBER_MAX_VALUE, 0), oracle("a[]", K.NUMBER_MIN_VALUE, 3)]
    found = check_body(oracles, {"a": [1, 2, 5]})
    assert [(f.oracle.kind, f.pointer) for f in found] == [
        (K.NUMBER_MAX_VALUE, "/a/0"), (K.NUMBER_MAX_VALUE, "/a/1"), (K.NUMBER_MAX_VALUE, "/a/2"),
        (K.NUMBER_MIN_VALUE, "/a/0"), (K.NUMBER_MIN_VALUE, "/a/1"),
    ]


def test_disabled_oracles_are_not_checked() -> None:
    assert check_body([oracle("x", K.BOOLEAN_ALWAYS_TRUE, enabled=False)], {"x": False}) == []


def test_long_values_are_truncated() -> None:
    text = "é" * 300
    [finding] = check_body([oracle("s", K.STRING_FIXED_LENGTH, 3)], {"s": text})
    assert finding.value == "é" * 200
    shown = finding.message.removeprefix("s = ").removesuffix(" has 300 characters, not 3")
    assert len(shown) == 200 and shown == '"' + "é" * 198 + "…"
    [finding] = check_body([oracle("xs", K.ARRAY_MAX_SIZE, 1)], {"xs": list(range(100))})
    assert finding.value == list(range(100))
    assert len(finding.message.split(" has ")[0].removeprefix("xs = ")) == 200


@pytest.mark.parametrize(("kind", "value", "v", "message"), [
    (K.STRING_IS_URL, None, "x", 'f = "x" is not an absolute URL'),
    (K.STRING_IS_NUMERIC, None, "1e5", 'f = "1e5" is not a decimal number'),
    (K.STRING_IS_EMAIL, None, "a@b", 'f = "a@b" is not an email address'),
    (K.STRING_IS_DATE, None, "2019-02-29", 'f = "2019-02-29" is not a date'),
    (K.STRING_IS_TIME, None, "24:00", 'f = "24:00" is not a time or date-time'),
    (K.STRING_FIXED_LENGTH, 2.0, "😀", 'f = "😀" has 1 characters, not 2'),
    (K.BOOLEAN_ALWAYS_TRUE, None, False, "f = false is not true"),
    (K.BOOLEAN_ALWAYS_FALSE, None, True, "f = true is not false"),
    (K.NUMBER_MIN_VALUE, 1.0, 0.5, "f = 0.5 is less than 1"),
    (K.NUMBER_MAX_VALUE, 1e21, 2e21, "f = 2e+21 is greater than 1e+21"),
    (K.NUMBER_SPECIFIC_VALUES, (1, 2.5), 3.0, "f = 3 is not one of [1, 2.5]"),
    (K.ARRAY_MIN_SIZE, 1, [], "f = [] has 0 elements, fewer than 1"),
    (K.ARRAY_SPECIFIC_SIZES, [1, 3], [True, "a"], 'f = [true, "a"] has 2 elements, not one of [1, 3]'),
    (K.ARRAY_NUMBER_ASC_ORDER, None, [2.0, 1e-7], "f = [2, 1e-7] is not in ascending order: 1e-7 at index 1 follows 2"),
    (K.NUMBER_MIN_VALUE, None, 1, "f = 1 cannot be checked: the oracle value null is not a number"),
    (K.NUMBER_SPECIFIC_VALUES, 1, 1, "f = 1 cannot be checked: the oracle value 1 is not a list"),
    (K.ARRAY_MAX_SIZE, True, [], "f = [] cannot be checked: the oracle value true is not a number"),
])
def test_messages(kind: K, value: Any, v: Any, message: str) -> None:
    [finding] = check_body([oracle("f", kind, value)], {"f": v})
    assert finding.message == message


@pytest.mark.parametrize(("x", "text"), [
    (1.0, "1"), (-0.0, "0"), (0.1, "0.1"), (123.456, "123.456"), (-2.5, "-2.5"), (1e16, "10000000000000000"),
    (1e20, "100000000000000000000"), (1e21, "1e+21"), (1.5e21, "1.5e+21"), (1e-6, "0.000001"),
    (1.25e-6, "0.00000125"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"), (float(2**53), "9007199254740992"),
    (123456789012345680000.0, "123456789012345680000"), (float("inf"), "Infinity"), (float("nan"), "NaN"),
])
def test_js_number(x: float, text: str) -> None:
    assert js_number(x) == text


def test_to_json_and_truncate_json() -> None:
    value = {"a": [1, 2.0, None, True], "s": 'q"\\\n\x01\x7f\u2028é😀', "t": ()}
    assert to_json(value) == '{"a": [1, 2, null, true], "s": "q\\"\\\\\\n\\u0001\x7f\u2028é😀", "t": []}'
    assert truncate_json("x" * 10, limit=5) == '"xxx…'
    assert truncate_json("xxx", limit=5) == '"xxx"'
    assert len(truncate_json(["😀"] * 300)) == 200
