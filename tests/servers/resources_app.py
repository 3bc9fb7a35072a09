"""A realistic staging API on 127.0.0.1 for the request planner: ten resources, opaque ids, auth, mutations.

Served by `satori_ci.demo.StagingServer`; described exactly by `resources_app.yaml` (SPEC_PATH).
Every operation but `GET /health` needs `Authorization: Bearer <ResourcesApp.TOKEN>` (else 401).
How a tool can reach each GET operation:

- lists: `GET /users` (a JSON array), `GET /orders` (`items` envelope), `GET /stores` (`data` envelope),
  `GET /products` (`products` envelope), `GET /categories` (a JSON array);
- details whose ids only a list gives: `/users/{user_id}` (`usr_8f2k1`), `/orders/{order_id}` (`ord_51c9a`),
  `/stores/{storeId}` (UUIDs from `data[].id`), `/products/{sku}` (`products[].sku`), `/categories/{slug}`;
- nested: `/users/{user_id}/posts` and `/users/{user_id}/posts/{post_id}` (404 for another user's post);
- a link only: `GET /invoices/{invoice_ref}` (the `invoice` link of `GET /orders/{order_id}` 200);
- a spec example only: `GET /countries/{code}` (`FR`);
- the config only: `GET /tenants/{tenant_id}/settings` (the tenant is `acme`, given nowhere in the spec);
- `GET /search?q=...` answers 500 `{"error": "internal"}` for `q=string` (a bug: the spec does not list it);
- public: `GET /health`.

`POST /users`, `PATCH /users/{user_id}`, `DELETE /users/{user_id}` and `DELETE /orders/{order_id}` really
change the in-memory data: `mutations` lists every request with a state-changing method that reached the
app (whatever its answer), `intact()` says whether the data still equals the fixture. All data is fixed:
no randomness, no clock.
"""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from satori_ci.demo import Canned, Received, Responder, StagingServer

SPEC_PATH = Path(__file__).resolve().with_suffix(".yaml")
"""The OpenAPI 3.0.3 spec of the app."""

MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})

CONFIG_VALUES: dict[str, str] = {"tenant_id": "acme"}
"""Path parameter values only a user's config can give (neither a producer, an example nor an enum)."""

SAMPLES: dict[tuple[str, str], str] = {
    ("GET", "/health"): "/health",
    ("GET", "/users"): "/users",
    ("GET", "/users/{user_id}"): "/users/usr_8f2k1",
    ("GET", "/users/{user_id}/posts"): "/users/usr_8f2k1/posts",
    ("GET", "/users/{user_id}/posts/{post_id}"): "/users/usr_8f2k1/posts/pst_3m9x0",
    ("GET", "/orders"): "/orders",
    ("GET", "/orders/{order_id}"): "/orders/ord_51c9a",
    ("GET", "/invoices/{invoice_ref}"): "/invoices/INV-2024-0042",
    ("GET", "/stores"): "/stores",
    ("GET", "/stores/{storeId}"): "/stores/3f6c2a9e-8b1d-4c7a-9e2f-5d4b6a1c0e87",
    ("GET", "/products"): "/products",
    ("GET", "/products/{sku}"): "/products/SKU-40213",
    ("GET", "/categories"): "/categories",
    ("GET", "/categories/{slug}"): "/categories/kitchen",
    ("GET", "/countries/{code}"): "/countries/FR",
    ("GET", "/tenants/{tenant_id}/settings"): "/tenants/acme/settings",
    ("GET", "/search"): "/search?q=ada",
}
"""A concrete, successful request path for every GET operation (method, path template) of the spec."""

# -- fixture data --------------------------------------------------------------------------------------

