"""The rules backend: declared + rules merged, examples screening, conflicts, context rules, determinism."""

from __future__ import annotations

import random

from satori_ci.infer.interface import InferenceBackend, Inferred
from satori_ci.infer.rules import RulesBackend
from satori_ci.infer.rules.backend import parent_of
from satori_ci.oracles.kinds import OracleKind
from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, kinds, make_field


def infer_one(field: ResponseField) -> Inferred:
    (result,) = RulesBackend().infer([field]).results
    return result


def test_is_an_inference_backend() -> None:
    backend: InferenceBackend = RulesBackend()
    assert backend.name == "rules"


def test_declared_oracles_are_included_with_their_source() -> None:
    result = infer_one(make_field("businesses[].rating", "number", minimum=1, maximum=5))
    assert kinds(result.oracles) == {("number_min_value", 1), ("number_max_value", 5)}
    assert {o.source for o in result.oracles} == {"declared"}


def test_declared_wins_over_the_same_rule_oracle() -> None:
    (oracle,) = infer_one(make_field("review_count", "integer", minimum=0)).oracles
    assert (oracle.source, oracle.reason) == ("declared", "spec: minimum 0")


def test_declared_bound_replaces_a_rule_bound_of_the_same_kind() -> None:
    result = infer_one(make_field("review_count", "integer", minimum=5))
    assert kinds(result.oracles) == {("number_min_value", 5)}
    assert any("the spec states number_min_value" in note for note in result.notes)


def test_declared_date_blocks_a_rule_time() -> None:
    result = infer_one(make_field("created_at", format="date"))
    assert kinds(result.oracles) == {("string_is_date", None)}


def test_rules_that_disagree_on_date_and_time_give_neither() -> None:
    result = infer_one(make_field("updated_at", description="The day of the update, YYYY-MM-DD."))
    assert result.oracles == ()
    assert any("date" in note and "time" in note for note in result.notes)


def test_an_example_that_contradicts_a_rule_oracle_drops_it() -> None:
    result = infer_one(make_field("avatar_url", example="/static/avatar.png"))
    assert result.oracles == ()
    assert any("contradicts" in note for note in result.notes)


def test_placeholder_examples_do_not_contradict() -> None:
    result = infer_one(make_field("image_url", example="N/A"))
    assert kinds(result.oracles) == {("string_is_url", None)}


def test_the_tightest_rule_bound_is_kept() -> None:
    result = infer_one(make_field("page_count", "integer", description="Always at least 1."))
    assert kinds(result.oracles) == {("number_min_value", 1)}


def test_a_rule_bound_crossing_a_declared_bound_is_not_used() -> None:
    result = infer_one(make_field("n", "integer", maximum=5, description="Between 10 and 20."))
    assert kinds(result.oracles) == {("number_max_value", 5)}


def test_kinds_that_do_not_apply_to_the_type_are_never_returned() -> None:
    result = infer_one(make_field("urls", "array", description="A full URL list, up to 3 items."))
    assert all(o.kind.applies_to == "array" for o in result.oracles)


def test_oracles_come_in_kind_order_with_one_line_reasons() -> None:
    result = infer_one(make_field("lat", "number", description="Latitude, non-negative in this API."))
    order = list(OracleKind)
    assert [order.index(o.kind) for o in result.oracles] == sorted(order.index(o.kind) for o in result.oracles)
    assert all(o.reason and "\n" not in o.reason for o in result.oracles)


def test_results_keep_input_order_and_on_inferred_sees_each() -> None:
    fields = [make_field(f"f{i}_count", "integer") for i in range(5)] + [make_field("email")]
    seen: list[Inferred] = []
    run = RulesBackend().infer(fields, on_inferred=seen.append)
    assert [r.field for r in run.results] == fields
    assert seen == list(run.results)


def test_equal_fields_elsewhere_get_their_own_paths() -> None:
    a = make_field("a.review_count", "integer")
    b = make_field("b.review_count", "integer", status="201")
    ra, rb = RulesBackend().infer([a, b]).results
    assert (ra.oracles[0].field, rb.oracles[0].field) == ("a.review_count", "b.review_count")
    assert rb.oracles[0].operation.status == "201"


def _sample_fields() -> list[ResponseField]:
    return [
        make_field("total", "integer"),
        make_field("region.center.latitude", "number"),
        make_field("businesses[].url"),
        make_field("businesses[].price", enum=["$", "$$"]),
        make_field("Released", example="12 Jun 2013"),
        make_field("Metascore", example=67),
        make_field("data.results[].creators.returned", "integer",
                   description="The number of creators returned in this collection (up to 20)."),
        make_field("data.results[].creators.items", "array", items_type="object",
                   description="The list of returned creators in this collection."),
        make_field("modified", description="The date the resource was most recently modified."),
        make_field("code", "integer", description="The HTTP status code of the returned result."),
    ]


