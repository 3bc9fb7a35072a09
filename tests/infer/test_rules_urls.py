"""URL rules: names, descriptions, examples."""

from __future__ import annotations

import pytest

from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, found, make_field

URL: Found = {("string_is_url", None)}

POSITIVE: list[tuple[str, ResponseField, Found]] = [
    ("url-name", make_field("businesses[].url"), URL),
    ("url-name", make_field("businesses[].image_url"), URL),
    ("url-name", make_field("owner.htmlUrl"), URL),
    ("url-name", make_field("links.self.href"), URL),
    ("url-name", make_field("image_urls[]"), URL),
    ("url-description", make_field("urls[].link", description="A full URL (including scheme, domain, and path)."),
     URL),
    ("url-description", make_field("resourceURI", description="The canonical URL identifier for this resource."),
     URL),
    ("url-description", make_field("next", description="The URL of the next page of results, if any."), URL),
    ("url-example", make_field("Poster", example="https://m.media-amazon.com/images/M/x.jpg"), URL),
    ("url-example", make_field("src", examples=("http://a.example/x", "https://b.example/y")), URL),
]

NEGATIVE: list[tuple[str, ResponseField]] = [
    ("url-name", make_field("url", "integer")),
    ("url-name", make_field("ssh_url")),
    ("url-name", make_field("url_template")),
    ("url-name", make_field("Website")),
    ("url-name", make_field("uri")),
    ("url-name", make_field("resourceURI")),
    ("url-name", make_field("_links.self.href")),
    ("url-name", make_field("base_url", description="A relative URL path.")),
    ("url-name", make_field("database_url", description="The JDBC URL of the cluster.")),
    ("url-description", make_field("slug", description="The URL-friendly name of the item.")),
    ("url-description", make_field("name", description="Name of the website.")),
    ("url-description", make_field("path", description="The relative URL of the page.")),
    ("url-description", make_field("thumbnail.path", description="The directory path of to the image.")),
    ("url-example", make_field("Website", example="N/A")),
    ("url-example", make_field("description", example="https://example.com")),
    ("url-example", make_field("blog", example="https://github.com/blog")),
    ("url-example", make_field("link", examples=("https://a.example", "/relative/path"))),
    ("url-example", make_field("link", example="example.com")),
]


@pytest.mark.parametrize(("rule", "field", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, expected: Found) -> None:
    assert found(rule, field) == expected


@pytest.mark.parametrize(("rule", "field"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField) -> None:
    assert found(rule, field) == set()
