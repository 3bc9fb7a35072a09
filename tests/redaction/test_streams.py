"""The process-wide install and the streams: redacted, and no workflow command in the log but ours."""

from __future__ import annotations

import io
import json
import random
import re
import sys
from pathlib import Path

import pytest

from satori_ci import redaction
from satori_ci.redaction import (
    RedactingStream,
    Redactor,
    installed,
    log_safe,
    unredacted,
    write_line,
    write_redacted,
)


def test_installed_redacts_stdout_stderr_and_report_files_then_restores(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    before_out, before_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
    try:
        with installed(["s3cr3t-value"]) as r:
            assert redaction.current() is r
            print("stdout s3cr3t-value http://u:pw@h/")
            print("stderr s3cr3t-value", file=sys.stderr)
            unredacted(sys.stdout).write("::add-mask::s3cr3t-value\n")
            redaction.write_text(tmp_path / "report.json", '{"v": "s3cr3t-value"}')
            assert sys.stdout.isatty() is False and unredacted(sys.stdout) is out
        assert sys.stdout is out and sys.stderr is err
        assert redaction.current() is not r
    finally:
        sys.stdout, sys.stderr = before_out, before_err
    assert out.getvalue() == "stdout *** http://u:***@h/\n::add-mask::s3cr3t-value\n"
    assert err.getvalue() == "stderr ***\n"
    assert (tmp_path / "report.json").read_text() == '{"v": "***"}'


def test_a_data_stream_gets_only_the_literal_secrets() -> None:
    inner = io.StringIO()
    stream = RedactingStream(inner, lambda: Redactor(["s3cr3t-value"]), generic=False)
    stream.write('{"url": "/x?key=theme&api_key={{SATORI_AUTH_KEY}}", "v": "s3cr3t-value"}')
    assert inner.getvalue() == '{"url": "/x?key=theme&api_key={{SATORI_AUTH_KEY}}", "v": "***"}'


# -- the log: no workflow command but ours (issue 18) -------------------------------------------------------

def test_log_safe_leaves_no_line_a_runner_reads_as_a_command() -> None:
    text = "ok\n::warning::a\n  ::error::b\n\u3000::notice::c\nsee ##[error]d\ne\x1b[31m\rf\x85g\u2028h\ud800"
    assert log_safe(text) == ("ok\n:\\u003awarning::a\n  :\\u003aerror::b\n\u3000:\\u003anotice::c\n"
                              "see ##\\u005berror]d\ne\\u001b[31m\\u000df\\u0085g\\u2028h\\ud800")
    assert log_safe("a::b ::c\tx") == "a::b ::c\tx"  # `::` inside a line is no command
    assert log_safe("\x1b[1mbold\x1b[0m\r", terminal=True) == "\x1b[1mbold\x1b[0m\r"  # our colours, on a terminal
    assert log_safe("\x85\u2028", terminal=True) == "\\u0085\\u2028"


def _log_safe_by_patterns(text: str, terminal: bool) -> str:
    """`log_safe` without its quick tests: each pattern applied to the whole text."""
    text = re.sub(r"[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]"
                  if terminal else
                  r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]",
                  lambda m: f"\\u{ord(m[0]):04x}", text)
    text = text.replace("##[", "##\\u005b")
    return re.sub(r"(\A|[\n\r])([^\S\n\r]*:):", r"\1\2\\u003a", text)


@pytest.mark.parametrize("seed", range(4))
def test_log_safe_changes_what_its_patterns_change_and_nothing_else(seed: int) -> None:
    rng = random.Random(seed)
    rare = [":", "#", "[", "\n", "\r", " ", "\t", "\x0b", "\x1c", "\x00", "\x7f", "\x1b", "\x85", "\u2028", "\u3000",
            "\ud800", "é"]
    common = ["a", "{", '"', ":", " ", "#", "\n"]
    for _ in range(3000):
        pool = rare if rng.random() < 0.5 else common  # ASCII-only texts take the quick tests' path
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 16)))
        for terminal in (False, True):
            assert log_safe(text, terminal=terminal) == _log_safe_by_patterns(text, terminal), repr(text)
    long = "".join(rng.choice(common) for _ in range(100_000))
    for text in (long, long + "\r::x", "::" + long + "\n ::y##[z\x01"):
        assert log_safe(text) == _log_safe_by_patterns(text, False)


def test_log_safe_json_reads_back_the_same() -> None:
    data = {"::warning::x\n": ["##[error]y", "a\u2028::b", "\x85\x9b\u202e", "\x1b", "  ::c"]}
    for text in (json.dumps(data, ensure_ascii=False), json.dumps(data, ensure_ascii=False, indent=2)):
        assert json.loads(log_safe(text)) == data
        assert "##[" not in log_safe(text) and "\u2028" not in log_safe(text)


def test_the_stream_neutralises_across_writes_and_lets_our_own_lines_through() -> None:
    inner = io.StringIO()
    stream = RedactingStream(inner, lambda: Redactor(["s3cr3t-value"]))
    for piece in ("  :", ":warning::split\n", "x ##", "[error]y\n", ":", "\n::", ":z\n", "w", "::notice::q\n"):
        stream.write(piece)
    stream.write("open line")
    stream.write_line("::error title=t::s3cr3t-value\n::warning::injected ##[x]")
    stream.write_line("::endgroup::")
    stream.write("::again\n")
    assert inner.getvalue() == ("  :\\u003awarning::split\nx ##\\u005berror]y\n:\n:\\u003a:z\nw::notice::q\n"
                                "open line\n::error title=t::***\\u000a::warning::injected ##\\u005bx]\n"
                                "::endgroup::\n:\\u003aagain\n")
    assert inner.getvalue().count("\n::") == 2  # the two lines of ours, and nothing else, start with `::`


def test_nested_streams_keep_our_lines_and_write_line_works_on_any_stream() -> None:
    inner = io.StringIO()
    outer = RedactingStream(RedactingStream(inner))  # type: ignore[arg-type]
    outer.write("::a\n")
    outer.write_line("::notice::b")
    write_line("::warning::c", outer)  # type: ignore[arg-type]
    write_redacted(outer, "##[d]\n")  # type: ignore[arg-type]
    assert inner.getvalue() == ":\\u003aa\n::notice::b\n::warning::c\n##\\u005bd]\n"
    plain = io.StringIO()
    write_line("::group::x\ny", plain)
    assert plain.getvalue() == "::group::x\\u000ay\n"

