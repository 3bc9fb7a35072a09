"""A local staging server for a whole spec: every GET operation answered with a JSON body built from the spec.

The body of an operation is its 2XX JSON response's `example` (or first of `examples`) when the spec gives one,
else a value synthesized from its schema: objects with their properties, arrays of two items, the first enum
value, a value of the format (date-time, date, uri, email), the schema's example or default, else a typed
placeholder (`"string"`, 1, 1.5, true). Deterministic: the same spec gives the same bodies, built once; the
server (satori_ci.demo.StagingServer on 127.0.0.1) sends the same bytes every time.

    with ReplayStaging(spec, latency_s=0.05) as staging: ... staging.base_url ... staging.received()
"""

from __future__ import annotations

import json
from typing import Any

from satori_ci.demo import Canned, StagingServer
from satori_ci.plan.samples import raw_operation
from satori_ci.spec.model import Operation, Spec

MAX_DEPTH = 6
MAX_PROPERTIES = 40
_FORMATS = {"date-time": "2024-01-02T03:04:05Z", "date": "2024-01-02", "uri": "https://example.com/x",
            "url": "https://example.com/x", "email": "octocat@example.com",
            "uuid": "0b3d2c1a-0000-4000-8000-000000000001", "ipv4": "192.0.2.1", "hostname": "example.com"}


def synthesize(spec: Spec, schema: Any, depth: int = 0, seen: frozenset[int] = frozenset()) -> Any:
    """A value of `schema` (refs followed, recursion and depth cut to null)."""
    schema = spec.resolve(schema)
    if not isinstance(schema, dict) or depth > MAX_DEPTH or id(schema) in seen:
        return None
    seen = seen | {id(schema)}
    for key in ("example", "default", "const"):
        if key in schema and schema[key] is not None:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("allOf", "oneOf", "anyOf"):
        members = schema.get(key)
        if isinstance(members, list) and members:
            if key == "allOf":
                merged: dict[str, Any] = {}
                for member in members:
                    value = synthesize(spec, member, depth + 1, seen)
                    if isinstance(value, dict):
                        merged.update(value)
                if merged:
                    return merged
            else:
                return synthesize(spec, members[0], depth + 1, seen)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or (kind is None and isinstance(schema.get("properties"), dict)):
        found = schema.get("properties")
        props: dict[str, Any] = found if isinstance(found, dict) else {}
        return {name: synthesize(spec, sub, depth + 1, seen) for name, sub in list(props.items())[:MAX_PROPERTIES]}
    if kind == "array":
        item = synthesize(spec, schema.get("items"), depth + 1, seen)
        return [item, item] if item is not None else []
    if kind == "string":
        return _FORMATS.get(str(schema.get("format")), "string")
    if kind == "integer":
        return int(schema.get("minimum", 1)) if isinstance(schema.get("minimum"), int | float) else 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    return None


def body_of(spec: Spec, operation: Operation) -> Any:
    """The body of the operation's first 2XX JSON response: its example, else synthesized from its schema."""
    responses = raw_operation(spec, operation).get("responses")
    response = spec.resolve(responses.get(operation.statuses[0])) if isinstance(responses, dict) else None
    if not isinstance(response, dict):
        return None
    if "schema" in response:  # Swagger 2.0
        return synthesize(spec, response["schema"])
    found = response.get("content")
    content: dict[str, Any] = found if isinstance(found, dict) else {}
    media = next((m for t, m in content.items() if "json" in t or t == "*/*"), None)
    media = spec.resolve(media)
    if not isinstance(media, dict):
        return None
    if "example" in media:
        return media["example"]
    examples = media.get("examples")
    if isinstance(examples, dict) and examples:
        first = spec.resolve(next(iter(examples.values())))
        if isinstance(first, dict) and "value" in first:
            return first["value"]
    return synthesize(spec, media.get("schema"))


class ReplayStaging:
    """Every GET operation of `spec` with a 2XX JSON response, answered with `body_of` on 127.0.0.1."""

    def __init__(self, spec: Spec, latency_s: float = 0.0) -> None:
        self.server = StagingServer()
        self.operations = 0
        for operation in spec.operations:
            if operation.method != "GET" or not operation.statuses:
                continue
            payload = json.dumps(body_of(spec, operation), ensure_ascii=False, default=str).encode("utf-8")
            status = int(operation.statuses[0]) if operation.statuses[0].isdigit() else 200
            canned = Canned(raw=payload, status=status, delay_s=latency_s)
            self.server.route("GET", operation.path, lambda r, p, c=canned: c)
            self.operations += 1

    @property
    def base_url(self) -> str:
        return str(self.server.base_url)

    def received(self) -> int:
        """Requests answered so far."""
        return len(self.server.received)

    def __enter__(self) -> ReplayStaging:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
