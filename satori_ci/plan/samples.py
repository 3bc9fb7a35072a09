"""Sample request inputs from the spec: parameters and JSON bodies from `example`/`examples`/`default`/`enum`.

A value comes from, in order: the parameter's own `example`, the schema's `example` and `examples`
(explicit examples give one request each, up to `MAX_VARIANTS`), then `default`, `const`, the first
`enum` value, and last a placeholder of the schema's type and format. Optional parameters are sent only
when the spec gives them an example or a default. Everything here is a pure function of the spec.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from satori_ci.oracles.check import to_json
from satori_ci.spec.model import Operation, Spec
from satori_ci.spec.routes import parse_template

MAX_VARIANTS = 3
"""At most this many requests per operation (one per explicit example of the most exemplified input)."""
MAX_DEPTH = 6
"""Nesting depth of a generated body before objects and arrays are left empty (cuts recursive schemas)."""

_SKIPPED_HEADERS = frozenset({"accept", "content-type", "authorization"})

_FORMAT_PLACEHOLDERS = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T00:00:00Z",
    "time": "00:00:00",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "iri": "https://example.com",
    "hostname": "example.com",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "byte": "c2F0b3JpLWNp",
    "password": "password",
}


@dataclass(frozen=True)
class SampleRequest:
    """One concrete request for an operation. Path and query values are already percent-encoded."""

    path_params: tuple[tuple[str, str], ...]
    query: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...]
    body: str | None
    """The raw JSON body text, or None."""
    media_type: str | None
    placeholders: tuple[str, ...] = ()
    guessed: tuple[str, ...] = ()
    """Query and header parameters sent with a typed placeholder (the spec gives no value): a 5XX may be ours."""
    """Path parameters that carry a typed placeholder (no value from the config, a chain or the spec)."""

    def path(self, template: str) -> str:
        """The template with the (encoded) path values in place."""
        return parse_template(template).fill(dict(self.path_params))

    def query_string(self) -> str:
        return "&".join(f"{k}={v}" for k, v in self.query)


def encode(text: str) -> str:
    """Percent-encode everything but RFC 3986's unreserved characters (Postman sends it as is)."""
    return quote(text, safe="")


# -- schemas ---------------------------------------------------------------------------------------


def _resolve(spec: Spec, node: Any, depth: int = 0) -> dict[str, Any]:
    """The schema with refs followed and `allOf` members merged; `{}` for anything unusable."""
    node = spec.resolve(node)
    if not isinstance(node, dict):
        return {}
    members = node.get("allOf")
    if not isinstance(members, list) or depth > MAX_DEPTH:
        return node
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    required: list[Any] = list(merged.get("required") or [])
    for member in members:
        part = _resolve(spec, member, depth + 1)
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                for name, prop in value.items():
                    properties.setdefault(name, prop)
            elif key == "required" and isinstance(value, list):
                required.extend(r for r in value if r not in required)
            else:
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def _type_of(schema: dict[str, Any]) -> str | None:
    t = schema.get("type")
    if isinstance(t, list):
        named = [x for x in t if isinstance(x, str) and x != "null"]
        return named[0] if named else None
    if isinstance(t, str):
        return t
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return None


def _dedupe(values: Sequence[Any]) -> list[Any]:
    seen: set[str] = set()
    out: list[Any] = []
    for v in values:
        key = json.dumps(v, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def explicit_examples(schema: dict[str, Any]) -> list[Any]:
    """`example`, then `examples` (a list, or OAS 3 Example Objects' `value`s), without nulls."""
    out: list[Any] = []
    if schema.get("example") is not None:
        out.append(schema["example"])
    examples = schema.get("examples")
    if isinstance(examples, list):
        out.extend(e for e in examples if e is not None)
    elif isinstance(examples, dict):
        for entry in examples.values():
            if isinstance(entry, dict) and entry.get("value") is not None:
                out.append(entry["value"])
    return _dedupe(out)


def _fallback(schema: dict[str, Any]) -> tuple[bool, Any]:
    """(True, value) from `default`, `const` or the first `enum` value; (False, None) without them."""
    if schema.get("default") is not None:
        return True, schema["default"]
    if schema.get("const") is not None:
        return True, schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list):
        for value in enum:
            if value is not None:
                return True, value
    return False, None


def _bound(schema: dict[str, Any], key: str, exclusive_key: str) -> tuple[float | None, bool]:
    """A bound and whether it is exclusive (OAS 3.0 booleans and OAS 3.1 numbers both understood)."""
    bound, exclusive = schema.get(key), schema.get(exclusive_key)
    if isinstance(exclusive, int | float) and not isinstance(exclusive, bool):
        return float(exclusive), True
    if isinstance(bound, int | float) and not isinstance(bound, bool):
        return float(bound), exclusive is True
    return None, False


