"""`satori-ci infer --backend llm` (the command line, run in the test's process) against a server answering 503 to
every call and against one that accepts connections and never answers: it falls back to the rules quickly, with
one warning naming the host, the exit code of a rules run, an oracle file byte-identical to `--backend rules`, and
a summary counting the fields by the rules."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from tests import in_process
from tests.servers.openai_server import BlackHoleServer, FakeOpenAIServer, server_error

KEY = "sk-cli-breaker-secret"
BOUND_S = 60.0
"""The issue's bound for the whole fallback; the runs here take a few seconds."""
OPERATIONS, FIELDS = 20, 20
"""420 fields: the old retries (4 attempts a field, backoff) would take minutes against a failing server."""
_KINDS: list[tuple[str, dict[str, object]]] = [
    ("id", {"type": "integer", "minimum": 1}), ("name", {"type": "string", "maxLength": 80}),
    ("email", {"type": "string", "format": "email"}), ("created_at", {"type": "string", "format": "date-time"}),
    ("status", {"type": "string", "enum": ["open", "closed"]}), ("price", {"type": "number", "minimum": 0}),
    ("active", {"type": "boolean"}), ("tags", {"type": "array", "items": {"type": "string"}})]


def _spec(path: Path) -> Path:
    paths = {}
    for o in range(OPERATIONS):
        props = {f"{name}_{f}": dict(schema) for f in range(FIELDS) for name, schema in [_KINDS[f % len(_KINDS)]]}
        item = {"type": "object", "properties": props}
        ok = {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"items": {"type": "array", "items": item}}}}}}
        paths[f"/things{o}"] = {"get": {"operationId": f"list{o}", "responses": {"200": ok}}}
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "Things", "version": "1"}, "paths": paths}),
                    encoding="utf-8")
    return path


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_") and "proxy" not in k.lower()}
    return {**env, "NO_PROXY": "127.0.0.1", "OPENAI_API_KEY": KEY}


def _infer(cwd: Path, out: str, *extra: str) -> tuple[in_process.Done, float]:
    started = time.monotonic()
    done = in_process.satori(cwd, "infer", "api.json", "--oracles", out, *extra, env=_env())
    return done, time.monotonic() - started


def _assert_fell_back_like_rules(tmp_path: Path, llm: in_process.Done, cause: str,
                                 port: int) -> None:
    rules, _ = _infer(tmp_path, "rules.yaml", "--backend", "rules")
    assert llm.returncode == rules.returncode == 0, llm.stderr
    assert (tmp_path / "llm.yaml").read_bytes() == (tmp_path / "rules.yaml").read_bytes()
    warnings = [line for line in llm.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: the LLM server 127.0.0.1:{port} failed ({cause}): no more calls to it in this "
                        "run, the remaining fields use the rules backend"], llm.stderr
    assert KEY not in llm.stderr + llm.stdout
    summary = llm.stderr
    counted = re.search(r"^(\d+) field\(s\): 0 reused, 0 moved, 0 inferred \(llm\), (\d+) inferred \(rules, the LLM "
                        r"server failed\); ", summary, re.MULTILINE)
    assert counted is not None and counted[1] == counted[2] and int(counted[1]) > 400, summary
    calls = re.search(r"^llm: (\d+) call\(s\) \((\d+) failed\), 0 prompt \+ 0 completion tokens", summary, re.MULTILINE)
    assert calls is not None and calls[1] == calls[2] and 3 <= int(calls[1]) <= 9, summary  # 1, then 4 at once


def test_a_server_answering_503_falls_back_to_the_rules_at_once(tmp_path: Path) -> None:
    _spec(tmp_path / "api.json")
    with FakeOpenAIServer(default=server_error(503)) as server:
        llm, seconds = _infer(tmp_path, "llm.yaml", "--backend", "llm", "--base-url", server.base_url,
                              "--model", "fake-model")
        calls, port = len(server.requests), server.port
    print(f"503 server: {seconds:.1f} s, {calls} calls")
    assert seconds < BOUND_S, seconds
    assert 3 <= calls <= 9
    _assert_fell_back_like_rules(tmp_path, llm, "HTTP 503 three times in a row", port)


def test_a_server_that_never_answers_falls_back_within_the_bound(tmp_path: Path) -> None:
    _spec(tmp_path / "api.json")
    with BlackHoleServer() as hole:
        llm, seconds = _infer(tmp_path, "llm.yaml", "--backend", "llm", "--base-url", hole.base_url,
                              "--model", "fake-model", "--llm-timeout", "1")
        port = int(hole.base_url.rsplit(":", 1)[1].split("/")[0])
    print(f"black hole: {seconds:.1f} s")
    assert seconds < BOUND_S, seconds
    _assert_fell_back_like_rules(tmp_path, llm, "no answer within 1 s three times in a row", port)


def test_a_server_failing_twice_then_answering_is_used(tmp_path: Path) -> None:
    spec = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {"/t": {"get": {
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"url": {"type": "string"}, "name": {"type": "string"}}}}}}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(spec), encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.table["url"] = [server_error(500), server_error(503), {"string_is_url": True}]
        server.table["name"] = {"string_is_email": False}
        llm, _ = _infer(tmp_path, "llm.yaml", "--backend", "llm", "--base-url", server.base_url,
                        "--model", "fake-model", "--concurrency", "1")
    assert llm.returncode == 0, llm.stderr
    assert "warning:" not in llm.stderr
    assert "2 field(s): 0 reused, 0 moved, 2 inferred (llm)" in llm.stderr
    assert "llm: 4 call(s) (2 failed)" in llm.stderr
    assert 'source: "llm:fake-model"' in (tmp_path / "llm.yaml").read_text(encoding="utf-8")
