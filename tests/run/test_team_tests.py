"""The team's own tests are part of the verdict: plain Newman on the collection satori-ci writes and `satori-ci run
--runner newman` agree (a failing team test fails both, passing ones pass both); `team-tests` governs it; opted-in
requests are listed by both runners; counts add up (real Newman, a local staging server)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped,unused-ignore]

from satori_ci.cli import main
from satori_ci.postman.script import RESULT_PREFIX, RESULTS_VARIABLE
from tests.run import team_fixtures
from tests.run.conftest import infer_oracles, newman_available
from tests.servers.resources_app import SPEC_PATH, ResourcesApp

app, fresh = team_fixtures.app, team_fixtures.fresh  # the shared fixtures
KEPT = ("/health", "/users", "/users/{user_id}")
SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The resources app's spec cut to the operations the team's collection calls: the verdicts are the same, and each
    Newman run sends a fifth of the requests (each one runs satori-ci's assertion scripts)."""
    document = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    document["paths"] = {path: item for path, item in document["paths"].items() if path in KEPT}
    path = tmp_path_factory.mktemp("spec") / "users.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def oracles(spec: Path) -> str:
    return str(infer_oracles(spec, spec.with_name("users.oracles.yaml")))


def _script(*lines: str) -> list[dict[str, object]]:
    return [{"listen": "test", "script": {"exec": list(lines)}}]


TESTS = {
    "passes": ["pm.test('team: the list has users', function () {",
               "  pm.expect(pm.response.json().length).to.be.above(0);", "});"],
    "fails": ["pm.test('team: the list has 99 users', function () {",
              "  pm.expect(pm.response.json().length).to.equal(99);", "});"],
    "throws": ["pm.collectionVariables.set('userId', pm.response.json()[1].id);", "undefinedHelper(pm.response);"],
}


def _team(tmp_path: Path, base_url: str, variant: str, write: bool = False) -> tuple[Path, Path]:
    """A team collection (bearer auth from its environment, an id passed by a script, a collection-level test that
    runs on every request, satori-ci's too) whose `list users` test passes, fails or throws."""
    users = [{"name": "list users", "request": {"method": "GET", "url": "{{baseUrl}}/users"},
              "event": _script(*TESTS[variant], "pm.collectionVariables.set('userId', pm.response.json()[1].id);")},
             {"name": "one user", "request": {"method": "GET", "url": "{{baseUrl}}/users/{{userId}}"},
              "event": _script("pm.test('team: one user', function () { pm.response.to.have.status(200); });")}]
    if write:
        body = json.dumps({"name": "Team Member", "email": "team@example.com"})
        users.append({"name": "create user", "request": {
            "method": "POST", "url": "{{baseUrl}}/users", "body": {"mode": "raw", "raw": body},
            "header": [{"key": "Content-Type", "value": "application/json"}]}})
    collection = {
        "info": {"name": "Team suite", "schema": SCHEMA},
        "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{apiToken}}", "type": "string"}]},
        "variable": [{"key": "baseUrl", "value": "http://127.0.0.1:9"}],
        "event": _script("pm.test('team: answered', function () { pm.expect(pm.response.code).to.be.below(500); });"),
        "item": [{"name": "Users", "item": users},
                 {"name": "health", "request": {"method": "GET", "url": "{{baseUrl}}/health"}}],
    }
    path = tmp_path / f"{variant}.postman_collection.json"
    path.write_text(json.dumps(collection), encoding="utf-8")
    environment = tmp_path / "staging.postman_environment.json"
    environment.write_text(json.dumps({"name": "staging", "values": [
        {"key": "baseUrl", "value": base_url, "enabled": True},
        {"key": "apiToken", "value": ResourcesApp.TOKEN, "enabled": True, "type": "secret"}]}), encoding="utf-8")
    return path, environment


