"""A team's own Postman collection (v2.1) read: its requests resolved as Newman sends them before any script runs.

Pure: text in, frozen values out, no I/O. `read_team_collection` resolves each request (environment values over
collection variables over globals, `:name` path variables, inherited auth) and says which of its variables are
empty, unknown or set by the collection's scripts (`satori_ci.postman.team_scripts`); `satori_ci.postman.match` ties
its requests to spec operations, `satori_ci.postman.assertify` adds the assertions to a copy of it.
"""

from __future__ import annotations

import base64
import json
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from satori_ci.errors import ErrorKind, SatoriError
from satori_ci.postman.team_scripts import has_scripts, setters
from satori_ci.postman.urls import replace_query, text_of, url_text

_ID_NAMESPACE = uuid.UUID("0b5f4f53-6c1e-4d0a-9a7e-3f2d9c1b7e44")
_VARIABLE = re.compile(r"\{\{([^{}]*?)\}\}")  # Postman's own pattern (postman-collection Substitutor)
_LEADING = re.compile(r"\{\{([^{}]*?)\}\}(?=[/?#]|$)")  # `{{baseUrl}}/users`, not `{{scheme}}://{{host}}`
_DEPTH = 19  # Postman's VARS_SUBREPLACE_LIMIT
_NO_BODY_METHODS = frozenset({"GET", "COPY", "HEAD", "PURGE", "UNLOCK"})  # Newman drops their bodies
_RAW_CONTENT_TYPES = {"html": "text/html", "text": "text/plain", "json": "application/json",
                      "javascript": "application/javascript", "xml": "application/xml"}
_SENDABLE_AUTH = frozenset({"bearer", "basic", "apikey"})
_SECRET_PARAMS = frozenset({"token", "password", "value", "accessToken", "refreshToken", "clientSecret",
                            "consumerSecret", "tokenSecret", "secretKey", "sessionToken", "privateKey"})
_CREDENTIAL_HEADER = re.compile(r"^(proxy-)?authorization$|api-?key$|token$|secret$|^cookie$", re.IGNORECASE)
BASE_URL_VARIABLE = "baseUrl"
"""The variable a collection's URLs start with (`{{baseUrl}}/users`), as Postman's converter writes them."""

Pairs = tuple[tuple[str, str], ...]


class TeamCollectionError(SatoriError, kind=ErrorKind.INPUT):
    """A team collection or environment that cannot be used; `str(err)` is one line naming the file."""


@dataclass(frozen=True)
class TeamAuth:
    """The auth Newman applies to a request: its Postman type and parameters, variables resolved."""

    type: str
    params: Pairs = field(default=(), repr=False)

    def param(self, key: str) -> str:
        """The parameter's value, "" when absent."""
        return next((v for k, v in self.params if k == key), "")

    def header(self) -> tuple[str, str] | None:
        """The header this auth sends (it replaces any header of that name, case-insensitively), if any."""
        if self.type == "bearer":
            token = self.param("token")
            return ("Authorization", "Bearer " + token) if token else None
        if self.type == "basic":
            pair = f"{self.param('username')}:{self.param('password')}".encode()
            return "Authorization", "Basic " + base64.b64encode(pair).decode("ascii")
        if self.type == "apikey" and self.param("in") != "query" and self.param("key"):
            return self.param("key"), self.param("value")
        return None

    def query(self) -> tuple[str, str] | None:
        """The query parameter this auth sends (it replaces one of that name), if any."""
        if self.type == "apikey" and self.param("in") == "query" and self.param("key"):
            return self.param("key"), self.param("value")
        return None


