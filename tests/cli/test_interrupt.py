"""Ctrl-C during `satori-ci infer` (issue 18): what was inferred so far is written, the exit is 130 with one line
saying so, the next run continues from it, and no temporary file is left in `.satori/`. SIGTERM (a CI job
cancelled, `timeout`, `kill`) is a Ctrl-C too: Newman is stopped with the run and its files removed.

Each run is a real process sent a real SIGINT once it shows it is inferring: the rules backend on a large
spec (its progress bar, on a pseudo-terminal, has moved), the LLM backend against a slow local OpenAI server (it
has answered a few fields).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from satori_ci.check.workspace import write_atomically
from satori_ci.cli import main
from satori_ci.demo import Bookshop, Canned, Received, list_body
from satori_ci.errors import ExitCode
from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import update_oracle_file
from satori_ci.infer.interface import Inferred
from satori_ci.infer.rules import RulesBackend, context_digests
from satori_ci.oracles.file import OracleFile, load_oracle_file
from satori_ci.spec import load_spec
from tests.run.conftest import BOOKSHOP_SPEC, FIXTURES, concurrently, newman_available
from tests.servers.openai_server import FakeOpenAIServer, slow

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS, FIELDS = 40, 100
"""The large spec: 40 operations of 100 fields each (4,040 fields with the lists: about a second of rules; the bar
is redrawn at each field, so it moves many times before the run ends)."""
BAR = re.compile(r"inferring\b[^\r\n]*?\s(\d+)/(\d+)")
WAIT_S = 180.0
"""The most a run may take here: a bound that proves it did not hang, nothing more."""

_KINDS = [("id", {"type": "integer", "minimum": 1}), ("name", {"type": "string", "maxLength": 80}),
          ("email", {"type": "string", "format": "email"}), ("created_at", {"type": "string", "format": "date-time"}),
          ("url", {"type": "string", "format": "uri"}), ("count", {"type": "integer"}),
          ("status", {"type": "string", "enum": ["open", "closed"]}), ("price", {"type": "number", "minimum": 0}),
          ("active", {"type": "boolean"}), ("country_code", {"type": "string", "description": "ISO 3166 code"})]


def _spec(path: Path, operations: int, fields: int) -> Path:
    """A spec of `operations` list operations, each item with `fields` fields of varied kinds and names."""
    paths = {}
    for o in range(operations):
        props = {}
        for f in range(fields):
            name, schema = _KINDS[f % len(_KINDS)]
            props[f"{name}_{o}_{f}"] = {**schema, "description": f"The {name} of thing {o}-{f}"}
        item = {"type": "object", "properties": props}
        schema = {"type": "object", "properties": {"items": {"type": "array", "items": item}}}
        ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
        paths[f"/things{o}"] = {"get": {"operationId": f"list{o}", "responses": {"200": ok}}}
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "Big", "version": "1"}, "paths": paths}),
                    encoding="utf-8")
    return path


def _env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}, "PYTHONPATH": str(ROOT),
            "COLUMNS": "120", **extra}


def _interrupt_on_a_terminal(args: list[str], cwd: Path, ready: Callable[[str], bool]) -> tuple[int, str]:
    """Run satori-ci with stderr on a pseudo-terminal; SIGINT once `ready(what the terminal got)`. Its exit code
    and the terminal's text."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "satori_ci", *args], stdout=subprocess.DEVNULL, stderr=slave,
                            env=_env(), cwd=cwd)
    os.close(slave)
    seen, sent = b"", False
    deadline = time.monotonic() + WAIT_S
    try:
        while time.monotonic() < deadline:
            readable, _, _ = select.select([master], [], [], 0.05)
            if readable:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            if not sent and ready(seen.decode("utf-8", "replace")):
                proc.send_signal(signal.SIGINT)
                sent = True
        code = proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert sent, "the run ended before it showed it was inferring"
    return code, seen.decode("utf-8", "replace")


def _moved(terminal: str) -> bool:
    """The progress bar shows some fields inferred, not all."""
    return any(0 < int(m.group(1)) < int(m.group(2)) for m in BAR.finditer(terminal))


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith(".tmp"))


def _read(path: Path) -> OracleFile:
    return load_oracle_file(path.read_text(encoding="utf-8"), str(path))


