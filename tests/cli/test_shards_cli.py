"""`check --shard I/N --shard-report FILE` in four separate invocations, then `merge`: the same report (JSON,
terminal, comment), exit code, oracle file and observation store as one unsharded `check`, against a local
staging app whose detail operations take their ids from list operations of other shards; and the merge refuses
missing, failed, duplicated, mismatched and edited shards with one line."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from satori_ci.check.stores import store_file_of
from satori_ci.check.workspace import default_oracle_path
from satori_ci.cli import main
from satori_ci.demo import DemoBookshop, StagingServer, example_specs
from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.shard.report import MAX_REPORT_BYTES
from satori_ci.shard.slice import Shard, slice_plan
from satori_ci.spec import load_spec
from tests.forged_reports import forge
from tests.servers.resources_app import SPEC_PATH, ResourcesApp

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """\
specs:
  - path: api/openapi.yaml
    requests:
      values: {tenant_id: acme}
    observe: {min_responses: 3, min_requests: 2}
"""
ORACLES = ".satori/api.openapi.oracles.yaml"
STORE = ".satori/api.openapi.observed.json"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(path: Path, spec: Path, config: str = CONFIG) -> Path:
    (path / "api").mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    shutil.copy(spec, path / "api" / "openapi.yaml")
    (path / ".satori.yml").write_text(config)
    return path


@pytest.fixture
def app() -> Iterator[ResourcesApp]:
    """The resources app with planted faults in list and detail operations of several shards."""
    with ResourcesApp() as found:
        data = found.data
        data["users"][1]["avatar_url"] = "not a url"
        data["stores"][0]["latitude"] = 123.5
        data["orders"][0]["shipping"]["latitude"] = -100
        data["invoices"][0]["pdf_url"] = "n/a"
        data["countries"][0]["latitude"] = 91
        data["products"] += [{**data["products"][0], "sku": f"SKU-{50000 + 7 * i}", "name": f"Skillet {i}",
                              "weight_grams": 900 + 37 * i, "image_url": f"https://cdn.example.com/p/{i}.jpg"}
                             for i in range(30)]  # enough products, all in stock, for an observed oracle
        for product in data["products"]:
            product["in_stock"] = True
        yield found


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _timeless(text: str) -> str:
    """The run's wall time is the only thing that differs between two runs."""
    return re.sub(r'"seconds": [0-9.]+', '"seconds": 0', re.sub(r"\d+\.\d s\b", "0.0 s", text))


def _check(app: ResourcesApp, *extra: str) -> list[str]:
    return ["check", "--head", "api/openapi.yaml", "--staging-url", app.base_url, "--runner", "native", "--quiet",
            "--header", f"Authorization: Bearer {app.TOKEN}", *extra]


def _shards(app: ResourcesApp, where: Path, count: int, *extra: str) -> list[Path]:
    reports = []
    for index in range(1, count + 1):
        report = where / f"shard-{index}.json"
        assert main(_check(app, "--shard", f"{index}/{count}", "--shard-report", str(report), *extra)) == 0
        reports.append(report)
    return reports