@dataclass(frozen=True)
class TeamRequest:
    """One request of the team collection, resolved as far as is possible before its scripts run."""

    id: str
    """The item's own `id`, else a uuid5 of its names and place (stable for the same collection)."""
    name: str
    folder: str
    """The names of its folders, `Folder/Sub` ("" at the top level)."""
    index_path: tuple[int, ...]
    """Its indexes in the nested `item` lists, from the collection down."""
    method: str
    url: str
    """Path variables filled, `{{variables}}` resolved (unknown ones kept as `{{name}}`), disabled query
    parameters dropped; without the auth's query parameter (see `prepared`)."""
    headers: Pairs = field(repr=False)
    """Enabled headers, resolved; without the auth header and Content-Type Newman adds (see `prepared`)."""
    body: str | None = field(repr=False)
    """The raw body, resolved; None for no body, a body Newman does not send (GET), or another mode."""
    content_type: str | None
    """The Content-Type Newman adds for the raw body when the request has none."""
    scripts: bool
    """Whether a pre-request or test script applies (its own, a folder's or the collection's)."""
    auth: TeamAuth | None
    """The effective auth (the item's, else the nearest folder's, else the collection's); None for none/noauth."""
    unresolved: tuple[str, ...]
    """Variables left as `{{name}}` in the URL, headers, body or auth: set by scripts, dynamic (`$guid`) or unknown."""
    unsupported: tuple[str, ...] = ()
    """What a native runner cannot send as Newman would, e.g. `body mode formdata`, `auth type oauth2`."""
    template_url: str = ""
    """The URL with its empty variables kept as `{{name}}` ("" when it has none): what matching reads
    (`match_url`), since such a variable still fills its path segment once a script has set it."""
    used: tuple[str, ...] = ()
    """The variables its URL, headers, body and auth name (nested ones too), in order."""
    empty: tuple[str, ...] = ()
    """Those of `used` whose value is empty in the collection, the environment or the globals."""
    script_set: tuple[str, ...] = ()
    """Those of `used` that a script of the collection sets (`pm.collectionVariables.set("name", …)` and the like)."""

    @property
    def match_url(self) -> str:
        """The URL matching reads: `template_url`, else `url`."""
        return self.template_url or self.url

    @property
    def label(self) -> str:
        """`Folder/Sub/Name` for messages."""
        return f"{self.folder}/{self.name}" if self.folder else self.name

    def prepared(self) -> tuple[str, Pairs]:
        """The URL and headers Newman sends: the auth applied, Content-Type added for a raw body without one."""
        url, headers = self.url, list(self.headers)
        if self.content_type and not any(k.lower() == "content-type" for k, _ in headers):
            headers.append(("Content-Type", self.content_type))
        header = self.auth.header() if self.auth else None
        if header:
            headers = [(k, v) for k, v in headers if k.lower() != header[0].lower()] + [header]
        query = self.auth.query() if self.auth else None
        if query:
            url = replace_query(url, *query)
        return url, tuple(headers)


@dataclass(frozen=True)
class TeamCollection:
    """A team's Postman collection: its requests in run order and the variables they were resolved with."""

    source: str
    name: str
    raw: dict[str, Any] = field(repr=False)
    """The parsed collection; never mutated (`assertify` copies it)."""
    requests: tuple[TeamRequest, ...]
    """Depth first, in the order Newman runs them."""
    variables: Pairs = field(repr=False)
    """Enabled collection variables."""
    environment: Pairs = field(repr=False)
    """Enabled environment values (the team's own: see `overrides`)."""
    globals: Pairs = field(default=(), repr=False)
    """Enabled global values (a Postman globals file), under the collection's variables."""
    setters: tuple[tuple[str, str], ...] = ()
    """(variable, where) for each variable a script sets: where is the item's label, a folder's or "the collection"."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Values never to print: `secret`-typed variables, the auth's tokens, passwords and key values, the values of
    credential headers written on its requests (`Authorization`, `X-Api-Key`) and the credential they carry."""
    auth: TeamAuth | None = field(default=None, repr=False)
    """The collection's own auth (what its requests inherit), variables resolved; None for none or `noauth`."""
    overrides: Pairs = field(default=(), repr=False)
    """The values the run gives over the environment's (the base URL given, as `baseUrl`)."""

    @property
    def run_environment(self) -> Pairs:
        """The environment the team's requests run with: its values, the `overrides` in place of theirs."""
        return (*((k, v) for k, v in self.environment if k not in dict(self.overrides)), *self.overrides)

    def setter(self, name: str) -> str | None:
        """Where the first script that sets `name` is, if any."""
        return next((where for key, where in self.setters if key == name), None)

    def request(self, request_id: str) -> TeamRequest | None:
        """The request with that id, if any."""
        return next((r for r in self.requests if r.id == request_id), None)


@dataclass(frozen=True)
class _Scope:
    """What a request inherits from the folders above it."""

    names: tuple[str, ...]
    auth: Any
    scripts: bool


