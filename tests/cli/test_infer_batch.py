"""`satori-ci infer --backend llm --batch submit|status|collect` end to end, against the local OpenAI-compatible
server's Batch API (the real `openai` client on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.infer.llm import batch as batch_module
from satori_ci.infer.llm.batch_state import BatchState, load_state
from tests.servers.openai_batches import BatchScript
from tests.servers.openai_server import FakeOpenAIServer, RecordedRequest, Reply

EXAMPLES = Path(__file__).resolve().parents[2] / "satori_ci" / "examples" / "bookshop"
KEY = "sk-batch-key-5f3a9c21e7"
STATE = Path(".satori/api.batch.json")
INPUT = Path(".satori/api.batch.jsonl")
ORACLES = Path(".satori/api.oracles.yaml")


def _answer(request: RecordedRequest) -> Any:
    """Answers that depend on the field asked about (and so on the prompt)."""
    path = request.field_path or ""
    if path.endswith("isbn"):  # the same fingerprint in two operations, two answers
        return {"string_fixed_length": 13 if path.startswith("books[]") else 10,
                "reasons": {"string_fixed_length": "ISBN"}}
    if path.endswith("latitude"):
        return {"number_min_value": -90, "number_max_value": 90}
    if path.endswith("_url"):
        return '```json\n{"string_is_url": true,}\n```'  # repaired like any synchronous answer
    if path == "total":
        return {"number_min_value": "0"}
    return {"string_is_numeric": False}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeOpenAIServer]:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "HTTP_PROXY",
                 "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "openapi.v2.yaml", tmp_path / "api.yaml")
    with FakeOpenAIServer(_answer) as fake:
        yield fake


def infer(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["infer", "api.yaml", "--backend", "llm", "--model", "gpt-4o", "--base-url", server.base_url,
                 *args])
    out, err = capsys.readouterr()
    return code, out, err


def state() -> BatchState:
    return load_state(STATE.read_text(encoding="utf-8"), str(STATE))


def _cost(err: str) -> tuple[str, float]:
    found = re.search(r"(\d[\d,]* prompt \+ [\d,]+ completion tokens), about \$([\d.]+)", err)
    assert found, err
    return found.group(1), float(found.group(2))


def _entries(path: Path) -> dict[str, Any]:
    """Each field's block of an oracle file, by `operation field`."""
    blocks: dict[str, Any] = {}
    operation = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("  ") and not line.startswith("    ") and line.rstrip().endswith(":"):
            operation = line.strip()
        elif line.startswith("    ") and not line.startswith("      "):
            blocks[f"{operation} {line.strip()}"] = []
            last = f"{operation} {line.strip()}"
        elif line.startswith("      "):
            blocks[last].append(line)
    return blocks


# ---------------------------------------------------------------------------------------------
# The flow


