"""`satori-ci fields` output pinned byte for byte: speed-ups of the walk and the writer change nothing.

The goldens in tests/spec/pinned/ were written by the CLI before the output path was optimised; they cover
escaped names, cross-file refs, remote-ref notes, non-ASCII text, non-finite numbers, nested examples, and
URL credentials that the redactor masks.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from satori_ci.cli import main

PINNED = Path(__file__).resolve().parent / "pinned"
SPECS = ["api.yaml", "swagger.json"]


@pytest.fixture
def pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("api.yaml", "common.json", "swagger.json"):
        shutil.copy(PINNED / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.upper().startswith("SATORI_AUTH_")]:
        monkeypatch.delenv(name)
    return tmp_path


def _fields(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["fields", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_fields_json_is_byte_identical(pinned: Path, capsys: pytest.CaptureFixture[str], spec: str) -> None:
    golden = (PINNED / f"{Path(spec).stem}.fields.jsonl").read_text("utf-8")
    assert _fields(capsys, "--json", spec) == golden


@pytest.mark.parametrize("spec", SPECS)
def test_fields_table_is_byte_identical(pinned: Path, capsys: pytest.CaptureFixture[str], spec: str) -> None:
    golden = (PINNED / f"{Path(spec).stem}.fields.txt").read_text("utf-8")
    assert _fields(capsys, spec) == golden


def test_operation_filter_keeps_the_same_lines(pinned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = (PINNED / "api.fields.jsonl").read_text("utf-8").splitlines(keepends=True)
    chosen = "".join(line for line in golden if '"path": "/remote"' in line)
    assert _fields(capsys, "--json", "api.yaml", "--operation", "GET /remote") == chosen


def test_secrets_fed_to_the_redactor_are_masked_in_the_fields(pinned: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SATORI_AUTH_TOKEN", "octocat")
    golden = (PINNED / "swagger.fields.jsonl").read_text("utf-8")
    assert '"octocat"' in golden
    assert _fields(capsys, "--json", "swagger.json") == golden.replace('"octocat"', '"***"')


def test_a_secret_across_two_pieces_of_a_line_is_masked(pinned: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SATORI_AUTH_ODD", '"operation_id": null, "example"')  # spans three pieces of a line
    golden = (PINNED / "swagger.fields.jsonl").read_text("utf-8")
    assert golden.count('"operation_id": null, "example"') == 4
    assert _fields(capsys, "--json", "swagger.json") == golden.replace('"operation_id": null, "example"', "***")


@pytest.mark.parametrize("spec", SPECS)
def test_the_fast_writer_matches_the_report_renderer(pinned: Path, capsys: pytest.CaptureFixture[str],
                                                     spec: str) -> None:
    """`write_fields_jsonl` rebuilds `report.spec_text.fields_jsonl`'s records: a change there must show here."""
    from satori_ci.redaction import current
    from satori_ci.report.spec_text import fields_jsonl
    from satori_ci.spec import load_spec

    loaded = load_spec(spec)
    expected = current().redact(fields_jsonl(loaded.fields, lambda f: loaded.line_of(f.location)))
    assert _fields(capsys, "--json", spec) == expected
