"""No text of a pull request or of a staging response becomes a GitHub workflow command in the job log (issue 18).

Every subcommand runs (in the test's process, with the environment of a workflow step) on a spec whose field
names, enum values and descriptions are workflow commands, and against a staging server whose values are commands
too. What it prints, byte for byte (no newline translated), is read as the Actions runner reads a step's output:
a line whose start (after whitespace) is `::`, or that holds `##[` anywhere, is a command. The checker splits
lines at every Unicode line break and strips every Unicode space, so it is stricter than the runner (which splits
at CR and LF and trims .NET's white space).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest

from satori_ci.demo import Canned, StagingServer
from tests import in_process

ROOT = Path(__file__).resolve().parents[2]
MARK = "pwned"
"""In every hostile text: what must never be a command's name, nor a property's."""

HOSTILE = (
    "::warning title=x::pwned-1", "::add-mask::pwned-2", "::stop-commands::pwned-3",
    "  ::set-output name=a::pwned-4", "a\n::error::pwned-5", "b\r::notice::pwned-6", "c\x1b[31mpwned-7\x1b]0;t\x07",
    "d\u2028::warning::pwned-8", "e\u2029::warning::pwned-9", "f\x85::warning::pwned-10", "##[error]pwned-11",
    "g\x0b::warning::pwned-12", "\u3000::warning::pwned-13", "h\x1c::warning::pwned-14", "::pwned-15::",
)
VALUE = "##[error]pwned-v1\n::warning::pwned-v2\x1b[2J\r::notice::pwned-v3\u2028::error::pwned-v4\x9b31m"
"""What the staging server answers for every field."""

OWN = re.compile(r"::(?P<name>error|warning|notice|group|endgroup|add-mask)(?: (?P<props>[^:]*))?::(?P<data>.*)")
PROPERTIES = frozenset({"file", "line", "endLine", "col", "endColumn", "title"})
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def runner_commands(text: str) -> list[str]:
    """The lines of `text` the runner would read as workflow commands (`::` first, or `##[` anywhere)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]


def foreign_commands(text: str, masks: Iterable[str] = ()) -> list[str]:
    """The command lines of `text` that are not ours. Ours: `::error|warning|notice props::message`,
    `::group::`, `::endgroup::`, `::add-mask::` of a known secret; properties escaped (no `:` nor `,` in a value),
    no `##[` anywhere, and no hostile text as a command's name nor at the start of a property or of the message
    (every command-like piece of the hostile texts here is `::name[ props]::pwned…`; ours quote a hostile name
    escaped, after words of their own: `title=Oracle violation%3A GET /x %3A%3Awarning…`)."""
    allowed = set(masks)
    out = []
    for line in runner_commands(text):
        found = OWN.fullmatch(line)
        props = (found["props"] or "") if found else ""
        pairs = [p.partition("=") for p in props.split(",")] if props else []
        ours = (found is not None and "##[" not in line and MARK not in found["name"]
                and not found["data"].startswith(MARK)
                and all(eq and key in PROPERTIES and not value.startswith(MARK) for key, eq, value in pairs)
                and (found["name"] != "add-mask" or found["data"] in allowed))
        if not ours:
            out.append(line)
    return out


def raw_controls(text: str) -> list[str]:
    """Control characters, Unicode line separators and lone surrogates left raw in `text` (LF and tab apart)."""
    return sorted({f"U+{ord(c):04X}" for c in _CONTROLS.findall(text)})


def strings(data: object) -> set[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return {s for k, v in data.items() for s in (k, *strings(v))}
    if isinstance(data, list):
        return {s for v in data for s in strings(v)}
    return set()


def hostile_spec(names: Iterable[str], enum: list[str]) -> str:
    """One operation whose fields are `names`, each a string with `enum` and a hostile description."""
    props = {n: {"type": "string", "enum": enum, "description": "::error::pwned-desc\n::warning::pwned-desc2"}
             for n in names}
    return json.dumps({
        "openapi": "3.0.3", "info": {"title": "::warning::pwned-title", "version": "1"},
        "paths": {"/things": {"get": {"operationId": "things", "responses": {"200": {
            "description": "##[error]pwned-description",
            "content": {"application/json": {"schema": {"type": "object", "properties": props}}}}}}}}})


def hostile_body() -> dict[str, str]:
    return {**{name: VALUE for name in HOSTILE}, "::warning::pwned-key\n::error::pwned-key2": VALUE}


@dataclass(frozen=True)
class Workspace:
    root: Path
    staging: str


@pytest.fixture(scope="module")
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/things", lambda r, p: Canned(hostile_body()))
        yield server


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, staging: StagingServer) -> Workspace:
    root = tmp_path_factory.mktemp("hostile")
    (root / "base.json").write_text(hostile_spec(HOSTILE[:7], ["plain"]), encoding="utf-8")
    (root / "head.json").write_text(hostile_spec(HOSTILE, ["plain", *HOSTILE]), encoding="utf-8")
    (root / "responses.jsonl").write_text(json.dumps({"method": "GET", "path": "/things", "status": 200,
                                                      "body": hostile_body()}) + "\n", encoding="utf-8")
    code, _, err = cli(root, "infer", "base.json", "--oracles", "base.oracles.yaml")
    assert code == 0, err
    code, _, err = cli(root, "infer", "head.json", "--oracles", "head.oracles.yaml")
    assert code == 0, err
    return Workspace(root, staging.base_url)


