"""Specs built by the tests: one full of hostile strings, one with every supported kind of credential."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from satori_ci.oracles.file import FieldEntry, OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec import Spec, load_spec


def hostile_strings(marker: Path) -> list[str]:
    """Strings that break code they are pasted into: quotes, tags, templates, newlines, a require."""
    return [
        'say "hi"',
        "it's",
        "</script><script>alert(1)</script>",
        "`${process.exit(3)}`",
        "${pm.environment.set('owned', 1)}",
        "line one\nline two\r\n\ttabbed",
        f"require('fs').writeFileSync({json.dumps(str(marker))}, 'owned')",
        "back\\slash \\u0041 \\n",
        "sep\u2028arator\u2029",
        "'); pm.test('injected', function () {}); ('",
        "\"); pm.test(\"injected\", function () {}); (\"",
        "{{baseUrl}}",
        "*/ /* <!-- -->",
        "é 😀 \u0000 \u001f",
    ]


def hostile_names(marker: Path) -> list[str]:
    return [
        'quote"name',
        "</script>",
        "tick`${1+1}`",
        "new\nline",
        f"require('fs').writeFileSync({json.dumps(str(marker))}, 'x')",
        "dot.ted[0]{x}\\",
        "__proto__",
        "'); pm.test('injected', function () {}); ('",
    ]


HOSTILE_PATH = "/hostile/{id}"


def hostile_spec(tmp: Path, marker: Path) -> tuple[Spec, list[str]]:
    """A spec whose field names, enums, descriptions, summary and examples are hostile; and the field names."""
    values = hostile_strings(marker)
    names = hostile_names(marker)
    properties: dict[str, dict[str, Any]] = {
        name: {"type": "string", "enum": values[i % 3:] + values[: i % 3],
               "description": values[(i + 5) % len(values)]}
        for i, name in enumerate(names)
    }
    properties["n\"um`${x}`"] = {"type": "number", "description": "</script>", "minimum": 0}
    spec = {
        "openapi": "3.0.3",
        "info": {"title": 'Hostile "API" </script> `${x}`\nrequire("fs")', "version": "1"},
        "paths": {
            HOSTILE_PATH: {"get": {
                "operationId": "hostile`${op}`\"",
                "summary": values[5] + values[2],
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "example": "a/b c?#%"}},
                    {"name": "q", "in": "query",
                     "schema": {"type": "string", "example": "x&y=z#\n\"'`${1}`</script>{{baseUrl}}"}},
                    {"name": "X-Note", "in": "header",
                     "schema": {"type": "string", "example": "it's \"quoted\" `${x}`"}},
                ],
                "responses": {"200": {"description": values[6], "content": {"application/json": {"schema": {
                    "type": "object", "properties": properties}}}}},
            }},
        },
    }
    path = tmp / "hostile.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return load_spec(str(path)), names


def hostile_oracles(spec: Spec) -> list[Oracle]:
    """One string_specific_values per string field (its enum), a number_min_value; read back from the file."""
    entries = []
    for f in spec.fields:
        if f.type == "string" and f.facts.enum:
            oracle = Oracle(f.operation, f.field, OracleKind.STRING_SPECIFIC_VALUES, tuple(f.facts.enum), "manual",
                            f.facts.description or "")
        elif f.type == "number":
            oracle = Oracle(f.operation, f.field, OracleKind.NUMBER_MIN_VALUE, 0, "manual", f.facts.description or "")
        else:
            continue
        entries.append(FieldEntry(f.operation, f.field, f.fingerprint, (oracle,)))
    text = dump_oracle_file(OracleFile(spec.source, tuple(entries)))
    return load_oracle_file(text, "hostile.oracles.yaml").enabled_oracles()


def hostile_bodies(spec: Spec) -> tuple[dict[str, Any], dict[str, Any]]:
    """(a body every oracle accepts, a body where each field breaks its oracle with another hostile string)."""
    props = _properties(spec)
    good: dict[str, Any] = {}
    bad: dict[str, Any] = {}
    for name, schema in props.items():
        if schema["type"] == "number":
            good[name], bad[name] = 1.5, -0.25
        else:
            good[name] = schema["enum"][-1]
            bad[name] = schema["enum"][0] + "\u2028"
    return good, bad


def _properties(spec: Spec) -> dict[str, Any]:
    root = spec.documents.root()
    schema = root["paths"][HOSTILE_PATH]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    props: dict[str, Any] = schema["properties"]
    return props


AUTH_SECRETS = {
    "SATORI_AUTH_HEADERKEY": "h-secret-1",
    "SATORI_AUTH_QUERYKEY": "q secret&2=",
    "SATORI_AUTH_TOKEN": "tok-secret-3",
    "SATORI_AUTH_BASICAUTH": "user:pa:ss-4",
    "SATORI_AUTH_COOKIEKEY": "cookie-secret-5",
}


def auth_spec(tmp: Path) -> Spec:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"ok": {"type": "boolean"}}}}}}}
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Secured API", "version": "1"},
        "components": {"securitySchemes": {
            "headerKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
            "queryKey": {"type": "apiKey", "in": "query", "name": "api key"},
            "token": {"type": "http", "scheme": "bearer"},
            "basicAuth": {"type": "http", "scheme": "basic"},
            "cookieKey": {"type": "apiKey", "in": "cookie", "name": "session"},
            "digest": {"type": "http", "scheme": "digest"},
        }},
        "security": [{"headerKey": [], "queryKey": []}],
        "paths": {
            "/secure/keys": {"get": {"operationId": "keys", "responses": ok}},
            "/secure/token": {"get": {"operationId": "token", "security": [{"token": []}], "responses": ok}},
            "/secure/basic": {"get": {"operationId": "basic", "security": [{"digest": []}, {"basicAuth": [],
                                                                                          "cookieKey": []}],
                                      "responses": ok}},
            "/secure/open": {"get": {"operationId": "open", "security": [], "responses": ok}},
        },
    }
    path = tmp / "secured.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return load_spec(str(path))


def auth_oracles(spec: Spec) -> list[Oracle]:
    return [Oracle(f.operation, f.field, OracleKind.BOOLEAN_ALWAYS_TRUE, None, "manual") for f in spec.fields]