def _number_placeholder(schema: dict[str, Any], integer: bool) -> int | float:
    """1, moved inside the schema's bounds when it is outside them."""
    value = 1.0
    low, low_exclusive = _bound(schema, "minimum", "exclusiveMinimum")
    high, high_exclusive = _bound(schema, "maximum", "exclusiveMaximum")
    if low is not None and (value < low or (low_exclusive and value <= low)):
        value = low + 1 if low_exclusive else low
    if high is not None and (value > high or (high_exclusive and value >= high)):
        value = high - 1 if high_exclusive else high
    if not math.isfinite(value):
        return 1
    if integer:
        return math.ceil(value)
    return int(value) if value.is_integer() else value


def _string_placeholder(schema: dict[str, Any]) -> str:
    fmt = schema.get("format")
    text = _FORMAT_PLACEHOLDERS.get(fmt, "string") if isinstance(fmt, str) else "string"
    min_len, max_len = schema.get("minLength"), schema.get("maxLength")
    if isinstance(min_len, int) and len(text) < min_len:
        text = text + "x" * (min_len - len(text))
    if isinstance(max_len, int) and max_len >= 0 and len(text) > max_len:
        text = text[:max_len]
    return text


def sample_value(spec: Spec, node: Any, depth: int = 0) -> Any:
    """One value for a schema: its first explicit example, its default/const/enum, else a typed placeholder."""
    schema = _resolve(spec, node)
    found = explicit_examples(schema)
    if found:
        return found[0]
    has_fallback, value = _fallback(schema)
    if has_fallback:
        return value
    return placeholder(spec, schema, depth)


def placeholder(spec: Spec, schema: dict[str, Any], depth: int = 0) -> Any:
    """A value of the schema's type built from its properties and items (no example on the schema itself)."""
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if isinstance(options, list) and options and _type_of(schema) is None:
            return sample_value(spec, options[0], depth + 1)
    kind = _type_of(schema)
    if kind == "object":
        if depth >= MAX_DEPTH:
            return {}
        properties = schema.get("properties")
        required = schema.get("required")
        required_names = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
        out: dict[str, Any] = {}
        if isinstance(properties, dict):
            for name, prop in properties.items():
                prop_schema = _resolve(spec, prop)
                if prop_schema.get("readOnly") is True:
                    continue
                if name in required_names or explicit_examples(prop_schema) or _fallback(prop_schema)[0]:
                    out[str(name)] = sample_value(spec, prop_schema, depth + 1)
        return out
    if kind == "array":
        if depth >= MAX_DEPTH:
            return []
        items = schema.get("items")
        element = sample_value(spec, items if isinstance(items, dict) else {}, depth + 1)
        min_items = schema.get("minItems")
        count = max(1, min_items) if isinstance(min_items, int) else 1
        return [element] * min(count, 10)
    if kind == "integer":
        return _number_placeholder(schema, integer=True)
    if kind == "number":
        return _number_placeholder(schema, integer=False)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return _string_placeholder(schema)


# -- parameters ------------------------------------------------------------------------------------


def scalar_text(value: Any) -> str:
    """A value as it is written in a URL or header: strings as they are, the rest as JSON (JavaScript's)."""
    return value if isinstance(value, str) else to_json(value)


@dataclass(frozen=True)
class _Input:
    name: str
    location: str
    candidates: tuple[Any, ...]
    placeholder: bool = False
    """The value is a typed placeholder: nothing in the config, a chain or the spec gave one."""
    raw: bool = False
    """The candidates are sent as they are (a `{{variable}}` of a chain), not encoded."""


def _parameter_inputs(spec: Spec, operation: Operation, values: Mapping[str, str],
                      chained: Mapping[str, str]) -> list[_Input]:
    inputs: list[_Input] = []
    for param in operation.parameters:
        if param.location not in ("path", "query", "header", "cookie"):
            continue
        if param.location == "header" and param.name.lower() in _SKIPPED_HEADERS:
            continue
        if param.name in chained and param.location in ("path", "query", "header"):
            inputs.append(_Input(param.name, param.location, (chained[param.name],), raw=True))
            continue
        if param.name in values:
            inputs.append(_Input(param.name, param.location, (values[param.name],)))
            continue
        schema = _resolve(spec, param.schema)
        candidates = _dedupe(([param.example] if param.example is not None else []) + explicit_examples(schema))
        is_placeholder = False
        if not candidates:
            has_fallback, value = _fallback(schema)
            if schema.get("default") is not None:
                candidates = [schema["default"]]
            elif not (param.required or param.location == "path"):
                continue  # optional, and the spec suggests no value
            else:
                candidates = [value] if has_fallback else [placeholder(spec, schema)]
                is_placeholder = not has_fallback
        if param.location == "header":
            candidates = [c for c in candidates if _header_safe(c)] or [placeholder(spec, schema)]
        inputs.append(_Input(param.name, param.location, tuple(candidates), is_placeholder))
    return inputs


def _header_safe(value: Any) -> bool:
    """A header value that goes through Postman unchanged: Latin-1, one line, no `{{` variable syntax."""
    text = _joined(value, ",")
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return "\r" not in text and "\n" not in text and "{{" not in text


