"""Every secret the action knows, to feed the redactor: inputs, environment, the team collection's credentials,
parameter values read from the environment."""

from __future__ import annotations

from collections.abc import Mapping

from satori_ci.config import SpecConfig
from satori_ci.github.context import ActionContext
from satori_ci.github.inputs import input_value
from satori_ci.redaction import environ_secrets, header_secrets, key_like, url_secrets


def raw_input_secrets(environ: Mapping[str, str]) -> list[str]:
    """The secret inputs as given (before they are parsed: an input error must not print them either) and every
    `SATORI_AUTH_*` value."""
    lines = (input_value(environ, "staging-headers") or "").splitlines()
    values = [line.partition(":")[2].strip() for line in lines if ":" in line]
    return [*(v for v in (input_value(environ, "github-token"), input_value(environ, "openai-api-key")) if v),
            *header_secrets(values), *environ_secrets(environ)]


def action_secrets(ctx: ActionContext, environ: Mapping[str, str]) -> list[str]:
    """Every secret the inputs and the environment hold: tokens, keys, header values, credentials in URLs."""
    inputs = ctx.inputs
    return [*(v for v in (inputs.github_token, inputs.openai_api_key) if v),
            *header_secrets(h.value for h in inputs.staging_headers), *environ_secrets(environ),
            *url_secrets(inputs.staging_url), *url_secrets(inputs.openai_base_url)]


def value_secrets(settings: SpecConfig, environ: Mapping[str, str]) -> list[str]:
    """Parameter values read from the environment (`requests.values: {api_key: {env: …}}`) for key-like names."""
    pairs = [*settings.requests.values, *(p for _, ps in settings.requests.operations for p in ps)]
    return [found for name, value in pairs
            if value.env is not None and key_like(name) and (found := value.resolve(environ))]