_USERS: tuple[dict[str, Any], ...] = (
    {"id": "usr_8f2k1", "name": "Ada Lovelace", "email": "ada@example.com",
     "avatar_url": "https://cdn.example.com/avatars/usr_8f2k1.png", "website": "https://ada.example.org",
     "country_code": "GB", "role": "admin", "verified": True, "followers_count": 1520,
     "tags": ["math", "engines"], "created_at": "2021-03-14T09:26:53Z"},
    {"id": "usr_3n7q4", "name": "Grace Hopper", "email": "grace@example.com",
     "avatar_url": "https://cdn.example.com/avatars/usr_3n7q4.png", "website": None,
     "country_code": "US", "role": "member", "verified": True, "followers_count": 987,
     "tags": ["compilers", "cobol", "navy"], "created_at": "2021-06-02T17:05:00Z"},
    {"id": "usr_9d1z6", "name": "Alan Turing", "email": "alan.turing@example.co.uk",
     "avatar_url": "https://cdn.example.com/avatars/usr_9d1z6.png", "website": "https://turing.example.net/home",
     "country_code": "GB", "role": "member", "verified": False, "followers_count": 0,
     "tags": [], "created_at": "2022-01-30T08:00:00+01:00"},
    {"id": "usr_k2p8w", "name": "Margaret Hamilton", "email": "margaret@example.com",
     "avatar_url": "https://cdn.example.com/avatars/usr_k2p8w.png", "website": "https://mh.example.com",
     "country_code": "US", "role": "guest", "verified": False, "followers_count": 42,
     "tags": ["apollo"], "created_at": "2023-11-05T23:59:59Z"},
)

_POSTS: tuple[dict[str, Any], ...] = (
    {"id": "pst_3m9x0", "user_id": "usr_8f2k1", "title": "Notes on the Analytical Engine",
     "status": "published", "likes_count": 310, "tags": ["history", "math"],
     "published_at": "2021-04-01T10:00:00Z", "url": "https://blog.example.com/posts/pst_3m9x0"},
    {"id": "pst_7q2c5", "user_id": "usr_8f2k1", "title": "Bernoulli numbers, step by step",
     "status": "draft", "likes_count": 0, "tags": [],
     "published_at": None, "url": "https://blog.example.com/posts/pst_7q2c5"},
    {"id": "pst_b81ke", "user_id": "usr_3n7q4", "title": "Finding the first bug",
     "status": "published", "likes_count": 1204, "tags": ["debugging"],
     "published_at": "2021-09-09T15:45:00Z", "url": "https://blog.example.com/posts/pst_b81ke"},
    {"id": "pst_z0w4r", "user_id": "usr_9d1z6", "title": "Computing machinery and intelligence",
     "status": "archived", "likes_count": 77, "tags": ["ai", "philosophy", "games"],
     "published_at": "2022-02-14T12:30:00Z", "url": "https://blog.example.com/posts/pst_z0w4r"},
    {"id": "pst_m5t1a", "user_id": "usr_9d1z6", "title": "On computable numbers",
     "status": "published", "likes_count": 405, "tags": ["math"],
     "published_at": "2022-03-01T09:00:00Z", "url": "https://blog.example.com/posts/pst_m5t1a"},
)

_ORDERS: tuple[dict[str, Any], ...] = (
    {"id": "ord_51c9a", "user_id": "usr_8f2k1", "status": "paid", "currency": "EUR", "amount": 59.9,
     "items_count": 2, "invoice_ref": "INV-2024-0042", "created_at": "2024-02-10T14:22:05Z",
     "gift": False,
     "lines": [{"sku": "SKU-40213", "quantity": 1, "unit_price": 49.9},
               {"sku": "SKU-77120", "quantity": 1, "unit_price": 10.0}],
     "shipping": {"city": "Paris", "country_code": "FR", "latitude": 48.8566, "longitude": 2.3522}},
    {"id": "ord_7be20", "user_id": "usr_3n7q4", "status": "shipped", "currency": "USD", "amount": 25.5,
     "items_count": 3, "invoice_ref": "INV-2024-0057", "created_at": "2024-03-02T08:15:00Z",
     "gift": True,
     "lines": [{"sku": "SKU-11890", "quantity": 3, "unit_price": 8.5}],
     "shipping": {"city": "Arlington", "country_code": "US", "latitude": 38.8816, "longitude": -77.091}},
    {"id": "ord_c03d8", "user_id": "usr_8f2k1", "status": "pending", "currency": "GBP", "amount": 0,
     "items_count": 0, "invoice_ref": "INV-2024-0061", "created_at": "2024-03-18T19:40:41Z",
     "gift": False, "lines": [],
     "shipping": {"city": "London", "country_code": "GB", "latitude": 51.5072, "longitude": -0.1276}},
)