def _lines(terminal: str) -> list[str]:
    """The terminal's lines without the progress bar's redraws."""
    return [line.strip() for line in re.split(r"[\r\n]+", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", terminal))
            if line.strip() and not BAR.search(line)]


def test_ctrl_c_while_the_rules_infer_writes_the_fields_done_and_the_next_run_finishes(tmp_path: Path) -> None:
    _spec(tmp_path / "big.json", OPERATIONS, FIELDS)
    oracles = tmp_path / ".satori" / "big.oracles.yaml"
    code, terminal = _interrupt_on_a_terminal(["infer", "big.json", "--oracles", ".satori/big.oracles.yaml"],
                                              tmp_path, _moved)
    lines = _lines(terminal)
    assert code == ExitCode.INTERRUPTED, terminal
    assert "Traceback" not in terminal and sum("interrupted" in line for line in lines) == 1, lines
    partial = _read(oracles)
    total = OPERATIONS * (FIELDS + 1)
    assert 0 < len(partial.entries) < total, len(partial.entries)
    assert _leftovers(oracles.parent) == []

    def finish() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "satori_ci", "infer", "big.json", "--oracles",
                               ".satori/big.oracles.yaml"], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                              timeout=WAIT_S, check=False)

    def whole() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "satori_ci", "infer", "big.json", "--oracles",
                               "whole/big.oracles.yaml", "--quiet"], cwd=tmp_path, env=_env(), capture_output=True,
                              text=True, timeout=WAIT_S, check=False)

    finished, uninterrupted = concurrently([finish, whole])
    assert finished.returncode == 0 and uninterrupted.returncode == 0, finished.stderr + uninterrupted.stderr
    assert f"{len(partial.entries)} reused" in finished.stderr, finished.stderr  # continued from the partial file
    assert oracles.read_text(encoding="utf-8") == (tmp_path / "whole" / "big.oracles.yaml").read_text(encoding="utf-8")
    assert _leftovers(oracles.parent) == []


