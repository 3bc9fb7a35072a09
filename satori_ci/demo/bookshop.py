"""The bookshop example API on a `StagingServer`: correct answers, one planted fault of a given oracle kind
(`Bookshop.plant`), and the demo's own bugs (`DemoBookshop`); the example specs it answers for (package data).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .staging import Canned, Received, StagingServer

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "bookshop"


def example_specs() -> tuple[Path, Path]:
    """The example spec before and after the pull request (package data: installed with satori-ci)."""
    return EXAMPLES / "openapi.v1.yaml", EXAMPLES / "openapi.v2.yaml"


BOOKS: tuple[dict[str, Any], ...] = (
    {"isbn": "9780441172719", "title": "Dune", "format": "paperback", "rating": 4.5,
     "cover_url": "https://covers.example.com/9780441172719.jpg", "published": "1965-08-01", "language": "en",
     "store": {"latitude": 40.7128, "longitude": -74.006, "updated_at": "2024-05-01T09:30:00Z"}},
    {"isbn": "9780553283686", "title": "Hyperion", "format": "hardcover", "rating": 4.2,
     "cover_url": "https://covers.example.com/9780553283686.jpg", "published": "1989-05-26", "language": "en",
     "store": {"latitude": 51.5072, "longitude": -0.1276, "updated_at": "2024-05-02T18:05:00Z"}},
    {"isbn": "9782070360024", "title": "L'Étranger", "format": "ebook", "rating": 4.0,
     "cover_url": "https://covers.example.com/9782070360024.jpg", "published": "1942-05-19", "language": "fr",
     "store": {"latitude": 48.8566, "longitude": 2.3522, "updated_at": "2024-04-30T07:00:00+02:00"}},
)


def _book_fault(field_name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(body: dict[str, Any]) -> None:
        books = body.get("books", [body])
        target = books[-1]
        if "." in field_name:
            outer, inner = field_name.split(".", 1)
            target[outer][inner] = value
        else:
            target[field_name] = value
    return apply


def _too_many(body: dict[str, Any]) -> None:
    if "books" in body:
        body["books"] = [copy.deepcopy(BOOKS[i % len(BOOKS)]) for i in range(51)]
        body["total"] = 51


def _negative_total(body: dict[str, Any]) -> None:
    if "total" in body:
        body["total"] = -1


BOOKSHOP_FAULTS: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    # fault name: (the oracle kind that catches it, how it changes a correct body)
    "cover_url_not_url": ("string_is_url", _book_fault("cover_url", "covers/9780441172719.jpg")),
    "isbn_not_numeric": ("string_is_numeric", _book_fault("isbn", "978044117271X")),
    "format_unknown": ("string_specific_values", _book_fault("format", "paperback-ish")),
    "published_not_date": ("string_is_date", _book_fault("published", "sometime in 1965")),
    "updated_at_not_time": ("string_is_time", _book_fault("store.updated_at", "yesterday")),
    "isbn_wrong_length": ("string_fixed_length", _book_fault("isbn", "97804411727")),
    "rating_too_low": ("number_min_value", _book_fault("rating", 0.5)),
    "rating_too_high": ("number_max_value", _book_fault("rating", 7)),
    "latitude_out_of_range": ("number_max_value", _book_fault("store.latitude", 123.4)),
    "total_negative": ("number_min_value", _negative_total),
    "too_many_books": ("array_max_size", _too_many),
}


def list_body(limit: int = 10, fault: str | None = None) -> dict[str, Any]:
    """A correct `GET /books` body (or one with the planted fault)."""
    books = [copy.deepcopy(b) for b in BOOKS][: max(0, limit)]
    return plant_fault({"total": len(BOOKS), "books": books}, fault)


def book_body(index: int = 0, fault: str | None = None) -> dict[str, Any]:
    """A correct `GET /books/{isbn}` body (or one with the planted fault)."""
    return plant_fault(copy.deepcopy(BOOKS[index % len(BOOKS)]), fault)


def _known(fault: str | None) -> None:
    if fault is not None and fault not in BOOKSHOP_FAULTS:
        raise KeyError(f"unknown fault {fault!r}; known: {', '.join(sorted(BOOKSHOP_FAULTS))}")


def plant_fault(body: dict[str, Any], fault: str | None) -> dict[str, Any]:
    """The body with the fault planted in it (changed in place); None leaves it correct."""
    _known(fault)
    if fault is not None:
        BOOKSHOP_FAULTS[fault][1](body)
    return body


class Bookshop:
    """The bookshop API on a StagingServer: correct answers unless a fault is planted."""

    LIST = ("GET", "/books")
    ONE = ("GET", "/books/{isbn}")

    def __init__(self, server: StagingServer | None = None) -> None:
        self.server = server or StagingServer()
        self.fault: str | None = None
        self.server.route(*self.LIST, self._list)
        self.server.route(*self.ONE, self._one)

    def plant(self, fault: str | None) -> None:
        """Answer with this fault from now on (None: correct answers again)."""
        _known(fault)
        self.fault = fault

    def _list(self, received: Received, params: dict[str, str]) -> Canned:
        query = dict(received.query)
        try:
            limit = int(query.get("limit", "10"))
        except ValueError:
            return Canned({"error": "limit must be an integer"}, status=400)
        return Canned(list_body(limit, self.fault))

    def _one(self, received: Received, params: dict[str, str]) -> Canned:
        for index, book in enumerate(BOOKS):
            if book["isbn"] == params.get("isbn"):
                return Canned(book_body(index, self.fault))
        return Canned({"error": "no such book"}, status=404)


def _wrong_v2_fields(book: dict[str, Any], index: int) -> dict[str, Any]:
    """The staging API gets some of the fields v2 adds wrong."""
    if index == 1:
        book["language"] = "eng"  # ISO 639-1 codes have 2 letters
        book["store"]["latitude"] = 123.4  # no such latitude
    if index == 2:
        book["store"]["updated_at"] = "yesterday"  # not a date-time
    return book


class DemoBookshop(Bookshop):
    """The bookshop example with the v2 fields answered wrongly for two of its books."""

    def _list(self, received: Received, params: dict[str, str]) -> Canned:
        books = [_wrong_v2_fields(copy.deepcopy(b), i) for i, b in enumerate(BOOKS)]
        return Canned({"total": len(books), "books": books})

    def _one(self, received: Received, params: dict[str, str]) -> Canned:
        for index, book in enumerate(BOOKS):
            if book["isbn"] == params.get("isbn"):
                return Canned(_wrong_v2_fields(copy.deepcopy(book), index))
        return Canned({"error": "no such book"}, status=404)
