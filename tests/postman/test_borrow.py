"""The auth satori-ci's own requests borrow from a team's collection, decided once (`borrow.team_auth`, values
resolved) and written as the team wrote it for Newman (`borrow.written_auth`, `{{variables}}` kept); the base URL
given takes the place of the team's `{{baseUrl}}` (or of the one variable its URLs start with)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from satori_ci.plan.expand import build_requests
from satori_ci.postman.borrow import credential_names, team_auth, written_auth
from satori_ci.postman.export import collection_dict
from satori_ci.postman.match import given_requests
from satori_ci.postman.read import TeamCollection, read_team_collection
from satori_ci.spec import Spec, load_spec

SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
JSON_OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
BEARER = {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]}
ENVIRONMENT = json.dumps({"values": [{"key": "token", "value": "t0ken-of-the-team", "enabled": True},
                                     {"key": "baseUrl", "value": "http://127.0.0.1:9", "enabled": True}]})


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Spec:
    """`/items` (the team calls it) and `/other` (it does not), both behind a bearer scheme and an `X-Api-Key`."""
    path = tmp_path_factory.mktemp("spec") / "api.json"
    path.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"},
                                           "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
        "security": [{"bearer": []}],
        "paths": {"/items": {"get": {"responses": JSON_OK}},
                  "/other": {"get": {"security": [{"key": []}], "responses": JSON_OK}}}}), encoding="utf-8")
    return load_spec(str(path))


def _team(*requests: dict[str, Any], auth: dict[str, Any] | None = None, base: str | None = None) -> TeamCollection:
    raw: dict[str, Any] = {"info": {"name": "Team", "schema": SCHEMA},
                           "item": [{"name": f"r{i}", "id": f"r{i}", "request": r} for i, r in enumerate(requests)]}
    if auth is not None:
        raw["auth"] = auth
    return read_team_collection(json.dumps(raw), "team.json", ENVIRONMENT, "env.json",
                                overrides=(("baseUrl", base),) if base else ())


def _get(header: str | None = None, auth: dict[str, Any] | None = None, url: str = "{{baseUrl}}/items"
         ) -> dict[str, Any]:
    out: dict[str, Any] = {"method": "GET", "url": url,
                           "header": [{"key": "Authorization", "value": header}] if header else []}
    if auth is not None:
        out["auth"] = auth
    return out


def test_the_collections_auth_else_the_credential_headers_every_request_sends_alike(spec: Spec) -> None:
    names = credential_names(spec)
    assert names == {"authorization", "x-api-key"}
    # written on each request, as an auth or a header: the same once resolved
    mixed = _team(_get(auth=BEARER), _get("Bearer {{token}}"), _get(auth={"type": "noauth"}))
    assert team_auth(mixed, names) == (("Authorization", "Bearer t0ken-of-the-team"),)
    assert team_auth(_team(_get("Bearer {{token}}"), _get("Bearer other")), names) == ()  # they differ: none
    keyed = _team({"method": "GET", "url": "{{baseUrl}}/items", "header": [{"key": "x-api-key", "value": "k1"}]})
    assert team_auth(keyed, names) == (("x-api-key", "k1"),)  # the spec's own credential header
    # the collection's own auth comes first, whatever its requests write
    top = _team(_get("Bearer other"), auth=BEARER)
    assert team_auth(top, names) == (("Authorization", "Bearer t0ken-of-the-team"),)
    assert written_auth(top, team_auth(top, names)) == (None, ())  # its folders inherit it


def test_what_newman_gets_is_written_as_the_team_wrote_it_never_a_value(spec: Spec) -> None:
    names = credential_names(spec)
    by_header = _team(_get("Bearer {{token}}"))
    assert written_auth(by_header, team_auth(by_header, names)) == (None, (("Authorization", "Bearer {{token}}"),))
    by_auth = _team(_get(auth=BEARER))
    assert written_auth(by_auth, team_auth(by_auth, names)) == (BEARER, ())


def _own(spec: Spec, team: TeamCollection, headers: tuple[tuple[str, str], ...] = (),
         unset: frozenset[str] | None = None) -> dict[str, Any]:
    """The exported item of satori-ci's own request (`GET /other`)."""
    planned = build_requests(spec, [], "http://s", given=given_requests(team, spec, "http://s"))
    out = collection_dict(planned, team, headers, unset=unset)
    (folder,) = [i for i in out["item"] if "item" in i]
    (item,) = [i for f in folder["item"] for i in f["item"]]
    assert "t0ken-of-the-team" not in json.dumps(out)
    return {"folder_auth": folder.get("auth"), **item["request"]}


def test_own_requests_borrow_the_teams_auth_where_they_send_no_credential_of_their_own(spec: Spec) -> None:
    team = _team(_get("Bearer {{token}}"))
    own = _own(spec, team)
    assert own["header"][-1] == {"key": "Authorization", "value": "Bearer {{token}}"}
    assert own["folder_auth"] is None and "auth" not in own
    # the run's header comes first: the team's is not added
    run = _own(spec, team, (("authorization", "{{SATORI_HEADER_1}}"),))
    assert [h["value"] for h in run["header"] if h["key"].lower() == "authorization"] == ["{{SATORI_HEADER_1}}"]
    # a Postman auth borrowed (on the folder) or inherited (the collection's) is stopped where it would replace the
    # run's header, kept where it completes the request
    for borrowed in (_team(_get(auth=BEARER)), _team(_get(), auth=BEARER)):
        assert _own(spec, borrowed, (("Authorization", "{{SATORI_HEADER_1}}"),))["auth"] == {"type": "noauth"}
        assert "auth" not in _own(spec, borrowed, (("X-Other", "{{SATORI_HEADER_1}}"),))
    assert _own(spec, _team(_get(auth=BEARER)))["folder_auth"] == BEARER


