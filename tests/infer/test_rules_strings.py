"""String rules: numbers written as text, emails, code lengths, value sets in prose."""

from __future__ import annotations

import pytest

from satori_ci.spec.model import ResponseField
from tests.infer.factory import Found, found, make_field

NUMERIC: Found = {("string_is_numeric", None)}
EMAIL: Found = {("string_is_email", None)}

POSITIVE: list[tuple[str, ResponseField, Found]] = [
    ("numeric-string-example", make_field("Metascore", example=67), NUMERIC),
    ("numeric-string-example", make_field("imdbRating", example=6.6), NUMERIC),
    ("numeric-string-example", make_field("Season", example=16), NUMERIC),
    ("numeric-string-example", make_field("totalSeasons", example=2), NUMERIC),
    ("numeric-string-example", make_field("totalResults", example="42"), NUMERIC),
    ("numeric-string-example", make_field("CuViol", example="2",
                                          description="The number of copper violations."), NUMERIC),
    ("numeric-string-description", make_field("amount", description="The amount, a decimal string."), NUMERIC),
    ("numeric-string-description", make_field("size", description="A number represented as a string."), NUMERIC),
    ("email-name", make_field("email"), EMAIL),
    ("email-name", make_field("contact_email"), EMAIL),
    ("email-name", make_field("emailAddress"), EMAIL),
    ("email-description", make_field("owner", description="The email address of the owner."), EMAIL),
    ("email-description", make_field("support", description="The payor's support contact email address."), EMAIL),
    ("code-length", make_field("country", description="ISO 3166-1 alpha-2 country code of this business"),
     {("string_fixed_length", 2)}),
    ("code-length", make_field("country_code", description="ISO 3166-1 alpha-3 code"), {("string_fixed_length", 3)}),
    ("code-length", make_field("currency", description="The ISO 4217 currency."), {("string_fixed_length", 3)}),
    ("code-length", make_field("lang", description="ISO 639-1 language"), {("string_fixed_length", 2)}),
    ("code-length", make_field("Currency", description="The three letter currency code."),
     {("string_fixed_length", 3)}),
    ("code-length", make_field("countryCode", description="The ISO-3166 country code"), {("string_fixed_length", 2)}),
    ("code-length", make_field("country", description="The country code associated with the merchant account, in "
                                                      "ISO 3166 format."), {("string_fixed_length", 2)}),
    ("code-length", make_field("iso_country", description="The [ISO country code](https://en.wikipedia.org/wiki/"
                                                          "ISO_3166-1_alpha-2)."), {("string_fixed_length", 2)}),
    ("code-length", make_field("countryCode", description='Country code of the country (ISO3166-1). E.g. "US" for '
                                                          "the United States"), {("string_fixed_length", 2)}),
]

NEGATIVE: list[tuple[str, ResponseField]] = [
    ("numeric-string-example", make_field("Year", example=2013)),
    ("numeric-string-example", make_field("imdbVotes", example="370,080")),
    ("numeric-string-example", make_field("phone", example="+14159083801")),
    ("numeric-string-example", make_field("contactNumber", example="14155550100",
                                          description="Contact number of the user")),
    ("numeric-string-example", make_field("smsCount", example="5", description="The phone number count.")),
    ("numeric-string-example", make_field("imdbID", example="tt1245492")),
    ("numeric-string-example", make_field("Runtime", example="107 min")),
    ("numeric-string-example", make_field("rating", "number", example=4)),
    ("numeric-string-example", make_field("rating")),
    ("numeric-string-description", make_field("phone", description="A numeric string.")),
    ("numeric-string-description", make_field("note", description="A free-text note.")),
    ("email-name", make_field("email_verified")),
    ("email-name", make_field("email", "boolean")),
    ("email-name", make_field("emailError")),
    ("email-name", make_field("email", description="The email, or the user name when absent... or ID if an app")),
    ("email-description", make_field("emailError", description="error message when email not provided")),
    ("email-description", make_field("principal", description="Email address if a user or ID if an application.")),
    ("email-description", make_field("domain", description="The email domain of the account.")),
    ("code-length", make_field("language", description="The IETF language tag (BCP 47).")),
    ("code-length", make_field("state", description="ISO 3166-2 subdivision code.")),
    ("code-length", make_field("locale", description="ISO 639-1 language code and ISO 3166-1 alpha-2 country code")),
    ("code-length", make_field("country", description="Ideally provide the two character ISO code")),
    ("code-length", make_field("Amount", description="An amount in a currency compliant with ISO 4217.")),
    ("code-length", make_field("country", description="alpha-2 or alpha-3 code")),
    ("code-length", make_field("country", "integer", description="ISO 3166-1 alpha-2")),
    ("code-length", make_field("countryCode", description="The countryCode is in ISO 3166-1 numeric format")),
    ("code-length", make_field("CountryCode", description="Country Code in ISO 3166-1 alfa-3 Standard.")),
    ("code-length", make_field("Country", description="A country/region specified using ISO 3166 3-digit "
                                                      "country/region code. For example, CAN.")),
    ("code-length", make_field("country", description="Full country names (ISO 3166)")),
    ("code-length", make_field("country", description="The ISO-3166-1 country code of the country this "
                                                      "configuration applies to. If this is a global configuration, "
                                                      "Country will take the value `all`.")),
    ("code-length", make_field("vat.country", description="The ISO 3166 standard.")),
]


@pytest.mark.parametrize(("rule", "field", "expected"), POSITIVE, ids=lambda v: getattr(v, "field", None))
def test_positive(rule: str, field: ResponseField, expected: Found) -> None:
    assert found(rule, field) == expected


@pytest.mark.parametrize(("rule", "field"), NEGATIVE, ids=lambda v: getattr(v, "field", None))
def test_negative(rule: str, field: ResponseField) -> None:
    assert found(rule, field) == set()
