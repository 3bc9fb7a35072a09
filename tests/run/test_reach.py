"""What `run`, `check` and `collection` send to a real staging API, end to end through the CLI.

The staging API is tests/servers/resources_app.py (started once for the module, reset before every test):
list and detail resources whose ids only the lists give, nested resources, an OpenAPI link, a spec example,
a tenant only the config knows, bearer auth, mutating operations that really change its data, and a 500 on
`GET /search?q=string`. The native runner is used everywhere; Newman runs once with the token and once
without, for parity.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from tests.run.conftest import newman_available
from tests.run.reach_fixtures import (
    AUTH,
    DETAIL_OPERATIONS,
    MUTATING,
    ROOT,
    SAFE,
    SPEC,
    SPEC_AS_SEEN,
    SPEC_FROM_ROOT,
    TOKEN,
    WRONG_TOKEN,
    Outcome,
    clean_environment,
    cli,
    comparable,
    enabled_count,
    keep_oracles,
    paths,
    placeholders,
    run_args,
    targets,
    write_config,
)
from tests.servers.resources_app import SAMPLES, ResourcesApp

CHAINED_SAMPLES = [SAMPLES[("GET", label.partition(" ")[2])] for label in DETAIL_OPERATIONS]
"""One concrete path per detail operation that chaining must reach (`/users/usr_8f2k1/posts/pst_3m9x0`...)."""


def unsafe_hint(result: Outcome, label: str, config: str = ".satori.yml") -> str:
    """Why a non-safe operation was not sent: how to opt in (flag or config line, in that file). The text report
    lists them (grouped in one line when there are more than three); the JSON report says it per operation."""
    grouped = [line for line in result.out.splitlines()
               if line.startswith("NOT SENT ") and "non-safe operations" in line]
    own = [line for line in result.out.splitlines() if line.startswith(f"NOT SENT {label}: ")]
    assert own or (grouped and label in grouped[0]) or grouped, f"no NOT SENT line for {label} in:\n{result.out}"
    line = f"NOT SENT {label}: {result.not_sent()[label]['detail']}"
    assert line.startswith(f"NOT SENT {label}: not a safe method: opt in with "), line
    assert f'requests: unsafe: ["{label}"]' in line and line.endswith(f" in {config}"), line
    return line


# -- fixtures ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app() -> Iterator[ResourcesApp]:
    with ResourcesApp() as running:
        yield running


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle file `satori-ci infer` (rules backend) writes for the spec."""
    path = tmp_path_factory.mktemp("reach-oracles") / "resources_app.oracles.yaml"
    assert main(["infer", SPEC, "--oracles", str(path), "--quiet"]) == 0
    assert enabled_count(path) > 100
    return path


