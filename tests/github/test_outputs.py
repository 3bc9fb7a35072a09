"""GITHUB_OUTPUT, the job summary, workflow commands and masking, as strings (redaction: tests/redaction/)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satori_ci.github.outputs import (
    SUMMARY_TRUNCATED,
    append_outputs,
    append_summary,
    endgroup,
    error,
    group,
    mask_line,
    mask_lines,
    notice,
    output_lines,
    resume_commands,
    stop_commands,
    warning,
)


def parse_output_file(text: str) -> dict[str, str]:
    """What the runner does with GITHUB_OUTPUT (actions/runner SetOutputFileCommand, simplified)."""
    lines = text.split("\n")
    outputs: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            name, value = line.split("=", 1)
            outputs[name] = value
            continue
        name, delimiter = line.split("<<", 1)
        value_lines: list[str] = []
        while lines[index] != delimiter:
            value_lines.append(lines[index])
            index += 1
        index += 1
        outputs[name] = "\n".join(value_lines)
    return outputs


def fixed_tokens(*tokens: str) -> Callable[[], str]:
    iterator = itertools.chain(tokens, itertools.repeat("last"))
    return lambda: next(iterator)


# -- GITHUB_OUTPUT --------------------------------------------------------------------------------

def test_single_line_values_use_name_equals_value() -> None:
    assert output_lines({"violations": "3", "report": "out/report.json", "empty": ""}) == (
        "violations=3\nreport=out/report.json\nempty=\n")


def test_multi_line_values_use_a_heredoc() -> None:
    text = output_lines({"files": "a.yaml\nb.yaml"}, token=lambda: "t1")
    assert text == "files<<ghadelimiter_t1\na.yaml\nb.yaml\nghadelimiter_t1\n"


def test_a_delimiter_found_in_the_value_is_drawn_again() -> None:
    value = "first\nghadelimiter_t1\nthird"
    text = output_lines({"x": value}, token=fixed_tokens("t1", "t2"))
    assert text.startswith("x<<ghadelimiter_t2\n")
    assert parse_output_file(text) == {"x": value}


def test_the_default_delimiter_is_random() -> None:
    first, second = (output_lines({"x": "a\nb"}).split("\n", 1)[0] for _ in range(2))
    assert first != second and first.startswith("x<<ghadelimiter_")


def test_line_breaks_are_written_as_lf() -> None:
    assert parse_output_file(output_lines({"x": "a\r\nb\rc"})) == {"x": "a\nb\nc"}


@pytest.mark.parametrize("name", ["", "1st", "has space", "a=b", "a<<b"])
def test_invalid_output_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid output name"):
        output_lines({name: "x"})


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["violations", "report", "oracles-added", "_x"]),
                       st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r"))))
def test_every_value_reads_back_as_written(outputs: dict[str, str]) -> None:
    assert parse_output_file(output_lines(outputs)) == outputs


def test_append_outputs_appends(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=1\n", encoding="utf-8")
    append_outputs(path, {"report": "r.json", "notes": "é\nü"})
    assert parse_output_file(path.read_text(encoding="utf-8")) == {"earlier": "1", "report": "r.json", "notes": "é\nü"}


# -- job summary ----------------------------------------------------------------------------------

def test_append_summary_adds_a_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    assert append_summary(path, "# One") is False
    assert append_summary(path, "two\n") is False
    assert path.read_text(encoding="utf-8") == "# One\ntwo\n"


def test_append_summary_truncates_at_the_limit_on_a_character_boundary(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("x" * 100, encoding="utf-8")
    limit = 100 + 10 + len(SUMMARY_TRUNCATED.encode())
    assert append_summary(path, "é" * 50, limit_bytes=limit) is True
    data = path.read_bytes()
    assert len(data) <= limit
    assert data.decode("utf-8") == "x" * 100 + "é" * 5 + SUMMARY_TRUNCATED


def test_append_summary_writes_nothing_when_full(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("x" * 100, encoding="utf-8")
    assert append_summary(path, "more", limit_bytes=100) is True
    assert path.read_text(encoding="utf-8") == "x" * 100


# -- workflow commands ----------------------------------------------------------------------------

def test_annotations_escape_data_and_properties() -> None:
    assert notice("100% done\nnext") == "::notice::100%25 done%0Anext"
    assert warning("w", title="a, b: c") == "::warning title=a%2C b%3A c::w"
    assert error("price < 0\r\n", file="api/openapi.yaml", line=12, end_line=14, col=3) == (
        "::error file=api/openapi.yaml,line=12,endLine=14,col=3::price < 0%0D%0A")


def test_groups_and_stop_commands() -> None:
    assert group("Oracles: api.yaml") == "::group::Oracles: api.yaml"
    assert endgroup() == "::endgroup::"
    assert (stop_commands("tok"), resume_commands("tok")) == ("::stop-commands::tok", "::tok::")


# -- secrets --------------------------------------------------------------------------------------

def test_mask_line_masks_each_line_of_a_multi_line_secret() -> None:
    secret = "-----BEGIN KEY-----\nMIIabc%def\n\n  tail  \n-----END KEY-----\n"
    assert mask_line(secret).split("\n") == [
        "::add-mask::-----BEGIN KEY-----",
        "::add-mask::MIIabc%25def",
        "::add-mask::tail",
        "::add-mask::-----END KEY-----",
    ]
    assert mask_line("single") == "::add-mask::single"
    assert mask_line("  \n") == ""


def test_mask_lines_joins_every_secret() -> None:
    assert mask_lines(["a", "", "b\nc"]) == "::add-mask::a\n::add-mask::b\n::add-mask::c"
