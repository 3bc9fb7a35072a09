"""Scale (issue 12, item 12): what made `fields --json` on GitHub's spec take 18x a `json.load` process.

bench/spec_scale.py measures the whole processes; these pin the causes: deepdiff and urllib.request
imported at start-up, JSON key lines found by a Python loop over every token, the 30 MB output passed
to the redactor in one piece, and a reference cycle that left the fields to the cyclic collector.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import weakref
from collections.abc import Callable

import pytest

from satori_ci import redaction
from satori_ci.cli import main
from satori_ci.spec import load_spec
from satori_ci.spec.json_loader import load_json
from tests.spec.conftest import WriteSpec


def _synthetic(operations: int = 60, properties: int = 40) -> str:
    schemas = {f"S{i}": {"type": "object", "properties": {
        f"p{j}": {"type": "string", "description": f"see https://docs.example.com/s{i}?p={j}", "example": f"v{j}"}
        for j in range(properties)}} for i in range(operations)}
    paths = {f"/things{i}/{k}": {"get": {"operationId": f"get{i}", "responses": {"200": {
        "description": "ok", "content": {"application/json": {"schema": {
            "type": "array", "items": {"$ref": f"#/components/schemas/S{(i + k) % operations}"}}}}}}}}
        for i in range(operations) for k in range(3)}
    return json.dumps({"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths,
                       "components": {"schemas": schemas}}, indent=2)


def test_importing_the_spec_stage_leaves_deepdiff_and_urllib_request_out() -> None:
    code = "import sys, satori_ci.spec; print(sorted(m for m in ('deepdiff', 'urllib.request') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_fields_are_freed_without_the_cyclic_collector(write: WriteSpec) -> None:
    path = write("api.json", _synthetic(operations=5, properties=3))
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        spec = load_spec(str(path))
        field = weakref.ref(spec.fields[0])
        del spec
        assert field() is None  # freed by reference counting alone
    finally:
        if was_enabled:
            gc.enable()


def test_fields_json_is_redacted_in_pieces(write: WriteSpec, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write("api.json", _synthetic())
    monkeypatch.chdir(path.parent)
    sizes: list[int] = []
    redact = redaction.Redactor.redact

    def recording(self: redaction.Redactor, text: str) -> str:
        sizes.append(len(text))
        return redact(self, text)

    monkeypatch.setattr(redaction.Redactor, "redact", recording)
    monkeypatch.setenv("SATORI_AUTH_KEY", "docs.example.com")
    assert main(["fields", "--json", "api.json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 60 * 3 * (1 + 40)
    assert "docs.example.com" not in out and "https://***/s0?p=0" in out
    assert max(sizes) < 1000 < len(out)  # pieces of lines, each once: not the whole text


def _best(fn: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def test_json_key_lines_cost_a_few_parses_not_a_python_loop_per_token() -> None:
    from satori_ci.spec.json_loader import JsonKeyLines

    doc = {f"s{i}": {"type": "object", "properties": {f"p{j}": {"type": "integer", "minimum": j} for j in range(20)}}
           for i in range(2000)}
    text = json.dumps(doc, indent=2)
    value = load_json(text, "api.json")
    pointers = [[f"s{i}", "properties", f"p{j}", "minimum"] for i in range(0, 2000, 7) for j in range(0, 20, 3)]

    def lines() -> None:
        found = JsonKeyLines(text, value)
        for pointer in pointers:
            found.line(pointer)

    parse = _best(lambda: json.loads(text))
    # a scan of every token in Python took ~30 parses; the regex passes and key counts take ~4
    assert _best(lines) < 12 * parse
    assert JsonKeyLines(text, value).line(["s1999", "properties", "p19", "minimum"]) == text.count("\n", 0, text.rindex(
        '"minimum"')) + 1



_FIELDS_PROCESS = """
import sys
from satori_ci.cli import entry, process_end
from satori_ci.forked import ForkedBytes

children = []
start, end = ForkedBytes.start.__func__, process_end.end

def counted(cls, work):
    child = start(cls, work)
    children.append(child is not None)
    return child

def reported(code):
    sys.stderr.write(f"children {children} held {len(process_end._held)}\\n")
    end(code)

ForkedBytes.start = classmethod(counted)
process_end.end = reported
sys.argv = ["satori-ci", "fields", "--json", "api.json"]
entry()
"""


def test_a_large_json_spec_has_its_key_lines_scanned_by_a_child_and_the_same_lines_come_out(
        write: WriteSpec, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from satori_ci import forked
    from satori_ci.spec.json_loader import BACKGROUND_SCAN_CHARS

    spec = json.loads(_synthetic(operations=20))
    spec["info"]["description"] = "d" * BACKGROUND_SCAN_CHARS  # a large text, few fields
    path = write("api.json", json.dumps(spec, indent=2))
    run = subprocess.run([sys.executable, "-c", _FIELDS_PROCESS], capture_output=True, text=True, cwd=path.parent,
                         check=False)
    assert (run.returncode, run.stderr) == (0, "children [True] held 1\n")  # the spec held to the end, not freed
    monkeypatch.chdir(path.parent)
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    assert main(["fields", "--json", "api.json"]) == 0
    assert run.stdout == capsys.readouterr().out  # the lines found here
    lines = run.stdout.splitlines()
    assert len(lines) == 20 * 3 * 41
    text = path.read_text()  # the last field: `p39` of `S1`, the items of the last operation (`/things19/2`)
    last = text.index('"p39"', text.index('"S1"'))
    assert json.loads(lines[-1])["source"] == f"api.json:{text.count(chr(10), 0, last) + 1}"
