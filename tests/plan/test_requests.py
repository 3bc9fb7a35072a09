"""The planned requests (`RequestSet`): what every runner sends, built from a spec and a plan, no Postman in sight."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from satori_ci.observe.fields import observed_fields
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.plan.given import GivenRequest, GivenRequests
from satori_ci.plan.requests import PlannedRequest, RequestSet, match_status, path_parts, substitute
from satori_ci.shard.slice import Shard, slice_plan
from satori_ci.spec import OperationKey, Spec, load_spec
from tests.servers.resources_app import SPEC_PATH

ROOT = Path(__file__).resolve().parents[2]
VALUES = PlanSettings(values=(("tenant_id", "acme"),))


def _oracles(spec: Spec) -> list[Oracle]:
    return [Oracle(f.operation, f.field, OracleKind.STRING_FIXED_LENGTH, 5, "manual") for f in spec.fields
            if f.type == "string"]


def test_a_request_set_is_built_without_loading_postman() -> None:
    code = """
import sys
from satori_ci.plan import plan_requests, PlanSettings
from satori_ci.plan.expand import build_requests
from satori_ci.spec import load_spec
spec = load_spec(sys.argv[1])
planned = build_requests(spec, [], "http://s", (), plan_requests(spec, PlanSettings(values=(("tenant_id", "a"),))))
assert sum(1 for _ in planned.requests()) > 10
print(sorted(m for m in sys.modules if m.startswith("satori_ci.") and m.split(".")[1] in ("postman", "run")))
"""
    done = subprocess.run([sys.executable, "-c", code, str(SPEC_PATH)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_planned_request_carries_no_script() -> None:
    names = {f.name for f in dataclasses.fields(PlannedRequest)} | {f.name for f in dataclasses.fields(RequestSet)}
    assert not [n for n in names if "script" in n or "prerequest" in n or "header_variables" in n]


def test_requests_follow_the_plan_with_oracles_and_observed_fields() -> None:
    spec = load_spec(str(SPEC_PATH))
    plan = plan_requests(spec, VALUES)
    planned = build_requests(spec, _oracles(spec), "http://staging/api/", ("N/A",), plan,
                             observe=observed_fields(spec.fields))
    assert planned.base_url == "http://staging/api" and planned.title == spec.title
    assert [g.name for g in planned.groups] == [p.label for p in plan.operations if p.operation.statuses]
    chained = [r for r in planned.requests() if r.requires]
    assert chained and all(r.skip_reason and "{{" + r.requires[0] + "}}" in r.url("http://s") for r in chained)
    assert any(r.harvests for r in planned.requests())
    checked = next(r for r in planned.requests() if any(found for _, found in r.oracles))
    assert checked.observed and checked.null_like == ("N/A",)
    assert planned.oracle_counts and planned.skipped == plan.skipped
    assert len({r.id for r in planned.requests()}) == sum(1 for _ in planned.requests())


def test_a_shards_support_requests_carry_no_oracles_nor_observed_fields() -> None:
    spec = load_spec(str(SPEC_PATH))
    plan = plan_requests(spec, VALUES)
    whole = build_requests(spec, _oracles(spec), "http://s", (), plan, observe=observed_fields(spec.fields))
    sliced = next(s for s in (slice_plan(plan, Shard(i, 4)) for i in range(1, 5)) if s.support)
    part = whole.only(sliced.own, sliced.support)
    support = [r for r in part.requests() if r.label in sliced.support]
    own = [r for r in part.requests() if r.label in sliced.own]
    assert support and own
    assert all(all(not found for _, found in r.oracles) and r.observed == () for r in support)
    assert [s for s, _ in support[0].oracles] == list(support[0].statuses)
    assert {r.label for r in part.requests()} == sliced.own | sliced.support
    by_id = {r.id: r for r in whole.requests()}
    assert all(r == by_id[r.id] for r in own)  # the shard's own requests as they are
    assert (part.notes, part.skipped, part.oracle_counts, part.chain_seeds) == (
        whole.notes, whole.skipped, whole.oracle_counts, whole.chain_seeds)
    assert part.auth_variables == whole.auth_variables


def test_subset_and_merged_give_new_ids() -> None:
    spec = load_spec(str(SPEC_PATH))
    planned = build_requests(spec, [], "http://s")
    first, second = list(planned.requests())[:2]
    retry = planned.subset([(second.id, "copy-2"), (first.id, "copy-1")])
    assert [(r.id, r.name) for r in retry.requests()] == [("copy-2", second.name), ("copy-1", first.name)]
    assert retry.notes == () and retry.skipped == ()
    both = planned.merged([planned])
    ids = [r.id for r in both.requests()]
    assert len(ids) == 2 * len(set(ids[: len(ids) // 2])) and len(set(ids)) == len(ids)


def test_headers_the_run_adds_replace_same_named_ones_and_are_sent_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
                                "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header",
                                                                           "name": "X-Key"}}},
                                "security": [{"key": []}],
                                "paths": {"/p": {"get": {"responses": {"200": {"description": "ok", "content": {
                                    "application/json": {"schema": {"type": "object"}}}}}}}}}), encoding="utf-8")
    (request,) = build_requests(load_spec(str(path)), []).requests()
    assert request.header_templates() == (("Accept", "application/json"), ("X-Key", "{{SATORI_AUTH_KEY}}"))
    extra = (("accept", "text/plain"), ("X-Run", "{{SATORI_AUTH_KEY}} as written"))
    assert request.headers({"SATORI_AUTH_KEY": "k"}, extra) == [("X-Key", "k"), *extra]
    assert request.header_templates(extra) == (("X-Key", "{{SATORI_AUTH_KEY}}"), *extra)


def test_given_requests_are_plain_values_the_plan_adds_oracles_to() -> None:
    spec = load_spec(str(SPEC_PATH))
    users = next(o for o in spec.operations if o.method == "GET" and o.path == "/users/{user_id}")
    given = GivenRequests("team.json", "Team", (
        GivenRequest("w", "Users/create", "POST", "http://s/users", (), "{}", "/users", ("POST", "/users")),
        GivenRequest("r", "Users/one", "GET", "http://s/users/u%201?x={{y}}", (("X-Team", "1"),), None,
                     users.path, (users.method, users.path), (("user_id", "u 1"),), ("y",), True),
        GivenRequest("h", "health", "GET", "http://s/health", (), None, "/health"),
    ))
    planned = build_requests(spec, _oracles(spec), "http://s", (), plan_requests(spec, VALUES), given)
    team = planned.groups[0]
    assert team.name == "Team (team collection)" and [r.id for r in team.requests] == ["r"]
    (request,) = team.requests
    assert request.given is given.requests[1] and request.label == "GET /users/{user_id}"
    assert request.sample.path_params == (("user_id", "u%201"),)
    assert request.url("http://elsewhere", {"y": "2"}) == "http://s/users/u%201?x=2"
    assert request.headers({}) == [("X-Team", "1")]
    mine = _oracles(spec)
    assert request.oracles == tuple(
        (s, tuple(o for o in mine if o.operation == OperationKey(users.method, users.path, s))) for s in users.statuses)
    assert users.path not in [g.name.partition(" ")[2] for g in planned.groups[1:]]
    assert planned.left_out == ("w",)
    assert [k.detail for k in planned.skipped if k.label == "POST /users"][-1].startswith(
        "Users/create in team.json: not a safe method")


def test_small_helpers() -> None:
    assert match_status("204", ("200", "2XX")) == "2XX" and match_status("200", ("200", "2XX")) == "200"
    assert match_status("404", ("2XX",)) is None
    assert substitute("{{a}}-{{b}}-{{ {c} }}", {"a": "1", "b": "{{a}}"}) == "1-{{a}}-{{ {c} }}"
    assert [(p.text, p.variable) for p in path_parts("/a/{id}/{x}.json/{a.b}", {"x": "v", "a.b": "w"})] == [
        ("a", None), ("", "id"), ("v.json", None), ("w", None)]


def test_team_requests_on_an_operation_without_a_json_response_are_counted_in_a_note(tmp_path: Path) -> None:
    spec_path = tmp_path / "api.json"
    spec_path.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/export": {"get": {"responses": {"200": {"description": "a file"}}}},
        "/items": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"type": "array", "items": {"type": "object"}}}}}}}}}}), encoding="utf-8")
    spec = load_spec(str(spec_path))

    def given(name: str, path: str) -> GivenRequest:
        return GivenRequest(id=name, label=f"Team/{name}", method="GET", url=f"http://s{path}", headers=(), body=None,
                            path=path, calls=("GET", path))

    team = GivenRequests("team.json", "Team", (given("export", "/export"), given("items", "/items")))
    planned = build_requests(spec, [], "http://s", given=team)
    assert [r.id for r in planned.requests()] == ["items"]
    assert ("1 request(s) of team.json call an operation without a 2XX JSON response in the spec: Newman sends "
            "them, nothing checks them, the native runner does not send them: Team/export (GET /export)"
            ) in planned.notes
