"""`satori-ci accept` and `satori-ci reject` run in a git repository: the oracle file changes only in the
decided oracles' tokens (comments and hand formatting stay byte for byte), the selectors combine (OR within a
flag, AND across flags), usage mistakes and bad files are one line and exit 2, a rejected suggestion is not
made again by `verify`, and an edit that would not read back as intended writes nothing (exit 70)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from satori_ci.oracles.file import load_oracle_file
from satori_ci.oracles.model import OBSERVED
from tests import in_process

ROOT = Path(__file__).resolve().parents[2]
ORACLES = Path(".satori/api.openapi.oracles.yaml")

SPEC = """\
openapi: 3.0.0
info: {title: Things, version: "1"}
paths:
  /things:
    get:
      parameters:
        - {name: page, in: query, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  status: {type: string}
                  items:
                    type: array
                    items:
                      type: object
                      properties:
                        id: {type: string}
                        open: {type: boolean}
                        home: {type: string}
"""

HAND = """\
# reviewed by the API team; keep the comments
version: 1
spec: "api/openapi.yaml"
operations:
  "GET /things 200":        # the list

    "status":
      fingerprint: "a1"
      oracles:
        - {kind: string_specific_values, value: ["ok"], source: "observed", enabled: false, reason: "enabled: false"}
    "items[].id":
      fingerprint: "a2"
      oracles:
        # block style, by hand
        - kind: string_fixed_length
          value: 22
          source: observed     # staging
          evidence: 24
          enabled: false       # not yet
        - {kind: string_is_numeric, source: 'observed', evidence: 24, enabled: false, reason: ""}
    "items[].open":
      fingerprint: "a3"
      oracles: [{kind: boolean_always_false, source: observed, evidence: 24, enabled: false},
                {kind: boolean_always_true, source: manual, enabled: false, reason: "ours"}]
  "GET /things 206":
    "":
      fingerprint: "b1"
      oracles:
        - {kind: string_is_url, source: "rules", enabled: true, reason: "r"}
        - {kind: array_max_size, value: 10, source: "observed", evidence: 9, enabled: false, reason: "seen"}
    "items[].id":
      fingerprint: "b2"
      oracles:
        - {kind: string_fixed_length, value: 22, source: "observed", evidence: 9, enabled: false, reason: "seen"}
"""
LINES = {  # the token each decision changes, by line
    "status": 10, "id 200 length": 19, "id 200 numeric": 20, "open": 23, "body": 30, "id 206 length": 34,
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def satori(cwd: Path, *args: str) -> tuple[int, str, str]:
    """`satori-ci ARGS` in `cwd`."""
    done = in_process.satori(cwd, *args)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "api").mkdir(parents=True)
    (root / ".satori").mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "api" / "openapi.yaml").write_text(SPEC, encoding="utf-8")
    (root / ORACLES).write_bytes(HAND.encode("utf-8"))
    return root


def _changed(root: Path) -> dict[int, tuple[str, str]]:
    """Line number -> (before, after) of every line that differs from HAND."""
    after = (root / ORACLES).read_bytes().decode("utf-8").splitlines(keepends=True)
    before = HAND.splitlines(keepends=True)
    assert len(after) == len(before)
    return {n: (a, b) for n, (a, b) in enumerate(zip(before, after, strict=True), start=1) if a != b}


def _only_token(changed: dict[int, tuple[str, str]], old: str, new: str) -> list[int]:
    """The changed lines, after checking each differs only in one `old` -> `new`."""
    for before, after in changed.values():
        assert before.count(old) >= 1 and any(
            before[:i] + new + before[i + len(old):] == after for i in range(len(before)) if before.startswith(old, i)
        ), (before, after)
    return sorted(changed)


def test_accept_changes_only_the_enabled_tokens_byte_for_byte(repo: Path) -> None:
    code, out, err = satori(repo, "accept", "api/openapi.yaml", "--field", "items[].id", "--field", "status",
                            "--operation", "GET /things 200")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        'accepted GET /things 200  status  string_specific_values ["ok"]',
        "accepted GET /things 200  items[].id  string_fixed_length 22",
        "accepted GET /things 200  items[].id  string_is_numeric",
        "accepted 3 of 6 suggestions in .satori/api.openapi.oracles.yaml: checked like any oracle from the next "
        "run; commit the file",
    ]
    changed = _changed(repo)
    assert _only_token(changed, "enabled: false", "enabled: true") == [
        LINES["status"], LINES["id 200 length"], LINES["id 200 numeric"]]
    assert changed[LINES["id 200 length"]][1] == "          enabled: true       # not yet\n"
    assert 'enabled: true, reason: "enabled: false"}' in changed[LINES["status"]][1]  # the look-alike stays
    file = load_oracle_file((repo / ORACLES).read_text(encoding="utf-8"), "o")
    assert [(o.field, o.kind.value) for e in file.entries for o in e.oracles if o.source == OBSERVED and o.enabled
            ] == [("status", "string_specific_values"), ("items[].id", "string_fixed_length"),
                  ("items[].id", "string_is_numeric")]


def test_reject_changes_only_the_source_tokens_and_keeps_the_evidence(repo: Path) -> None:
    code, out, _ = satori(repo, "reject", "api/openapi.yaml", "--kind", "boolean_always_false", "--kind",
                          "string_fixed_length")
    assert code == 0
    assert out.splitlines()[-1].startswith("rejected 3 of 6 suggestions in .satori/api.openapi.oracles.yaml: ")
    changed = _changed(repo)
    assert sorted(changed) == [LINES["id 200 length"] - 2, LINES["open"], LINES["id 206 length"]]
    assert changed[LINES["id 200 length"] - 2][1] == "          source: manual     # staging\n"
    assert changed[LINES["open"]][1] == (
        "      oracles: [{kind: boolean_always_false, source: manual, evidence: 24, enabled: false},\n")
    assert _only_token({LINES["id 206 length"]: changed[LINES["id 206 length"]]}, '"observed"', '"manual"')


@pytest.mark.parametrize(("selectors", "fields"), [
    (["--operation", "GET /things"], ["status", "items[].id", "items[].id", "items[].open", "", "items[].id"]),
    (["--operation", "get /things 206"], ["", "items[].id"]),
    (["--field", "(body)"], [""]),
    (["--field", ""], [""]),
    (["--field", "items[].id", "--kind", "string_is_numeric", "--kind", "array_max_size"], ["items[].id"]),
    (["--field", "items[].id", "--operation", "GET /things 206"], ["items[].id"]),
    (["--all"], ["status", "items[].id", "items[].id", "items[].open", "", "items[].id"]),
])
def test_selectors_or_within_a_flag_and_across_flags(repo: Path, selectors: list[str], fields: list[str]) -> None:
    code, out, _ = satori(repo, "accept", "api/openapi.yaml", *selectors)
    assert code == 0
    lines = out.splitlines()
    assert [line.split("  ")[1] for line in lines[:-1]] == [f or "(body)" for f in fields]
    assert lines[-1].startswith(f"accepted {len(fields)} of 6 suggestions")
    assert len(_changed(repo)) == len(fields)


def test_nothing_matching_is_said_and_nothing_written(repo: Path) -> None:
    before = os.stat(repo / ORACLES).st_mtime_ns
    code, out, err = satori(repo, "accept", "api/openapi.yaml", "--kind", "boolean_always_true")  # decided already
    assert (code, err) == (0, "")
    assert out == ("no waiting suggestion in .satori/api.openapi.oracles.yaml matches the selection (6 waiting); "
                   "nothing accepted\n")
    assert os.stat(repo / ORACLES).st_mtime_ns == before
    assert satori(repo, "accept", "api/openapi.yaml", "--all")[0] == 0
    code, out, _ = satori(repo, "reject", "api/openapi.yaml", "--all")
    assert (code, out) == (0, "no suggestion waiting in .satori/api.openapi.oracles.yaml; nothing rejected\n")


@pytest.mark.parametrize(("args", "message"), [
    ([], "say which suggestions: pass --all, or at least one of --operation, --field, --kind"),
    (["--all", "--kind", "string_is_url"], "--all takes every waiting suggestion: give it alone"),
    (["--operation", "things"], "--operation takes 'METHOD /path' or 'METHOD /path STATUS'"),
    (["--kind", "string_is_uri"], "argument --kind: invalid choice: 'string_is_uri'"),
    (["--all", "--oracles", "missing.yaml"], "missing.yaml: no such oracle file"),
    (["--all", "--oracles", "api/openapi.yaml"], "api/openapi.yaml:2: unknown key 'info'"),
    (["--all", "--oracles", "broken.yaml"], "broken.yaml:3: invalid YAML"),
    (["--all", "--oracles", "../outside.yaml"], "outside the repository"),
])
def test_usage_mistakes_and_bad_files_are_one_line_and_exit_2(repo: Path, args: list[str], message: str) -> None:
    (repo.parent / "outside.yaml").write_text(HAND, encoding="utf-8")
    (repo / "broken.yaml").write_text("operations:\n  GET /x 200: [\n", encoding="utf-8")
    for verb in ("accept", "reject"):
        code, out, err = satori(repo, verb, "api/openapi.yaml", *args)
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and err.startswith("satori-ci") and message in err, err
    assert _changed(repo) == {} and (repo.parent / "outside.yaml").read_text(encoding="utf-8") == HAND


def test_a_satori_folder_linked_outside_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    (repo / ".satori").rename(outside)
    (repo / ".satori").symlink_to(outside)
    code, _, err = satori(repo, "accept", "api/openapi.yaml", "--all")
    assert code == 2 and "a symlink leads outside the repository" in err and err.count("\n") == 1
    assert (outside / ORACLES.name).read_text(encoding="utf-8") == HAND


def test_the_oracle_file_is_named_as_infer_names_it(repo: Path) -> None:
    (repo / ".satori.yml").write_text("oracles_dir: reviewed\n", encoding="utf-8")
    (repo / "reviewed").mkdir()
    (repo / ORACLES).rename(repo / "reviewed" / ORACLES.name)
    _git(repo, "add", ".")
    _git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "x")
    code, out, _ = satori(repo / "api", "accept", "openapi.yaml", "--kind", "array_max_size")  # from a subfolder
    assert code == 0 and out.splitlines()[-1].startswith("accepted 1 of 6 suggestions in ../reviewed/")
    code, out, _ = satori(repo, "reject", "HEAD:api/openapi.yaml", "--kind", "string_is_numeric")  # a revision
    assert code == 0 and "rejected 1 of 5 suggestions in reviewed/api.openapi.oracles.yaml" in out
    code, _, err = satori(repo, "accept", "nope.yaml", "--all")
    assert code == 2 and "nope.yaml: no such file" in err


def test_an_edit_that_would_read_back_otherwise_writes_nothing_and_exits_70(repo: Path) -> None:
    tricky = ("version: 1\noperations:\n  GET /x 200:\n    a:\n      oracles:\n"
              '        - {kind: string_is_url, source: observed, reason: "a\n'
              '           enabled: false, ", enabled: false}\n')
    (repo / ORACLES).write_text(tricky, encoding="utf-8")
    code, out, err = satori(repo, "accept", "api/openapi.yaml", "--all")
    assert (code, out) == (70, "")
    assert err.startswith("satori-ci: error: internal error (a bug in satori-ci): EditMismatchError: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (repo / ORACLES).read_text(encoding="utf-8") == tricky


def _responses(path: Path, pages: range) -> str:
    path.write_text("".join(json.dumps({
        "method": "GET", "path": "/things", "status": 200, "query": f"page={p}",
        "body": {"status": "ok", "items": [{"id": f"{p:04d}{i:018d}", "open": False,
                                            "home": f"https://example.com/{p}/{i}"} for i in range(3)]},
    }) + "\n" for p in pages), encoding="utf-8")
    return str(path)


def test_a_rejected_suggestion_is_not_made_again(repo: Path) -> None:
    (repo / ORACLES).unlink()
    assert satori(repo, "infer", "api/openapi.yaml", "--quiet")[0] == 0
    text = (repo / ORACLES).read_text(encoding="utf-8")
    field = '    "items[].open":\n      fingerprint: '
    at = text.index("\n", text.index(field) + len(field)) + 1
    assert text[at:].startswith("      oracles: []\n")
    text = text[:at] + ("      oracles:\n        - {kind: boolean_always_false, source: \"observed\", evidence: 3, "
                        'enabled: false, reason: "seen"}\n') + text[at + len("      oracles: []\n"):]
    (repo / ORACLES).write_text(text, encoding="utf-8")
    code, out, _ = satori(repo, "reject", "api/openapi.yaml", "--field", "items[].open")
    assert code == 0 and out.startswith("rejected GET /things 200  items[].open  boolean_always_false\n")

    for n, pages in enumerate((range(30), range(30, 60))):
        code, _, err = satori(repo, "verify", "api/openapi.yaml", "--oracles", str(ORACLES), "--responses",
                              _responses(repo / f"r{n}.jsonl", pages))
        assert code == 0, err
    assert satori(repo, "infer", "api/openapi.yaml", "--quiet")[0] == 0
    file = load_oracle_file((repo / ORACLES).read_text(encoding="utf-8"), "o")
    open_ = [(o.kind.value, o.source, o.enabled, o.evidence) for e in file.entries if e.field == "items[].open"
             for o in e.oracles]
    assert open_ == [("boolean_always_false", "manual", False, 3)]  # dismissed for good, as the reviewer left it
    assert any(o.source == OBSERVED for e in file.entries for o in e.oracles)  # others were suggested
