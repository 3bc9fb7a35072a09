"""Rules for absolute URLs: names, descriptions and examples."""

from __future__ import annotations

import re

from satori_ci.infer.rules.base import (
    STRING,
    Rule,
    in_hal_links,
    make,
    prose,
    sentence,
    show_examples,
    string_examples,
    texts,
    words,
)
from satori_ci.oracles import predicates as checks
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

URL = OracleKind.STRING_IS_URL

_URL_WORDS = frozenset({"url", "urls", "href"})
NOT_URL_WORDS = frozenset({"ssh", "template", "pattern", "regex", "format", "blog", "website", "homepage", "site",
                            "domain", "host", "hostname", "path"})
"""Not always an absolute URL: scp-like ssh remotes, templates, and user-entered links ('example.com')."""
NOT_ABSOLUTE = re.compile(
    r"\b(?:relative|partial|urn|arn|uri[- ]reference|path[- ]only|jdbc|connection string|base64|binary data|"
    r"route prefix|if a (?:transport )?protocol)\b",
    re.IGNORECASE,
)
_URL_HEAD = re.compile(
    r"^(?:(?:an?|the|this|that|its)\s+)?(?:(?!(?:of|for|to|in|on|at|by|as|with|from|and|or|if|not|no|"
    r"whether|name|title|number|type|kind|id|label|count|list|set|array|domain|host|ssh)\b)[\w'’-]+\s+){0,3}?"
    r"urls?\b"
    r"(?![- ](?:friendly|encoded|safe|slug|path|segment|param|parameter|fragment|template|pattern|"
    r"prefix|suffix|scheme|host|query|component|encoding|part|name|key))",
    re.IGNORECASE,
)
_FULL_URL = re.compile(r"\b(?:full|absolute|fully[- ]qualified|complete)\s+(?:url|uri)\b", re.IGNORECASE)
_FREE_TEXT = frozenset({"description", "text", "message", "body", "content", "comment", "note", "notes",
                        "title", "name", "summary", "bio", "caption", "label", "html", "markdown", "value",
                        "values", "data", "default", "input", "output", "result", "query", "answer",
                        "response", "source", "referrer", "referer", "origin"})
"""Names of fields that hold any text or any value: one URL example says nothing about the others."""


def url_name(field: ResponseField) -> list[Oracle]:
    """`url`, `image_url`, `htmlUrl`, `href` are absolute URLs (not `ssh_url`; `*URI` names: see context.py)."""
    w = words(field)
    if field.type != "string" or not w or w[-1] not in _URL_WORDS:  # the name first: the prose's search costs most
        return []
    if NOT_URL_WORDS & set(w) or NOT_ABSOLUTE.search(prose(field)):
        return []
    last = w[-1]
    if not (last == "href" and in_hal_links(field)):
        what = "a URL" if last != "href" else "a link target"
        return [make(field, URL, None, f"name '{field.name}': {what}, an absolute URL")]
    return []


def url_description(field: ResponseField) -> list[Oracle]:
    """A description that says the value is a (full, canonical, ...) URL."""
    if field.type != "string" or NOT_URL_WORDS & set(words(field)) or NOT_ABSOLUTE.search(prose(field)):
        return []
    for where, text in texts(field):
        m = _URL_HEAD.search(text) or _FULL_URL.search(text)
        if m:
            return [make(field, URL, None, f"{where} {sentence(text, m.start())}: the value is a URL")]
    return []


def url_example(field: ResponseField) -> list[Oracle]:
    """Every example is an absolute URL (and the field is not free text)."""
    values = string_examples(field)
    w = words(field)
    if field.type != "string" or not values or (w and (w[-1] in _FREE_TEXT or NOT_URL_WORDS & set(w))):
        return []
    if NOT_ABSOLUTE.search(prose(field)) or not all(checks.is_url(v) for v in values):
        return []
    return [make(field, URL, None, f"{show_examples(values)}: an absolute URL")]


RULES = (
    Rule(
        "url-name",
        STRING,
        "string_is_url from names url/*_url/*Url/href",
        url_name,
    ),
    Rule(
        "url-description",
        STRING,
        "string_is_url from 'A full URL'/'The canonical URL ...' descriptions",
        url_description,
    ),
    Rule(
        "url-example",
        STRING,
        "string_is_url when every example is an absolute URL",
        url_example,
    ),
)
