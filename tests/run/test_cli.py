"""The `collection`, `run` and `verify` commands: output, files, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from satori_ci.cli import main
from satori_ci.demo import Bookshop, book_body, list_body
from satori_ci.run import newman as newman_module
from tests.run.conftest import BOOKSHOP_SPEC, FIXTURES, newman_available

ORACLES = str(FIXTURES / "bookshop.oracles.yaml")
SPEC = str(BOOKSHOP_SPEC)


@pytest.fixture(autouse=True)
def _own_oracle_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` and `verify` write the observation store next to the oracle file: a copy of it, never the fixture."""
    copy = tmp_path / "oracles" / "bookshop.oracles.yaml"
    copy.parent.mkdir()
    copy.write_text((FIXTURES / "bookshop.oracles.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["ORACLES"]), "ORACLES", str(copy))


def test_collection_to_a_file_and_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "collection.json"
    assert main(["collection", SPEC, "--oracles", ORACLES, "--out", str(out), "--base-url", "http://s:1"]) == 0
    err = capsys.readouterr().err
    assert err == f"wrote {out}: 4 requests for 2 operations, 22 enabled oracles\n"
    written = out.read_text(encoding="utf-8")
    assert json.loads(written)["variable"][0]["value"] == "http://s:1"
    assert main(["collection", SPEC, "--oracles", ORACLES, "--base-url", "http://s:1"]) == 0
    assert capsys.readouterr().out == written


def test_collection_with_a_broken_oracle_file_is_an_input_error(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\noperations:\n  nonsense: {}\n", encoding="utf-8")
    assert main(["collection", SPEC, "--oracles", str(bad)]) == 2
    assert "is not 'METHOD /path STATUS'" in capsys.readouterr().err
    assert main(["collection", SPEC, "--oracles", str(tmp_path / "missing.yaml")]) == 2


def _lines(path: Path, bodies: list[tuple[str, str, object]]) -> Path:
    path.write_text("".join(json.dumps({"method": "GET", "path": p, "status": s, "body": b}) + "\n"
                            for p, s, b in bodies), encoding="utf-8")
    return path


def test_verify_recorded_responses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = _lines(tmp_path / "clean.jsonl", [("/books", "200", list_body()), ("/books/{isbn}", "200", book_body())])
    assert main(["verify", SPEC, "--oracles", ORACLES, "--responses", str(clean)]) == 0
    assert capsys.readouterr().out == "verify: 2 responses, 2 checked, 0 violations\n"
    report = tmp_path / "report.json"
    faulty = _lines(tmp_path / "faulty.jsonl", [
        ("/books", "200", list_body(fault="format_unknown")),
        ("/books/9780441172719", "200", book_body(fault="rating_too_low")),  # a concrete path
        ("/books", "404", {"error": "x"}),
        ("/nowhere", "200", {}),
    ])
    assert main(["verify", SPEC, "--oracles", ORACLES, "--responses", str(faulty), "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        'VIOLATION GET /books 200  books[].format  string_specific_values ["hardcover", "paperback", "ebook", '
        '"audiobook"]\n  format = "paperback-ish" is not one of ["hardcover", "paperback", "ebook", "audiobook"] '
        'at /books/2/format\n  request: GET /books\n')
    assert "VIOLATION GET /books/{isbn} 200  rating  number_min_value 1\n" in out
    assert "NOT CHECKED unexpected_status: GET /books: HTTP 404, expected 200\n" in out
    assert out.endswith("verify: 4 responses, 2 checked, 2 violations, 2 not checked\n")
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["exit_code"] == 1 and data["responses"] == str(faulty)
    assert data["violations"][0]["pointer"] == "/books/2/format"
    assert data["violations"][0]["request"]["item"] == f"{faulty}:1"


def test_verify_bodies_of_one_operation_and_the_null_like_set(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    body = book_body()
    body["cover_url"] = "N/A"
    lines = tmp_path / "bodies.jsonl"
    lines.write_text(json.dumps({"body": body}) + "\n\n" + json.dumps({"body": book_body()}) + "\n", encoding="utf-8")
    args = ["verify", SPEC, "--oracles", ORACLES, "--responses", str(lines), "--operation", "GET /books/{isbn}"]
    assert main(args) == 1
    assert 'cover_url = "N/A" is not an absolute URL at /cover_url' in capsys.readouterr().out
    assert main([*args, "--null-like", "N/A"]) == 0
    capsys.readouterr()
    assert main(["verify", SPEC, "--oracles", ORACLES, "--responses", str(lines)]) == 2
    assert "needs 'method' and 'path'" in capsys.readouterr().err
    assert main([*args[:-1], "GET /nope"]) == 2


def test_run_native(bookshop: Bookshop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["run", SPEC, "--oracles", ORACLES, "--base-url", bookshop.server.base_url, "--runner", "native"]
    assert main(base) == 0
    assert capsys.readouterr().out.startswith(
        "native: 4 responses, 4 checked, 0 violations, 22 of 22 oracles exercised, ")
    bookshop.plant("published_not_date")
    report = tmp_path / "run.json"
    assert main([*base, "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "VIOLATION GET /books 200  books[].published  string_is_date\n" in out
    assert f"request: GET {bookshop.server.base_url}/books?q=dune&limit=10\n" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["runner"] == "native" and data["base_url"] == bookshop.server.base_url
    # the detail operation is called with the first three isbns of the list (chaining)
    assert [(v["oracle"], v["pointer"]) for v in data["violations"]] == [("string_is_date", "/books/2/published"),
                                                                        *[("string_is_date", "/published")] * 3]


def test_run_with_staging_down_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", SPEC, "--oracles", ORACLES, "--base-url", "http://127.0.0.1:9", "--runner", "native",
            "--retries", "1", "--backoff", "0"]
    assert main(args) == 3
    out = capsys.readouterr().out
    assert ("INFRASTRUCTURE connection: GET http://127.0.0.1:9/books?q=dune&limit=10: connection failed: "
            "connection refused (127.0.0.1:9)") in out
    assert "Max retries" not in out and "HTTPConnectionPool" not in out  # the cause in a few words, not urllib3's text
    assert "after 2 attempts" in out
    assert main([*args[:-4], "--retries", "-1"]) == 2


def test_run_newman_end_to_end(bookshop: Bookshop, capsys: pytest.CaptureFixture[str]) -> None:
    newman_available()
    bookshop.plant("too_many_books")
    code = main(["run", SPEC, "--oracles", ORACLES, "--base-url", bookshop.server.base_url])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "VIOLATION GET /books 200  books  array_max_size 50\n" in out
    assert "has 51 elements, more than 50 at /books\n" in out
    assert out.splitlines()[-1].startswith("newman: 4 responses, 4 checked, 1 violation, 22 of 22 oracles exercised, ")


def test_without_newman_run_falls_back_and_names_the_install_command(
        bookshop: Bookshop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--runner auto` (the default) runs natively with a note; `--runner newman` is exit 3; both say how to get
    Newman for how satori-ci was installed: a package (no lock file beside it) or a checkout (`npm ci`)."""
    monkeypatch.setattr(newman_module, "REPO_ROOT", tmp_path)  # an installed package: no package-lock.json
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SATORI_NEWMAN", raising=False)
    args = ["run", SPEC, "--oracles", ORACLES, "--base-url", bookshop.server.base_url]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Newman not found, the native runner was used" in out
    assert f"`npm install -g newman@{newman_module.NEWMAN_VERSION}`" in out
    assert main([*args, "--runner", "newman"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("satori-ci: error: newman is not installed: install it with `npm install -g newman@")
    assert "SATORI_NEWMAN" in err and "--runner native" in err
    (tmp_path / "package-lock.json").write_text("{}", encoding="utf-8")  # a checkout
    assert main([*args, "--runner", "newman"]) == 3
    assert "run `npm ci` in the satori-ci checkout" in capsys.readouterr().err
    monkeypatch.setenv("SATORI_NEWMAN", str(tmp_path / "nope"))  # asked for by path: an error, even with auto
    assert main(args) == 3
    assert "SATORI_NEWMAN=" in capsys.readouterr().err


def test_the_pinned_newman_is_the_one_satori_ci_names() -> None:
    lock = json.loads((Path(newman_module.__file__).resolve().parents[2] / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/newman"]["version"] == newman_module.NEWMAN_VERSION


def test_verify_reads_null_like_from_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("api.yaml").write_text(
        "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /m:\n    get:\n      responses:\n"
        "        '200':\n          description: ok\n          content:\n            application/json:\n"
        "              schema: {type: object, properties: {Poster: {type: string, format: uri}}}\n")
    assert main(["infer", "api.yaml", "--oracles", "o.yaml", "--quiet"]) == 0
    Path("r.jsonl").write_text('{"method": "GET", "path": "/m", "status": "200", "body": {"Poster": "N/A"}}\n')
    assert main(["verify", "api.yaml", "--oracles", "o.yaml", "--responses", "r.jsonl"]) == 1
    Path(".satori.yml").write_text("specs:\n  - path: api.yaml\n    null_like: [\"N/A\"]\n")
    capsys.readouterr()
    assert main(["verify", "api.yaml", "--oracles", "o.yaml", "--responses", "r.jsonl"]) == 0
