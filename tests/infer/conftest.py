"""Fixtures for the infer tests: a local OpenAI-compatible server, field factories, a stub fallback."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from satori_ci.infer.interface import BackendRun, BackendStats, Inferred, OnInferred
from satori_ci.spec.model import FieldFacts, OperationKey, ResponseField, SourceLocation
from tests.servers.openai_server import FakeOpenAIServer

OPENAI_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ADMIN_KEY", "OPENAI_ORG_ID",
              "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS", "OPENAI_WEBHOOK_SECRET")


@pytest.fixture
def clean_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OpenAI settings from the machine, and no proxy between the client and 127.0.0.1."""
    for name in OPENAI_ENV:
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def fake_openai(clean_openai_env: None) -> Iterator[FakeOpenAIServer]:
    """A started FakeOpenAIServer (see tests/servers/openai_server.py), stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server


FieldFactory = Callable[..., ResponseField]


@pytest.fixture
def make_field() -> FieldFactory:
    """`make_field("businesses[].price", "string", description=...)`: a ResponseField with facts."""

    def make(path: str, type_: str = "string", *, method: str = "GET", api_path: str = "/businesses/search",
             status: str = "200", operation_id: str | None = "getBusinesses", api_title: str = "Yelp Fusion",
             **facts: Any) -> ResponseField:
        name = path.rsplit(".", 1)[-1] if path else "[]"
        return ResponseField(
            operation=OperationKey(method, api_path, status),
            operation_id=operation_id,
            field=path,
            name=name,
            type=type_,
            facts=FieldFacts(**facts),
            api_title=api_title,
            location=SourceLocation("openapi.yaml", "/paths/~1businesses~1search/get"),
            fingerprint=f"fp-{path}",
        )

    return make


class StubFallback:
    """A fallback backend that finds nothing and records what it was asked."""

    name = "rules"

    def __init__(self, warning: str | None = None) -> None:
        self.calls: list[list[ResponseField]] = []
        self.warning = warning

    def infer(self, fields: Sequence[ResponseField], on_inferred: OnInferred | None = None) -> BackendRun:
        self.calls.append(list(fields))
        results = []
        for f in fields:
            inferred = Inferred(f, (), ("stub fallback",))
            if on_inferred is not None:
                on_inferred(inferred)
            results.append(inferred)
        warnings = (self.warning,) if self.warning else ()
        return BackendRun(tuple(results), BackendStats(warnings=warnings))

    @property
    def fields_seen(self) -> list[str]:
        return [f.field for call in self.calls for f in call]


@pytest.fixture
def fallback() -> StubFallback:
    return StubFallback()
