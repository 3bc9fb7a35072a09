"""Exploring staging with both runners, on an app whose data only exploring reaches (tests/servers/explore_app.py):
sibling lists, three levels of nesting whose first ids have no children, a second page, a recursive listing, an
id in a required query parameter; and the budget, which both runners and shards keep."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.demo import Canned, Received
from tests.run.conftest import infer_oracles, newman_available
from tests.run.reach_fixtures import clean_environment
from tests.servers.explore_app import SPEC, ExploreApp

RUNNERS = ("native", "newman")
GETS = ("GET /silences", "GET /silence/{silenceID}", "GET /buckets", "GET /buckets/{bid}/collections",
        "GET /buckets/{bid}/collections/{cid}/records", "GET /buckets/{bid}/collections/{cid}/records/{rid}",
        "GET /contents/{path}", "GET /reports")


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return infer_oracles(SPEC, tmp_path_factory.mktemp("explore") / "explore.oracles.yaml")


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ExploreApp]:
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    with ExploreApp() as running:
        yield running


def _run(app: ExploreApp, oracles: Path, tmp_path: Path, runner: str, *extra: str,
         spec: str = str(SPEC)) -> tuple[int, dict[str, Any]]:
    if runner == "newman":
        newman_available()
    report = tmp_path / f"report-{runner}.json"
    code = main(["run", spec, "--oracles", str(oracles), "--base-url", app.base_url, "--runner", runner,
                 "--report", str(report), "--quiet", *extra])
    return code, json.loads(report.read_text(encoding="utf-8"))


def _sent(app: ExploreApp) -> list[str]:
    return [r.target for r in app.received]


@dataclass(frozen=True)
class WholeRun:
    """A run with no budget, on a fresh app: its exit code, report, the targets it sent and their methods."""

    code: int
    report: dict[str, Any]
    sent: list[str]
    methods: frozenset[str]


@pytest.fixture(scope="module")
def whole_runs(oracles: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, WholeRun]:
    """One whole run of each runner (Newman's where Node.js is), shared by the tests that only read it."""
    runs = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        clean_environment(monkeypatch)
        for runner in RUNNERS:
            if runner == "newman" and shutil.which("node") is None:
                continue
            folder = tmp_path_factory.mktemp(f"whole-{runner}")
            monkeypatch.chdir(folder)
            with ExploreApp() as app:
                code, report = _run(app, oracles, folder, runner)
                runs[runner] = WholeRun(code, report, _sent(app), frozenset(r.method for r in app.received))
    return runs


def _whole(whole_runs: dict[str, WholeRun], runner: str) -> WholeRun:
    if runner == "newman":
        newman_available()
    return whole_runs[runner]


@pytest.mark.parametrize("runner", RUNNERS)
def test_every_get_operation_the_data_allows_is_reached(whole_runs: dict[str, WholeRun], runner: str) -> None:
    run = _whole(whole_runs, runner)
    code, report, sent = run.code, run.report, run.sent
    assert code == 0
    reached = {f"{o['method']} {o['path']}" for o in report["operations"] if o["checked"]}
    assert reached == set(GETS)
    assert report["oracles_exercised"] == report["oracles_enabled"]
    assert run.methods == {"GET"}  # the DELETE is never sent
    assert "/silence/sil-0" in sent  # the sibling list gave the id
    assert "/buckets/b7/collections/c1/records?page=2" in sent  # the next page
    assert any(t.startswith("/buckets/b7/collections/c1/records/r") and int(t[-1]) >= 4 for t in sent)  # poetry
    assert {"/contents/", "/contents/docs"} <= set(sent)  # the recursive listing, from its root
    assert any(t.startswith("/reports?silence_id=sil-") for t in sent)  # the id in a required query parameter
    assert not [t for t in sent if t.startswith("/search")]  # never a placeholder in a required parameter
    search = next(k for k in report["not_sent"] if k["path"] == "/search")
    assert search["kind"] == "no_input"
    assert search["detail"].startswith("needs a value for {q} (query)")
    assert 'requests: operations: {"GET /search": {q: ...}}' in search["detail"]


def test_values_are_spread_over_the_list_not_the_first_ones(whole_runs: dict[str, WholeRun]) -> None:
    silences = [t for t in whole_runs["native"].sent if t.startswith("/silence/")][:3]  # the first round's
    assert silences != ["/silence/sil-0", "/silence/sil-1", "/silence/sil-2"]
    states = {int(t[-1]) % 2 for t in silences}
    assert states == {0, 1}  # both states (the items' enum-like field)


def test_the_runners_send_the_same_requests_breadth_first(whole_runs: dict[str, WholeRun]) -> None:
    native, newman = _whole(whole_runs, "native"), _whole(whole_runs, "newman")
    native_sent = native.sent
    assert native.report["requests"] == newman.report["requests"] == len(native_sent)
    assert set(newman.sent) == set(native_sent)
    # every operation once before any twice: every detail of the first round comes before the second silence
    silences = [n for n, t in enumerate(native_sent) if t.startswith("/silence/")]
    assert native_sent.index("/reports?silence_id=sil-0") < silences[1]


@pytest.mark.parametrize("runner", RUNNERS)
def test_no_request_over_the_budget(app: ExploreApp, oracles: Path, tmp_path: Path, runner: str) -> None:
    _, report = _run(app, oracles, tmp_path, runner, "--budget", "6")
    assert len(app.received) <= 6
    assert report["requests"] <= 6
    kinds = {k["kind"] for k in report["not_sent"]}
    assert "budget" in kinds, report["not_sent"]
    budget = [k for k in report["not_sent"] if k["kind"] == "budget"]
    assert all("budget" in k["detail"] for k in budget)
    # breadth-first: the lists went first, each once
    assert [t for t in _sent(app) if "/" not in t.strip("/").split("?")[0]][:3] == ["/silences", "/buckets",
                                                                                   "/contents/"]


def test_the_config_budget_and_rate(app: ExploreApp, oracles: Path, tmp_path: Path) -> None:
    config = tmp_path / "satori.yml"
    (tmp_path / "api.yaml").write_text(SPEC.read_text(encoding="utf-8"), encoding="utf-8")
    config.write_text("specs:\n  - path: api.yaml\n    requests:\n      budget: 4\n      rate: 200\n"
                      "      concurrency: 2\n", encoding="utf-8")
    _, report = _run(app, oracles, tmp_path, "native", "--config", str(config), spec="api.yaml")
    assert len(app.received) <= 4
    assert report["requests"] == len(app.received)


@pytest.mark.parametrize(("flag", "value"), [("--budget", "0"), ("--time-budget", "nan"), ("--rate", "-1"),
                                             ("--concurrency", "33")])
def test_a_bad_budget_flag_is_one_line_and_exit_2(app: ExploreApp, oracles: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str], flag: str, value: str) -> None:
    code = main(["run", str(SPEC), "--oracles", str(oracles), "--base-url", app.base_url, flag, value])
    err = capsys.readouterr().err
    assert code == 2
    assert flag in err and "Traceback" not in err
    assert app.received == []


@pytest.mark.parametrize("runner", RUNNERS)
def test_the_rate_spaces_the_requests(app: ExploreApp, oracles: Path, tmp_path: Path, runner: str) -> None:
    arrivals: list[float] = []
    answer = app.server.answer

    def timed(received: Received) -> Canned:
        arrivals.append(time.monotonic())
        return answer(received)

    app.server.answer = timed  # type: ignore[method-assign]
    _run(app, oracles, tmp_path, runner, "--budget", "6", "--rate", "10")
    assert len(arrivals) >= 4
    span = arrivals[-1] - arrivals[0]
    assert span >= 0.1 * (len(arrivals) - 1) - 0.05, span  # 10 a second (less a little for the arrivals' jitter)


def test_the_time_budget_stops_sending(app: ExploreApp, oracles: Path, tmp_path: Path) -> None:
    answer = app.server.answer

    def slow(received: Received) -> Canned:
        time.sleep(0.2)
        return answer(received)

    app.server.answer = slow  # type: ignore[method-assign]
    _, report = _run(app, oracles, tmp_path, "native", "--time-budget", "0.5")
    assert 1 <= len(app.received) <= 4
    assert [k for k in report["not_sent"] if k["kind"] == "budget"], report["not_sent"]
