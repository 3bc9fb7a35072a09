"""What a head config changes of the keys only trusted input decides (where requests and secrets go)."""

from __future__ import annotations

from satori_ci.config import TRUSTED_KEYS, parse_config, trust_changes

BASE = """\
specs:
  - path: api/openapi.yaml
    staging: {url: https://staging.example.com, headers: {Authorization: TOKEN}}
    null_like: ["N/A"]
    requests: {unsafe: ["POST /search"], values: {tenant: acme}}
oracles_dir: .satori
"""


def test_only_the_trusted_keys_count() -> None:
    base = parse_config(BASE, "base:.satori.yml")
    same = parse_config(BASE.replace('["N/A"]', '["-"]'), "head:.satori.yml")
    assert trust_changes(base, same, "api/openapi.yaml") == ()
    head = parse_config(BASE.replace("TOKEN", "OTHER").replace("acme", "evil").replace(".satori", "elsewhere")
                        .replace("https://staging", "https://attacker"), "head:.satori.yml")
    assert trust_changes(base, head, "./api/openapi.yaml") == (
        "specs[].staging.url", "specs[].staging.headers", "specs[].requests.values", "oracles_dir")
    assert {key.split(".")[0] for key in TRUSTED_KEYS} == {"staging", "requests"}


def test_a_spec_the_head_drops_falls_back_to_the_defaults() -> None:
    base = parse_config(BASE, "base:.satori.yml")
    head = parse_config("oracles_dir: .satori\n", "head:.satori.yml")
    assert trust_changes(base, head, "api/openapi.yaml") == (
        "specs[].staging.url", "specs[].staging.headers", "specs[].requests.unsafe", "specs[].requests.values")
