"""Values from the config: which parameters they fill."""

from __future__ import annotations

from pathlib import Path

from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.plan.expand import build_requests
from tests.plan.test_samples import OK, make_spec


def test_a_value_by_name_fills_path_and_required_parameters_not_optional_filters(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, {
        "/things": {"get": {"parameters": [{"name": "id", "in": "query", "schema": {"type": "string"}},
                                           {"name": "tenant", "in": "query", "required": True,
                                            "schema": {"type": "string"}}], "responses": OK}},
        "/things/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": True,
                                                 "schema": {"type": "string"}}], "responses": OK}},
    })
    settings = PlanSettings(values=(("id", "t-1"), ("tenant", "acme")), chain=0)
    urls = [i.url("http://s") for i in build_requests(spec, [], "http://s", (), plan_requests(spec, settings))
            .requests()]
    # the optional `id` filter of the list is left alone (it would empty the list); the path `id` is filled
    assert urls == ["http://s/things?tenant=acme", "http://s/things/t-1"]
    per_operation = PlanSettings(values=(("tenant", "acme"),), chain=0,
                                 operation_values=(("GET /things", (("id", "t-2"),)),))
    urls = [i.url("http://s") for i in build_requests(spec, [], "http://s", (), plan_requests(spec, per_operation))
            .requests()]
    assert urls[0] == "http://s/things?id=t-2&tenant=acme"


def test_a_chained_parameter_with_a_spec_example_starts_from_the_example(tmp_path: Path) -> None:
    list_op = {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}}}}}}
    spec = make_spec(tmp_path, {
        "/things": list_op,
        "/things/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": True, "example": "t 1",
                                                 "schema": {"type": "string"}}], "responses": OK}},
        "/others": list_op,
        "/others/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": True,
                                                 "schema": {"type": "string"}}], "responses": OK}},
    })
    plan = plan_requests(spec, PlanSettings())
    chains = {p.label: p.chain for p in plan.operations if p.chain is not None}
    assert chains["GET /things/{id}"].seed == ("t%201",)  # sent with the example if the list gives no id
    assert chains["GET /others/{id}"].seed == ()  # no example: only a listed id sends it
    seeds = dict(build_requests(spec, [], "http://s", (), plan).chain_seeds)
    assert seeds == {chains["GET /things/{id}"].variable(0, 0): "t%201"}