def test_four_shards_merge_into_the_unsharded_check(tmp_path: Path, app: ResourcesApp,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    whole, sharded = _repo(tmp_path / "whole", SPEC_PATH), _repo(tmp_path / "sharded", SPEC_PATH)
    for round_ in range(2):  # the store grows: suggestions come from every shard's observations
        monkeypatch.chdir(whole)
        _, expected_text, _ = _run(_check(app, "--no-write"), capsys)
        code, expected_json, _ = _run(_check(app, "--json"), capsys)
        monkeypatch.chdir(sharded)
        reports = _shards(app, tmp_path, 4)
        capsys.readouterr()
        _, merged_text, _ = _run(["merge", *map(str, reports), "--no-write"], capsys)
        merged_code, merged_json, err = _run(["merge", *map(str, reports[::-1]), "--json"], capsys)
        assert (merged_code, code) == (1, 1), err
        assert _timeless(merged_json) == _timeless(expected_json)
        assert _timeless(merged_text) == _timeless(expected_text)
        for name in (ORACLES, STORE):
            assert (sharded / name).read_text() == (whole / name).read_text(), (round_, name)
    report = json.loads(merged_json)["specs"][0]
    assert {v["path"] for v in report["violations"]} >= {"/stores/{storeId}", "/invoices/{invoice_ref}",
                                                          "/countries/{code}"}
    assert report["observed"]["suggestions"], "the observations of every shard make suggestions"


def test_chained_ids_reach_a_detail_operation_whose_list_is_in_another_shard() -> None:
    spec = load_spec(str(SPEC_PATH))
    plan = plan_requests(spec, PlanSettings(values=(("tenant_id", "acme"),)))
    shard = next(Shard(i, 4) for i in range(1, 5) if "GET /invoices/{invoice_ref}" in slice_plan(plan, Shard(i, 4)).own)
    found = slice_plan(plan, shard)
    # the invoice's ref comes from an order, whose id comes from the list of orders: both sent, neither reported
    assert {"GET /orders", "GET /orders/{order_id}"} <= found.support
    assert not found.support & found.own


def test_a_pull_request_with_a_base_revision_merges_into_the_same_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The bookshop change v1 -> v2: field diff, new oracles, violations of the fields v2 adds (the comment is
    compared in tests/action/test_shards.py, where the action posts it)."""
    v1, v2 = example_specs()
    repo = tmp_path / "repo"
    (repo / "api").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    shutil.copy(v1, repo / "api" / "openapi.yaml")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "v1")
    shutil.copy(v2, repo / "api" / "openapi.yaml")
    monkeypatch.chdir(repo)
    with StagingServer() as server:
        DemoBookshop(server)
        argv = ["check", "--base", "HEAD:api/openapi.yaml", "--head", "api/openapi.yaml", "--staging-url",
                server.base_url, "--runner", "native", "--quiet", "--no-write"]
        code, whole, _ = _run([*argv, "--json"], capsys)
        _, whole_text, _ = _run(argv, capsys)
        for index in range(1, 4):
            assert main([*argv, "--shard", f"{index}/3", "--shard-report", str(tmp_path / f"{index}.json")]) == 0
    names = [str(tmp_path / f"{index}.json") for index in range(1, 4)]
    merge = ["merge", "--head", "api/openapi.yaml", "--no-write"]  # no config: the spec the shards were given
    merged_code, merged_json, _ = _run([*merge, *names, "--json"], capsys)
    _, merged_text, _ = _run([*merge, str(tmp_path)], capsys)  # a folder of reports
    assert merged_code == code == 1
    assert _timeless(merged_json) == _timeless(whole)
    assert _timeless(merged_text) == _timeless(whole_text)
    expected = json.loads(whole)["specs"][0]
    assert expected["field_diff"]["counts"]["added"] and expected["violations"]
    assert not (repo / ORACLES).exists(), "--no-write, and a shard writes nothing but its report"


# -- what the merge refuses ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Path]]]:
    """Four shards' reports of one check (no oracle file written), in a repository of their own."""
    root = tmp_path_factory.mktemp("shards")
    repo = _repo(root / "repo", SPEC_PATH)
    here = Path.cwd()
    with ResourcesApp() as found, pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo)
        try:
            yield repo, _shards(found, root, 4)
        finally:
            patch.chdir(here)


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("satori-ci: error:")]
    assert len(lines) == 1, err
    return lines[0]