_INVOICES: tuple[dict[str, Any], ...] = (
    {"invoice_ref": "INV-2024-0042", "order_id": "ord_51c9a", "amount": 59.9, "currency": "EUR",
     "vat_percent": 20, "paid": True, "issued_at": "2024-02-10T14:25:00Z", "due_date": "2024-03-11",
     "pdf_url": "https://billing.example.com/invoices/INV-2024-0042.pdf"},
    {"invoice_ref": "INV-2024-0057", "order_id": "ord_7be20", "amount": 25.5, "currency": "USD",
     "vat_percent": 0, "paid": True, "issued_at": "2024-03-02T08:20:00Z", "due_date": "2024-04-01",
     "pdf_url": "https://billing.example.com/invoices/INV-2024-0057.pdf"},
    {"invoice_ref": "INV-2024-0061", "order_id": "ord_c03d8", "amount": 0, "currency": "GBP",
     "vat_percent": 20, "paid": False, "issued_at": "2024-03-18T19:41:00Z", "due_date": "2024-04-17",
     "pdf_url": "https://billing.example.com/invoices/INV-2024-0061.pdf"},
)

_STORES: tuple[dict[str, Any], ...] = (
    {"id": "3f6c2a9e-8b1d-4c7a-9e2f-5d4b6a1c0e87", "name": "Rive Gauche", "price_level": "$$",
     "rating": 4.6, "review_count": 812, "open_now": True, "latitude": 48.8534, "longitude": 2.3488,
     "website": "https://stores.example.com/rive-gauche", "phone": "+33 1 42 00 00 00",
     "address": {"street": "12 rue de Buci", "city": "Paris", "postal_code": "75006", "country_code": "FR"},
     "updated_at": "2024-05-01T09:30:00Z"},
    {"id": "a0d4e9b2-1c3f-4e5a-8b7d-2f9c6e1a4b30", "name": "Harbour Lights", "price_level": "$$$",
     "rating": 3.9, "review_count": 145, "open_now": False, "latitude": -33.8568, "longitude": 151.2153,
     "website": "https://stores.example.com/harbour-lights", "phone": "+61 2 9250 7111",
     "address": {"street": "1 Macquarie St", "city": "Sydney", "postal_code": "2000", "country_code": "AU"},
     "updated_at": "2024-04-28T22:10:00+10:00"},
    {"id": "c7b1f3d8-6e2a-4b9c-a5d0-8e3f7a2b1c64", "name": "Mercado Azul", "price_level": "$",
     "rating": 1.0, "review_count": 3, "open_now": True, "latitude": -23.5505, "longitude": -46.6333,
     "website": "https://stores.example.com/mercado-azul", "phone": "+55 11 3000 0000",
     "address": {"street": "Rua Augusta 500", "city": "São Paulo", "postal_code": "01304-000",
                 "country_code": "BR"},
     "updated_at": "2024-05-03T11:00:00-03:00"},
)

_PRODUCTS: tuple[dict[str, Any], ...] = (
    {"sku": "SKU-40213", "name": "Cast iron skillet", "category": "kitchen", "price": 49.9, "currency": "EUR",
     "in_stock": True, "stock_count": 37, "rating": 4.8, "tags": ["cookware", "iron"],
     "image_url": "https://cdn.example.com/products/SKU-40213.jpg", "weight_grams": 2300},
    {"sku": "SKU-77120", "name": "Linen tea towel", "category": "kitchen", "price": 10.0, "currency": "EUR",
     "in_stock": True, "stock_count": 240, "rating": 4.1, "tags": [],
     "image_url": "https://cdn.example.com/products/SKU-77120.jpg", "weight_grams": 80},
    {"sku": "SKU-11890", "name": "Graph paper notebook", "category": "stationery", "price": 8.5,
     "currency": "USD", "in_stock": False, "stock_count": 0, "rating": 3.5,
     "tags": ["paper", "math", "school"],
     "image_url": "https://cdn.example.com/products/SKU-11890.jpg", "weight_grams": 310},
    {"sku": "SKU-90001", "name": "Brass slide rule", "category": "stationery", "price": 0, "currency": "GBP",
     "in_stock": True, "stock_count": 1, "rating": 5, "tags": ["vintage"],
     "image_url": "https://cdn.example.com/products/SKU-90001.jpg", "weight_grams": 150},
)

_CATEGORIES: tuple[dict[str, Any], ...] = (
    {"slug": "kitchen", "name": "Kitchen", "product_count": 2, "parent": None, "featured": True,
     "updated_at": "2024-01-15T10:00:00Z"},
    {"slug": "stationery", "name": "Stationery", "product_count": 2, "parent": None, "featured": False,
     "updated_at": "2024-01-20T16:30:00Z"},
    {"slug": "cookware", "name": "Cookware", "product_count": 0, "parent": "kitchen", "featured": False,
     "updated_at": "2024-02-01T08:45:00Z"},
)