def read_team_collection(text: str, name: str, environment: str | None = None,
                         environment_name: str | None = None, globals_text: str | None = None,
                         globals_name: str | None = None, overrides: Pairs = ()) -> TeamCollection:
    """Parse a Postman v2.1 collection (and optionally an environment and a globals file) and resolve its requests:
    environment values over collection variables over globals, as Newman does. `overrides` (the base URL the user
    gave, as `baseUrl`) come before the environment's values of those names: both runners send the team's requests
    with them (`run_environment`). The base URL also takes the place of the one variable every request's URL starting
    with a variable starts with, when that is not `baseUrl` (`{{host}}/users`)."""
    raw = _load_json(text, name)
    _check_collection(raw, name)
    leading = set(_leading_variables(raw["item"]))
    base = dict(overrides).get(BASE_URL_VARIABLE)
    if base is not None and len(leading) == 1 and not leading <= {k for k, _ in overrides}:
        overrides = (*overrides, (leading.pop(), base))
    variables = _variable_pairs(raw.get("variable"), name, "variable")
    env, env_secrets = _read_environment(environment, environment_name or "environment") if environment is not None \
        else ((), ())
    glob, glob_secrets = _read_environment(globals_text, globals_name or "globals") if globals_text is not None \
        else ((), ())
    values = {**dict(glob), **dict(variables), **dict(env), **dict(overrides)}
    top = _Scope((), _nearest_auth(raw, None), has_scripts(raw))
    sets = tuple(setters(raw))
    set_names = {key for key, _ in sets}
    requests = tuple(replace(r, script_set=tuple(v for v in r.used if v in set_names))
                     for r in _requests(raw["item"], (), top, values, name))
    info = raw.get("info")
    title = text_of(info.get("name")) if isinstance(info, dict) else ""
    secrets = (*env_secrets, *glob_secrets, *_secret_values(raw.get("variable")), *_auth_secrets(requests),
               *_header_secrets(requests))
    return TeamCollection(source=name, name=title or name, raw=raw, requests=_unique_ids(requests),
                          variables=variables, environment=env, globals=glob, setters=sets,
                          secrets=tuple(dict.fromkeys(s for s in secrets if s)),
                          auth=_auth(_nearest_auth(raw, None), _Resolver(values), []), overrides=overrides)


# Reading


