"""Helpers for tests/run/test_reach.py: the CLI run as a user runs it, config and oracle files, what the app saw."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from satori_ci.cli import main
from satori_ci.oracles.file import OracleFile, dump_oracle_file, load_oracle_file
from satori_ci.spec import load_spec
from satori_ci.spec.model import OperationKey
from tests.servers.resources_app import SPEC_PATH, ResourcesApp

SPEC = str(SPEC_PATH)
"""The spec as the tests pass it: an absolute path."""
SPEC_AS_SEEN = load_spec(SPEC).file
"""The spec's path as `run` and `collection` look it up in the config (`for_spec`): from the repository root."""
ROOT = Path(__file__).resolve().parents[2]
SPEC_FROM_ROOT = SPEC_PATH.relative_to(ROOT).as_posix()
"""The spec's path as `check --head` gets it when run from the repository root."""

TOKEN = ResourcesApp.TOKEN
AUTH = f"Authorization: Bearer {TOKEN}"
WRONG_TOKEN = "wr0ng-t0ken-value"
SAFE = frozenset({"GET", "HEAD"})
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})

DETAIL_OPERATIONS = (
    "GET /users/{user_id}", "GET /users/{user_id}/posts", "GET /users/{user_id}/posts/{post_id}",
    "GET /orders/{order_id}", "GET /invoices/{invoice_ref}", "GET /stores/{storeId}", "GET /products/{sku}",
    "GET /categories/{slug}",
)
"""Operations whose path parameters only an earlier response (a list, or a link) gives."""

PLACEHOLDER_SEGMENT = re.compile(r"^(string|0+|1|true|00000000-0000-0000-0000-000000000000|user@example\.com)$")
_TIMING = re.compile(r", \d+\.\d s$", re.MULTILINE)
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@dataclass(frozen=True)
class Outcome:
    """One `satori-ci` command as a user sees it: exit code, standard output and error, the JSON report."""

    code: int
    out: str
    err: str
    report: dict[str, Any]

    @property
    def text(self) -> str:
        return self.out + self.err

    def lines(self, prefix: str) -> list[str]:
        return [line for line in self.out.splitlines() if line.startswith(prefix)]

    def coverage(self, label: str) -> dict[str, Any]:
        """The report's `operations` entry of `METHOD /path`."""
        method, _, path = label.partition(" ")
        found = [c for c in self.report["operations"] if c["method"] == method and c["path"] == path]
        assert len(found) == 1, f"{label}: {len(found)} coverage entries in {self.report['operations']}"
        entry: dict[str, Any] = found[0]
        return entry

    def not_sent(self) -> dict[str, dict[str, str]]:
        """`METHOD /path` -> its `not_sent` entry."""
        return {f"{k['method']} {k['path']}": k for k in self.report["not_sent"]}

    def without_timing(self) -> str:
        """The output with the run's duration taken out of the summary line (the only part that varies)."""
        return _TIMING.sub("", self.out)


def cli(capsys: pytest.CaptureFixture[str], args: Sequence[str], report: Path | None = None) -> Outcome:
    """`satori-ci ARGS` (with `--report FILE` when `report` is given)."""
    capsys.readouterr()
    argv = [*args, "--report", str(report)] if report is not None else list(args)
    code = main(argv)
    captured = capsys.readouterr()
    data = json.loads(report.read_text(encoding="utf-8")) if report is not None and report.exists() else {}
    return Outcome(int(code), captured.out, captured.err, data)


def run_args(app: ResourcesApp, oracles: Path, *extra: str, runner: str = "native") -> list[str]:
    """`run` against the app, no wait between retries."""
    return ["run", SPEC, "--oracles", str(oracles), "--base-url", app.base_url, "--runner", runner,
            "--backoff", "0", "--timeout", "10", *extra]


def write_config(path: Path, spec_path: str = SPEC_AS_SEEN, **entry: Any) -> Path:
    """A `.satori.yml` with one `specs:` entry for the spec (JSON is YAML)."""
    path.write_text(json.dumps({"specs": [{"path": spec_path, **entry}]}, indent=2) + "\n", encoding="utf-8")
    return path


def keep_oracles(source: Path, target: Path, keep: Callable[[OperationKey], bool]) -> Path:
    """A copy of the oracle file with the oracles of the operations `keep` refuses removed."""
    data = load_oracle_file(source.read_text(encoding="utf-8"), str(source))
    entries = tuple(e if keep(e.operation) else dataclasses.replace(e, oracles=()) for e in data.entries)
    target.write_text(dump_oracle_file(OracleFile(data.spec, entries)), encoding="utf-8")
    return target


def enabled_count(path: Path) -> int:
    return len(load_oracle_file(path.read_text(encoding="utf-8"), str(path)).enabled_oracles())


def targets(app: ResourcesApp) -> list[str]:
    """`METHOD /path?query` of every request the app received, in order."""
    return [f"{r.method} {r.target}" for r in list(app.received)]


def paths(app: ResourcesApp) -> list[str]:
    return [r.path for r in list(app.received)]


def placeholders(app: ResourcesApp) -> list[str]:
    """Request paths with a segment that looks like a typed placeholder rather than a real identifier."""
    return [p for p in paths(app) if any(PLACEHOLDER_SEGMENT.match(s) for s in p.split("/")[1:])
            or "00000000-" in p]


def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy between the runners and 127.0.0.1, no credential variable from the caller's shell."""
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("SATORI_AUTH_BEARERAUTH", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A run report without what legitimately differs between two runs of the same plan (time, runner)."""
    return {k: v for k, v in report.items() if k not in ("seconds", "runner")}
