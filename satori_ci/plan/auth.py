"""Credentials from the spec's security schemes: which slots an operation's requests carry (`AuthParam`).

A slot's value is never in a request: it is the variable `{{SATORI_AUTH_<SCHEME>}}`, whose value the runners read
from the environment variable of the same name at run time. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from satori_ci.plan.samples import encode, raw_operation
from satori_ci.spec.model import Operation, Spec

AUTH_PREFIX = "SATORI_AUTH_"
"""Auth values are read at run time from environment variables named AUTH_PREFIX + the scheme name."""


@dataclass(frozen=True)
class AuthParam:
    """One credential slot: sent at `location` under `name`, its value the Postman variable `variable`.

    The value is never in the collection: the runners read the environment variable of the same name.
    `scheme` is `apiKey`, `bearer` or `basic`; for `basic` the environment holds `user:password`.
    """

    variable: str
    location: str
    """`header`, `query` or `cookie`."""
    name: str
    scheme: str



def auth_variable(scheme_name: str) -> str:
    """The environment variable (and Postman variable) holding a scheme's credential."""
    return AUTH_PREFIX + (re.sub(r"[^A-Za-z0-9]+", "_", scheme_name).strip("_").upper() or "DEFAULT")


def _security_schemes(spec: Spec) -> dict[str, Any]:
    root = spec.documents.root() if spec.documents is not None else None
    if not isinstance(root, dict):
        return {}
    found = root.get("securityDefinitions")
    if not isinstance(found, dict):
        components = root.get("components")
        found = components.get("securitySchemes") if isinstance(components, dict) else None
    return found if isinstance(found, dict) else {}


def auth_params(spec: Spec, operation: Operation) -> tuple[tuple[AuthParam, ...], tuple[str, ...]]:
    """The credentials the operation's first supported security requirement needs, and notes on the rest."""
    root = spec.documents.root() if spec.documents is not None else None
    raw_op = raw_operation(spec, operation)
    requirements = raw_op.get("security", root.get("security") if isinstance(root, dict) else None)
    if not isinstance(requirements, list) or not requirements:
        return (), ()
    schemes = _security_schemes(spec)
    notes: list[str] = []
    for requirement in requirements:
        if not isinstance(requirement, dict):
            continue
        if not requirement:
            return (), ()  # `{}`: anonymous access is allowed
        params: list[AuthParam] = []
        for name in requirement:
            param = _auth_param(str(name), spec.resolve(schemes.get(name)))
            if param is None:
                notes.append(f"security scheme {name!r} is not supported: its requests go without it")
                break
            params.append(param)
        else:
            return tuple(params), ()
    return (), tuple(dict.fromkeys(notes))


def _auth_param(name: str, scheme: Any) -> AuthParam | None:
    if not isinstance(scheme, dict):
        return None
    variable = auth_variable(name)
    kind = str(scheme.get("type", ""))
    if kind == "apiKey" and scheme.get("in") in ("header", "query", "cookie") and isinstance(scheme.get("name"), str):
        return AuthParam(variable, str(scheme["in"]), scheme["name"], "apiKey")
    http_scheme = str(scheme.get("scheme", "")).lower()
    if (kind == "http" and http_scheme == "bearer") or kind in ("oauth2", "openIdConnect"):
        return AuthParam(variable, "header", "Authorization", "bearer")
    if (kind == "http" and http_scheme == "basic") or kind == "basic":
        return AuthParam(variable, "header", "Authorization", "basic")
    return None


def auth_entry(param: AuthParam) -> tuple[str, str]:
    """(key, value template) as the request carries it: the value references `{{variable}}`."""
    reference = "{{" + param.variable + "}}"
    if param.scheme == "bearer":
        return param.name, "Bearer " + reference
    if param.scheme == "basic":
        return param.name, "Basic " + reference
    if param.location == "query":
        return encode(param.name), reference
    return param.name, reference

