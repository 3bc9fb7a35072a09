"""bench/ceiling.py: the reference crawler sends GET only, follows next pages, and fills nested paths by prefix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.ceiling import crawl, keys_for, next_links, scalars
from satori_ci.demo import Canned, Received, StagingServer
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec import OperationKey, load_spec
from tests.servers.resources_app import CONFIG_VALUES, SPEC_PATH, ResourcesApp

BUCKETS_SPEC = """\
openapi: 3.0.3
info: {title: buckets, version: "1"}
paths:
  /buckets:
    get:
      responses:
        "200":
          description: a page of buckets
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: object, properties: {id: {type: string}}}}
                  next: {type: string}
  /buckets/{bid}:
    get:
      parameters: [{name: bid, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: a bucket
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
  /buckets/{bid}/collections:
    get:
      parameters: [{name: bid, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: its collections
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: object, properties: {id: {type: string}}}}
  /buckets/{bid}/collections/{cid}:
    get:
      parameters:
        - {name: bid, in: path, required: true, schema: {type: string}}
        - {name: collection_id, in: query, required: true, schema: {type: string, enum: [all]}}
        - {name: cid, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: a collection
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
    delete:
      parameters:
        - {name: bid, in: path, required: true, schema: {type: string}}
        - {name: cid, in: path, required: true, schema: {type: string}}
      responses:
        "204": {description: gone}
"""
COLLECTIONS = {"b1": ["c1"], "b2": ["c2", "c3"]}


def _buckets(received: Received, _: dict[str, str]) -> Canned:
    if ("page", "2") in received.query:
        return Canned({"data": [{"id": "b2"}]})
    return Canned({"data": [{"id": "b1"}], "next": "/buckets?page=2"})


def _bucket(_: Received, params: dict[str, str]) -> Canned:
    return Canned({"id": params["bid"]}) if params["bid"] in COLLECTIONS else Canned({}, status=404)


def _collections(_: Received, params: dict[str, str]) -> Canned:
    found = COLLECTIONS.get(params["bid"])
    return Canned({"data": [{"id": c} for c in found]}) if found is not None else Canned({}, status=404)


def _collection(_: Received, params: dict[str, str]) -> Canned:
    if params["cid"] in COLLECTIONS.get(params["bid"], []):
        return Canned({"id": params["cid"]})
    return Canned({}, status=404)


@pytest.fixture
def buckets() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/buckets", _buckets)
        server.route("GET", "/buckets/{bid}", _bucket)
        server.route("GET", "/buckets/{bid}/collections", _collections)
        server.route("GET", "/buckets/{bid}/collections/{cid}", _collection)
        server.route("DELETE", "/buckets/{bid}/collections/{cid}", lambda _r, _p: Canned(None, status=204))
        yield server


def test_keys_values_and_next_links() -> None:
    assert keys_for("silenceID") == ("silenceid", "id", "name")  # then every id and name: it is a ceiling
    assert keys_for("bucket_id") == ("bucketid", "id", "name")
    assert keys_for("username") == ("username", "name", "id")
    assert keys_for("project_identifier") == ("projectidentifier", "id", "name")
    body = {"items": [{"id": 7, "ok": True, "tags": ["a", ""]}], "links": {"next_url": "/x?page=2"}}
    assert list(scalars(body)) == [("id", "7"), ("tags", "a"), ("nexturl", "/x?page=2")]
    assert next_links(body, '<https://h/x?page=3>; rel="next", <https://h/x>; rel="first"') == [
        "https://h/x?page=3", "/x?page=2"]


def test_every_value_recursively_by_prefix_and_get_only(tmp_path: Path, buckets: StagingServer) -> None:
    spec_path = tmp_path / "buckets.yaml"
    spec_path.write_text(BUCKETS_SPEC, encoding="utf-8")
    spec = load_spec(str(spec_path))
    leaf = OperationKey("GET", "/buckets/{bid}/collections/{cid}", "200")
    oracles = [Oracle(leaf, "id", OracleKind.STRING_FIXED_LENGTH, 2)]
    ceiling = crawl(spec, oracles, buckets.base_url)
    assert ceiling.reached == {f"GET {o.path}" for o in spec.operations if o.method == "GET"}
    assert ceiling.exercised == set(oracles)
    assert {r.method for r in buckets.received} == {"GET"}
    leaves = {r.path for r in buckets.received if r.path.count("/") == 4}
    # b2's collections (a next page's bucket) were reached; c2 and c3 were never tried under b1
    assert {"/buckets/b1/collections/c1", "/buckets/b2/collections/c2", "/buckets/b2/collections/c3"} <= leaves
    assert not {p for p in leaves if p.startswith("/buckets/b1/") and p.endswith(("c2", "c3"))}
    queries = [dict(r.query) for r in buckets.received if r.path.count("/") == 4]
    assert all("collection_id" in q for q in queries) and {"collection_id": "all"} in queries  # the enum's value
    assert not ceiling.cap_notes()


def test_caps_are_said(tmp_path: Path, buckets: StagingServer) -> None:
    spec_path = tmp_path / "buckets.yaml"
    spec_path.write_text(BUCKETS_SPEC, encoding="utf-8")
    ceiling = crawl(load_spec(str(spec_path)), [], buckets.base_url, global_cap=3)
    assert ceiling.requests == 3
    assert ceiling.global_cap_hit and "global cap (3 requests)" in ceiling.cap_notes()[0]


def test_resources_app_ceiling_leaves_the_data_intact() -> None:
    with ResourcesApp() as app:
        ceiling = crawl(load_spec(str(SPEC_PATH)), [], app.base_url,
                        headers=[("Authorization", f"Bearer {ResourcesApp.TOKEN}")], values=CONFIG_VALUES.items())
        assert app.intact() and not app.mutations
    assert set(ceiling.operations) == ceiling.reached  # /search?q= too: any name is a query
    assert ceiling.operations["GET /search"].unfilled == ()
