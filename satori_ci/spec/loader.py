"""`load_spec`: from a file or `REV:path` to a `Spec` with its operations and response fields."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from satori_ci.spec.documents import DocumentSet
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.model import Spec
from satori_ci.spec.source import DEFAULT_MAX_BYTES, open_source
from satori_ci.spec.walker import collect


def detect_version(root: Any, name: str) -> str:
    """`2.0`, `3.0.x` or `3.1.x`; anything else is not an OpenAPI document."""
    if not isinstance(root, dict):
        raise SpecError(SpecErrorKind.NOT_OPENAPI, f"{name}: not an OpenAPI document (top level is not a mapping)")
    swagger, openapi = root.get("swagger"), root.get("openapi")
    if swagger is not None and str(swagger).startswith("2"):
        return "2.0"
    if isinstance(openapi, str) and openapi.startswith(("3.0", "3.1", "3.2")):
        return openapi
    if isinstance(openapi, float) and openapi in (3.0, 3.1, 3.2):
        return str(openapi)  # `openapi: 3.0` unquoted in YAML is a number; the intent is plain
    found = f"swagger: {swagger!r}" if swagger is not None else (
        f"openapi: {openapi!r}" if openapi is not None else "no 'openapi' or 'swagger' key")
    raise SpecError(SpecErrorKind.NOT_OPENAPI,
                    f"{name}: not an OpenAPI 2.0/3.0/3.1 document ({found})")


def load_spec(ref: str, *, follow_remote_refs: bool = False, max_bytes: int = DEFAULT_MAX_BYTES) -> Spec:
    """Read, resolve and list the response fields of the spec at `ref` (a path or `REV:path`)."""
    with _collector_paused():
        try:
            return _load(ref, follow_remote_refs, max_bytes)
        except RecursionError:  # schemas nested (through refs) deeper than the interpreter's stack
            raise SpecError(SpecErrorKind.TOO_LARGE, f"{ref}: schemas nested too deeply") from None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a spec is loaded.

    A large spec is millions of acyclic dicts and lists; while they and the fields are built, the
    collector's full passes over them find nothing and cost about as much as the parse itself
    (GitHub's spec). Reference counting still frees everything; collection resumes afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load(ref: str, follow_remote_refs: bool, max_bytes: int) -> Spec:
    reader = open_source(ref, max_bytes=max_bytes)
    documents = DocumentSet(reader, follow_remote=follow_remote_refs)
    root = documents.root()
    name = reader.display_entry
    version = detect_version(root, name)
    info = root.get("info")
    title = str(info.get("title", "")) if isinstance(info, dict) else ""
    operations, fields = collect(documents, root, version, title)
    return Spec(
        source=name,
        oas_version=version,
        title=title,
        servers=_servers(root),
        operations=operations,
        fields=fields,
        documents=documents,
    )


def _servers(root: dict[str, Any]) -> tuple[str, ...]:
    servers = root.get("servers")
    if isinstance(servers, list):
        return tuple(s["url"] for s in servers if isinstance(s, dict) and isinstance(s.get("url"), str))
    host = root.get("host")
    if isinstance(host, str):
        schemes = root.get("schemes")
        if isinstance(schemes, str):
            schemes = [schemes]
        scheme = next((s for s in schemes if isinstance(s, str)), "https") if isinstance(schemes, list) else "https"
        base_path = root.get("basePath")
        return (f"{scheme}://{host}{base_path if isinstance(base_path, str) else ''}",)
    return ()