def _plain_newman(written: Path, environment: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([newman_available(), "run", str(written), "--environment", str(environment), "--color", "off",
                           "--disable-unicode", *extra], capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize(("variant", "code"), [("fails", 1), ("passes", 0), ("throws", 1)])
def test_plain_newman_and_satori_ci_give_the_same_verdict_on_the_team_tests(
        app: ResourcesApp, spec: Path, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: str,
        code: int) -> None:
    newman_available()
    collection, environment = _team(tmp_path, app.base_url, variant)
    written = tmp_path / "written.json"
    assert main(["collection", str(spec), "--oracles", oracles, "--postman-collection", str(collection),
                 "--postman-environment", str(environment), "--out", str(written)]) == 0
    app.reset()
    asked = variant == "passes"  # the machine lines are printed when asked for, and only then
    plain = _plain_newman(written, environment, *(["--env-var", f"{RESULTS_VARIABLE}=1"] if asked else []))
    assert plain.returncode == code, plain.stdout[-3000:]
    assert (RESULT_PREFIX in plain.stdout) is asked  # else Newman's console is quiet: no raw [satori-ci] {json} lines
    app.reset()
    report = tmp_path / "run.json"
    capsys.readouterr()
    found = main(["run", str(spec), "--oracles", oracles, "--base-url", app.base_url, "--runner", "newman",
                  "--postman-collection", str(collection), "--postman-environment", str(environment),
                  "--report", str(report), "--no-observe", "--quiet"])
    out = capsys.readouterr().out
    assert found == code, out
    data = json.loads(report.read_text(encoding="utf-8"))
    team = data["team_tests"]
    assert team["ran"] is True and team["policy"] == "fail"
    # the collection-level test ran on every request of the run, satori-ci's generated ones included
    answered = [t for t in team["listed"] if t["name"] == "team: answered"]
    assert len(answered) == data["requests"] and all(t["outcome"] == "passed" for t in answered)
    failing = [t for t in team["listed"] if t["outcome"] == "failed"]
    if variant == "fails":
        assert team["failed"] == 1 and [(t["name"], t["request"]["name"], t["message"]) for t in failing] == [
            ("team: the list has 99 users", "Users/list users", "expected 4 to equal 99")]
        assert ("TEAM TEST FAILED Users/list users › team: the list has 99 users: expected 4 to equal 99"
                in out)
    elif variant == "throws":
        assert [(t["name"], t["request"]["name"]) for t in failing] == [
            ("(error in the test script)", "Users/list users")]
        assert "undefinedHelper is not defined" in failing[0]["message"]
    else:
        assert team["failed"] == 0 and team["passed"] == len(team["listed"]) and "TEAM TEST" not in out
    assert data["violations_total"] == 0 and not data["server_errors"]  # only the team's tests decide here
    assert ResourcesApp.TOKEN not in out + report.read_text(encoding="utf-8")


@pytest.mark.parametrize(("flag", "config", "code", "listed"), [
    ("ignore", None, 0, False), (None, "warn", 0, True), ("fail", "warn", 1, True)])  # the flag, the config, both
def test_team_tests_fail_warn_or_ignore_from_the_flag_or_the_config(
        fresh: ResourcesApp, spec: Path, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, flag: str | None, config: str | None, code: int, listed: bool) -> None:
    newman_available()
    collection, environment = _team(tmp_path, fresh.base_url, "fails")
    monkeypatch.chdir(spec.parent)  # the config names the spec by its path from here
    args = ["run", spec.name, "--oracles", oracles, "--base-url", fresh.base_url, "--runner", "newman",
            "--postman-collection", str(collection), "--postman-environment", str(environment), "--no-observe",
            "--quiet"]
    if flag is not None:
        args += ["--team-tests", flag]
    if config is not None:
        config_file = spec.parent / f"satori-{tmp_path.name}.yml"  # inside the folder the run reads from
        config_file.write_text(f"specs:\n  - path: {spec.name}\n    requests:\n      team_tests: {config}\n",
                               encoding="utf-8")
        args += ["--config", str(config_file)]
    capsys.readouterr()
    assert main(args) == code
    out = capsys.readouterr().out
    assert ("team: the list has 99 users" in out) is listed


def test_check_fails_on_a_failing_team_test_and_says_so(fresh: ResourcesApp, spec: Path, oracles: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    newman_available()
    collection, environment = _team(tmp_path, fresh.base_url, "fails")
    oracle_copy = tmp_path / "check.oracles.yaml"
    oracle_copy.write_text(Path(oracles).read_text(encoding="utf-8"), encoding="utf-8")
    capsys.readouterr()
    code = main(["check", "--head", str(spec), "--oracles", str(oracle_copy), "--staging-url", fresh.base_url,
                 "--runner", "newman", "--postman-collection", str(collection), "--postman-environment",
                 str(environment), "--no-write", "--no-observe", "--quiet"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.startswith(f"✖ 1 of {out.split(' of ', 2)[1].split()[0]} tests of your Postman collection failed on")
    assert "failed: Users/list users › team: the list has 99 users: expected 4 to equal 99" in out
    assert "failing team test(s), exit code 1" in out


def test_both_runners_list_the_opted_in_request_and_what_it_got(
        fresh: ResourcesApp, spec: Path, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newman_available()
    collection, environment = _team(tmp_path, fresh.base_url, "passes", write=True)
    for runner in ("newman", "native"):
        fresh.reset()
        report = tmp_path / f"{runner}.json"
        capsys.readouterr()
        main(["run", str(spec), "--oracles", oracles, "--base-url", fresh.base_url, "--runner", runner,
              "--postman-collection", str(collection), "--postman-environment", str(environment),
              "--unsafe", "POST /users", "--report", str(report), "--no-observe", "--quiet"])
        out = capsys.readouterr().out
        assert "SENT (opted in) POST /users (Users/create user): HTTP 201" in out, (runner, out)
        data = json.loads(report.read_text(encoding="utf-8"))
        assert data["opted_in"] == [{"name": "Users/create user", "method": "POST", "path": "/users",
                                     "url": f"{fresh.base_url}/users", "statuses": [201], "detail": ""}]
        assert fresh.mutations == ["POST /users"], runner
        if runner == "native":
            assert data["team_tests"]["ran"] is False
            assert out.count("does not run the team collection's scripts") == 1, out
            # the team's bearer token went with its requests: the auth line says so, not "none"
            assert "credential headers sent: none" not in out


def test_collection_counts_add_up_and_says_each_note_once(spec: Path, oracles: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    collection, _ = _team(tmp_path, "http://127.0.0.1:9", "passes", write=True)
    written = tmp_path / "written.json"
    capsys.readouterr()
    assert main(["collection", str(spec), "--oracles", oracles, "--postman-collection", str(collection),
                 "--out", str(written)]) == 0
    err = capsys.readouterr().err
    data = json.loads(written.read_text(encoding="utf-8"))

    def requests(items: list[dict[str, object]]) -> int:
        return sum(requests(i["item"]) if isinstance(i.get("item"), list) else 1 for i in items)  # type: ignore[arg-type,misc]

    total = requests(data["item"])
    generated = requests(data["item"][-1]["item"])
    line = err.splitlines()[0]
    assert line.startswith(f"wrote {written}: {total} requests for ")
    assert line.endswith(f": 3 of {collection}'s 4 requests (1 non-safe one not opted in left out), {generated} "
                         "added for the operations it does not call"), line
    notes = [n for n in err.splitlines() if n.startswith("satori-ci: note:")]
    assert len(notes) == len(set(notes))
    assert sum(1 for n in notes if n.startswith("satori-ci: note: POST /users: not sent")) == 1, notes


def test_a_team_tests_message_never_shows_the_teams_credentials(
        fresh: ResourcesApp, spec: Path, oracles: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newman_available()
    collection, environment = _team(tmp_path, fresh.base_url, "passes")
    data = json.loads(collection.read_text(encoding="utf-8"))
    data["event"] = _script("pm.test('team: the token', function () {",
                            "  pm.expect(pm.request.headers.get('Authorization')).to.equal('nope');", "});")
    collection.write_text(json.dumps(data), encoding="utf-8")
    report = tmp_path / "run.json"
    capsys.readouterr()
    assert main(["run", str(spec), "--oracles", oracles, "--base-url", fresh.base_url, "--runner", "newman",
                 "--postman-collection", str(collection), "--postman-environment", str(environment),
                 "--report", str(report), "--no-observe", "--quiet"]) == 1
    out = capsys.readouterr().out
    written = report.read_text(encoding="utf-8")
    assert "TEAM TEST FAILED Users/list users › team: the token: expected '***' to equal 'nope'" in out
    assert ResourcesApp.TOKEN not in out + written and "expected '***' to equal 'nope'" in written