def _step_env() -> dict[str, str]:
    """The environment of a workflow step, without the tests' own GitHub, Satori and OpenAI variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SATORI_", "OPENAI_"))}
    return {**env, "GITHUB_ACTIONS": "true"}


def cli(cwd: Path, *args: str) -> tuple[int, str, str]:
    """`satori-ci ARGS`, its output as the bytes it wrote decoded (nothing translated: a CR stays a CR).

    `sys.stdout` and `sys.stderr` are the streams a process on a pipe has (UTF-8; strict on standard output,
    backslashreplace on standard error), over bytes: `in_process` would read CR as a line break. Nothing may
    reach file descriptors 1 and 2 around them."""
    from satori_ci.cli import main

    raw = [io.BytesIO(), io.BytesIO()]
    out, err = (io.TextIOWrapper(b, encoding="utf-8", errors=e, newline="") for b, e in
                zip(raw, ("strict", "backslashreplace"), strict=True))

    def entry() -> int:
        with mock.patch.object(sys, "stdout", out), mock.patch.object(sys, "stderr", err):
            try:
                return main(list(args))
            finally:
                out.flush()
                err.flush()

    done = in_process.call(entry, cwd, _step_env())
    assert (done.stdout, done.stderr) == ("", ""), "written around sys.stdout and sys.stderr"
    return (done.returncode, raw[0].getvalue().decode("utf-8", "surrogateescape"),
            raw[1].getvalue().decode("utf-8", "surrogateescape"))


def cli_process(cwd: Path, *args: str, timeout: float) -> tuple[int, str, str]:
    """`cli` as a process (`python -m satori_ci`) killed after `timeout` seconds: a failure."""
    env = {**_step_env(), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "satori_ci", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=timeout, check=False)
    return (proc.returncode, proc.stdout.decode("utf-8", "surrogateescape"),
            proc.stderr.decode("utf-8", "surrogateescape"))


def _runs(w: Workspace) -> dict[str, list[str]]:
    run = ["run", "head.json", "--oracles", "head.oracles.yaml", "--base-url", w.staging, "--runner", "native",
           "--retries", "0", "--quiet", "--no-observe"]
    check = ["check", "--base", "base.json", "--head", "head.json", "--staging-url", w.staging, "--runner",
             "native", "--oracles", "check.oracles.yaml", "--quiet", "--no-write"]
    return {
        "fields": ["fields", "head.json"],
        "fields --json": ["fields", "head.json", "--json"],
        "spec-diff": ["spec-diff", "base.json", "head.json"],
        "spec-diff --json": ["spec-diff", "base.json", "head.json", "--json"],
        "infer": ["infer", "head.json", "--oracles", "again.oracles.yaml"],
        "infer --jsonl": ["infer", "head.json", "--oracles", "again.oracles.yaml", "--jsonl"],
        "oracle-diff": ["oracle-diff", "base.oracles.yaml", "head.oracles.yaml"],
        "oracle-diff --json": ["oracle-diff", "base.oracles.yaml", "head.oracles.yaml", "--json"],
        "collection": ["collection", "head.json", "--oracles", "head.oracles.yaml", "--base-url", w.staging],
        "run": run,
        "run --json report": [*run, "--report", "run.json"],
        "verify": ["verify", "head.json", "--oracles", "head.oracles.yaml", "--responses", "responses.jsonl",
                   "--no-observe"],
        "check": check,
        "check --json": [*check, "--json"],
    }


COMMANDS = ("fields", "fields --json", "spec-diff", "spec-diff --json", "infer", "infer --jsonl", "oracle-diff",
            "oracle-diff --json", "collection", "run", "run --json report", "verify", "check", "check --json")
SHOWS_THE_HOSTILE_TEXT = frozenset({"fields", "fields --json", "spec-diff", "spec-diff --json", "oracle-diff",
                                    "oracle-diff --json", "run", "verify", "check", "check --json"})


@pytest.mark.parametrize("name", COMMANDS)
def test_no_hostile_text_becomes_a_workflow_command(workspace: Workspace, name: str) -> None:
    code, out, err = cli(workspace.root, *_runs(workspace)[name])
    assert code in (0, 1), f"{name}: exit {code}\n{err}"
    assert runner_commands(out) == [] and runner_commands(err) == [], name  # the CLI prints no command of its own
    assert raw_controls(out) == [] and raw_controls(err) == [], name
    if name in SHOWS_THE_HOSTILE_TEXT:
        assert MARK in out, f"{name} shows the hostile names and values (neutralised, not dropped)"
    if name.endswith("--jsonl") or name == "fields --json":
        assert all(json.loads(line) for line in out.splitlines())
    elif name.endswith("--json") or name == "collection":
        json.loads(out)


def test_spec_diff_and_fields_show_one_line_a_field_with_controls_escaped(workspace: Workspace) -> None:
    code, out, _ = cli(workspace.root, "spec-diff", "base.json", "head.json")
    assert code == 0
    assert "\x1b" not in out and "\r" not in out
    lines = out.splitlines()
    assert all(line[:2] in ("+ ", "- ", "~ ", "> ") for line in lines[1:]), out  # a newline in a name is shown
    assert len([line for line in lines if line.startswith("+ ")]) == len(HOSTILE) - 7
    assert any("a↵::error::pwned-5" in line for line in lines if line.startswith("~ "))
    code, out, _ = cli(workspace.root, "fields", "head.json")
    assert code == 0
    assert "\x1b" not in out and "\r" not in out
    assert all(line.startswith("GET /things 200 ") for line in out.splitlines()[1:-1]), out


def test_json_output_keeps_the_hostile_strings_exactly(workspace: Workspace) -> None:
    """The escapes the log needs are JSON's own (`\\u2028`, `\\u005b`): a JSON reader gets the same strings."""
    code, out, _ = cli(workspace.root, "fields", "head.json", "--json")
    assert code == 0
    names = {json.loads(line)["field"] for line in out.splitlines()}
    assert "d\u2028::warning::pwned-8" in names and "f\x85::warning::pwned-10" in names
    code, out, _ = cli(workspace.root, "check", "--base", "base.json", "--head", "head.json", "--staging-url",
                       workspace.staging, "--runner", "native", "--oracles", "check.oracles.yaml", "--quiet",
                       "--no-write", "--json")
    assert code == 1
    found = strings(json.loads(out))
    assert "d\u2028::warning::pwned-8" in found  # a field name
    assert any(json.dumps(VALUE, ensure_ascii=False) in s for s in found)  # the offending value, as a JSON literal