_COUNTRIES: tuple[dict[str, Any], ...] = (
    {"code": "FR", "name": "France", "capital": "Paris", "currency": "EUR", "calling_code": "+33",
     "population": 68042591, "area_km2": 551695, "languages": ["fr"], "latitude": 46.2276, "longitude": 2.2137,
     "flag_url": "https://flags.example.com/fr.svg", "eu_member": True},
    {"code": "DE", "name": "Germany", "capital": "Berlin", "currency": "EUR", "calling_code": "+49",
     "population": 84358845, "area_km2": 357592, "languages": ["de"], "latitude": 51.1657, "longitude": 10.4515,
     "flag_url": "https://flags.example.com/de.svg", "eu_member": True},
    {"code": "JP", "name": "Japan", "capital": "Tokyo", "currency": "JPY", "calling_code": "+81",
     "population": 124516650, "area_km2": 377975, "languages": ["ja"], "latitude": 36.2048, "longitude": 138.2529,
     "flag_url": "https://flags.example.com/jp.svg", "eu_member": False},
    {"code": "BR", "name": "Brazil", "capital": "Brasília", "currency": "BRL", "calling_code": "+55",
     "population": 203080756, "area_km2": 8515767, "languages": ["pt"], "latitude": -14.235,
     "longitude": -51.9253, "flag_url": "https://flags.example.com/br.svg", "eu_member": False},
    {"code": "CH", "name": "Switzerland", "capital": "Bern", "currency": "CHF", "calling_code": "+41",
     "population": 8902308, "area_km2": 41285, "languages": ["de", "fr", "it", "rm"], "latitude": 46.8182,
     "longitude": 8.2275, "flag_url": "https://flags.example.com/ch.svg", "eu_member": False},
)

_TENANTS: tuple[dict[str, Any], ...] = (
    {"tenant_id": "acme", "plan": "enterprise", "seats": 250, "seats_used": 187, "sso_enabled": True,
     "data_region": "eu-west", "max_upload_mb": 512, "webhook_url": "https://hooks.acme.example.com/satori",
     "updated_at": "2024-04-02T07:12:00Z"},
)

HEALTH: dict[str, Any] = {"status": "ok", "version": "1.4.2", "uptime_seconds": 1234}

_NEW_USER_CREATED_AT = "2024-06-01T12:00:00Z"


def fixture_data() -> dict[str, list[dict[str, Any]]]:
    """A fresh deep copy of the fixture: resource name -> its items, in list order."""
    return copy.deepcopy({
        "users": list(_USERS), "posts": list(_POSTS), "orders": list(_ORDERS), "invoices": list(_INVOICES),
        "stores": list(_STORES), "products": list(_PRODUCTS), "categories": list(_CATEGORIES),
        "countries": list(_COUNTRIES), "tenants": list(_TENANTS),
    })


def _error(message: str, status: int) -> Canned:
    return Canned({"error": message}, status=status)


def _header(received: Received, name: str) -> str | None:
    lowered = name.lower()
    return next((v for k, v in received.headers.items() if k.lower() == lowered), None)


