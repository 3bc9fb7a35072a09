"""`load_spec`: from a file or `REV:path` to a `Spec` with its operations and response fields."""

from __future__ import annotations

import json
from typing import Any

from satori_ci.spec.documents import DocumentSet
from satori_ci.spec.errors import SpecError, SpecErrorKind
from satori_ci.spec.model import Spec, collector_paused
from satori_ci.spec.source import DEFAULT_MAX_BYTES, open_source
from satori_ci.spec.walker import collect


def detect_version(root: Any, name: str) -> tuple[str, str | None]:
    """`2.0`, `3.0.x` or `3.1.x`, and a warning when the document says so only by its structure.

    Converters write `openapi: "2.0"` over a Swagger 2.0 document (definitions, body parameters,
    responses with `schema`), or `swagger: "3.0"` over an OpenAPI 3 one; and some documents carry
    both keys. Such a document is read as the version its structure follows, with a warning; one
    that names no 2.0/3.0/3.1 version at all is not an OpenAPI document.
    """
    if not isinstance(root, dict):
        raise SpecError(SpecErrorKind.NOT_OPENAPI, f"{name}: not an OpenAPI document (top level is not a mapping)")
    swagger, openapi = root.get("swagger"), root.get("openapi")
    by_swagger, by_openapi = _named_version(swagger), _named_version(openapi)
    swagger_family = by_swagger[:1] if by_swagger else None
    openapi_family = by_openapi[:1] if by_openapi else None
    if openapi_family == "3" and swagger_family != "2":
        return str(by_openapi), None
    if swagger_family == "2" and openapi_family is None:
        return "2.0", None
    if swagger_family == "2" and openapi_family == "2":
        return "2.0", f"{name}: 'openapi: {_shown(openapi)}' is not an OpenAPI 3 version; read as Swagger 2.0"
    if swagger_family == "2":  # and an OpenAPI 3 version too
        return _by_structure(name, root, f"it says both 'swagger: {_shown(swagger)}' and "
                             f"'openapi: {_shown(openapi)}'", "2.0", str(by_openapi))
    if openapi_family == "2":
        three = by_swagger if swagger_family == "3" else "3.0"
        return _by_structure(name, root, f"'openapi: {_shown(openapi)}' is Swagger's version under OpenAPI 3's key",
                             "2.0", str(three))
    if swagger_family == "3":
        return _by_structure(name, root, f"'swagger: {_shown(swagger)}' is an OpenAPI 3 version under Swagger's key",
                             "2.0", str(by_swagger), default_three=True)
    found = f"swagger: {swagger!r}" if swagger is not None else (
        f"openapi: {openapi!r}" if openapi is not None else "no 'openapi' or 'swagger' key")
    raise SpecError(SpecErrorKind.NOT_OPENAPI,
                    f"{name}: not an OpenAPI 2.0/3.0/3.1 document ({found})")


def _named_version(value: Any) -> str | None:
    """The version a `swagger`/`openapi` value names when it is 2.x, 3.0.x, 3.1.x or 3.2.x (as text)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = value.strip() if isinstance(value, str) else str(value)  # `openapi: 3.0` unquoted in YAML is a number
    return text if text.startswith(("2", "3.0", "3.1", "3.2")) else None


def _shown(value: Any) -> str:
    return json.dumps(value) if isinstance(value, str) else str(value)


def _by_structure(name: str, root: dict[str, Any], why: str, two: str, three: str,
                  default_three: bool = False) -> tuple[str, str]:
    """The version the structure of `root` follows (the declared one when it does not tell), and the warning."""
    found = structure_family(root)
    family = found or ("3" if default_three else "2")
    version = three if family == "3" else two
    label = "Swagger 2.0" if version.startswith("2") else f"OpenAPI {version}"
    return version, f"{name}: {why}; read as {label}{' by its structure' if found else ''}"


_SWAGGER_KEYS = ("definitions", "basePath", "host", "produces", "consumes", "schemes", "securityDefinitions",
                 "parameters", "responses")
_OPENAPI3_KEYS = ("components", "servers", "webhooks")


def structure_family(root: dict[str, Any]) -> str | None:
    """`"2"` when a document is built as Swagger 2.0, `"3"` as OpenAPI 3, None when it does not tell.

    Counts the marks of each: top-level keys (`definitions`, `basePath`, `produces`, `responses`... against
    `components`, `servers`, `webhooks`), body and form parameters against `requestBody`, and
    responses with `schema` against responses with `content`.
    """
    two = sum(1 for key in _SWAGGER_KEYS if key in root)
    three = sum(1 for key in _OPENAPI3_KEYS if key in root)
    paths = root.get("paths")
    for item in paths.values() if isinstance(paths, dict) else ():
        if not isinstance(item, dict):
            continue
        for op in item.values():
            if not isinstance(op, dict):
                continue
            if "requestBody" in op:
                three += 1
            params = op.get("parameters")
            for param in params if isinstance(params, list) else ():
                if isinstance(param, dict) and param.get("in") in ("body", "formData"):
                    two += 1
            responses = op.get("responses")
            for response in responses.values() if isinstance(responses, dict) else ():
                if isinstance(response, dict):
                    two += "schema" in response
                    three += "content" in response
    if two == three:
        return None
    return "2" if two > three else "3"


def load_spec(ref: str, *, follow_remote_refs: bool = False, max_bytes: int = DEFAULT_MAX_BYTES) -> Spec:
    """Read, resolve and list the response fields of the spec at `ref` (a path or `REV:path`)."""
    with collector_paused():
        try:
            return _load(ref, follow_remote_refs, max_bytes)
        except RecursionError:  # schemas nested (through refs) deeper than the interpreter's stack
            raise SpecError(SpecErrorKind.TOO_LARGE, f"{ref}: schemas nested too deeply") from None


def _load(ref: str, follow_remote_refs: bool, max_bytes: int) -> Spec:
    reader = open_source(ref, max_bytes=max_bytes)
    documents = DocumentSet(reader, follow_remote=follow_remote_refs)
    root = documents.root()
    name = reader.display_entry
    version, warning = detect_version(root, name)
    info = root.get("info")
    title = str(info.get("title", "")) if isinstance(info, dict) else ""
    operations, bodies = collect(documents, root, version, title)
    return Spec(
        source=name,
        oas_version=version,
        title=title,
        servers=_servers(root),
        operations=operations,
        bodies=bodies,
        documents=documents,
        warnings=(warning,) if warning else (),
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