def test_own_credentials_with_a_value_come_before_the_teams_auth(spec: Spec) -> None:
    team = _team({"method": "GET", "url": "{{baseUrl}}/items", "header": [{"key": "X-Api-Key", "value": "{{k}}"}]})
    # `GET /other` sends `X-Api-Key: {{SATORI_AUTH_KEY}}`: unset (the default: a written collection), the team's
    unset = _own(spec, team)
    assert [h for h in unset["header"] if h["key"].lower() == "x-api-key"] == [{"key": "X-Api-Key", "value": "{{k}}"}]
    given = _own(spec, team, unset=frozenset())
    assert [h for h in given["header"] if h["key"].lower() == "x-api-key"] == [
        {"key": "X-Api-Key", "value": "{{SATORI_AUTH_KEY}}"}]


def test_the_base_url_given_is_the_teams_base_variable_and_header_credentials_are_secrets(spec: Spec) -> None:
    team = _team(_get(), base="http://127.0.0.1:8000")
    assert team.requests[0].url == "http://127.0.0.1:8000/items"  # over the environment's baseUrl
    hosted = _team(_get(url="{{host}}/items"), _get(url="{{host}}/other"), base="http://127.0.0.1:8000")
    assert [r.url for r in hosted.requests] == ["http://127.0.0.1:8000/items", "http://127.0.0.1:8000/other"]
    assert ("host", "http://127.0.0.1:8000") in hosted.run_environment and hosted.environment == team.environment
    two = _team(_get(url="{{auth}}/token"), _get(url="{{host}}/items"), base="http://127.0.0.1:8000")
    assert [r.url for r in two.requests] == ["{{auth}}/token", "{{host}}/items"]  # which one is the API's? neither
    parts = _team(_get(url="{{scheme}}://{{host}}/items"), base="http://127.0.0.1:8000")
    assert parts.requests[0].url == "{{scheme}}://{{host}}/items"  # not a base URL: the scheme alone
    # a collection written for a user's own Newman runs defines `baseUrl` where the team does not
    bare = read_team_collection(json.dumps({"info": {"name": "T", "schema": SCHEMA}, "item": [
        {"name": "r", "request": _get(url="{{baseUrl}}/other")}]}), "team.json", overrides=(("baseUrl", "http://s"),))
    written = collection_dict(build_requests(spec, [], "http://s", given=given_requests(bare, spec, "http://s")), bare)
    assert {"key": "baseUrl", "value": "http://s", "type": "string"} in written["variable"]
    secret = _team(_get("Bearer {{token}}"))
    assert {"Bearer t0ken-of-the-team", "t0ken-of-the-team"} <= set(secret.secrets)


def test_a_note_names_the_teams_requests_written_with_a_server_of_their_own(spec: Spec, tmp_path: Path) -> None:
    team = _team(_get(), _get(url="http://other.example:8080/items"), base="http://s")
    planned = build_requests(spec, [], "http://s", given=given_requests(team, spec, "http://s"))
    assert ("1 request(s) of team.json name a server of their own, not the base URL given: sent there as "
            "written: r1") in planned.notes
    assert not [n for n in build_requests(spec, [], None, given=given_requests(team, spec)).notes if "server" in n]


def test_the_native_runner_sends_satori_cis_own_requests_the_same_headers(spec: Spec) -> None:
    def sent(team: TeamCollection, variables: dict[str, str], extra: tuple[tuple[str, str], ...] = ()
             ) -> dict[str, str]:
        planned = build_requests(spec, [], "http://s", given=given_requests(team, spec, "http://s"))
        (own,) = [r for r in planned.requests() if r.given is None]  # GET /other
        assert planned.given is not None
        return {k.lower(): v for k, v in own.headers(variables, extra, planned.given.auth)}

    unset = {"SATORI_AUTH_KEY": ""}
    assert sent(_team(_get("Bearer {{token}}")), unset)["authorization"] == "Bearer t0ken-of-the-team"
    assert sent(_team(_get(auth=BEARER)), unset, (("Authorization", "run"),))["authorization"] == "run"
    keyed = _team({"method": "GET", "url": "{{baseUrl}}/items", "header": [{"key": "X-Api-Key", "value": "k1"}]})
    assert sent(keyed, unset)["x-api-key"] == "k1"
    assert sent(keyed, {"SATORI_AUTH_KEY": "mine"})["x-api-key"] == "mine"
    waiting = _team({"method": "GET", "url": "{{baseUrl}}/items", "header": [{"key": "X-Api-Key", "value": "{{k}}"}]})
    assert sent(waiting, unset)["x-api-key"] == ""  # `{{k}}` waits for the team's scripts: not sent as written