def test_a_missing_shard_is_exit_3_naming_it(reports: tuple[Path, list[Path]],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _, files = reports
    code, out, err = _run(["merge", *(str(f) for f in files if not f.name.endswith("-3.json")), "--no-write"], capsys)
    assert code == 3 and out == ""
    assert "missing shard 3/4 of 4" in _error_line(err)


def test_a_shard_given_twice_or_another_checks_report_is_refused(reports: tuple[Path, list[Path]], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _, files = reports
    code, _, err = _run(["merge", *map(str, files), str(files[1]), "--no-write"], capsys)
    assert code == 2 and "shard 2/4 is given twice" in _error_line(err)
    other = tmp_path / "other.json"  # shard 2 of a check of another spec, oracle file or request: another digest
    data = json.loads(files[1].read_text())
    data["specs"][0]["check"] = "0" * 64
    from satori_ci.shard.report import content_digest

    data["digest"] = content_digest(data)
    other.write_text(json.dumps(data))
    code, _, err = _run(["merge", str(files[0]), str(other), *map(str, files[2:]), "--no-write"], capsys)
    assert code == 2 and "shard(s) 2/4 checked something else than shard(s) 1/4, 3/4, 4/4" in _error_line(err)


def test_a_report_edited_after_it_was_written_or_not_a_report_is_refused(
        reports: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, files = reports
    edited = tmp_path / "edited.json"
    text = files[0].read_text()
    assert text.count(".satori/api.openapi.oracles.yaml") == 2  # in the frame and in the binding
    edited.write_text(text.replace(".satori/api.openapi.oracles.yaml", "../../outside.oracles.yaml"))
    code, _, err = _run(["merge", str(edited), *map(str, files[1:]), "--no-write"], capsys)
    assert code == 2 and "does not match its digest" in _error_line(err)
    for text, said in (("{}", "not a satori-ci shard report"), ("[1, 2", "not JSON"),
                       (files[0].read_text().replace('"version":2', '"version":9'), "version")):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        code, _, err = _run(["merge", str(bad), "--no-write"], capsys)
        assert code == 2 and said in _error_line(err) and "Traceback" not in err


def test_a_failed_shard_writes_a_report_that_the_merge_names(reports: tuple[Path, list[Path]], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo, files = reports
    monkeypatch.chdir(repo)
    monkeypatch.setenv("SATORI_NEWMAN", str(tmp_path / "no-newman"))
    failed = tmp_path / "shard-2.json"
    with ResourcesApp() as app:
        argv = _check(app, "--shard", "2/4", "--shard-report", str(failed))
        code, _, err = _run([*argv[:argv.index("--runner") + 1], "newman", *argv[argv.index("--runner") + 2:]],
                            capsys)
    assert code == 3 and "SATORI_NEWMAN" in _error_line(err)
    assert json.loads(failed.read_text())["status"] == "failed"
    code, _, err = _run(["merge", str(files[0]), str(failed), *map(str, files[2:]), "--no-write"], capsys)
    assert code == 3
    line = _error_line(err)
    assert "shard 2/4 failed" in line and "SATORI_NEWMAN" in line


def test_what_cannot_be_sharded_and_usage_mistakes_are_one_line(reports: tuple[Path, list[Path]], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = reports
    monkeypatch.chdir(repo)
    report = tmp_path / "r.json"
    with ResourcesApp() as app:
        code, _, err = _run(_check(app, "--shard", "1/2", "--shard-report", str(report), "--unsafe",
                                   "PATCH /users/{user_id}"), capsys)
        assert code == 2 and "cannot be sharded" in _error_line(err) and app.intact()
        assert json.loads(report.read_text())["status"] == "failed"
        for extra, said in ((["--shard", "5/4", "--shard-report", "x.json"], "between 1 and 4"),
                            (["--shard", "two", "--shard-report", "x.json"], "I/N"),
                            (["--shard", "1/2"], "--shard-report"),
                            (["--shard-report", "x.json"], "--shard I/N"),
                            (["--shard", "1/2", "--shard-report", "x.json", "--json"], "merge")):
            code, out, err = _run(_check(app, *extra), capsys)
            assert code == 2 and said in _error_line(err) and out == ""
    assert not (repo / "x.json").exists()
    code, _, err = _run(["merge", str(tmp_path / "nowhere"), "--no-write"], capsys)
    assert code == 2 and "no such file or folder" in _error_line(err)


# -- what a report cannot make the merge do (reports come through artifacts: untrusted) ----------------------------


def _snapshot(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*")) if p.is_file()}


ESCAPES = {  # where a forged report puts the oracle file (the store goes next to it)
    "git-config": ".git/config",
    "git-head": ".git/HEAD",
    "readme": "README.md",
    "the-spec": "api/openapi.yaml",
    "dotdot": "../outside.oracles.yaml",
    "absolute": "{outside}/absolute.oracles.yaml",
}


@pytest.mark.parametrize("target", sorted(ESCAPES))
def test_a_forged_report_cannot_make_the_merge_write_where_it_says(
        target: str, reports: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, files = reports
    copy = tmp_path / "repo"
    shutil.copytree(repo, copy, symlinks=True)
    (copy / "README.md").write_text("the project's own readme\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    path = ESCAPES[target].format(outside=outside.as_posix())
    forged = forge(files, tmp_path / "forged", lambda text: text.replace(ORACLES, path).replace(STORE, path))
    monkeypatch.chdir(copy)
    before = _snapshot(copy)
    code, out, err = _run(["merge", *map(str, forged)], capsys)
    assert code == 2 and out == "", err
    assert "Traceback" not in err and _error_line(err)
    assert _snapshot(copy) == before, "nothing is written"
    assert not (tmp_path / "outside.oracles.yaml").exists() and not any(outside.iterdir())


@pytest.mark.parametrize("spec", ["README.md", "../outside.yaml", "/etc/openapi.yaml", "api/other.yaml"])
def test_a_forged_report_of_a_spec_this_merge_does_not_check_is_refused(
        spec: str, reports: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The report names another spec, and puts its oracle file where `.satori` would have it: the merge writes
    only the oracle files of the specs it checks (the config's, or --head)."""
    repo, files = reports
    copy = tmp_path / "repo"
    shutil.copytree(repo, copy, symlinks=True)
    (copy / "README.md").write_text("the project's own readme\n")
    (copy / "api" / "other.yaml").write_text((copy / "api" / "openapi.yaml").read_text())
    monkeypatch.chdir(copy)
    oracles = default_oracle_path(spec).as_posix()
    forged = forge(files, tmp_path / "forged", lambda text: text.replace(ORACLES, oracles).replace(
        STORE, store_file_of(Path(oracles)).as_posix()).replace('"api/openapi.yaml"', json.dumps(spec)))
    before = _snapshot(copy)
    code, out, err = _run(["merge", *map(str, forged)], capsys)
    assert code == 2 and out == "", err
    assert spec in _error_line(err)
    assert _snapshot(copy) == before
    code, _, err = _run(["merge", *map(str, files)], capsys)  # the genuine reports still merge (no fault: 0)
    assert code == 0, err
    assert sorted(set(_snapshot(copy)) - set(before)) == sorted([ORACLES, STORE])


def test_a_genuine_report_of_another_commit_or_checkout_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The bookshop: v1 is clean against staging, v2 is not. The reports of v1's shards, genuine, do not make v2
    clean; nor do reports written before the spec, the oracle file or the config changed."""
    v1, v2 = example_specs()
    repo = tmp_path / "repo"
    (repo / "api").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    shutil.copy(v1, repo / "api" / "openapi.yaml")
    (repo / ".satori.yml").write_text("specs:\n  - path: api/openapi.yaml\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "v1")
    monkeypatch.chdir(repo)
    with StagingServer() as server:
        DemoBookshop(server)
        argv = ["check", "--head", "api/openapi.yaml", "--staging-url", server.base_url, "--runner", "native",
                "--quiet"]

        def shards(name: str) -> list[str]:
            out = []
            for index in range(1, 4):
                report = tmp_path / name / f"shard-{index}.json"
                assert main([*argv, "--shard", f"{index}/3", "--shard-report", str(report)]) == 0
                out.append(str(report))
            return out

        clean = shards("v1")
        assert _run(["merge", *clean, "--no-write"], capsys)[0] == 0, "v1 is clean"
        shutil.copy(v2, repo / "api" / "openapi.yaml")
        _git(repo, "commit", "-q", "-am", "v2")
        failing = shards("v2")
    assert _run(["merge", *failing, "--no-write"], capsys)[0] == 1, "v2 is not"
    code, out, err = _run(["merge", *clean, "--no-write"], capsys)
    assert (code, out) == (2, ""), out
    assert "commit" in _error_line(err)
    code, out, err = _run(["merge", failing[0], clean[1], failing[2], "--no-write"], capsys)
    assert (code, out) == (2, ""), out
    spec = repo / "api" / "openapi.yaml"
    oracles = repo / ORACLES
    config = repo / ".satori.yml"
    changes = [  # the checkout changed after the shards ran, not committed: the spec, the oracle file, the config
        (spec, spec.read_text() + "\n# edited\n", "api/openapi.yaml"),
        (oracles, "version: 1\n", ORACLES),
        (config, config.read_text() + "fail_on: violations\n", "config"),
    ]
    for path, text, said in changes:
        kept = path.read_text() if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        code, out, err = _run(["merge", *failing, "--no-write"], capsys)
        assert (code, out) == (2, ""), out
        assert said in _error_line(err)
        if kept is None:
            path.unlink()
        else:
            path.write_text(kept)
    assert _run(["merge", *failing, "--no-write"], capsys)[0] == 1


def _memory_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


MEMORY_LIMIT = 512 * 1024 * 1024
"""The address space of the merge process in these tests: the interpreter and satori-ci take about 150 MB."""


@pytest.mark.parametrize("size", [450 * 1024 * 1024, MAX_REPORT_BYTES + 1])
def test_an_oversized_report_is_refused_before_it_is_read(size: int, tmp_path: Path) -> None:
    big = tmp_path / "shard-1.json"
    with big.open("wb") as handle:  # sparse: no disk, but every byte would be read
        handle.write(b'{"format": "satori-ci shard report", "specs": [')
        handle.truncate(size)
    proc = subprocess.run([sys.executable, "-m", "satori_ci", "merge", str(big), "--no-write"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=_memory_limit(MEMORY_LIMIT),
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    line = _error_line(proc.stderr)
    assert "MiB" in line and "shard-1.json" in line
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr


def test_a_report_of_more_values_than_a_real_one_holds_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """Empty arrays take 24 bytes of memory per byte of JSON: a report under the size cap still may not hold more
    values than the partial report of a spec far larger than GitHub's."""
    from satori_ci.shard.report import MAX_REPORT_VALUES

    bomb = tmp_path / "shard-1.json"
    count = MAX_REPORT_VALUES + 1000
    bomb.write_text('{"format": "satori-ci shard report", "specs": [' + "[]," * count + "[]]}")
    assert bomb.stat().st_size < MAX_REPORT_BYTES
    proc = subprocess.run([sys.executable, "-m", "satori_ci", "merge", str(bomb), "--no-write"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=_memory_limit(MEMORY_LIMIT),
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    assert "values" in _error_line(proc.stderr) and "MemoryError" not in proc.stderr
