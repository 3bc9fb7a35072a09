"""`satori-ci COMMAND` imports only that command's module: the same parser, help and redaction, a faster start."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from satori_ci.cli import COMMANDS, CONFIG_FILE, build_parser, main
from satori_ci.config import DEFAULT_CONFIG

HEAVY = ("pydantic", "openai", "github", "deepdiff", "tqdm", "requests", "satori_ci.config", "satori_ci.check",
         "satori_ci.cli.check_commands", "satori_ci.cli.run_commands", "satori_ci.cli.infer_commands")
SPEC = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {"/things": {"get": {
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"id": {"type": "string", "description": "see tok-3f9a61c2"}}}}}}}}}}}


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_the_command_table_names_every_command_in_help_order() -> None:
    assert list(_subcommands(build_parser())) == list(COMMANDS)
    assert CONFIG_FILE == DEFAULT_CONFIG


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_parsed_alone_has_the_help_it_has_among_all(command: str) -> None:
    among_all = _subcommands(build_parser())[command]
    alone = _subcommands(build_parser(command))[command]
    assert alone.format_help() == among_all.format_help()
    assert alone.prog == among_all.prog == f"satori-ci {command}"


def test_fields_starts_without_the_other_commands_and_their_libraries(tmp_path: Path) -> None:
    (tmp_path / "api.json").write_text(json.dumps(SPEC))
    code = ("import sys; from satori_ci.cli import main; code = main(['fields', '--json', 'api.json']); "
            f"print(code, sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "0 []"
    assert '"field": "id"' in done.stdout


def test_the_top_level_help_still_lists_every_command() -> None:
    done = subprocess.run([sys.executable, "-m", "satori_ci", "--help"], capture_output=True, text=True, check=True)
    listed = done.stdout.split("positional arguments:")[1].split()
    assert all(command in listed for command in COMMANDS)


@pytest.mark.parametrize("where", [".", "sub"])
def test_fields_still_redacts_the_secrets_the_config_names(where: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "api.json").write_text(json.dumps(SPEC))
    (tmp_path / ".satori.yml").write_text("specs:\n  - path: api.json\n    staging:\n      headers:\n"
                                          "        X-Token: STAGING_TOKEN\n")
    monkeypatch.setenv("STAGING_TOKEN", "tok-3f9a61c2")
    monkeypatch.chdir(tmp_path / where)
    assert main(["fields", "--json", str(tmp_path / "api.json")]) == 0
    out = capsys.readouterr().out
    assert "tok-3f9a61c2" not in out and '"description": "see ***"' in out