@pytest.mark.parametrize("command", [["fields", "long.json"], ["fields", "long.json", "--json"],
                                     ["spec-diff", "base.json", "long.json"]])
def test_a_240k_character_name_is_listed_in_bounded_time(workspace: Workspace, command: list[str]) -> None:
    """A dotted name and a URL-like description of 240k characters each: the redactor read a scheme-like run
    from each of its positions (minutes); now once. A process, killed after 30 s: its hard timeout is the bound."""
    name = "a." * 120_000 + "//x"
    spec = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/x": {"get": {"responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
            name: {"type": "string", "description": "see http://" + "b." * 120_000}}}}}}}}}}}
    (workspace.root / "long.json").write_text(json.dumps(spec), encoding="utf-8")
    code, out, err = cli_process(workspace.root, *command, timeout=30)
    assert code == 0, err
    assert "GET" in out and "/x" in out


def test_the_checker_sees_what_the_runner_would_read() -> None:
    text = ("ok\n  ::warning::x\nsee ##[error]y\n\u3000::notice::z\r::error::w\n::add-mask::s3cret\n"
            "::error file=a.yaml::m")
    assert runner_commands(text) == ["  ::warning::x", "see ##[error]y", "\u3000::notice::z", "::error::w",
                                     "::add-mask::s3cret", "::error file=a.yaml::m"]
    assert foreign_commands(text, masks=["s3cret"]) == ["  ::warning::x", "see ##[error]y", "\u3000::notice::z"]
    assert foreign_commands("::warning title=::pwned::x\n::pwned-3::\n::error title=a,x::m\n::error title=pwned::m"
                            "\n::error title=Oracle added%3A %3A%3Apwned::m") == [
        "::warning title=::pwned::x", "::pwned-3::", "::error title=a,x::m", "::error title=pwned::m"]
    assert raw_controls("a\tb\nc") == [] and raw_controls("\x1b\r\u2028\x85") == ["U+000D", "U+001B", "U+0085",
                                                                                  "U+2028"]
