"""`satori-ci demo`: the bundled bookshop example, v1 -> v2, against a local staging API with bugs.

`staging`: `StagingServer` (a local HTTP server answering canned or computed responses per route, for the
demo, the tests and the benchmarks); `bookshop`: the bookshop example API on it (`Bookshop`, its planted faults,
`DemoBookshop` with the demo's bugs) and `example_specs`; `python -m satori_ci.demo` serves it.
"""

from __future__ import annotations

from .bookshop import (
    BOOKS,
    BOOKSHOP_FAULTS,
    EXAMPLES,
    Bookshop,
    DemoBookshop,
    book_body,
    example_specs,
    list_body,
    plant_fault,
)
from .staging import Canned, Matcher, Received, Responder, StagingServer

__all__ = [
    "BOOKS",
    "BOOKSHOP_FAULTS",
    "EXAMPLES",
    "Bookshop",
    "Canned",
    "DemoBookshop",
    "Matcher",
    "Received",
    "Responder",
    "StagingServer",
    "book_body",
    "example_specs",
    "list_body",
    "plant_fault",
]
