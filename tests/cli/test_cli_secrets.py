"""The CLI never prints or writes a secret: header values, `SATORI_AUTH_*` values, the LLM key (issue 10)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import StagingServer
from satori_ci.infer.llm.errors import FatalError
from satori_ci.infer.llm.prompt import Prompt
from tests.action.test_secrets import ECHO_SPEC, QUERY_SPEC, _echo
from tests.servers.openai_server import FakeOpenAIServer, RecordedRequest, Reply

FLAG_TOKEN = "flag-token-61d2ac"
CONFIG_TOKEN = "config-token-0be7f4"
AUTH_KEY = "satori-auth-key-9e3b"
LLM_KEY = "sk-llm-key-c0ffee1234"
SECRETS = (FLAG_TOKEN, CONFIG_TOKEN, AUTH_KEY)


@pytest.fixture
def echo() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/whoami", _echo)
        server.route("GET", "/broken", lambda r, p: _echo(r, p))
        yield server


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@example.invalid"],
                 ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "api.yaml").write_text(ECHO_SPEC)
    (tmp_path / ".satori.yml").write_text("specs:\n  - path: api.yaml\n    staging:\n      headers:\n"
                                          "        X-Config-Token: CONFIG_TOKEN\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONFIG_TOKEN", CONFIG_TOKEN)
    monkeypatch.setenv("SATORI_AUTH_APIKEY", AUTH_KEY)
    return tmp_path


def _no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, secret


@pytest.mark.parametrize("as_json", [False, True])
def test_check_never_prints_an_echoed_header_or_credential(repo: Path, echo: StagingServer, as_json: bool,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", "--head", "api.yaml", "--staging-url", echo.base_url, "--runner", "native", "--quiet",
            "--header", f"X-Staging-Token: {FLAG_TOKEN}"]
    code = main([*args, "--json"] if as_json else args)
    out, err = capsys.readouterr()
    sent = json.dumps(echo.received[0].headers)
    assert FLAG_TOKEN in sent and CONFIG_TOKEN in sent and AUTH_KEY in sent  # the echo had them to give back
    assert code == 1, out + err
    assert "***" in out
    if as_json:
        json.loads(out)
    _no_secret(out, err)


def test_run_prints_no_secret(repo: Path, echo: StagingServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["infer", "api.yaml", "--quiet", "--oracles", "oracles.yaml"]) == 0
    code = main(["run", "api.yaml", "--oracles", "oracles.yaml", "--base-url", echo.base_url, "--runner", "native",
                 "--retries", "0", "--header", f"X-Staging-Token: {FLAG_TOKEN}"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    _no_secret(out, err)


def test_the_run_report_file_holds_no_secret(repo: Path, echo: StagingServer,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["infer", "api.yaml", "--quiet", "--oracles", "oracles.yaml"]) == 0
    main(["run", "api.yaml", "--oracles", "oracles.yaml", "--base-url", echo.base_url, "--runner", "native",
          "--retries", "0", "--header", f"X-Staging-Token: {FLAG_TOKEN}", "--report", "report.json"])
    capsys.readouterr()
    _no_secret((repo / "report.json").read_text())


def _quoting_the_key(request: RecordedRequest) -> Reply:
    sent = next((v for k, v in request.headers.items() if k.lower() == "authorization"), "")
    return Reply(status=401, error=f"Incorrect API key provided: {sent.removeprefix('Bearer ')} ({sent})")


def test_the_llm_servers_error_text_never_carries_the_key() -> None:
    from satori_ci.infer.llm.client import ChatClient  # imports openai (1 s): not in every worker's collection

    with FakeOpenAIServer(_quoting_the_key) as server:
        client = ChatClient(model="m", api_key=LLM_KEY, base_url=server.base_url, timeout=5)
        try:
            with pytest.raises(FatalError) as raised:
                client.complete(Prompt(system="s", user="u", kinds=()), json_mode=True)
        finally:
            client.close()
    assert "Incorrect API key provided: ***" in raised.value.message
    assert LLM_KEY not in raised.value.message and LLM_KEY not in str(raised.value)


def test_the_cli_never_prints_the_llm_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", LLM_KEY)
    (tmp_path / "api.yaml").write_text(ECHO_SPEC)
    with FakeOpenAIServer(_quoting_the_key) as server:
        code = main(["infer", "api.yaml", "--backend", "llm", "--base-url", server.base_url, "--oracles", "o.yaml"])
        assert server.requests, "the LLM was asked"
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Incorrect API key provided" in err
    for text in (out, err, (tmp_path / "o.yaml").read_text()):
        assert LLM_KEY not in text


def test_a_collection_on_stdout_keeps_its_credential_references(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A collection is data to run: only literal secrets would be redacted, never `?api_key={{…}}`."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SATORI_AUTH_QUERYKEY", AUTH_KEY)
    (tmp_path / "api.yaml").write_text(QUERY_SPEC)
    (tmp_path / "o.yaml").write_text("")
    assert main(["infer", "api.yaml", "--quiet", "--oracles", "o.yaml"]) == 0
    capsys.readouterr()
    assert main(["collection", "api.yaml", "--oracles", "o.yaml", "--base-url", "http://127.0.0.1:9"]) == 0
    out = capsys.readouterr().out
    json.loads(out)
    assert "api_key={{SATORI_AUTH_QUERYKEY}}" in out and AUTH_KEY not in out