def test_submit_status_collect(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.batch.in_progress = 2
    code, out, err = infer(server, capsys, "--batch", "submit")
    assert code == 0, err
    assert "submitted batch batch_fake1 (validating): 22 field(s) of api.yaml for gpt-4o" in err
    assert server.requests == [] and not ORACLES.exists()  # nothing asked synchronously, nothing written
    sent = state()
    assert len(sent.parts) == 1 and sent.not_sent == 0
    assert (sent.parts[0].batch_id, sent.parts[0].input_file_id, sent.model, sent.spec) == (
        "batch_fake1", "file-fake1", "gpt-4o", "api.yaml")
    uploaded = server.batches.files["file-fake1"]
    assert uploaded.purpose == "batch" and uploaded.data == INPUT.read_bytes()
    assert uploaded.filename == "api.batch.jsonl"
    lines = [json.loads(line) for line in INPUT.read_text(encoding="utf-8").splitlines()]
    assert [line["custom_id"] for line in lines] == [r.custom_id for r in sent.requests]
    assert len({line["custom_id"] for line in lines}) == 22
    assert {r.custom_id.split("#")[0] for r in sent.requests} == {r.fingerprint for r in sent.requests}

    code, out, err = infer(server, capsys, "--batch", "status")
    assert (code, err) == (0, "")
    assert out == ("batch batch_fake1: in_progress, 0 of 0 request(s) done, 0 failed (submitted for api.yaml: "
                   "22 field(s) with gpt-4o)\n")

    code, out, err = infer(server, capsys, "--batch", "collect")  # the second retrieval: still in progress
    assert code == 0 and "in_progress" in err and "not finished, nothing collected" in err
    assert len(err.strip().splitlines()) == 1
    assert not ORACLES.exists() and STATE.exists()

    code, out, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert "22 field(s): 0 reused, 0 moved, 22 inferred (llm)" in err
    assert "llm (Batch API, half price): 22 request(s)" in err and "fell back" not in err
    assert not STATE.exists() and not INPUT.exists()
    text = ORACLES.read_text(encoding="utf-8")
    assert '"books[].isbn":' in text and "{kind: string_fixed_length, value: 13, source: \"llm:gpt-4o\"" in text
    assert "{kind: string_fixed_length, value: 10, source: \"llm:gpt-4o\"" in text
    assert server.requests == []  # every answer came from the batch

    code, out, err = infer(server, capsys, "--batch", "status")
    assert (code, out) == (0, "no batch pending for api.yaml (no .satori/api.batch.json)\n")


def test_a_second_submit_while_pending_does_nothing(server: FakeOpenAIServer,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    server.batch.in_progress = 5
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    before = STATE.read_bytes()
    code, out, err = infer(server, capsys, "--batch", "submit")
    assert code == 0 and out == ""
    assert err == ("batch batch_fake1: in_progress, 0 of 0 request(s) done, 0 failed: already submitted for "
                   "api.yaml, nothing submitted (see --batch status)\n")
    assert list(server.batches.batches) == ["batch_fake1"] and list(server.batches.files) == ["file-fake1"]
    assert STATE.read_bytes() == before


def test_a_finished_batch_must_be_collected_before_another_submit(server: FakeOpenAIServer,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    infer(server, capsys, "--batch", "submit")
    code, _, err = infer(server, capsys, "--batch", "submit")
    assert code == 0 and "completed" in err and "collect it first with --batch collect" in err
    assert list(server.batches.batches) == ["batch_fake1"]


@pytest.mark.parametrize(("limit", "value", "parts"), [(None, 0, 1), ("MAX_BATCH_REQUESTS", 8, 3),
                                                    ("MAX_BATCH_BYTES", 16 * 1024, None)])
def test_collect_writes_the_file_a_synchronous_run_writes_at_half_the_price(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        limit: str | None, value: int, parts: int | None) -> None:
    if limit is not None:
        monkeypatch.setattr(batch_module, limit, value)
    code, _, sync_err = infer(server, capsys, "--oracles", ".satori/sync.oracles.yaml")
    assert code == 0, sync_err
    sync_bodies = sorted(json.dumps(r.body, sort_keys=True) for r in server.requests)
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    batch_bodies = sorted(json.dumps(json.loads(line)["body"], sort_keys=True)
                          for line in INPUT.read_text(encoding="utf-8").splitlines())
    assert batch_bodies == sync_bodies  # the same requests, the same bodies
    sent = state()
    assert len(sent.parts) == parts if parts else len(sent.parts) > 1
    assert len(server.batches.batches) == len(sent.parts)
    for part in sent.parts:
        data = server.batches.files[part.input_file_id].data
        assert len(data) <= (value if limit == "MAX_BATCH_BYTES" else 200 * 1024 * 1024)
        assert hashlib.sha256(data).hexdigest() == part.input_sha256
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert ORACLES.read_bytes() == Path(".satori/sync.oracles.yaml").read_bytes()
    assert "llm (Batch API, half price): 22 request(s)" in err and "fell back" not in err
    sync_tokens, sync_cost = _cost(sync_err)
    batch_tokens, batch_cost = _cost(err)
    assert batch_tokens == sync_tokens and sync_cost > 0
    assert batch_cost == pytest.approx(sync_cost / 2, abs=1e-4)
    assert not STATE.exists() and not INPUT.exists()


# ---------------------------------------------------------------------------------------------
# Several batches


def test_a_large_input_is_sent_as_several_batches_handled_together(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_module, "MAX_BATCH_REQUESTS", 8)
    server.batches.scripts["batch_fake2"] = BatchScript(in_progress=3)  # status, submit, collect: in progress
    code, _, err = infer(server, capsys, "--batch", "submit")
    assert code == 0, err
    assert ("submitted 3 batches (batch_fake1, batch_fake2, batch_fake3): 22 field(s) of api.yaml for gpt-4o; "
            "state in .satori/api.batch.json.") in err
    sent = state()
    assert sent.batch_ids == ("batch_fake1", "batch_fake2", "batch_fake3")
    assert [len(part.requests) for part in sent.parts] == [8, 8, 6]
    assert [part.input_file_id for part in sent.parts] == ["file-fake1", "file-fake2", "file-fake3"]
    files = [server.batches.files[part.input_file_id] for part in sent.parts]
    assert [f.filename for f in files] == ["api.batch.1.jsonl", "api.batch.2.jsonl", "api.batch.3.jsonl"]
    assert b"".join(f.data for f in files) == INPUT.read_bytes()  # the parts, in order
    for part, stored in zip(sent.parts, files, strict=True):
        assert [json.loads(line)["custom_id"] for line in stored.data.decode().splitlines()] == [
            r.custom_id for r in part.requests]

    code, out, err = infer(server, capsys, "--batch", "status")
    assert (code, err) == (0, "")
    assert out == ("batch batch_fake1: completed, 8 of 8 request(s) done, 0 failed\n"
                   "batch batch_fake2: in_progress, 0 of 0 request(s) done, 0 failed\n"
                   "batch batch_fake3: completed, 6 of 6 request(s) done, 0 failed\n"
                   "3 batch(es): 2 completed, 1 in_progress; 14 of 14 request(s) done, 0 failed (submitted for "
                   "api.yaml: 22 field(s) with gpt-4o)\n")
    code, _, err = infer(server, capsys, "--batch", "submit")
    assert code == 0 and err.startswith("3 batch(es): 2 completed, 1 in_progress;")
    assert "already submitted for api.yaml, nothing submitted (see --batch status)" in err
    assert len(server.batches.batches) == 3

    before = (STATE.read_bytes(), INPUT.read_bytes())
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert err == ("1 of 3 batches not finished (batch_fake2 in_progress): nothing collected; collect again "
                   "later\n")
    assert (STATE.read_bytes(), INPUT.read_bytes()) == before and not ORACLES.exists()

    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert "22 field(s): 0 reused, 0 moved, 22 inferred (llm)" in err and "fell back" not in err
    assert not STATE.exists() and not INPUT.exists() and ORACLES.exists()
    assert server.requests == []


def test_a_part_that_did_not_complete_falls_back_and_the_others_are_used(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_module, "MAX_BATCH_REQUESTS", 8)
    server.batches.scripts["batch_fake2"] = BatchScript(outcome="expired", answered=1)
    server.batches.scripts["batch_fake3"] = BatchScript(outcome="failed")
    assert main(["infer", "api.yaml", "--oracles", "rules.yaml", "--quiet"]) == 0
    assert infer(server, capsys, "--oracles", "sync.yaml")[0] == 0
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    sent = state()
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 3
    assert "13 field(s) fell back to rules: 7 batch_expired, 6 batch failed" in err
    assert err.splitlines()[-1] == ("satori-ci: error: batch batch_fake2 expired after 1 of 8 request(s), batch "
                                    "batch_fake3 failed: 13 field(s) fell back to rules (.satori/api.oracles.yaml "
                                    "written, .satori/api.batch.json removed)")
    assert not STATE.exists() and not INPUT.exists()
    batch, rules, sync = _entries(ORACLES), _entries(Path("rules.yaml")), _entries(Path("sync.yaml"))
    answered = {(r.operation, r.field) for r in sent.parts[0].requests + sent.parts[1].requests[:1]}
    for request in sent.requests:
        key = f'"{request.operation}": "{request.field}":'
        assert batch[key] == (sync[key] if (request.operation, request.field) in answered else rules[key]), key


def test_when_every_part_failed_nothing_is_collected(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_module, "MAX_BATCH_REQUESTS", 12)
    server.batch.outcome = "failed"
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    code, out, err = infer(server, capsys, "--batch", "collect")
    assert (code, out) == (3, "")
    assert err == ("satori-ci: error: 2 batch(es): 2 failed; 0 of 0 request(s) done, 0 failed: nothing to collect, "
                   ".satori/api.batch.json removed; submit again, or run without --batch\n")
    assert not STATE.exists() and not INPUT.exists() and not ORACLES.exists()


def test_a_part_that_cannot_be_created_keeps_the_parts_before_it(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_module, "MAX_BATCH_REQUESTS", 8)
    server.batches.refused.add(2)
    code, out, err = infer(server, capsys, "--batch", "submit")
    assert (code, out) == (3, "")
    lines = err.splitlines()
    assert lines[0].startswith("submitted batch batch_fake1 (validating): 8 field(s) of api.yaml for gpt-4o;")
    assert lines[1] == ("warning: 14 field(s) not sent: batch 2 of 3 could not be created; the rules answer them at "
                        "collect")
    assert re.fullmatch(r"satori-ci: error: could not create the batch at http://127\.0\.0\.1:\d+/v1/ \(HTTP 500: "
                        r"The server had an error while creating the batch\)", lines[2]), lines[2]
    assert len(lines) == 3
    sent = state()
    assert sent.batch_ids == ("batch_fake1",) and sent.not_sent == 14 and len(sent.requests) == 8
    assert list(server.batches.batches) == ["batch_fake1"]  # the third part was not tried
    assert INPUT.read_bytes() == server.batches.files["file-fake1"].data

    code, _, err = infer(server, capsys, "--batch", "submit")  # nothing created twice
    assert code == 0 and "already submitted" in err and list(server.batches.batches) == ["batch_fake1"]
    code, out, err = infer(server, capsys, "--batch", "status")
    assert out.endswith("(submitted for api.yaml: 8 field(s) with gpt-4o, 14 not sent)\n")
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert "14 field(s) fell back to rules: 14 not in the batch" in err
    assert "warning: 14 field(s) were not sent (their batch could not be created at submit)" in err
    assert "llm (Batch API, half price): 8 request(s)" in err
    assert not STATE.exists() and not INPUT.exists() and ORACLES.exists()


def test_a_state_of_the_previous_release_is_collected(server: FakeOpenAIServer,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert infer(server, capsys, "--oracles", "sync.yaml")[0] == 0
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    sent = state()
    part = sent.parts[0]
    STATE.write_text(json.dumps({
        "version": 1, "spec": sent.spec, "model": sent.model, "batch_id": part.batch_id,
        "input_file_id": part.input_file_id, "input_sha256": part.input_sha256, "held_back": 0,
        "requests": [{"custom_id": r.custom_id, "fingerprint": r.fingerprint, "operation": r.operation,
                      "field": r.field, "request": r.digest} for r in part.requests]}), encoding="utf-8")
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert ORACLES.read_bytes() == Path("sync.yaml").read_bytes()


def test_reused_oracles_are_not_submitted(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(EXAMPLES / "openapi.v1.yaml", "api.yaml")
    assert main(["infer", "api.yaml", "--quiet"]) == 0  # the reviewed file of v1
    shutil.copy(ORACLES, "previous.yaml")
    shutil.copy(EXAMPLES / "openapi.v2.yaml", "api.yaml")
    code, _, err = infer(server, capsys, "--oracles", "previous.yaml")
    assert code == 0 and "12 reused, 0 moved, 10 inferred (llm)" in err
    asked = sorted(json.dumps(r.body, sort_keys=True) for r in server.requests)
    capsys.readouterr()
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    assert len(state().requests) == len(asked) == 10
    assert sorted(json.dumps(json.loads(line)["body"], sort_keys=True)
                  for line in INPUT.read_text(encoding="utf-8").splitlines()) == asked
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0 and "12 reused, 0 moved, 10 inferred (llm)" in err
    assert ORACLES.read_bytes() == Path("previous.yaml").read_bytes()


def test_the_input_and_state_files_are_deterministic(server: FakeOpenAIServer, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    first = (INPUT.read_bytes(), STATE.read_bytes())
    other = tmp_path / "again"
    other.mkdir()
    shutil.copy("api.yaml", other / "api.yaml")
    monkeypatch.chdir(other)
    with FakeOpenAIServer(_answer) as fresh:
        assert infer(fresh, capsys, "--batch", "submit")[0] == 0
    assert (INPUT.read_bytes(), STATE.read_bytes()) == first


# ---------------------------------------------------------------------------------------------
# Answers that did not come


def test_failed_lines_fall_back_to_rules_and_are_counted(server: FakeOpenAIServer,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    failing = {"total": "HTTP 500", "books[].title": "answer unusable", "books[].rating": "request_timeout",
               "books[].language": "missing from the output"}
    server.responder = lambda r: (Reply(status=500, error="boom") if r.field_path == "total" else
                                  "I cannot answer that" if r.field_path == "books[].title" else _answer(r))
    server.batch.errors["books[].rating"] = ("request_timeout", "the model timed out")
    server.batch.dropped.add("books[].language")
    assert main(["infer", "api.yaml", "--oracles", "rules.yaml", "--quiet"]) == 0
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert ("4 field(s) fell back to rules: 1 HTTP 500, 1 answer unusable, 1 missing from the output, "
            "1 request_timeout") in err
    assert not STATE.exists()
    batch, rules = _entries(ORACLES), _entries(Path("rules.yaml"))
    for field in failing:
        key = f'"GET /books 200": "{field}":'
        assert batch[key] == rules[key], field
    isbn = '"GET /books 200": "books[].isbn":'
    assert batch[isbn] != rules[isbn]


def test_held_back_fields_are_answered_by_the_rules(server: FakeOpenAIServer,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = infer(server, capsys, "--batch", "submit", "--max-calls", "3")
    assert code == 0 and "warning: 19 field(s) left out by --max-calls 3" in err
    assert len(state().requests) == 3
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0 and "19 field(s) fell back to rules: 19 not in the batch" in err
    assert "llm (Batch API, half price): 3 request(s)" in err


@pytest.mark.parametrize("outcome", ["expired", "cancelled"])
def test_an_ended_batch_is_collected_with_what_it_answered_then_exit_3(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], outcome: str) -> None:
    server.batch.outcome, server.batch.answered = outcome, 5
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 3
    assert f"17 field(s) fell back to rules: 17 batch_{outcome}" in err
    assert err.splitlines()[-1] == (f"satori-ci: error: batch batch_fake1 {outcome} after 5 of 22 request(s): "
                                    "17 field(s) fell back to rules (.satori/api.oracles.yaml written, "
                                    ".satori/api.batch.json removed)")
    assert not STATE.exists()
    assert len(server.batches.requests) == 5
    text = ORACLES.read_text(encoding="utf-8")
    assert 'value: 13, source: "llm:gpt-4o"' in text  # books[].isbn, the third request, was answered


def test_a_failed_batch_is_exit_3_and_its_state_is_removed(server: FakeOpenAIServer,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    server.batch.outcome = "failed"
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    code, out, err = infer(server, capsys, "--batch", "collect")
    assert (code, out) == (3, "")
    assert err == ("satori-ci: error: batch batch_fake1: failed, 0 of 0 request(s) done, 0 failed "
                   "(invalid_request: the input file could not be validated): nothing to collect, "
                   ".satori/api.batch.json removed; submit again, or run without --batch\n")
    assert not STATE.exists() and not ORACLES.exists()


def test_a_batch_the_server_does_not_know_is_exit_3(server: FakeOpenAIServer,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    STATE.write_text(STATE.read_text(encoding="utf-8").replace("batch_fake1", "batch_elsewhere"), encoding="utf-8")
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 3 and STATE.exists()
    assert re.fullmatch(r"satori-ci: error: could not read batch batch_elsewhere at http://127\.0\.0\.1:\d+/v1/ "
                        r"\(HTTP 404: No such batch\)\n", err), err


# ---------------------------------------------------------------------------------------------
# Mistakes, no key, no server, no secret


@pytest.mark.parametrize(("args", "message"), [
    (["--batch", "submit", "--backend", "rules"], "--batch needs --backend llm"),
    (["--batch", "submit", "--max-tokens", "100"], "--max-tokens cannot bound a batch"),
    (["--batch", "collect"], "no batch to collect for api.yaml (no .satori/api.batch.json)"),
])
def test_usage_mistakes_are_one_line_and_exit_2(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
                                                args: list[str], message: str) -> None:
    code, out, err = infer(server, capsys, *args)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and message in err
    assert server.api_calls == [] and not Path(".satori").exists()


def test_a_damaged_state_file_is_exit_2(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    STATE.parent.mkdir()
    STATE.write_text("{not json", encoding="utf-8")
    code, _, err = infer(server, capsys, "--batch", "status")
    assert code == 2 and err.startswith("satori-ci: error: .satori/api.batch.json: not a batch state file (")
    assert len(err.splitlines()) == 1


def test_without_a_key_nothing_is_submitted_nor_written(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    code, out, err = infer(server, capsys, "--batch", "submit")
    assert (code, out) == (2, "")
    assert err == ("satori-ci: error: --batch submit needs an API key: set OPENAI_API_KEY (without a key, infer "
                   "without --batch: the rules answer)\n")
    assert server.api_calls == [] and not Path(".satori").exists()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    monkeypatch.delenv("OPENAI_API_KEY")
    for action in ("status", "collect"):
        code, _, err = infer(server, capsys, "--batch", action)
        assert code == 2 and f"--batch {action} needs an API key" in err
    assert STATE.exists() and not ORACLES.exists()


def test_an_unreachable_server_submits_nothing(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = main(["infer", "api.yaml", "--backend", "llm", "--base-url", f"http://127.0.0.1:{port}/v1",
                 "--batch", "submit"])
    out, err = capsys.readouterr()
    assert (code, out) == (3, "")
    assert err.startswith(f"satori-ci: error: cannot reach the LLM server at http://127.0.0.1:{port}/v1/ to upload "
                          "the batch input file (connection error:")
    assert len(err.splitlines()) == 1 and not Path(".satori").exists()


def test_an_unreachable_server_at_collect_keeps_the_batch(server: FakeOpenAIServer,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    before = STATE.read_bytes()
    code = main(["infer", "api.yaml", "--backend", "llm", "--base-url", "http://127.0.0.1:9/v1", "--batch",
                 "collect"])
    err = capsys.readouterr().err
    assert code == 3 and "cannot reach the LLM server at http://127.0.0.1:9/v1/ to read batch batch_fake1" in err
    assert STATE.read_bytes() == before and not ORACLES.exists()


def test_a_batch_is_collected_for_the_spec_it_was_submitted_for(server: FakeOpenAIServer,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert infer(server, capsys, "--batch", "submit")[0] == 0
    shutil.copy("api.yaml", "other.yaml")
    code = main(["infer", "other.yaml", "--backend", "llm", "--base-url", server.base_url, "--oracles",
                 str(ORACLES), "--batch", "collect"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "satori-ci: error: the pending batch batch_fake1 was submitted for api.yaml, not other.yaml\n"
    assert STATE.exists() and not ORACLES.exists()


def test_the_key_is_in_no_output_and_no_file(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    server.batch.in_progress = 2
    texts = []
    for action, expected in [("submit", 0), ("submit", 0), ("status", 0), ("collect", 0), ("collect", 2),
                             ("status", 0)]:
        code, out, err = infer(server, capsys, "--batch", action, "--jsonl")
        assert code == expected, err
        texts += [out, err]
        texts += [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file()]
    assert all(call.headers.get("authorization") == f"Bearer {KEY}" for call in server.api_calls)
    assert len(texts) > 12 and not any(KEY in text for text in texts)


# ---------------------------------------------------------------------------------------------
# Root-array bodies: the root field's path is the empty string

ROOT_ARRAYS = """\
openapi: 3.0.3
info: {title: Tags, version: "1"}
paths:
  /tags:
    get:
      responses:
        "200":
          description: every tag
          content:
            application/json:
              schema:
                type: array
                minItems: 1
                items: {type: string, maxLength: 20}
  /books:
    get:
      responses:
        "200":
          description: every book
          content:
            application/json:
              schema:
                type: array
                items:
                  type: object
                  properties:
                    isbn: {type: string}
                    total: {type: integer}
"""


def test_root_array_bodies_submit_status_collect(server: FakeOpenAIServer,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    Path("api.yaml").write_text(ROOT_ARRAYS, encoding="utf-8")
    code, _, sync_err = infer(server, capsys, "--oracles", ".satori/sync.oracles.yaml")
    assert code == 0, sync_err
    asked = len(server.requests)
    server.batch.in_progress = 2
    code, _, err = infer(server, capsys, "--batch", "submit")
    assert code == 0, err
    sent = state()  # the state file reads back
    assert len(sent.requests) == asked
    assert "" in {request.field for request in sent.requests}  # the root field was sent
    code, out, err = infer(server, capsys, "--batch", "status")
    assert (code, err) == (0, ""), err
    assert out.startswith("batch batch_fake1: in_progress")
    code, _, err = infer(server, capsys, "--batch", "submit")
    assert code == 0 and "already submitted for api.yaml, nothing submitted" in err
    code, _, err = infer(server, capsys, "--batch", "collect")
    assert code == 0, err
    assert f"{asked} inferred (llm)" in err and f"llm (Batch API, half price): {asked} request(s)" in err
    assert "fell back" not in err and not STATE.exists() and not INPUT.exists()
    assert len(server.requests) == asked  # every answer of the collect came from the batch
    assert ORACLES.read_bytes() == Path(".satori/sync.oracles.yaml").read_bytes()
