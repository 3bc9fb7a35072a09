"""`.satori.yml` read through its model: every mistake is one line naming the file, line and key, worded as the
reader always has; with several mistakes, the one its checks meet first."""

from __future__ import annotations

import time

import pytest

from satori_ci.config import (
    ConfigError,
    FailOn,
    Ignore,
    ObserveSettings,
    ProjectConfig,
    RequestSettings,
    SpecConfig,
    Value,
    parse_config,
)
from satori_ci.oracles.kinds import OracleKind

BAD = [
    ('- a\n',
     ': the config file must be a mapping'),
    ('specs: []\nbogus: 1\n',
     ":2: unknown key 'bogus' (expected one of backend, fail_on, model, oracles_dir, specs)"),
    ('specs: {path: x}\n',
     ":1: 'specs' must be a list"),
    ('fail_on: 3\n',
     ":1: 'fail_on' must be a non-empty string"),
    ('fail_on: sometimes\n',
     ":1: 'fail_on' must be one of violations, new-violations, never, not 'sometimes'"),
    ("backend: ''\n",
     ":1: 'backend' must be a non-empty string"),
    ('backend: gpt\n',
     ":1: 'backend' must be one of rules, llm, declared, not 'gpt'"),
    ('model: 7\n',
     ":1: 'model' must be a non-empty string"),
    ('oracles_dir: /abs\n',
     ":1: 'oracles_dir' must be a path inside the repository, relative to its root; '/abs' is outside the "
     'repository'),
    ("oracles_dir: ''\n",
     ":1: 'oracles_dir' must be a non-empty string"),
    ('specs:\n  - 3\n',
     ":1: each entry of 'specs' must be a mapping with a 'path'"),
    ('specs:\n  - path: x\n    stagin: {}\n',
     ":3: unknown key 'specs[].stagin' (expected one of ignore, null_like, observe, path, requests, skip_kinds, "
     'staging)'),
    ('specs:\n  - staging: {}\n',
     ":1: each entry of 'specs' needs a 'path'"),
    ('specs:\n  - path: null\n',
     ":1: each entry of 'specs' needs a 'path'"),
    ("specs:\n  - path: ''\n",
     ":2: 'specs[].path' must be a non-empty string"),
    ('specs:\n  - path: ../up.yaml\n',
     ":2: 'specs[].path' must be a path inside the repository, relative to its root; '../up.yaml' is outside "
     'the repository'),
    ('specs:\n  - path: x\n    staging: []\n',
     ":3: 'specs[].staging' must be a mapping"),
    ('specs:\n  - path: x\n    staging:\n      url: https://s\n      proxy: p\n',
     ":5: unknown key 'specs[].staging.proxy' (expected one of headers, url, url_env)"),
    ('specs:\n  - path: x\n    staging:\n      headers: [a]\n',
     ":4: 'staging.headers' must map header names to variable names"),
    ("specs:\n  - path: x\n    staging:\n      headers:\n        Authorization: 'Bearer s3cret'\n",
     ":5: staging header 'Authorization' must name an environment variable (its value is read at run time, "
     'never written here)'),
    ('specs:\n  - path: x\n    staging:\n      headers:\n        Authorization: 12\n',
     ":5: staging header 'Authorization' must name an environment variable (its value is read at run time, "
     'never written here)'),
    ('specs:\n  - path: x\n    skip_kinds: string_fixed_length\n',
     ":3: 'specs[].skip_kinds' must be a list of strings"),
    ('specs:\n  - path: x\n    skip_kinds: [string_fixed_length, always_green]\n',
     ":3: unknown oracle kind 'always_green' in 'skip_kinds'"),
    ('specs:\n  - path: x\n    ignore: [a]\n',
     ":3: 'specs[].ignore' must be a mapping"),
    ('specs:\n  - path: x\n    ignore:\n      paths: [a]\n',
     ":4: unknown key 'specs[].ignore.paths' (expected one of fields, operations)"),
    ("specs:\n  - path: x\n    staging:\n      url: ''\n",
     ":4: 'staging.url' must be a non-empty string"),
    ('specs:\n  - path: x\n    staging:\n      url_env: 3\n',
     ":4: 'staging.url_env' must be a non-empty string"),
    ('specs:\n  - path: x\n    null_like: [1]\n',
     ":3: 'specs[].null_like' must be a list of strings"),
    ('specs:\n  - path: x\n    ignore:\n      operations: GET /x\n',
     ":4: 'ignore.operations' must be a list of strings"),
    ('specs:\n  - path: x\n    ignore:\n      fields: [1]\n',
     ":4: 'ignore.fields' must be a list of strings"),
    ('specs:\n  - path: x\n    requests: 1\n',
     ":3: 'specs[].requests' must be a mapping"),
    ('specs:\n  - path: x\n    requests:\n      sends: 1\n',
     ":4: unknown key 'specs[].requests.sends' (expected one of budget, chain, collection, concurrency, "
     "environment, min_changed_exercised, min_exercised, operations, rate, server_errors, team_tests, time_budget, "
     "unsafe, values)"),
    ('specs:\n  - path: x\n    requests:\n      operations: [a]\n',
     ':4: \'requests.operations\' must map "METHOD /path" to values'),
    ("specs:\n  - path: x\n    requests:\n      operations:\n        'GET reports': {a: 1}\n",
     ':5: \'requests.operations\' keys are "METHOD /path", not \'GET reports\''),
    ("specs:\n  - path: x\n    requests:\n      operations:\n        'GET /r': [1]\n",
     ":5: 'requests.operations.GET /r' must map parameter names to values"),
    ("specs:\n  - path: x\n    requests:\n      operations:\n        'GET /r':\n          id: true\n",
     ":6: 'requests.operations.GET /r.id' must be a string, a number or {env: VARIABLE}"),
    ('specs:\n  - path: x\n    requests:\n      unsafe: POST /x\n',
     ":4: 'requests.unsafe' must be a list of strings"),
    ("specs:\n  - path: x\n    requests:\n      unsafe: ['GET /x']\n",
     ':4: \'requests.unsafe\' lists "METHOD /path" globs of non-GET operations, not \'GET /x\''),
    ('specs:\n  - path: x\n    requests:\n      values: [1]\n',
     ":4: 'requests.values' must map parameter names to values"),
    ("specs:\n  - path: x\n    requests:\n      values:\n        a: {env: ''}\n",
     ":5: 'requests.values.a' must be a string, a number or {env: VARIABLE}"),
    ('specs:\n  - path: x\n    requests:\n      values:\n        a: null\n',
     ":5: 'requests.values.a' must be a string, a number or {env: VARIABLE}"),
    ('specs:\n  - path: x\n    requests:\n      chain: 1001\n',
     ":4: 'requests.chain' must be a whole number from 0 to 1000"),
    ('specs:\n  - path: x\n    requests:\n      min_exercised: -1\n',
     ":4: 'requests.min_exercised' must be a whole number from 0 to 1000"),
    ('specs:\n  - path: x\n    requests:\n      server_errors: ignore\n',
     ":4: 'server_errors' must be one of fail, report, not 'ignore'"),
    ('specs:\n  - path: x\n    requests:\n      collection: /etc/passwd\n',
     ":4: 'requests.collection' must be a path inside the repository, relative to its root; '/etc/passwd' is "
     'outside the repository'),
    ("specs:\n  - path: x\n    requests:\n      environment: ''\n",
     ":4: 'requests.environment' must be a non-empty string"),
    ('specs:\n  - path: x\n    observe: yes\n',
     ":3: 'specs[].observe' must be a mapping"),
    ('specs:\n  - path: x\n    observe:\n      min_reponses: 3\n',
     ":4: unknown key 'specs[].observe.min_reponses' (expected one of min_requests, min_responses)"),
    ('specs:\n  - path: x\n    observe:\n      min_requests: 1.5\n',
     ":4: 'observe.min_requests' must be a whole number from 0 to 1000"),
    ('specs:\n  - path: x\n    observe:\n      min_responses: 0\n',
     ":4: 'observe.min_responses' must be at least 1"),
    ('backend: gpt\nfail_on: 3\nbogus: 1\nspecs: 3\n',
     ":3: unknown key 'bogus' (expected one of backend, fail_on, model, oracles_dir, specs)"),
    ('backend: gpt\nfail_on: sometimes\n',
     ":2: 'fail_on' must be one of violations, new-violations, never, not 'sometimes'"),
    ('oracles_dir: /abs\nspecs:\n  - path: x\n    null_like: 3\n',
     ":4: 'specs[].null_like' must be a list of strings"),
    ("specs:\n  - path: x\n    staging:\n      url: ''\n    skip_kinds: [nope]\n",
     ":5: unknown oracle kind 'nope' in 'skip_kinds'"),
    ("specs:\n  - path: x\n    staging:\n      url: ''\n      headers: {A: 'no way'}\n",
     ":5: staging header 'A' must name an environment variable (its value is read at run time, never written here)"),
    ('specs:\n  - path: x\n    ignore: {fields: 3}\n    null_like: 3\n',
     ":4: 'specs[].null_like' must be a list of strings"),
    ('specs:\n  - path: x\n    null_like: 3\n    zzz: 1\n    aaa: 2\n',
     ":4: unknown key 'specs[].zzz' (expected one of ignore, null_like, observe, path, requests, skip_kinds, "
     'staging)'),
    ("specs:\n  - path: x\n    requests:\n      chain: -1\n      values: {a: true}\n      unsafe: ['GET /x']\n",
     ':6: \'requests.unsafe\' lists "METHOD /path" globs of non-GET operations, not \'GET /x\''),
    ("specs:\n  - path: x\n    requests:\n      operations:\n        'GET /a': {x: true}\n        'bad': {}\n",
     ":5: 'requests.operations.GET /a.x' must be a string, a number or {env: VARIABLE}"),
    ('specs:\n  - path: x\n    observe:\n      min_responses: 0\n      min_requests: -1\n',
     ":5: 'observe.min_requests' must be a whole number from 0 to 1000"),
    ('specs:\n  - path: x\n    observe:\n      min_responses: 2000\n      min_requests: 0\n',
     ":4: 'observe.min_responses' must be a whole number from 0 to 1000"),
    ('specs:\n  - path: x\n    skip_kinds: [nope, 3]\n',
     ":3: 'specs[].skip_kinds' must be a list of strings"),
    ('specs:\n  - path: a\n    null_like: 3\n  - path: b\n    bogus: 1\n',
     ":3: 'specs[].null_like' must be a list of strings"),
    ("specs:\n  - path: x\n    requests:\n      unsafe: [POST /a, 'GET /b', 3]\n",
     ":4: 'requests.unsafe' must be a list of strings"),
    ('specs:\n  - path: x\n    "\\udc80": 1\n',
     ":3: unknown key 'specs[].\udc80' (expected one of ignore, null_like, observe, path, requests, skip_kinds, "
     'staging)'),
    ('specs:\n  - path: x\n    staging:\n      headers:\n        "\\udc80": \'bad name\'\n',
     ":5: staging header '\\udc80' must name an environment variable (its value is read at run time, never "
     'written here)'),
    ('specs:\n  - path: x\n    requests:\n      values:\n        "\\udc80": true\n',
     ":5: 'requests.values.\udc80' must be a string, a number or {env: VARIABLE}"),
    ('"\\udc80": 1\nzz: 2\n',
     ":1: unknown key '\\udc80' (expected one of backend, fail_on, model, oracles_dir, specs)"),
    ('base: &b {path: x, bogus: 1}\n',
     ":1: unknown key 'base' (expected one of backend, fail_on, model, oracles_dir, specs)"),
    ('specs:\n  - &s {path: x}\n  - <<: *s\n    oops: 1\n',
     ":4: unknown key 'specs[].oops' (expected one of ignore, null_like, observe, path, requests, skip_kinds, "
     'staging)'),
    ('specs:\n  - path: x\n    observe:\n      <<: {min_requests: 0}\n',
     ": 'observe.min_requests' must be at least 1"),
    ('specs: [\n',
     ":2: invalid YAML: expected the node content, but found '<stream end>'"),
    ('a: 1\na: 2\n',
     ":2: duplicate key 'a' (first at line 1)"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_a_config_that_cannot_be_used_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, ".satori.yml")
    assert str(caught.value) == ".satori.yml" + message


FULL = """\
specs:
  - path: api/openapi.yaml
    staging:
      url: https://staging.example.com
      headers:
        Authorization: STAGING_TOKEN
    null_like: ["N/A", ""]
    skip_kinds: [string_fixed_length]
    ignore:
      operations: ["GET /internal/*"]
      fields: ["*.etag"]
    requests:
      unsafe: ["POST /search"]
      values:
        tenant_id: acme
        api_version: {env: API_VERSION}
        page: 2
        ratio: 0.5
      operations:
        "get /reports/{report_id}": {report_id: r-2024-01}
        "GET /health": null
      chain: 3
      min_exercised: 1
      server_errors: report
      collection: postman/api.postman_collection.json
      environment: postman/staging.postman_environment.json
    observe:
      min_responses: 20
      min_requests: 2
  - path: ./other.yaml
    observe: false
backend: llm
model: gpt-4o
fail_on: new-violations
oracles_dir: .satori
"""


def test_a_full_config_reads_into_typed_values() -> None:
    config = parse_config(FULL, "ci/satori.yml")
    assert config == ProjectConfig(
        specs=(
            SpecConfig(
                path="api/openapi.yaml", staging_url="https://staging.example.com",
                headers=(("Authorization", "STAGING_TOKEN"),), null_like=("N/A", ""),
                skip_kinds=frozenset({OracleKind.STRING_FIXED_LENGTH}),
                ignore=Ignore(("GET /internal/*",), ("*.etag",)),
                requests=RequestSettings(
                    unsafe=("POST /search",),
                    values=(("tenant_id", Value(literal="acme")), ("api_version", Value(env="API_VERSION")),
                            ("page", Value(literal="2")), ("ratio", Value(literal="0.5"))),
                    operations=(("GET /reports/{report_id}", (("report_id", Value(literal="r-2024-01")),)),
                                ("GET /health", ())),
                    chain=3, min_exercised=1, server_errors="report",
                    collection="postman/api.postman_collection.json",
                    environment="postman/staging.postman_environment.json"),
                observe=ObserveSettings(True, 20, 2), source="ci/satori.yml"),
            SpecConfig(path="./other.yaml", observe=ObserveSettings(enabled=False), source="ci/satori.yml"),
        ),
        backend="llm", model="gpt-4o", fail_on=FailOn.NEW_VIOLATIONS, oracles_dir=".satori", source="ci/satori.yml")
    assert config.for_spec("other.yaml").observe.enabled is False


def test_no_config_is_the_defaults() -> None:
    assert parse_config("", "x.yml") == ProjectConfig(source="x.yml")
    assert parse_config("specs: null\n", "x.yml") == ProjectConfig(source="x.yml")


def test_errors_stay_few_however_aliases_repeat_a_bad_mapping() -> None:
    """A mapping that is wrong at every place an alias repeats it is one line, found quickly: unknown keys are one
    error per mapping, and lists and mappings stop at their first wrong entry."""
    bad = "{" + ", ".join(f"k{i}: true" for i in range(1000)) + "}"
    repeated = "".join(f"        'GET /o{i}': *bad\n" for i in range(1, 1000))
    operations = f"      operations:\n        'GET /o0': &bad {bad}\n{repeated}"
    cases = {
        f"specs:\n  - path: x\n    requests:\n{operations}":
            "'requests.operations.GET /o0.k0' must be a string, a number or {env: VARIABLE}",
        f"specs:\n  - path: x\n    staging: &bad {bad}\n    ignore: *bad\n    requests:\n      values: *bad\n":
            "unknown key 'specs[].staging.k0'",
        f"x: &bad {bad}\nspecs:\n  - path: x\n    requests:\n      values: *bad\n      unsafe: [*bad, *bad]\n":
            "unknown key 'x'",
    }
    for text, message in cases.items():
        started = time.perf_counter()
        with pytest.raises(ConfigError) as caught:
            parse_config(text, ".satori.yml")
        assert message in str(caught.value)
        assert time.perf_counter() - started < 2
