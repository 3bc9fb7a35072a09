"""The project config file (`.satori.yml`): read once into typed values; errors name the key and line.

    # .satori.yml
    specs:
      - path: api/openapi.yaml
        staging:
          url: https://staging.example.com      # or url_env: STAGING_URL
          headers:                              # header -> NAME of the environment variable
            Authorization: STAGING_TOKEN
        null_like: ["N/A", ""]
        skip_kinds: [string_fixed_length]
        ignore:
          operations: ["GET /internal/*"]   # neither checked nor sent
          fields: ["*.etag"]
        requests:
          unsafe: ["POST /things"]          # non-GET/HEAD operations you allow to be sent
          values:                           # a value per parameter name: literal or {env: VARIABLE}
            tenant_id: acme
          operations:                       # per operation, wins over values
            "GET /reports/{report_id}": {report_id: r-42}
          chain: 3                          # ids taken from a list response per detail operation (0: off)
          min_exercised: 1                  # fewer oracles exercised than this: the run proves nothing (exit 3)
          min_changed_exercised: 1          # of the oracles a change adds or changes (or a share: 50%); fewer: exit 4
          server_errors: fail               # a 5XX answer fails the check (fail) or is only reported (report)
          collection: postman/api.postman_collection.json   # your own collection: assertions are added to it
          environment: postman/staging.postman_environment.json
          team_tests: fail                  # your collection's failing pm.tests fail the check (fail), or warn, ignore
        observe:                            # oracles suggested from observed responses (or `observe: false`)
          min_responses: 10                 # observations a field needs (responses, or list elements)
          min_requests: 2                   # distinct requests they must answer
    backend: rules
    model: gpt-4o
    fail_on: violations
    oracles_dir: .satori

Command-line flags override the file; the file overrides the defaults. The file's JSON Schema, for editors, is
`satori.schema.json` here (`schema`); `model` is its source and what the reader validates with.
"""

from __future__ import annotations

from satori_ci.config.errors import ConfigError
from satori_ci.config.reader import load_config, load_config_at, parse_config
from satori_ci.config.settings import (
    BACKENDS,
    DEFAULT_CONFIG,
    FailOn,
    Ignore,
    ObserveSettings,
    ProjectConfig,
    RequestSettings,
    SpecConfig,
    Staging,
    Value,
)
from satori_ci.config.trust import TRUSTED_KEYS, trust_changes

__all__ = [
    "BACKENDS",
    "DEFAULT_CONFIG",
    "TRUSTED_KEYS",
    "ConfigError",
    "FailOn",
    "Ignore",
    "ObserveSettings",
    "ProjectConfig",
    "RequestSettings",
    "SpecConfig",
    "Staging",
    "Value",
    "load_config",
    "load_config_at",
    "parse_config",
    "trust_changes",
]
