"""The one redaction point: secrets in every form, URLs masked without being told, the process-wide install."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from satori_ci import redaction
from satori_ci.redaction import (
    MIN_SECRET_CHARS,
    RedactingStream,
    Redactor,
    environ_secrets,
    header_secrets,
    installed,
    key_like,
    mask_url,
    unredacted,
    url_secrets,
)

SECRET = 'tok-3f9a"b/c+d=='


def test_the_secret_is_replaced_in_every_form_it_takes_in_text() -> None:
    r = Redactor([SECRET])
    forms = [SECRET, json.dumps(SECRET)[1:-1], quote(SECRET, safe=""), base64.b64encode(SECRET.encode()).decode(),
             "tok-3f9a&quot;b/c+d=="]
    for form in forms:
        assert r.redact(f"seen: {form}!") == "seen: ***!", form


def test_the_longest_secret_wins_and_blank_ones_are_ignored() -> None:
    assert Redactor(["abcd", "abcdefgh"]).redact("token abcdefgh and abcd") == "token *** and ***"
    assert Redactor(["", "   ", None]).redact("nothing here") == "nothing here"


def test_each_line_of_a_multi_line_secret_and_its_json_form_are_caught() -> None:
    secret = 'line-one\nline "two"'
    r = Redactor([secret])
    assert r.redact("saw line-one somewhere") == "saw *** somewhere"
    assert "line" not in r.redact(json.dumps({"header": secret}))
    assert r.redact(f"error: {secret}!") == "error: ***!"


def test_secrets_shorter_than_four_characters_are_not_redacted() -> None:
    assert MIN_SECRET_CHARS == 4
    r = Redactor(["on", "abc", "abcd"])
    assert r.secrets == ("abcd",)
    assert r.redact("on abc abcd") == "on abc ***"


def test_add_returns_only_the_new_secrets() -> None:
    r = Redactor(["first-secret"])
    assert r.add("first-secret", "second-secret", "x") == ("second-secret",)
    assert r.redact("first-secret second-secret") == "*** ***"


def test_url_passwords_are_masked_without_being_told() -> None:
    r = Redactor()
    assert r.redact("GET http://ann:hunter22@staging.example/books") == "GET http://ann:***@staging.example/books"
    assert r.redact("'https://u:p@ss:w0rd@h:8080/x'") == "'https://u:***@h:8080/x'"
    assert r.redact("git https://ghp_0123456789abcdefghijkl@github.com/o/r") == "git https://***@github.com/o/r"
    assert r.redact("http://host:8080/path and mail a@b.c") == "http://host:8080/path and mail a@b.c"
    assert r.redact("see https:\u200d//ann:pw12@x.io") == "see https:\u200d//ann:***@x.io"  # after the escaper


def test_key_like_query_values_are_masked_in_any_text() -> None:
    message = ("HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded with url: "
               "/books?limit=10&api_key=k3y-value&sig=abcd (Caused by NewConnectionError(...))")
    masked = mask_url(message)
    assert "k3y-value" not in masked and "abcd" not in masked
    assert "/books?limit=10&api_key=***&sig=*** (Caused by" in masked
    assert mask_url("/x?token=a&q=dune&page=2") == "/x?token=***&q=dune&page=2"
    assert mask_url("a?x=1&amp;access_token=zz#frag") == "a?x=1&amp;access_token=***#frag"
    assert mask_url('{"url": "http://h/x?apikey=v1v1"}') == '{"url": "http://h/x?apikey=***"}'


def test_postman_variable_references_and_plain_parameters_are_kept() -> None:
    assert mask_url("{{baseUrl}}/x?api_key={{SATORI_AUTH_KEY}}") == "{{baseUrl}}/x?api_key={{SATORI_AUTH_KEY}}"
    assert mask_url("/x?monkey=1&hotkey=2&keyword=3") == "/x?monkey=1&hotkey=2&keyword=3"


@pytest.mark.parametrize("name", ["key", "api_key", "apikey", "API-Key", "x-api-key", "token", "access_token",
                                  "sig", "signature", "X-Amz-Signature", "client_secret", "password"])
def test_key_like_names(name: str) -> None:
    assert key_like(name)


def test_query_names_from_a_spec_are_masked_too() -> None:
    r = Redactor(query_names=["tenant_pass"])
    assert r.redact("/x?tenant_pass=abc&tenant=acme") == "/x?tenant_pass=***&tenant=acme"


def test_redaction_is_idempotent() -> None:
    r = Redactor(["s3cr3t-value"])
    text = "http://u:pw@h/x?api_key=s3cr3t-value and s3cr3t-value"
    once = r.redact(text)
    assert r.redact(once) == once


def test_header_secrets_take_the_credential_out_of_the_value() -> None:
    basic = base64.b64encode(b"ann:hunter22").decode()
    found = header_secrets(["Bearer eyJ-token-1", f"Basic {basic}", "application/json", "ab"])
    assert found == ["Bearer eyJ-token-1", "eyJ-token-1", f"Basic {basic}", basic, "ann:hunter22", "hunter22",
                     "application/json"]


def test_environ_secrets_are_every_satori_auth_value_and_the_basic_forms() -> None:
    env = {"SATORI_AUTH_KEY": "k3y-k3y", "SATORI_AUTH_BASIC": "ann:hunter22", "HOME": "/root", "SATORI_AUTH_X": ""}
    found = environ_secrets(env)
    assert found == ["k3y-k3y", "ann:hunter22", "hunter22", base64.b64encode(b"ann:hunter22").decode()]


def test_url_secrets_are_the_password_the_basic_credential_and_key_values() -> None:
    found = url_secrets("https://ann:hunter%2122@h/x?api_key=k3y-k3y&q=dune")
    assert "hunter%2122" in found and "hunter!22" in found and "ann:hunter!22" in found
    assert base64.b64encode(b"ann:hunter!22").decode() in found and "k3y-k3y" in found and "dune" not in found
    assert url_secrets(None) == [] and url_secrets("http://[::1") == []


def test_redact_data_keeps_json_valid_whatever_the_secret() -> None:
    r = Redactor(["true", "1234"])  # a secret that is also a JSON token
    data = {"ok": True, "count": 12345, "value": "true", "list": ["x 1234 y"], "1234": None}
    assert r.redact_data(data) == {"ok": True, "count": 12345, "value": "***", "list": ["x *** y"], "***": None}


def test_installed_redacts_stdout_stderr_and_report_files_then_restores(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    before_out, before_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
    try:
        with installed(["s3cr3t-value"]) as r:
            assert redaction.current() is r
            print("stdout s3cr3t-value http://u:pw@h/")
            print("stderr s3cr3t-value", file=sys.stderr)
            unredacted(sys.stdout).write("::add-mask::s3cr3t-value\n")
            redaction.write_text(tmp_path / "report.json", '{"v": "s3cr3t-value"}')
            assert sys.stdout.isatty() is False and unredacted(sys.stdout) is out
        assert sys.stdout is out and sys.stderr is err
        assert redaction.current() is not r
    finally:
        sys.stdout, sys.stderr = before_out, before_err
    assert out.getvalue() == "stdout *** http://u:***@h/\n::add-mask::s3cr3t-value\n"
    assert err.getvalue() == "stderr ***\n"
    assert (tmp_path / "report.json").read_text() == '{"v": "***"}'


def test_a_data_stream_gets_only_the_literal_secrets() -> None:
    inner = io.StringIO()
    stream = RedactingStream(inner, lambda: Redactor(["s3cr3t-value"]), generic=False)
    stream.write('{"url": "/x?key=theme&api_key={{SATORI_AUTH_KEY}}", "v": "s3cr3t-value"}')
    assert inner.getvalue() == '{"url": "/x?key=theme&api_key={{SATORI_AUTH_KEY}}", "v": "***"}'
