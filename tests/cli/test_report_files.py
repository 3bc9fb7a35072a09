"""`--junit FILE` and `--sarif FILE` of `check`, `run`, `verify` and `merge`, as the command line runs them against
a local staging: valid under their schemas, SARIF results on the spec lines of the violated fields."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.demo import DemoBookshop, StagingServer, example_specs
from tests import in_process
from tests.report.ci_reports import valid_junit, valid_sarif

SPEC = "api/openapi.yaml"
ORACLES = ".satori/api.openapi.oracles.yaml"


def satori(cwd: Path, *args: str) -> in_process.Done:
    """`satori-ci ARGS` in `cwd`."""
    return in_process.satori(cwd, *args)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with the bookshop v1 committed and v2 in the work tree (the change)."""
    v1, v2 = example_specs()
    (tmp_path / "api").mkdir()
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "t@example.invalid")
    _git(tmp_path, "config", "user.name", "t")
    (tmp_path / SPEC).write_bytes(v1.read_bytes())
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "v1")
    (tmp_path / SPEC).write_bytes(v2.read_bytes())
    return tmp_path


@pytest.fixture(scope="module")
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        DemoBookshop(server)
        yield server


def _key_line(repo: Path, line: int) -> str:
    """The key written on a line of the spec (`language` for `        language:`)."""
    return (repo / SPEC).read_text(encoding="utf-8").splitlines()[line - 1].strip().rstrip(":")


def _check_files(repo: Path, junit: Path, sarif: Path) -> list[dict[str, Any]]:
    """Both files valid; each SARIF result on the spec line that writes its field's last key."""
    valid_junit(junit.read_text(encoding="utf-8"))
    results: list[dict[str, Any]] = valid_sarif(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert results
    for r in results:
        physical = r["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": SPEC, "uriBaseId": "%SRCROOT%"}
        last_key = r["properties"]["field"].rsplit(".", 1)[-1].removesuffix("[]")
        assert _key_line(repo, physical["region"]["startLine"]) == last_key
    return results


def test_check_writes_valid_junit_and_sarif_on_the_violated_fields_lines(repo: Path, staging: StagingServer) -> None:
    done = satori(repo, "check", "--base", f"HEAD:{SPEC}", "--head", SPEC, "--staging-url", staging.base_url,
                  "--runner", "native", "--quiet", "--junit", "out/satori.xml", "--sarif", "out/satori.sarif")
    assert done.returncode == 1, done.stderr
    results = _check_files(repo, repo / "out/satori.xml", repo / "out/satori.sarif")
    assert {r["level"] for r in results} == {"error"}
    fields = {(r["properties"]["operation"], r["properties"]["field"]) for r in results}
    assert ("GET /books 200", "books[].language") in fields
    suite = ET.fromstring((repo / "out/satori.xml").read_text(encoding="utf-8")).find("testsuite")
    assert suite is not None and suite.get("name") == SPEC and suite.get("failures") == str(len(results))
    assert not list(repo.glob("out/.*.tmp"))


def test_run_and_verify_write_them_too(repo: Path, staging: StagingServer, tmp_path: Path) -> None:
    assert satori(repo, "infer", SPEC, "--oracles", ORACLES, "--quiet").returncode == 0
    junit, sarif = tmp_path / "elsewhere" / "run.xml", tmp_path / "elsewhere" / "run.sarif"
    done = satori(repo, "run", SPEC, "--oracles", ORACLES, "--base-url", staging.base_url, "--runner", "native",
                  "--quiet", "--no-observe", "--junit", str(junit), "--sarif", str(sarif))
    assert done.returncode == 1, done.stderr
    run_results = _check_files(repo, junit, sarif)
    recorded = repo / "recorded.jsonl"
    recorded.write_text(json.dumps({"method": "GET", "path": "/books/{isbn}", "status": 200,
                                    "body": {"language": "eng", "store": {"latitude": 123.4}}}) + "\n")
    done = satori(repo, "verify", SPEC, "--oracles", ORACLES, "--responses", str(recorded), "--no-observe",
                  "--junit", "v.xml", "--sarif", "v.sarif")
    assert done.returncode == 1, done.stderr
    verify_results = _check_files(repo, repo / "v.xml", repo / "v.sarif")
    assert {r["properties"]["field"] for r in verify_results} == {"language", "store.latitude"}
    assert {r["partialFingerprints"]["satoriOracle/v1"] for r in verify_results} <= \
        {r["partialFingerprints"]["satoriOracle/v1"] for r in run_results}


def test_merge_writes_them_and_a_shard_refuses_them(repo: Path, staging: StagingServer) -> None:
    shard = ["check", "--base", f"HEAD:{SPEC}", "--head", SPEC, "--staging-url", staging.base_url, "--runner",
             "native", "--quiet", "--shard", "1/1", "--shard-report", "shards/1.json"]
    refused = satori(repo, *shard, "--sarif", "x.sarif")
    assert refused.returncode == 2 and "--junit and --sarif are for the verdict" in refused.stderr
    assert satori(repo, *shard).returncode == 0
    done = satori(repo, "merge", "shards", "--head", SPEC, "--junit", "m.xml", "--sarif", "m.sarif")
    assert done.returncode == 1, done.stderr
    _check_files(repo, repo / "m.xml", repo / "m.sarif")


def test_a_file_that_cannot_be_written_is_one_line_and_exit_2(repo: Path, staging: StagingServer) -> None:
    (repo / "blocked").write_text("a file, not a folder")
    done = satori(repo, "check", "--head", SPEC, "--staging-url", staging.base_url, "--runner", "native",
                  "--quiet", "--no-write", "--sarif", "blocked/x.sarif")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("satori-ci: error: blocked/x.sarif: cannot write")
