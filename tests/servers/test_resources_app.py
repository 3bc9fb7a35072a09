"""The resources app (tests/servers/resources_app.py) does what its spec says, and its data meets the oracles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import requests.adapters
from urllib3.util.retry import Retry

from satori_ci.cli import main as cli_main
from satori_ci.oracles.check import check_body
from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import Oracle
from satori_ci.spec.yaml_loader import load_yaml
from tests.servers.resources_app import CONFIG_VALUES, SAMPLES, SPEC_PATH, ResourcesApp

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


class Client:
    """requests against one app, ignoring proxy settings from the environment."""

    def __init__(self, app: ResourcesApp, token: str | None = ResourcesApp.TOKEN) -> None:
        self.app = app
        self.session = requests.Session()
        self.session.trust_env = False
        # a connection the loaded machine's kernel or server dropped before any answer is tried again (GET only)
        self.session.mount("http://", requests.adapters.HTTPAdapter(max_retries=Retry(
            total=2, connect=2, read=2, status=0, other=0, allowed_methods=frozenset({"GET"}))))
        if token is not None:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def __call__(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.session.request(method, self.app.base_url + path, timeout=5, **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self("GET", path, **kwargs)


@pytest.fixture(scope="module")
def shared_app() -> Iterator[ResourcesApp]:
    """One app for the read-only tests (they check that it stays intact)."""
    with ResourcesApp() as app:
        yield app


@pytest.fixture
def client(shared_app: ResourcesApp) -> Iterator[Client]:
    yield Client(shared_app)
    assert shared_app.mutations == []
    assert shared_app.intact()


@pytest.fixture
def fresh(shared_app: ResourcesApp) -> Iterator[Client]:
    """For tests that change the data: the app reset to its fixture before and after."""
    shared_app.reset()
    yield Client(shared_app)
    shared_app.reset()


@pytest.fixture(scope="module")
def spec() -> Any:
    return load_yaml(SPEC_PATH.read_bytes(), str(SPEC_PATH))[0]


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> list[Oracle]:
    """The oracles `satori-ci infer` (the default rules backend) writes for the spec."""
    out = tmp_path_factory.mktemp("oracles") / "resources_app.oracles.yaml"
    assert cli_main(["infer", str(SPEC_PATH), "--oracles", str(out), "--quiet"]) == 0
    return load_oracle_file(out.read_text(encoding="utf-8"), str(out)).enabled_oracles()


def spec_operations(spec: Any) -> set[tuple[str, str]]:
    return {(m.upper(), path) for path, item in spec["paths"].items() for m in item if m in HTTP_METHODS}


# -- the spec and the app agree ---------------------------------------------------------------------------


def test_the_app_serves_exactly_the_spec_operations(spec: Any, shared_app: ResourcesApp) -> None:
    assert set(shared_app.operations()) == spec_operations(spec)
    gets = {op for op in spec_operations(spec) if op[0] == "GET"}
    assert set(SAMPLES) == gets
    assert len(gets) >= 12


def _validate_schema(body: Any, schema: Any) -> None:
    """`body` against an OpenAPI 3.0 schema (the validators load in ~0.4 s: here, not in every worker's collection)."""
    from openapi_schema_validator import OAS30Validator, oas30_format_checker, validate

    validate(body, schema, cls=OAS30Validator, format_checker=oas30_format_checker)


def test_the_spec_is_valid_openapi() -> None:
    import openapi_spec_validator
    from openapi_spec_validator.readers import read_from_filename

    document, _ = read_from_filename(str(SPEC_PATH))
    openapi_spec_validator.validate(document)


def test_only_health_is_public(spec: Any) -> None:
    assert spec["security"] == [{"bearerAuth": []}]
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": "An API token, sent as `Authorization: Bearer <token>`."}
    public = [(m, p) for p, item in spec["paths"].items() for m, op in item.items()
              if m in HTTP_METHODS and op.get("security") == []]
    assert public == [("get", "/health")]


# -- auth ---------------------------------------------------------------------------------------------------


def test_health_is_public(shared_app: ResourcesApp) -> None:
    response = Client(shared_app, token=None).get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": "1.4.2", "uptime_seconds": 1234}


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic czNjcjN0LXRva2Vu", "s3cr3t-token"])
def test_other_operations_need_the_token(fresh: Client, header: str | None) -> None:
    anonymous = Client(fresh.app, token=None)
    headers = {"Authorization": header} if header else {}
    for method, template in fresh.app.operations():
        if template == "/health":
            continue
        path = SAMPLES.get((method, template)) or template.format(user_id="usr_8f2k1", order_id="ord_51c9a")
        response = anonymous(method, path, headers=headers, json={"name": "x", "email": "x@example.com"})
        assert response.status_code == 401, (method, path)
        assert response.json() == {"error": "missing or invalid bearer token"}
    assert fresh.app.intact()
    assert fresh.app.mutations == ["POST /users", "PATCH /users/usr_8f2k1", "DELETE /users/usr_8f2k1",
                                   "DELETE /orders/ord_51c9a"]


# -- list shapes and ids ------------------------------------------------------------------------------------


def test_list_shapes(client: Client) -> None:
    users = client.get("/users").json()
    assert isinstance(users, list) and users[0]["id"] == "usr_8f2k1" and len(users) == 4
    orders = client.get("/orders").json()
    assert set(orders) == {"items", "total", "page", "page_size"}
    assert (orders["total"], orders["page"], orders["page_size"]) == (3, 1, 20)
    assert [o["id"] for o in orders["items"]] == ["ord_51c9a", "ord_7be20", "ord_c03d8"]
    assert client.get("/orders?page=2&page_size=2").json()["items"][0]["id"] == "ord_c03d8"
    assert client.get("/orders?page_size=101").status_code == 400
    stores = client.get("/stores").json()
    assert list(stores) == ["data"] and len(stores["data"]) == 3
    products = client.get("/products").json()
    assert products["count"] == 4 and products["products"][0]["sku"] == "SKU-40213"
    assert [c["slug"] for c in client.get("/categories").json()] == ["kitchen", "stationery", "cookware"]


def test_details_take_the_ids_their_list_gives(client: Client) -> None:
    for user in client.get("/users").json():
        assert client.get(f"/users/{user['id']}").json() == user
    for order in client.get("/orders").json()["items"]:
        assert client.get(f"/orders/{order['id']}").json() == order
    for store in client.get("/stores").json()["data"]:
        assert client.get(f"/stores/{store['id']}").json() == store
    for product in client.get("/products").json()["products"]:
        assert client.get(f"/products/{product['sku']}").json() == product
    for category in client.get("/categories").json():
        assert client.get(f"/categories/{category['slug']}").json() == category


@pytest.mark.parametrize("path", [
    "/users/usr_00000", "/users/1", "/users/string", "/orders/ord_00000", "/orders/1",
    "/stores/00000000-0000-0000-0000-000000000000", "/products/SKU-00000", "/products/string",
    "/categories/string", "/invoices/INV-0000-0000", "/invoices/string", "/countries/ZZ", "/countries/fr",
    "/countries/string", "/tenants/string/settings", "/tenants/globex/settings",
    "/users/usr_00000/posts", "/users/usr_00000/posts/pst_3m9x0", "/users/usr_8f2k1/posts/string",
])
def test_unknown_ids_are_404(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert set(response.json()) == {"error"}


def test_nested_posts(client: Client) -> None:
    posts = client.get("/users/usr_8f2k1/posts").json()
    assert [p["id"] for p in posts] == ["pst_3m9x0", "pst_7q2c5"]
    assert client.get("/users/usr_8f2k1/posts/pst_3m9x0").json() == posts[0]
    assert client.get("/users/usr_k2p8w/posts").json() == []
    # another user's post
    assert client.get("/users/usr_3n7q4/posts/pst_3m9x0").status_code == 404


def test_invoices_are_reached_through_the_order_link(client: Client, spec: Any) -> None:
    link = spec["paths"]["/orders/{order_id}"]["get"]["responses"]["200"]["links"]["invoice"]
    assert link["operationId"] == "getInvoice"
    assert link["parameters"] == {"invoice_ref": "$response.body#/invoice_ref"}
    assert "/invoices" not in spec["paths"]
    order = client.get("/orders/ord_51c9a").json()
    invoice = client.get(f"/invoices/{order['invoice_ref']}").json()
    assert (invoice["invoice_ref"], invoice["order_id"]) == ("INV-2024-0042", "ord_51c9a")


def test_countries_accept_the_spec_example(client: Client, spec: Any) -> None:
    (param,) = spec["paths"]["/countries/{code}"]["get"]["parameters"]
    assert param["example"] == "FR"
    assert client.get(f"/countries/{param['example']}").json()["name"] == "France"


def test_tenant_settings_only_for_the_configured_tenant(client: Client, spec: Any) -> None:
    (param,) = spec["paths"]["/tenants/{tenant_id}/settings"]["get"]["parameters"]
    assert "example" not in param and "enum" not in param["schema"] and "example" not in param["schema"]
    assert not any(p.startswith("/tenants") and "{tenant_id}/settings" not in p for p in spec["paths"])
    settings = client.get(f"/tenants/{CONFIG_VALUES['tenant_id']}/settings").json()
    assert settings["tenant_id"] == "acme" and settings["plan"] == "enterprise"


def test_search_fails_on_the_placeholder(client: Client) -> None:
    assert client.get("/search", params={"q": "string"}).status_code == 500
    assert client.get("/search", params={"q": "string"}).json() == {"error": "internal"}
    found = client.get("/search", params={"q": "Ada"}).json()
    assert found["total"] == 1 and found["results"][0] == {"type": "user", "id": "usr_8f2k1",
                                                           "title": "Ada Lovelace", "score": 1.0}
    assert client.get("/search", params={"q": "zzz"}).json() == {"query": "zzz", "total": 0, "results": []}
    assert client.get("/search").status_code == 400
    assert client.get("/search?q=").status_code == 400


# -- mutations ----------------------------------------------------------------------------------------------


def test_post_users_creates(fresh: Client) -> None:
    response = fresh("POST", "/users", json={"name": "Katherine Johnson", "email": "katherine@example.com"})
    assert response.status_code == 201
    assert response.json()["id"] == "usr_new01"
    assert fresh.get("/users/usr_new01").json()["name"] == "Katherine Johnson"
    assert len(fresh.get("/users").json()) == 5
    assert fresh.app.mutations == ["POST /users"]
    assert not fresh.app.intact()


def test_patch_user_changes_it(fresh: Client) -> None:
    assert fresh("PATCH", "/users/usr_8f2k1", json={"email": "nope"}).status_code == 400
    assert fresh.app.intact()
    response = fresh("PATCH", "/users/usr_8f2k1", json={"name": "Ada King"})
    assert response.status_code == 200 and response.json()["name"] == "Ada King"
    assert fresh.get("/users/usr_8f2k1").json()["name"] == "Ada King"
    assert fresh.app.mutations == ["PATCH /users/usr_8f2k1", "PATCH /users/usr_8f2k1"]
    assert not fresh.app.intact()


def test_delete_user_and_order(fresh: Client) -> None:
    response = fresh("DELETE", "/users/usr_8f2k1")
    assert response.status_code == 204 and response.content == b""
    assert fresh.get("/users/usr_8f2k1").status_code == 404
    assert fresh.get("/users/usr_8f2k1/posts/pst_3m9x0").status_code == 404
    assert fresh("DELETE", "/orders/ord_51c9a").status_code == 204
    assert fresh.get("/orders").json()["total"] == 2
    assert fresh("DELETE", "/orders/ord_51c9a").status_code == 404
    assert fresh.app.mutations == ["DELETE /users/usr_8f2k1", "DELETE /orders/ord_51c9a", "DELETE /orders/ord_51c9a"]
    assert not fresh.app.intact()
    fresh.app.reset()
    assert fresh.app.intact() and fresh.app.mutations == []


# -- live responses meet the spec and the inferred oracles ---------------------------------------------------


@pytest.mark.parametrize(("method", "template"), sorted(SAMPLES))
def test_live_responses_meet_the_inferred_oracles(client: Client, oracles: list[Oracle], method: str,
                                                  template: str) -> None:
    response = client(method, SAMPLES[(method, template)])
    assert response.status_code == 200
    mine = [o for o in oracles if (o.operation.method, o.operation.path, o.operation.status) == (method, template,
                                                                                                  "200")]
    assert mine, "no oracle inferred for this operation"
    assert [f.message for f in check_body(mine, response.json())] == []


def _inline(node: Any, spec: Any) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = spec
            for token in ref.removeprefix("#/").split("/"):
                target = target[token]
            return _inline(target, spec)
        return {k: _inline(v, spec) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, spec) for v in node]
    return node


@pytest.mark.parametrize(("method", "template"), sorted(SAMPLES))
def test_live_responses_validate_against_their_schema(client: Client, spec: Any, method: str, template: str) -> None:
    plain = _inline(spec, spec)
    schema = plain["paths"][template][method.lower()]["responses"]["200"]["content"]["application/json"]["schema"]
    body = client(method, SAMPLES[(method, template)]).json()
    _validate_schema(body, schema)


def test_every_item_meets_its_schema_and_oracles(client: Client, spec: Any, oracles: list[Oracle]) -> None:
    """Every detail the lists lead to (every user, post, order, invoice, store, ...), not only the sampled one."""
    plain = _inline(spec, spec)
    checked: set[str] = set()

    def check(template: str, path: str) -> Any:
        response = client.get(path)
        assert response.status_code == 200, path
        body = response.json()
        schema = plain["paths"][template]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        _validate_schema(body, schema)
        mine = [o for o in oracles if (o.operation.method, o.operation.path, o.operation.status) == ("GET", template,
                                                                                                      "200")]
        assert [f.message for f in check_body(mine, body)] == [], path
        checked.add(template)
        return body

    for user in check("/users", "/users"):
        check("/users/{user_id}", f"/users/{user['id']}")
        for post in check("/users/{user_id}/posts", f"/users/{user['id']}/posts"):
            check("/users/{user_id}/posts/{post_id}", f"/users/{user['id']}/posts/{post['id']}")
    for order in check("/orders", "/orders")["items"]:
        detail = check("/orders/{order_id}", f"/orders/{order['id']}")
        check("/invoices/{invoice_ref}", f"/invoices/{detail['invoice_ref']}")
    for store in check("/stores", "/stores")["data"]:
        check("/stores/{storeId}", f"/stores/{store['id']}")
    for product in check("/products", "/products")["products"]:
        check("/products/{sku}", f"/products/{product['sku']}")
    for category in check("/categories", "/categories"):
        check("/categories/{slug}", f"/categories/{category['slug']}")
    for code in ("FR", "DE", "JP", "BR", "CH"):
        check("/countries/{code}", f"/countries/{code}")
    for q in ("a", "e", "SKU", "rive", "Ada"):
        check("/search", f"/search?q={q}")
    check("/tenants/{tenant_id}/settings", "/tenants/acme/settings")
    check("/health", "/health")
    assert checked == {template for _, template in SAMPLES}


def test_spec_file_sits_next_to_the_app() -> None:
    assert Path(__file__).resolve().with_name("resources_app.yaml") == SPEC_PATH
