"""Every subcommand and option says what it is for; usage mistakes are one line."""

from __future__ import annotations

import argparse

import pytest

from satori_ci.cli import build_parser, main


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_subcommand_and_option_has_a_one_line_help() -> None:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in action._choices_actions}
    missing = [name for name in _subcommands() if not helps.get(name)]
    for name, sub in _subcommands().items():
        missing += [f"{name} {a.option_strings or a.dest}" for a in sub._actions
                    if not isinstance(a, argparse._HelpAction) and not a.help]
    assert missing == []


def test_check_takes_max_bytes_like_the_other_spec_commands() -> None:
    assert "--max-bytes" in _subcommands()["check"]._option_string_actions


@pytest.mark.parametrize("argv", [["run", "api.yaml"], ["nope"], ["check"], ["infer"]])
def test_a_usage_mistake_is_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error:" in err and "--help" in err