def test_deterministic_across_runs_and_input_order() -> None:
    fields = _sample_fields()
    first = [(r.field.field, r.oracles, r.notes) for r in RulesBackend().infer(fields).results]
    again = [(r.field.field, r.oracles, r.notes) for r in RulesBackend().infer(fields).results]
    assert first == again
    shuffled = list(fields)
    random.Random(7).shuffle(shuffled)
    by_field = {r.field.field: r.oracles for r in RulesBackend().infer(shuffled).results}
    assert {f: o for f, o, _ in first} == by_field
    assert sum(len(o) for _, o, _ in first) == 12


CONTEXT_POSITIVE: list[tuple[str, list[ResponseField], str, Found]] = [
    ("returned-items-max", [
        make_field("stories.returned", "integer", description="The number of stories returned (up to 20)."),
        make_field("stories.items", "array", description="The list of returned stories in this collection."),
    ], "stories.items", {("array_max_size", 20)}),
    ("uri-namesake", [
        make_field("results[].resourceURI", description="The canonical URL identifier for this resource."),
        make_field("results[].series.resourceURI", description="The path to the individual series resource."),
    ], "results[].series.resourceURI", {("string_is_url", None)}),
    ("uri-namesake", [
        make_field("links[].uri", format="uri"),
        make_field("stream.uri"),
    ], "stream.uri", {("string_is_url", None)}),
]

CONTEXT_NEGATIVE: list[tuple[str, list[ResponseField], str]] = [
    ("returned-items-max", [
        make_field("stories.returned", "integer", description="The number of stories returned (up to 20)."),
        make_field("stories.items", "array", description="The list of all stories."),
    ], "stories.items"),
    ("returned-items-max", [
        make_field("stories.returned", "integer", description="The number of stories returned (up to 20)."),
        make_field("events.items", "array", description="The list of returned stories."),
    ], "events.items"),
    ("uri-namesake", [
        make_field("resourceUri", description="The resource uri of the database."),
        make_field("a.resourceUri"),
    ], "a.resourceUri"),
    ("uri-namesake", [
        make_field("a.uri", format="uri"),
        make_field("b.uri", description="A relative URI reference."),
    ], "b.uri"),
    ("uri-namesake", [
        make_field("a.uri", format="uri", api_title="One"),
        make_field("b.uri", api_title="Other"),
    ], "b.uri"),
]


def _context_result(fields: list[ResponseField], target: str) -> Found:
    results = RulesBackend().infer(fields).results
    return kinds(next(r.oracles for r in results if r.field.field == target))


def test_context_rules_positive() -> None:
    for _, fields, target, expected in CONTEXT_POSITIVE:
        assert _context_result(fields, target) == expected, target


def test_context_rules_negative() -> None:
    for _, fields, target in CONTEXT_NEGATIVE:
        assert _context_result(fields, target) == set(), target


def test_parent_of() -> None:
    cases = {"a": "", "a.b": "a", "a[].b": "a[]", "a[]": "", "[]": None, "[].id": "[]", "m{}.x": "m{}",
             "a.b\\.c": "a", "": None, "x[][]": ""}
    assert {path: parent_of(path) for path in cases} == cases


def test_examples_wrapped_in_quotes_and_lists_on_items_are_read() -> None:
    quoted = infer_one(make_field("starred_at", example='"2020-07-09T00:17:55Z"'))
    assert kinds(quoted.oracles) == {("string_is_time", None)}
    listed = infer_one(make_field("domains.website_url[]", example=["example.com"]))
    assert listed.oracles == ()


def test_an_example_quoted_in_the_prose_can_refute_a_format() -> None:
    field = make_field("apiServiceName", description="The URL of the service, for example: s3.amazonaws.com.")
    assert infer_one(field).oracles == ()
    ok = make_field("expiry", description="An ISO 8601 timestamp. For example, 2019-11-08T02:41:28.172Z.")
    assert kinds(infer_one(ok).oracles) == {("string_is_time", None)}


def test_excluded_rules_are_not_run() -> None:
    field = make_field("review_count", "integer", description="The number of reviews.")
    assert kinds(infer_one(field).oracles) == {("number_min_value", 0)}
    (one,) = RulesBackend(exclude=frozenset({"count-name"})).infer([field]).results
    assert kinds(one.oracles) == {("number_min_value", 0)}
    (none,) = RulesBackend(exclude=frozenset({"count-name", "count-description"})).infer([field]).results
    assert none.oracles == ()


def test_excluded_context_rules_are_not_run() -> None:
    stated = make_field("data.resourceURI", description="The canonical URL identifier for this resource.")
    other = make_field("data.items[].resourceURI", description="The path to the individual resource.")
    with_context = RulesBackend().infer([stated, other]).results
    assert kinds(with_context[1].oracles) == {("string_is_url", None)}
    without = RulesBackend(exclude=frozenset({"uri-namesake"})).infer([stated, other]).results
    assert without[1].oracles == ()


def test_a_signed_enclosing_object_is_part_of_the_evidence() -> None:
    offset = make_field("rules[].offsetAfter.totalSeconds", "integer")
    duration = make_field("stats.totalSeconds", "integer")
    first, second = RulesBackend().infer([offset, duration]).results
    assert first.oracles == ()
    assert kinds(second.oracles) == {("number_min_value", 0)}