def test_ctrl_c_while_the_llm_infers_writes_its_answers(tmp_path: Path) -> None:
    _spec(tmp_path / "small.json", 3, 10)
    with FakeOpenAIServer(default=slow({"oracles": []}, 0.2)) as server:
        proc = subprocess.Popen([sys.executable, "-m", "satori_ci", "infer", "small.json", "--backend", "llm",
                                 "--base-url", server.base_url, "--model", "fake-model", "--concurrency", "1"],
                                cwd=tmp_path, env=_env(OPENAI_API_KEY="sk-test-1"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + WAIT_S
        while len(server.requests) < 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT_S)
        answered = len(server.requests) - 1  # one at a time: the last one was still waiting
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert "Traceback" not in err and sum("interrupted" in line for line in err.splitlines()) == 1, err
    partial = _read(tmp_path / ".satori" / "small.oracles.yaml")
    assert answered <= len(partial.entries) < 3 * 11, (answered, len(partial.entries))
    assert _leftovers(tmp_path / ".satori") == []


def test_quiet_still_says_the_run_was_interrupted(tmp_path: Path) -> None:
    _spec(tmp_path / "small.json", 3, 10)
    with FakeOpenAIServer(default=slow({"oracles": []}, 0.2)) as server:
        proc = subprocess.Popen([sys.executable, "-m", "satori_ci", "infer", "small.json", "--backend", "llm",
                                 "--base-url", server.base_url, "--model", "fake-model", "--concurrency", "1",
                                 "--quiet"],
                                cwd=tmp_path, env=_env(OPENAI_API_KEY="sk-test-1"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + WAIT_S
        while len(server.requests) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == ExitCode.INTERRUPTED
    assert [line for line in err.splitlines() if "interrupted" in line] == [err.strip()], err


def test_a_write_that_fails_half_way_leaves_the_old_file_and_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / ".satori" / "api.oracles.yaml"
    write_atomically(target, "old\n")
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate, 1 MB in: the temporary file has the MB
        write_atomically(target, "x" * 1_000_000 + "\ud800")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert _leftovers(target.parent) == []


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def test_the_rules_hand_over_each_field_as_it_is_done(tmp_path: Path) -> None:
    """A Ctrl-C once 100 fields were inferred (a real signal, while most of a 12,000-field spec is still to do; not
    on a timer, which a fast machine can outrun) keeps the fields done by then, each with the oracles a whole run
    gives it."""
    spec = load_spec(str(_spec(tmp_path / "big.json", 2 * OPERATIONS, FIELDS)))
    digests = context_digests(spec.fields, spec)

    def on_inferred(_: Inferred) -> None:
        done.append(True)
        if len(done) == 100:
            signal.raise_signal(signal.SIGALRM)

    done: list[bool] = []
    previous = signal.signal(signal.SIGALRM, _interrupt)
    try:
        result = update_oracle_file(spec.file, spec.fields, None, make_backend("rules", context=spec.fields, spec=spec),
                                    on_inferred, digests)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert result.pending > 0 and 0 < result.inferred == len(result.file.entries), (result.pending, result.inferred)
    done = {e.key for e in result.file.entries}
    fields = [f for f in spec.fields if (f.operation.method, f.operation.path, f.operation.status, f.field) in done]
    whole = RulesBackend(spec.fields, spec=spec).infer(fields)
    assert [e.oracles for e in result.file.entries] == [
        tuple(replace(o, operation_id=f.operation_id) for o in r.oracles) for f, r in zip(fields, whole.results,
                                                                                          strict=True)]


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` is still a process that is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _from_newman(received: Received) -> bool:
    return any(k.lower() == "user-agent" and v.startswith("PostmanRuntime") for k, v in received.headers.items())


def test_sigterm_during_a_newman_run_is_a_ctrl_c(tmp_path: Path) -> None:
    """`satori-ci run --runner newman` sent SIGTERM while Newman waits for a slow staging server: exit 130 with one
    line, Newman stopped (no process of the run's group is left), no temporary file left anywhere."""
    newman_available()
    work, temp = tmp_path / "repo", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    (work / "bookshop.oracles.yaml").write_text((FIXTURES / "bookshop.oracles.yaml").read_text(encoding="utf-8"),
                                                encoding="utf-8")
    shop = Bookshop()
    shop.server.set_default(*Bookshop.LIST, lambda received, params: Canned(
        list_body(), delay_s=WAIT_S if _from_newman(received) else 0.0))  # satori-ci's own list comes back at once
    with shop.server:
        proc = subprocess.Popen([sys.executable, "-m", "satori_ci", "run", str(BOOKSHOP_SPEC), "--oracles",
                                 "bookshop.oracles.yaml", "--base-url", shop.server.base_url, "--runner", "newman",
                                 "--timeout", str(WAIT_S)],
                                cwd=work, env=_env(TMPDIR=str(temp), SATORI_HEARTBEAT_S="0"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                start_new_session=True)  # its own process group: Newman's too
        try:
            # the list is sent first by satori-ci itself (its values decide what Newman sends), then by Newman
            deadline = time.monotonic() + 3 * WAIT_S
            while not (_children(proc.pid) and list(temp.iterdir()) and any(map(_from_newman, shop.server.received))) \
                    and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)  # Newman's own request, waiting for the slow list
            assert any(map(_from_newman, shop.server.received)), "newman sent no request"
            newman = _children(proc.pid)
            assert newman and list(temp.iterdir()), (newman, list(temp.iterdir()))  # Newman runs, in its folder
            proc.send_signal(signal.SIGTERM)  # to satori-ci only, as `kill PID` does
            out, err = proc.communicate(timeout=WAIT_S)
            assert proc.returncode == ExitCode.INTERRUPTED, (proc.returncode, err)
            assert err == "satori-ci: interrupted\n" and out == "", (out, err)
            assert not any(_alive(pid) for pid in newman), newman
            assert not _group_alive(proc.pid)
        finally:
            if _group_alive(proc.pid):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=WAIT_S)
    assert list(temp.iterdir()) == []
    assert sorted(str(p.relative_to(work)) for p in work.rglob("*")) == ["bookshop.oracles.yaml"]


def test_main_restores_the_sigterm_handler_it_installs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    outer = signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not whatever an earlier test in this process left
    try:
        before = signal.getsignal(signal.SIGTERM)
        seen: list[object] = []

        def spy(args: object) -> int:
            seen.append(signal.getsignal(signal.SIGTERM))
            return 0

        monkeypatch.setattr("satori_ci.cli.run_commands.run_collection", spy)
        from satori_ci.cli import run_commands  # the parser binds the handler when it is built
        assert run_commands.run_collection is spy
        assert main(["collection", str(BOOKSHOP_SPEC), "--oracles", str(FIXTURES / "bookshop.oracles.yaml")]) == 0
        assert seen and seen[0] not in (before, signal.SIG_DFL), seen
        assert signal.getsignal(signal.SIGTERM) == before
    finally:
        signal.signal(signal.SIGTERM, outer)