def _joined(value: Any, sep: str) -> str:
    if isinstance(value, list):
        return sep.join(scalar_text(v) for v in value)
    if isinstance(value, dict):
        return sep.join(f"{k}{sep}{scalar_text(v)}" for k, v in value.items())
    return scalar_text(value)


def _query_pairs(name: str, value: Any, swagger: bool) -> list[tuple[str, str]]:
    """OAS 3 `form` style with `explode` (repeated keys, object properties as keys); Swagger 2 `csv`."""
    if isinstance(value, list):
        if swagger:
            return [(encode(name), encode(_joined(value, ",")))]
        return [(encode(name), encode(scalar_text(v))) for v in value]
    if isinstance(value, dict):
        return [(encode(str(k)), encode(scalar_text(v))) for k, v in value.items()]
    return [(encode(name), encode(scalar_text(value)))]


# -- request bodies --------------------------------------------------------------------------------


def raw_operation(spec: Spec, operation: Operation) -> dict[str, Any]:
    """The operation object as written in the spec (for media-level examples and `security`)."""
    documents = spec.documents
    if documents is None:
        return {}
    node: Any = documents.document(operation.location.file)
    for token in operation.location.pointer.lstrip("/").split("/") if operation.location.pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or token not in node:
            return {}
        node = node[token]
    return node if isinstance(node, dict) else {}


def _body_candidates(spec: Spec, operation: Operation, raw_op: dict[str, Any]) -> list[Any]:
    if operation.request_body is None and operation.request_media_type is None:
        return []
    media_examples: list[Any] = []
    request_body = spec.resolve(raw_op.get("requestBody"))
    content = request_body.get("content") if isinstance(request_body, dict) else None
    if isinstance(content, dict) and operation.request_media_type in content:
        media = content[operation.request_media_type]
        if isinstance(media, dict):
            media_examples = explicit_examples(media)
    schema = _resolve(spec, operation.request_body)
    examples = _dedupe(media_examples + explicit_examples(schema))
    return examples or [sample_value(spec, schema)]


def json_body_text(value: Any) -> str:
    """Pretty JSON whose strings never contain `{{` (Postman would substitute variables): `{` as `\\u007b`."""
    text = json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)
    if "{{" not in text:
        return text
    return _escape_braces_in_strings(text)


def _escape_braces_in_strings(text: str) -> str:
    out: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            elif ch == "{":
                out.append("\\u007b")
                continue
        elif ch == '"':
            in_string = True
        out.append(ch)
    return "".join(out)


# -- requests --------------------------------------------------------------------------------------


def sample_requests(spec: Spec, operation: Operation, values: Mapping[str, str] | None = None,
                    chained: Mapping[str, str] | None = None) -> tuple[SampleRequest, ...]:
    """One request per explicit example of the most exemplified input (at least one, at most MAX_VARIANTS).

    `values` (parameter name -> text, from the config) replace the spec's suggestions; `chained` (path
    parameter -> `{{variable}}`) are filled at run time from earlier responses and sent as they are.
    """
    raw_op = raw_operation(spec, operation)
    inputs = _parameter_inputs(spec, operation, values or {}, chained or {})
    bodies = _body_candidates(spec, operation, raw_op)
    count = min(MAX_VARIANTS, max([len(i.candidates) for i in inputs] + [len(bodies), 1]))
    swagger = spec.oas_version.startswith("2")
    return tuple(_request(operation, inputs, bodies, k, swagger) for k in range(count))


def _pick(candidates: Sequence[Any], k: int) -> Any:
    return candidates[k] if k < len(candidates) else candidates[0]


def _request(operation: Operation, inputs: list[_Input], bodies: list[Any], k: int,
             swagger: bool) -> SampleRequest:
    path: list[tuple[str, str]] = []
    query: list[tuple[str, str]] = []
    headers: list[tuple[str, str]] = [("Accept", "application/json")]
    cookies: list[str] = []
    for item in inputs:
        value = _pick(item.candidates, k)
        if item.location == "path":
            path.append((item.name, value if item.raw else encode(_joined(value, ","))))
        elif item.location == "query":
            query.extend([(encode(item.name), value)] if item.raw else _query_pairs(item.name, value, swagger))
        elif item.location == "header":
            headers.append((item.name, _joined(value, ",")))
        else:
            cookies.append(f"{encode(item.name)}={encode(_joined(value, ','))}")
    if cookies:
        headers.append(("Cookie", "; ".join(cookies)))
    body: str | None = None
    media = operation.request_media_type
    if bodies:
        body = json_body_text(_pick(bodies, k))
        media = media or "application/json"
        headers.append(("Content-Type", media))
    placeholders = tuple(i.name for i in inputs if i.placeholder and i.location == "path")
    guessed = tuple(i.name for i in inputs if i.placeholder and i.location != "path")
    return SampleRequest(tuple(path), tuple(query), tuple(headers), body, media if bodies else None, placeholders,
                         guessed)


def describe(template: str, request: SampleRequest) -> Iterator[str]:
    """Human-readable parts of the request (used in names): the path and the query."""
    yield request.path(template)
    if request.query:
        yield "?" + request.query_string()