@pytest.fixture(autouse=True)
def fresh(app: ResourcesApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The app back to its fixture data with no request recorded; a working folder without a .satori.yml."""
    app.reset()
    clean_environment(monkeypatch)
    monkeypatch.chdir(tmp_path)
    yield
    app.reset()


def run(capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path, tmp_path: Path, *extra: str,
        runner: str = "native") -> Outcome:
    """`satori-ci run` against the app with a JSON report."""
    report = tmp_path / f"report-{len(list(tmp_path.glob('report-*')))}.json"
    return cli(capsys, run_args(app, oracles, *extra, runner=runner), report)


def assert_gets_before_mutations(app: ResourcesApp) -> None:
    methods = [r.method for r in list(app.received)]
    last_safe = max(i for i, m in enumerate(methods) if m in SAFE)
    first_mutation = min(i for i, m in enumerate(methods) if m in MUTATING)
    assert first_mutation > last_safe, targets(app)


# -- 1. nothing non-safe is sent unless opted in ------------------------------------------------------------------


def test_only_get_and_head_are_sent_by_default(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                              oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH)
    assert app.mutations == []
    assert app.intact()
    assert {r.method for r in list(app.received)} <= SAFE
    for label in ("POST /users", "PATCH /users/{user_id}"):
        unsafe_hint(result, label)
        assert result.not_sent()[label]["kind"] == "unsafe_method"
        assert result.coverage(label)["sent"] == 0


def test_delete_operations_are_listed_as_not_sent_with_the_opt_in_hint(
        capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH)
    assert app.mutations == []
    for label in ("DELETE /users/{user_id}", "DELETE /orders/{order_id}"):
        unsafe_hint(result, label)


def test_ignored_operations_are_neither_sent_nor_checked(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                         oracles: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "satori.yml",
                          ignore={"operations": ["GET /countries/{code}", "GET /search*", "GET /products/*"]})
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--config", str(config))
    sent = paths(app)
    assert not [p for p in sent if p.startswith(("/countries", "/search", "/products/"))], sent
    assert "/products" in sent  # the list is not ignored, its detail operation is
    for label in ("GET /countries/{code}", "GET /search", "GET /products/{sku}"):
        assert f"NOT SENT {label}: ignored (ignore.operations in {config})\n" in result.out
        assert result.not_sent()[label]["kind"] == "ignored"
        coverage = result.coverage(label)
        assert (coverage["sent"], coverage["checked"], coverage["oracles_exercised"]) == (0, 0, 0)
        assert label not in result.out.replace(f"NOT SENT {label}:", "")
    assert not result.report["violations"] and not result.report["server_errors"]
    assert result.code == 0, result.out  # the 500 of /search is not met: a clean run
    assert app.mutations == []


def test_an_opted_in_operation_is_sent_after_the_gets(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                      oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--unsafe", "PATCH /users/{user_id}",
                 "--value", "q=ada")
    assert app.mutations, targets(app)
    assert all(re.fullmatch(r"PATCH /users/usr_[a-z0-9]{5}", m) for m in app.mutations), app.mutations
    assert_gets_before_mutations(app)
    assert not app.intact()  # it really was sent
    assert "PATCH /users/{user_id}" not in result.not_sent()
    patch = result.coverage("PATCH /users/{user_id}")
    assert patch["sent"] == patch["checked"] == len(app.mutations)
    assert 0 < patch["oracles_exercised"] == patch["oracles_enabled"]
    assert result.not_sent()["POST /users"]["kind"] == "unsafe_method"  # only what was opted in
    assert result.code == 0, result.out


def test_an_operation_opted_in_by_the_config_is_sent_after_the_gets(
        capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "satori.yml", requests={"unsafe": ["POST /users"]})
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--config", str(config), "--value", "q=ada")
    assert app.mutations == ["POST /users"]
    assert_gets_before_mutations(app)
    assert result.coverage("POST /users")["checked"] == 1
    unsafe_hint(result, "PATCH /users/{user_id}", str(config))
    assert result.code == 0, result.out


def test_an_opted_in_operation_without_a_json_response_is_reported_not_sent(
        capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--unsafe", "DELETE /orders/{order_id}",
                 "--value", "q=ada")
    assert app.mutations == [] and app.intact()  # nothing to check: not worth a deletion
    found = result.not_sent()["DELETE /orders/{order_id}"]
    assert found["kind"] == "nothing_to_check" and "no 2XX JSON response" in found["detail"]
    assert "NOT SENT DELETE /orders/{order_id}: opted in, but the spec gives it no 2XX JSON response" in result.out


# -- 2. chaining reaches the detail operations ---------------------------------------------------------------------


def test_chaining_reaches_every_detail_operation(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                 oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH)
    sent = paths(app)
    for path in CHAINED_SAMPLES:
        assert path in sent, (path, sent)
    assert "/countries/FR" in sent  # the spec's example
    assert placeholders(app) == []
    for label in DETAIL_OPERATIONS:
        coverage = result.coverage(label)
        assert coverage["sent"] >= 1 and coverage["checked"] == coverage["sent"], coverage  # no 404 on a guess
        assert 0 < coverage["oracles_exercised"] == coverage["oracles_enabled"], coverage
        assert label not in result.not_sent()
    assert result.report["oracles_exercised"] == sum(c["oracles_exercised"] for c in result.report["operations"])
    assert result.report["violations"] == []


def test_without_chaining_detail_operations_are_not_sent_rather_than_guessed(
        capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--chain", "0")
    assert placeholders(app) == [], paths(app)
    assert not [p for p in paths(app) if "/string" in p or "00000000-" in p]
    assert sorted(paths(app)) == sorted(["/health", "/users", "/orders", "/stores", "/products", "/categories",
                                         "/countries/FR"])  # never /search?q=<placeholder>: q is required
    not_sent = result.not_sent()
    assert not_sent["GET /search"]["detail"].startswith("needs a value for {q} (query)"), not_sent["GET /search"]
    for label in DETAIL_OPERATIONS:
        param = re.findall(r"\{([^}]+)\}", label)[0]  # the first parameter lacks an input
        assert not_sent[label]["kind"] == "no_input"
        assert not_sent[label]["detail"].startswith(f"needs a value for {{{param}}}"), not_sent[label]
        assert f"NOT SENT {label}: needs a value for {{{param}}}" in result.out
        assert result.coverage(label)["sent"] == 0


# -- 3. values from the flags and the config -----------------------------------------------------------------------


def test_a_value_flag_reaches_the_config_only_resource(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                       oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--value", "tenant_id=acme")
    assert paths(app).count("/tenants/acme/settings") == 1
    coverage = result.coverage("GET /tenants/{tenant_id}/settings")
    assert coverage["checked"] == 1 and 0 < coverage["oracles_exercised"] == coverage["oracles_enabled"]
    assert "GET /tenants/{tenant_id}/settings" not in result.not_sent()


def test_a_config_value_read_from_the_environment(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                  oracles: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_config(tmp_path / "satori.yml", requests={"values": {"tenant_id": {"env": "REACH_TENANT"}}})
    monkeypatch.setenv("REACH_TENANT", "acme")
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--config", str(config))
    assert "/tenants/acme/settings" in paths(app)
    assert result.coverage("GET /tenants/{tenant_id}/settings")["checked"] == 1

    app.reset()
    monkeypatch.delenv("REACH_TENANT")
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--config", str(config))
    assert not [p for p in paths(app) if p.startswith("/tenants")]
    assert "REACH_TENANT is not set: parameter tenant_id gets no value from the config" in result.err
    assert result.not_sent()["GET /tenants/{tenant_id}/settings"]["kind"] == "no_input"


def test_without_a_value_the_report_names_the_config_line_to_add(capsys: pytest.CaptureFixture[str],
                                                                 app: ResourcesApp, oracles: Path,
                                                                 tmp_path: Path) -> None:
    config = write_config(tmp_path / "satori.yml", null_like=["N/A"])
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--config", str(config))
    assert not [p for p in paths(app) if p.startswith("/tenants")]
    detail = result.not_sent()["GET /tenants/{tenant_id}/settings"]["detail"]
    assert detail.startswith("needs a value for {tenant_id} (path): no operation lists its values; "
                             f"add it to {config}: "), detail
    assert 'requests: operations: {"GET /tenants/{tenant_id}/settings": {tenant_id: ...}}' in detail
    assert f"NOT SENT GET /tenants/{{tenant_id}}/settings: {detail}\n" in result.out


# -- 4. auth ------------------------------------------------------------------------------------------------------


def _auth_line(app: ResourcesApp, sent: str) -> str:
    received = list(app.received)
    denied = sum(1 for r in received if r.path != "/health")
    return (f"error: authentication failed: {denied} of {len(received)} requests got 401/403 "
            f"(credential headers sent: {sent})")


@pytest.mark.parametrize(("flags", "sent"), [([], "none"), (["--header", f"Authorization: Bearer {WRONG_TOKEN}"],
                                                             "Authorization")], ids=["no-token", "wrong-token"])
def test_refused_credentials_are_exit_3_never_a_pass(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                      oracles: Path, tmp_path: Path, flags: list[str],
                                                      sent: str) -> None:
    result = run(capsys, app, oracles, tmp_path, *flags)
    assert result.code == 3, result.out
    assert result.lines("error: ") == [_auth_line(app, sent)]
    assert result.report["exit_code"] == 3
    assert result.report["auth_failure"] == _auth_line(app, sent).removeprefix("error: ")
    assert WRONG_TOKEN not in result.text + json.dumps(result.report)
    assert app.mutations == []


def test_the_token_never_appears_in_the_output(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                               oracles: Path, tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH)
    assert result.report["auth_failure"] is None
    for received in list(app.received):
        assert [v for k, v in received.headers.items() if k.lower() == "authorization"] == [f"Bearer {TOKEN}"]
    assert TOKEN not in result.text + json.dumps(result.report)


@pytest.mark.parametrize("token", [TOKEN, WRONG_TOKEN], ids=["valid", "wrong"])
def test_header_env_works_like_header(capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path,
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    by_flag = run(capsys, app, oracles, tmp_path, "--header", f"Authorization: Bearer {token}", "--value", "q=string")
    sent_by_flag = targets(app)
    app.reset()
    monkeypatch.setenv("REACH_STAGING_TOKEN", f"Bearer {token}")
    by_env = run(capsys, app, oracles, tmp_path, "--header-env", "Authorization=REACH_STAGING_TOKEN", "--value",
                 "q=string")
    assert targets(app) == sent_by_flag
    assert by_env.code == by_flag.code == (1 if token == TOKEN else 3)
    assert comparable(by_env.report) == comparable(by_flag.report)
    assert by_env.without_timing() == by_flag.without_timing()
    assert token not in by_env.text + by_flag.text


def test_run_sends_the_config_files_staging_headers(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                   oracles: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REACH_CONFIG_TOKEN", f"Bearer {TOKEN}")
    config = write_config(tmp_path / "satori.yml", staging={"headers": {"Authorization": "REACH_CONFIG_TOKEN"}})
    result = run(capsys, app, oracles, tmp_path, "--config", str(config), "--value", "q=ada",
                 "--value", "tenant_id=acme")
    assert result.code == 0, result.out
    assert all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in app.received if r.path != "/health")
    assert TOKEN not in result.text
    assert "SATORI_AUTH_BEARERAUTH is not set" not in result.text  # the config's header stands in for it


# -- 5. server errors are findings ----------------------------------------------------------------------------------


def test_a_500_is_a_finding_retried_once(capsys: pytest.CaptureFixture[str], app: ResourcesApp, oracles: Path,
                                         tmp_path: Path) -> None:
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--value", "q=string")
    assert result.lines("SERVER ERROR") == [f"SERVER ERROR 500: GET {app.base_url}/search?q=string after 2 attempts"]
    assert [t for t in targets(app) if "/search" in t] == ["GET /search?q=string"] * 2
    assert result.code == 1
    assert result.report["violations"] == []
    [error] = result.report["server_errors"]
    assert (error["status"], error["attempts"], error["request"]["url"]) == (500, 2,
                                                                            f"{app.base_url}/search?q=string")


def test_server_errors_report_lists_them_without_failing(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                         oracles: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "satori.yml", requests={"server_errors": "report"})
    result = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--config", str(config), "--value", "q=string")
    assert result.lines("SERVER ERROR") == [f"SERVER ERROR 500: GET {app.base_url}/search?q=string after 2 attempts"]
    assert len(result.report["server_errors"]) == 1
    assert result.code == 0, result.out


# -- 6. a run that exercises no enabled oracle is never green -------------------------------------------------------


def test_only_health_sent_and_it_has_no_oracle(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                               oracles: Path, tmp_path: Path) -> None:
    others = keep_oracles(oracles, tmp_path / "no-health.oracles.yaml", lambda op: op.path != "/health")
    patterns = sorted({f"{m} {p}" for m, p in app.operations() if p != "/health"})
    config = write_config(tmp_path / "satori.yml", ignore={"operations": patterns})
    result = run(capsys, app, others, tmp_path, "--header", AUTH, "--config", str(config))
    assert paths(app) == ["/health"]
    assert result.code == 3, result.out
    assert result.report["nothing_checked"] and result.report["oracles_exercised"] == 0
    assert result.lines("error: ") == [f"error: {result.report['nothing_checked']}"]


def test_oracles_only_for_operations_that_are_not_sent(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                       oracles: Path, tmp_path: Path) -> None:
    unsent = keep_oracles(oracles, tmp_path / "unsent.oracles.yaml",
                          lambda op: op.method != "GET" or op.path.startswith("/tenants"))
    assert enabled_count(unsent) > 0
    result = run(capsys, app, unsent, tmp_path, "--header", AUTH, "--value", "q=ada")
    assert result.report["checked"] > 0 and app.mutations == []
    assert result.code == 3, result.out
    problem = result.report["nothing_checked"]
    assert problem.startswith("nothing was checked: none of the "), problem
    assert problem.endswith(f" enabled oracles met a value ({result.report['checked']} of "
                            f"{result.report['requests']} responses checked)"), problem
    assert result.lines("error: ") == [f"error: {problem}"]


def test_an_oracle_file_with_nothing_enabled_is_not_green(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                         oracles: Path, tmp_path: Path) -> None:
    empty = keep_oracles(oracles, tmp_path / "empty.oracles.yaml", lambda op: False)
    assert enabled_count(empty) == 0
    result = run(capsys, app, empty, tmp_path, "--header", AUTH, "--value", "q=ada")
    assert result.report["checked"] > 0 and not result.report["violations"]
    assert result.code == 3, result.out
    assert result.report["nothing_checked"]
    assert result.lines("error: ") == [f"error: {result.report['nothing_checked']}"]


# -- 7. check: the pull-request flow -------------------------------------------------------------------------------


def _check(capsys: pytest.CaptureFixture[str], app: ResourcesApp, tmp_path: Path, head: str, config: Path,
           *extra: str) -> Outcome:
    oracle_file = tmp_path / "check.oracles.yaml"
    return cli(capsys, ["check", "--head", head, "--staging-url", app.base_url, "--header", AUTH,
                        "--oracles", str(oracle_file), "--no-write", "--quiet", "--runner", "native",
                        "--config", str(config), *extra])


def test_check_json_reports_what_was_reached(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    config = write_config(tmp_path / "satori.yml", SPEC_FROM_ROOT, requests={"values": {"tenant_id": "acme",
                                                                                      "q": "string"}})
    result = _check(capsys, app, tmp_path, SPEC_FROM_ROOT, config, "--json")
    assert result.code == 1  # the 500 of /search
    report = json.loads(result.out)
    assert report["exit_code"] == 1
    [spec] = report["specs"]
    run_part = spec["run"]
    assert {"oracles_exercised", "operations", "not_sent", "server_errors"} <= set(run_part)
    assert 0 < run_part["oracles_exercised"] <= run_part["oracles_enabled"]
    exercised = {f"{c['method']} {c['path']}": c["oracles_exercised"] for c in run_part["operations"]}
    for label in (*DETAIL_OPERATIONS, "GET /tenants/{tenant_id}/settings"):
        assert exercised[label] > 0, label
    not_sent = {f"{k['method']} {k['path']}": k["kind"] for k in run_part["not_sent"]}
    assert {"POST /users", "PATCH /users/{user_id}"} <= set(not_sent)
    assert set(not_sent.values()) == {"unsafe_method"}  # every GET had an input
    assert [(e["status"], e["request"]["url"]) for e in run_part["server_errors"]] == [
        (500, f"{app.base_url}/search?q=string")]
    assert "/tenants/acme/settings" in paths(app) and app.mutations == []
    assert not (tmp_path / "check.oracles.yaml").exists()  # --no-write
    assert TOKEN not in result.text


def test_check_terminal_report_shows_what_was_checked(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    config = write_config(tmp_path / "satori.yml", SPEC_FROM_ROOT)
    as_json = _check(capsys, app, tmp_path, SPEC_FROM_ROOT, config, "--value", "q=ada", "--json")
    run_part = json.loads(as_json.out)["specs"][0]["run"]
    app.reset()
    result = _check(capsys, app, tmp_path, SPEC_FROM_ROOT, config, "--value", "q=ada")
    assert result.code == as_json.code == 0, result.out
    found = re.search(r"^What was checked: (\d+) of (\d+) oracles exercised", result.out, re.MULTILINE)
    assert found, result.out
    exercised, of = int(found.group(1)), int(found.group(2))
    assert exercised == run_part["oracles_exercised"] > 0
    assert exercised <= of <= run_part["oracles_enabled"]
    assert result.out.count(f"{exercised} of {of} oracles exercised") >= 2  # the header line and the section
    section = result.out.split("What was checked: ", 1)[1].split("\n\n", 1)[0]
    assert "POST /users" in section and "GET /tenants/{tenant_id}/settings: needs a value for {tenant_id}" in section
    assert TOKEN not in result.text


def test_check_applies_the_config_entry_whatever_the_folder(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                            tmp_path: Path) -> None:
    config = write_config(tmp_path / "satori.yml", SPEC_AS_SEEN, ignore={"operations": ["GET /countries/*"]})
    result = _check(capsys, app, tmp_path, SPEC, config, "--value", "q=ada", "--json")
    assert json.loads(result.out)["exit_code"] == 0
    assert not [p for p in paths(app) if p.startswith("/countries")], paths(app)


# -- 8. collection ----------------------------------------------------------------------------------------------


def _requests(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("request"), dict):
            yield node["request"]
        for child in node.get("item", ()):
            yield from _requests(child)


def test_collection_references_header_variables_and_leaves_unsafe_operations_out(
        capsys: pytest.CaptureFixture[str], oracles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STAGING_TOKEN", f"Bearer {TOKEN}")
    out = tmp_path / "collection.json"
    result = cli(capsys, ["collection", SPEC, "--oracles", str(oracles), "--header-env",
                          "Authorization=STAGING_TOKEN", "--out", str(out)])
    assert result.code == 0, result.err
    text = out.read_text(encoding="utf-8")
    assert "{{STAGING_TOKEN}}" in text
    assert TOKEN not in text and TOKEN not in result.text
    requests = list(_requests(json.loads(text)))
    assert requests and {r["method"] for r in requests} <= SAFE
    for request in requests:
        auth = [h["value"] for h in request["header"] if h["key"].lower() == "authorization"]
        assert auth == ["{{STAGING_TOKEN}}"], request
    assert "STAGING_TOKEN" in result.err

    result = cli(capsys, ["collection", SPEC, "--oracles", str(oracles), "--header", AUTH, "--out", str(out)])
    assert result.code == 0 and TOKEN not in out.read_text(encoding="utf-8") + result.text


# -- Newman gives the same run ----------------------------------------------------------------------------------


def test_newman_reaches_and_reports_like_the_native_runner(capsys: pytest.CaptureFixture[str], app: ResourcesApp,
                                                           oracles: Path, tmp_path: Path) -> None:
    newman_available()
    native = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--value", "q=string")
    native_sent = Counter(targets(app))
    app.reset()
    newman = run(capsys, app, oracles, tmp_path, "--header", AUTH, "--value", "q=string", runner="newman")
    newman_sent = Counter(targets(app))
    # the same requests, and the lists sent once more first: their values decide what Newman sends
    assert set(newman_sent) == set(native_sent)
    assert all(native_sent[t] <= n <= 2 * native_sent[t] for t, n in newman_sent.items())
    assert newman.report["requests"] == native.report["requests"]
    assert app.mutations == [] and app.intact() and placeholders(app) == []
    for path in CHAINED_SAMPLES:
        assert path in paths(app)
    assert newman.report["runner"] == "newman"
    assert comparable(newman.report) == comparable(native.report)
    assert newman.code == native.code == 1
    assert TOKEN not in newman.text

    app.reset()
    refused = run(capsys, app, oracles, tmp_path, "--header", f"Authorization: Bearer {WRONG_TOKEN}",
                  runner="newman")
    assert refused.code == 3
    sent = refused.report["requests"]  # the lists were sent once more before Newman ran
    assert refused.lines("error: ") == [f"error: authentication failed: {sent - 1} of {sent} requests got 401/403 "
                                        "(credential headers sent: Authorization)"]
    assert WRONG_TOKEN not in refused.text
