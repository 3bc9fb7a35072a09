"""One spec to check (`SpecTarget`), how to check it (`CheckOptions`), and what the check gives (`SpecOutcome`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from satori_ci.config import SpecConfig
from satori_ci.config.settings import ChangeMinimum
from satori_ci.infer.interface import Inferred
from satori_ci.infer.llm import LLMConfig, ProgressCallback
from satori_ci.observe.store import ObservationStore
from satori_ci.oracles.file import OracleFile
from satori_ci.plan import PlanSettings
from satori_ci.postman.read import TeamCollection
from satori_ci.report.model import SpecCheck
from satori_ci.run.outcome import DEFAULT_MAX_BYTES, Progress
from satori_ci.run.team import TeamTestPolicy
from satori_ci.spec.source import DEFAULT_MAX_BYTES as SPEC_MAX_BYTES


@dataclass(frozen=True)
class SpecTarget:
    """One spec to check: where its two versions are and how to run it."""

    head: str
    """A file or `REV:path`."""
    base: str | None
    oracle_file: Path
    settings: SpecConfig
    staging_url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    """(header, value) sent with every request to staging (values resolved by the caller)."""
    plan: PlanSettings = field(default_factory=PlanSettings)
    """What may be sent, with which values (from trusted config and flags, resolved by the caller)."""
    min_exercised: int = 1
    min_changed: ChangeMinimum = field(default_factory=ChangeMinimum)
    """How many of the oracles the change adds or changes the run must exercise (trusted input only)."""
    fail_on_server_errors: bool = True
    team: TeamCollection | None = None
    """The team's own Postman collection (from trusted input): its requests carry the assertions."""
    team_tests: TeamTestPolicy = TeamTestPolicy.FAIL
    """What the team collection's own failing tests do (trusted input: a flag, the action's input, the base config)."""
    trusted_store: str | None = None
    """The observation store the check trusts (`REV:path` at the base commit, or a file): the oracles that its
    observed responses violated are suspect, and their violations do not fail the check. None: no suspects."""


@dataclass(frozen=True)
class CheckOptions:
    backend: str = "rules"
    llm: LLMConfig | None = None
    runner: str = "auto"
    """A `RunnerName`: `newman`, `native`, or `auto` (Newman when installed, else native with a note)."""
    timeout_s: float = 30.0
    max_response_bytes: int = DEFAULT_MAX_BYTES
    retries: int = 2
    follow_remote_refs: bool = False
    max_bytes: int = SPEC_MAX_BYTES
    """Refuse spec documents larger than this."""
    environ: Mapping[str, str] = field(default_factory=dict)
    progress: ProgressCallback | None = None
    on_inferred: Callable[[Inferred], None] | None = None
    on_stage: Callable[[str], None] | None = None
    on_request: Progress | None = None
    """Told (done, total, operation) as requests finish: a progress bar."""
    """Told what long step starts next (`running 12 requests against ...`), for a status line."""


@dataclass(frozen=True)
class SpecOutcome:
    check: SpecCheck
    updated: OracleFile | None
    """The oracle file to write back (None when the spec could not be read)."""
    store: ObservationStore | None = None
    """The observation store to write back next to the oracle file (`store_file_of`); None: leave it as it is."""