def _load_json(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise TeamCollectionError(f"{name}: not JSON: {err.msg} at line {err.lineno}, column {err.colno}") from None


def _check_collection(raw: Any, name: str) -> None:
    if not isinstance(raw, dict):
        raise TeamCollectionError(f"{name}: not a Postman collection (a JSON object with an \"item\" list)")
    info = raw.get("info")
    schema = text_of(info.get("schema")) if isinstance(info, dict) else ""
    if "/v1." in schema or ("requests" in raw and "order" in raw and "item" not in raw):
        raise TeamCollectionError(f"{name}: a Postman v1 collection; export it from Postman as Collection v2.1")
    if not isinstance(raw.get("item"), list):
        raise TeamCollectionError(f"{name}: not a Postman collection (no \"item\" list)")
    if raw.get("variable") is not None and not isinstance(raw["variable"], list):
        raise TeamCollectionError(f"{name}: \"variable\" is not a list")


def _read_environment(text: str, name: str) -> tuple[Pairs, tuple[str, ...]]:
    """An environment's (or a globals file's) enabled values, and those of them typed `secret`."""
    data = _load_json(text, name)
    if not isinstance(data, dict) or not isinstance(data.get("values", []), list):
        raise TeamCollectionError(f"{name}: not a Postman environment (a JSON object with a \"values\" list)")
    return _variable_pairs(data.get("values"), name, "values"), _secret_values(data.get("values"))


def _secret_values(entries: Any) -> tuple[str, ...]:
    """The values of the entries typed `secret` (what Postman masks)."""
    return tuple(text_of(e.get("value")) for e in entries or () if isinstance(e, dict) and e.get("type") == "secret")


def _auth_secrets(requests: tuple[TeamRequest, ...]) -> tuple[str, ...]:
    """The resolved tokens, passwords and key values of the requests' auth."""
    return tuple(v for r in requests if r.auth for k, v in r.auth.params
                 if k in _SECRET_PARAMS and "{{" not in v)


def _header_secrets(requests: tuple[TeamRequest, ...]) -> tuple[str, ...]:
    """The resolved values of the credential headers on the requests, and what follows a scheme (`Bearer t0ken`)."""
    values = [v.strip() for r in requests for k, v in r.headers if _CREDENTIAL_HEADER.search(k) and "{{" not in v]
    return (*values, *(v.partition(" ")[2].strip() for v in values if " " in v))


def _leading_variables(items: Any) -> Iterator[str]:
    """The variable each request's URL starts with (`baseUrl` of `{{baseUrl}}/users`), as written."""
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and "request" not in item:
            yield from _leading_variables(item.get("item"))
        elif isinstance(item, dict):
            request = item["request"]
            found = _LEADING.match(url_text(request.get("url") if isinstance(request, dict) else request).strip())
            if found:
                yield found.group(1)


def _variable_pairs(entries: Any, name: str, where: str) -> Pairs:
    """Enabled `{key, value}` entries (environment `enabled: false` and variable `disabled: true` dropped)."""
    out: list[tuple[str, str]] = []
    for entry in entries or ():
        if not isinstance(entry, dict):
            raise TeamCollectionError(f"{name}: an entry of \"{where}\" is not an object")
        key = entry.get("key", entry.get("id"))
        if key is None or entry.get("enabled", True) is False or entry.get("disabled") is True:
            continue
        out.append((text_of(key), text_of(entry.get("value"))))
    return tuple(out)


def _requests(items: list[Any], index: tuple[int, ...], scope: _Scope, values: Mapping[str, str],
              name: str) -> Iterator[TeamRequest]:
    """The request items under `items`, depth first."""
    for i, item in enumerate(items):
        where = (*index, i)
        if not isinstance(item, dict):
            raise TeamCollectionError(f"{name}: item {_where(scope, where)} is not an object")
        if "request" not in item and isinstance(item.get("item"), list):
            inner = _Scope((*scope.names, text_of(item.get("name"))), _nearest_auth(item, scope.auth),
                           scope.scripts or has_scripts(item))
            yield from _requests(item["item"], where, inner, values, name)
        elif "request" in item:
            yield _request(item, where, scope, values, name)
        elif "item" in item:
            raise TeamCollectionError(f"{name}: folder {_where(scope, where)}: \"item\" is not a list")
        else:
            raise TeamCollectionError(f"{name}: item {_where(scope, where)} has neither \"request\" nor \"item\"")


def _where(scope: _Scope, index: tuple[int, ...]) -> str:
    return "/".join(scope.names) + ("/" if scope.names else "") + "#" + ".".join(str(i + 1) for i in index)


def _request(item: dict[str, Any], index: tuple[int, ...], scope: _Scope, values: Mapping[str, str],
             name: str) -> TeamRequest:
    request = item["request"]
    if isinstance(request, str):
        request = {"url": request}
    if not isinstance(request, dict):
        raise TeamCollectionError(f"{name}: request {_where(scope, index)} is neither a URL nor an object")
    if not isinstance(item.get("event", []), list):
        raise TeamCollectionError(f"{name}: request {_where(scope, index)}: \"event\" is not a list")
    resolver = _Resolver(values)
    method = text_of(request.get("method")).upper() or "GET"
    written = url_text(request.get("url"))
    url = resolver(written)
    template = _Resolver(values, keep_empty=True)(written) if resolver.empty else ""
    headers = tuple((resolver(k), resolver(v)) for k, v in header_pairs(request.get("header")))
    unsupported: list[str] = []
    body, content_type = _body(request.get("body"), method, item, resolver, unsupported)
    auth = _auth(_nearest_auth(request, scope.auth), resolver, unsupported)
    return TeamRequest(
        id=text_of(item.get("id")), name=text_of(item.get("name")), folder="/".join(scope.names), index_path=index,
        method=method, url=url, headers=headers, body=body, content_type=content_type,
        scripts=scope.scripts or has_scripts(item), auth=auth, unresolved=tuple(resolver.unresolved),
        unsupported=tuple(unsupported), template_url=template if template != url else "", used=tuple(resolver.used),
        empty=tuple(resolver.empty))


def _unique_ids(requests: tuple[TeamRequest, ...]) -> tuple[TeamRequest, ...]:
    """Missing or repeated item ids replaced by a uuid5 of the item's names and place."""
    seen: set[str] = set()
    out = []
    for request in requests:
        rid = request.id
        if not rid or rid in seen:
            seed = json.dumps([request.folder, request.name, list(request.index_path), rid], ensure_ascii=False)
            rid = str(uuid.uuid5(_ID_NAMESPACE, seed))
        seen.add(rid)
        out.append(request if rid == request.id else replace(request, id=rid))
    return tuple(out)


# Requests


def header_pairs(headers: Any) -> Pairs:
    """Enabled headers, unresolved; `header` may be a list of `{key, value, disabled}` or raw `K: V` lines."""
    if isinstance(headers, str):
        lines = (line.partition(":") for line in headers.splitlines() if line.strip())
        return tuple((k.strip(), v.strip()) for k, _, v in lines if k.strip())
    out = []
    for header in headers if isinstance(headers, list) else ():
        if isinstance(header, dict) and header.get("disabled") is not True and header.get("key") is not None:
            out.append((text_of(header["key"]), text_of(header.get("value"))))
    return tuple(out)


def _body(body: Any, method: str, item: dict[str, Any], resolve: _Resolver,
          unsupported: list[str]) -> tuple[str | None, str | None]:
    """The raw body text and the Content-Type Newman adds for it; other modes noted as unsupported."""
    if not isinstance(body, dict) or body.get("disabled") is True:
        return None, None
    mode = text_of(body.get("mode"))
    content = body.get(mode) if mode else None
    if not content:
        return None, None
    behaviour = item.get("protocolProfileBehavior")
    keep = isinstance(behaviour, dict) and behaviour.get("disableBodyPruning") is True
    if method in _NO_BODY_METHODS and not keep:
        return None, None
    if mode != "raw":
        unsupported.append(f"body mode {mode}")
        return None, None
    options = body.get("options")
    raw_options = options.get("raw") if isinstance(options, dict) else None
    language = text_of(raw_options.get("language")) if isinstance(raw_options, dict) else "text"
    text = content if isinstance(content, str) else json.dumps(content)
    return resolve(text), _RAW_CONTENT_TYPES.get(language, _RAW_CONTENT_TYPES["text"])


def _nearest_auth(node: dict[str, Any], inherited: Any) -> Any:
    """`node`'s own auth when it has one with a type, else what it inherits."""
    auth = node.get("auth")
    return auth if isinstance(auth, dict) and isinstance(auth.get("type"), str) else inherited


def _auth(auth: Any, resolve: _Resolver, unsupported: list[str]) -> TeamAuth | None:
    if not isinstance(auth, dict) or auth.get("type") in (None, "noauth"):
        return None
    kind = text_of(auth["type"])
    params = auth.get(kind)
    if isinstance(params, dict):  # the v2.0 form: {"token": "..."}
        pairs = [(text_of(k), v) for k, v in params.items()]
    else:
        pairs = [(text_of(p.get("key")), p.get("value")) for p in params or () if isinstance(p, dict)]
    if kind not in _SENDABLE_AUTH:
        unsupported.append(f"auth type {kind}")
    return TeamAuth(kind, tuple((k, resolve(text_of(v))) for k, v in pairs if k))


# Variables


class _Resolver:
    """Resolves `{{name}}` from the given values, recursively and cycle-safe; records the variables it meets, those
    it cannot resolve and those that are empty (`keep_empty`: an empty one is kept as `{{name}}`)."""

    def __init__(self, values: Mapping[str, str], keep_empty: bool = False) -> None:
        self.values = values
        self.keep_empty = keep_empty
        self.unresolved: list[str] = []
        self.used: list[str] = []
        self.empty: list[str] = []

    def __call__(self, text: str) -> str:
        return self._expand(text, (), _DEPTH)

    def _expand(self, text: str, stack: tuple[str, ...], depth: int) -> str:
        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            _note(self.used, key)
            if key in self.values and key not in stack and depth > 0:
                if self.values[key] == "":
                    _note(self.empty, key)
                    if self.keep_empty:
                        return match.group(0)
                return self._expand(self.values[key], (*stack, key), depth - 1)
            _note(self.unresolved, key)
            return match.group(0)

        return _VARIABLE.sub(one, text)


def _note(found: list[str], key: str) -> None:
    if key not in found:
        found.append(key)