def _json_body(received: Received) -> dict[str, Any] | None:
    try:
        body = json.loads(received.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def _positive_int(text: str | None, default: int) -> int | None:
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 1 else None


class ResourcesApp:
    """The staging app: `with ResourcesApp() as app: requests.get(app.base_url + "/users", headers=app.auth)`."""

    TOKEN = "s3cr3t-token"
    """The one valid bearer token."""

    def __init__(self) -> None:
        self.server = StagingServer()
        self._lock = threading.Lock()
        self.data = fixture_data()
        self._created = 0
        public = {("GET", "/health")}
        for method, template, responder in self._routes():
            self.server.route(method, template, responder if (method, template) in public else self._guard(responder))

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> Self:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def auth(self) -> dict[str, str]:
        """The header a client needs."""
        return {"Authorization": f"Bearer {self.TOKEN}"}

    @property
    def received(self) -> list[Received]:
        """Every request that reached the app (method, path, query, headers, body), in order."""
        return self.server.received

    @property
    def mutations(self) -> list[str]:
        """`METHOD /path` of every request with a state-changing method that reached the app, whatever its answer."""
        return [f"{r.method} {r.path}" for r in list(self.server.received) if r.method in MUTATING]

    def intact(self) -> bool:
        """Whether the data still equals the fixture (no user or order created, changed or deleted)."""
        with self._lock:
            return self.data == fixture_data()

    def reset(self) -> None:
        """Back to the fixture data; forget the requests received."""
        with self._lock:
            self.data = fixture_data()
            self._created = 0
        self.server.clear()

    # -- routing ---------------------------------------------------------------------------------------

    def operations(self) -> list[tuple[str, str]]:
        """Every (method, path template) the app serves: exactly the operations of the spec."""
        return [(method, template) for method, template, _ in self._routes()]

    def _guard(self, responder: Responder) -> Responder:
        def guarded(received: Received, params: dict[str, str]) -> Canned:
            scheme, _, token = (_header(received, "Authorization") or "").strip().partition(" ")
            if scheme.lower() != "bearer" or token.strip() != self.TOKEN:
                return _error("missing or invalid bearer token", 401)
            with self._lock:
                return responder(received, params)
        return guarded

    def _routes(self) -> list[tuple[str, str, Responder]]:
        return [
            ("GET", "/health", lambda r, p: Canned(dict(HEALTH))),
            ("GET", "/users", lambda r, p: Canned(copy.deepcopy(self.data["users"]))),
            ("POST", "/users", self._create_user),
            ("GET", "/users/{user_id}", self._one("users", "id", "user_id", "no such user")),
            ("PATCH", "/users/{user_id}", self._patch_user),
            ("DELETE", "/users/{user_id}", self._delete_user),
            ("GET", "/users/{user_id}/posts", self._posts),
            ("GET", "/users/{user_id}/posts/{post_id}", self._post),
            ("GET", "/orders", self._orders),
            ("GET", "/orders/{order_id}", self._one("orders", "id", "order_id", "no such order")),
            ("DELETE", "/orders/{order_id}", self._delete_order),
            ("GET", "/invoices/{invoice_ref}", self._one("invoices", "invoice_ref", "invoice_ref", "no such invoice")),
            ("GET", "/stores", lambda r, p: Canned({"data": copy.deepcopy(self.data["stores"])})),
            ("GET", "/stores/{storeId}", self._one("stores", "id", "storeId", "no such store")),
            ("GET", "/products", lambda r, p: Canned({"products": copy.deepcopy(self.data["products"]),
                                                      "count": len(self.data["products"])})),
            ("GET", "/products/{sku}", self._one("products", "sku", "sku", "no such product")),
            ("GET", "/categories", lambda r, p: Canned(copy.deepcopy(self.data["categories"]))),
            ("GET", "/categories/{slug}", self._one("categories", "slug", "slug", "no such category")),
            ("GET", "/countries/{code}", self._one("countries", "code", "code", "no such country")),
            ("GET", "/tenants/{tenant_id}/settings", self._one("tenants", "tenant_id", "tenant_id", "no such tenant")),
            ("GET", "/search", self._search),
        ]

    def _find(self, resource: str, key: str, value: str | None) -> dict[str, Any] | None:
        return next((item for item in self.data[resource] if item[key] == value), None)

    def _one(self, resource: str, key: str, param: str, missing: str) -> Responder:
        def responder(received: Received, params: dict[str, str]) -> Canned:
            item = self._find(resource, key, params.get(param))
            return Canned(copy.deepcopy(item)) if item is not None else _error(missing, 404)
        return responder

    # -- reads -----------------------------------------------------------------------------------------

    def _posts(self, received: Received, params: dict[str, str]) -> Canned:
        user_id = params["user_id"]
        if self._find("users", "id", user_id) is None:
            return _error("no such user", 404)
        return Canned([copy.deepcopy(p) for p in self.data["posts"] if p["user_id"] == user_id])

    def _post(self, received: Received, params: dict[str, str]) -> Canned:
        post = self._find("posts", "id", params["post_id"])
        if post is None or post["user_id"] != params["user_id"] or self._find("users", "id", post["user_id"]) is None:
            return _error("no such post for this user", 404)
        return Canned(copy.deepcopy(post))

    def _orders(self, received: Received, params: dict[str, str]) -> Canned:
        query = dict(received.query)
        page = _positive_int(query.get("page"), 1)
        size = _positive_int(query.get("page_size"), 20)
        if page is None or size is None or size > 100:
            return _error("page must be >= 1 and page_size in [1, 100]", 400)
        orders = self.data["orders"]
        start = (page - 1) * size
        return Canned({"items": copy.deepcopy(orders[start : start + size]), "total": len(orders),
                       "page": page, "page_size": size})

    def _search(self, received: Received, params: dict[str, str]) -> Canned:
        q = dict(received.query).get("q")
        if q is None or not q.strip():
            return _error("the query parameter q is required", 400)
        if q == "string":  # the planted bug: a placeholder-shaped query crashes the search
            return _error("internal", 500)
        needle = q.strip().lower()
        hits: list[dict[str, Any]] = []
        for kind, resource, key, title in (("user", "users", "id", "name"), ("product", "products", "sku", "name"),
                                           ("store", "stores", "id", "name")):
            for item in self.data[resource]:
                text = str(item[title]).lower()
                if needle in text:
                    score = 1.0 if text.startswith(needle) else 0.5
                    hits.append({"type": kind, "id": item[key], "title": item[title], "score": score})
        hits.sort(key=lambda h: -h["score"])
        return Canned({"query": q, "total": len(hits), "results": hits[:20]})

    # -- writes ----------------------------------------------------------------------------------------

    @staticmethod
    def _user_fields(body: dict[str, Any], partial: bool) -> dict[str, Any] | str:
        """The user fields a body sets, or why it is refused."""
        allowed = {"name", "email", "website", "country_code", "role", "tags"}
        unknown = sorted(set(body) - allowed)
        if unknown:
            return f"unknown fields: {', '.join(unknown)}"
        if not partial and not {"name", "email"} <= set(body):
            return "name and email are required"
        checks = {
            "name": lambda v: isinstance(v, str) and 0 < len(v) <= 100,
            "email": lambda v: isinstance(v, str) and v.count("@") == 1 and "." in v.split("@")[1],
            "website": lambda v: v is None or (isinstance(v, str) and v.startswith(("https://", "http://"))),
            "country_code": lambda v: isinstance(v, str) and len(v) == 2 and v.isascii() and v.isupper(),
            "role": lambda v: v in ("admin", "member", "guest"),
            "tags": lambda v: isinstance(v, list) and len(v) <= 5 and all(isinstance(t, str) for t in v),
        }
        bad = [name for name, value in body.items() if not checks[name](value)]
        return f"invalid fields: {', '.join(sorted(bad))}" if bad else dict(body)

    def _create_user(self, received: Received, params: dict[str, str]) -> Canned:
        body = _json_body(received)
        if body is None:
            return _error("the body must be a JSON object", 400)
        fields = self._user_fields(body, partial=False)
        if isinstance(fields, str):
            return _error(fields, 400)
        self._created += 1
        user_id = f"usr_new{self._created:02d}"
        user = {"id": user_id, "name": fields["name"], "email": fields["email"],
                "avatar_url": f"https://cdn.example.com/avatars/{user_id}.png", "website": fields.get("website"),
                "country_code": fields.get("country_code", "US"), "role": fields.get("role", "member"),
                "verified": False, "followers_count": 0, "tags": fields.get("tags", []),
                "created_at": _NEW_USER_CREATED_AT}
        self.data["users"].append(user)
        return Canned(copy.deepcopy(user), status=201)

    def _patch_user(self, received: Received, params: dict[str, str]) -> Canned:
        user = self._find("users", "id", params["user_id"])
        if user is None:
            return _error("no such user", 404)
        body = _json_body(received)
        if body is None:
            return _error("the body must be a JSON object", 400)
        fields = self._user_fields(body, partial=True)
        if isinstance(fields, str):
            return _error(fields, 400)
        user.update(fields)
        return Canned(copy.deepcopy(user))

    def _delete_user(self, received: Received, params: dict[str, str]) -> Canned:
        user_id = params["user_id"]
        if self._find("users", "id", user_id) is None:
            return _error("no such user", 404)
        self.data["users"] = [u for u in self.data["users"] if u["id"] != user_id]
        self.data["posts"] = [p for p in self.data["posts"] if p["user_id"] != user_id]
        return Canned(raw=b"", status=204)

    def _delete_order(self, received: Received, params: dict[str, str]) -> Canned:
        order_id = params["order_id"]
        if self._find("orders", "id", order_id) is None:
            return _error("no such order", 404)
        self.data["orders"] = [o for o in self.data["orders"] if o["id"] != order_id]
        return Canned(raw=b"", status=204)
