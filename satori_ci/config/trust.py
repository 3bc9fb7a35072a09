"""What a proposed config (a pull request's head) changes of the keys only trusted input may decide."""

from __future__ import annotations

from satori_ci.config.settings import ProjectConfig

TRUSTED_KEYS = ("staging.url", "staging.url_env", "staging.headers", "requests")
"""What decides where requests and secrets go: read from trusted input only (the base commit in the action)."""


def trust_changes(trusted: ProjectConfig, proposed: ProjectConfig, spec_path: str) -> tuple[str, ...]:
    """The keys a proposed config (a pull request's head) changes that only trusted input may decide."""
    base, head = trusted.for_spec(spec_path), proposed.for_spec(spec_path)
    changed = []
    if base.staging_url != head.staging_url:
        changed.append("specs[].staging.url")
    if base.staging_url_env != head.staging_url_env:
        changed.append("specs[].staging.url_env")
    if base.headers != head.headers:
        changed.append("specs[].staging.headers")
    for name in ("unsafe", "values", "operations", "chain", "min_exercised", "min_changed_exercised",
                 "server_errors", "collection", "environment", "team_tests"):
        if getattr(base.requests, name) != getattr(head.requests, name):
            changed.append(f"specs[].requests.{name}")
    if trusted.oracles_dir != proposed.oracles_dir:
        changed.append("oracles_dir")
    return tuple(changed)
