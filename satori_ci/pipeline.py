"""The pull-request check, shared by `satori-ci check`/`demo` and the GitHub Action's entrypoint.

Per spec: load head (and base) -> field diff -> incremental inference against the committed oracle
file -> collection -> run against staging (skipped with a reason without a URL) -> the run's observed
responses into the observation store and its suggestions into the oracle file -> oracle diff -> a
`SpecCheck`. One spec that cannot be read does not stop the others. Reads specs, the oracle file and the
observation stores; writes nothing (callers write the updated oracle files and stores, and print the report).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from satori_ci.config import SpecConfig
from satori_ci.exit_codes import ExitCode
from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import update_oracle_file
from satori_ci.infer.interface import Inferred
from satori_ci.infer.llm import LLMConfig, ProgressCallback
from satori_ci.infer.rules import context_digests
from satori_ci.observe.apply import pending
from satori_ci.observe.fields import observed_fields
from satori_ci.observe.propose import ProposalSettings, ready
from satori_ci.observe.store import (
    MAX_STORE_BYTES,
    ObservationStore,
    ObservationStoreError,
    load_store,
    store_path,
)
from satori_ci.observe.update import observe_update, suspects
from satori_ci.oracles.check import complaint
from satori_ci.oracles.diff import OracleDiff, diff_oracle_files
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import OracleFile, load_oracle_file
from satori_ci.oracles.model import Oracle
from satori_ci.plan import PlanSettings, plan_requests
from satori_ci.postman.collection import build_collection
from satori_ci.postman.team import TeamCollection
from satori_ci.redaction import redact
from satori_ci.report.model import FieldLocation, InferenceSummary, ObservationSummary, SpecCheck, identity
from satori_ci.run.errors import RunError
from satori_ci.run.model import RunResult
from satori_ci.run.outcome import DEFAULT_MAX_BYTES, Progress, RunConfig, parse_json
from satori_ci.spec import OperationKey, ResponseField, Spec, SpecError, SpecErrorKind, diff_fields, load_spec
from satori_ci.spec.diff import FieldDiff
from satori_ci.spec.source import DEFAULT_MAX_BYTES as SPEC_MAX_BYTES
from satori_ci.spec.source import open_source


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
    fail_on_server_errors: bool = True
    team: TeamCollection | None = None
    """The team's own Postman collection (from trusted input): its requests carry the assertions."""
    trusted_store: str | None = None
    """The observation store the check trusts (`REV:path` at the base commit, or a file): the oracles that its
    observed responses violated are suspect, and their violations do not fail the check. None: no suspects."""


@dataclass(frozen=True)
class CheckOptions:
    backend: str = "rules"
    llm: LLMConfig | None = None
    runner: str = "auto"
    """`newman`, `native`, or `auto` (Newman when installed, else native with a note)."""
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


def read_previous(path: Path) -> OracleFile | None:
    if not path.exists():
        return None
    try:
        return load_oracle_file(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise OracleFileError(f"{path}: cannot read ({exc})") from None


def store_file_of(oracle_file: Path) -> Path:
    """The observation store next to an oracle file (`.satori/x.oracles.yaml` -> `.satori/x.observed.json`)."""
    return Path(store_path(str(oracle_file)))


def read_store(path: Path) -> ObservationStore | None:
    """The store file at `path`, or None when there is none yet."""
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ObservationStoreError(f"{path}: cannot read ({exc})") from None
    return load_store(text, str(path))


def read_store_at(where: str) -> ObservationStore | None:
    """A store at `REV:path` (read from git) or in a file; None when there is none."""
    if os.path.exists(where) or ":" not in where:
        return read_store(Path(where))
    try:
        reader = open_source(where, max_bytes=MAX_STORE_BYTES)
        data = reader.read(reader.entry)
    except SpecError as exc:
        if exc.kind is SpecErrorKind.NOT_FOUND:
            return None
        raise ObservationStoreError(str(exc)) from None
    return load_store(data.decode("utf-8", "replace"), where)


def proposal_settings(settings: SpecConfig) -> ProposalSettings:
    """The config's `observe:` thresholds over the defaults."""
    default = ProposalSettings()
    found = settings.observe
    return ProposalSettings(min_responses=found.min_responses or default.min_responses,
                            min_requests=found.min_requests or default.min_requests)


def observable(fields: Sequence[ResponseField], settings: SpecConfig) -> list[ResponseField]:
    """The fields observed under the config (ignored fields and operations left out)."""
    return [f for f in fields if not settings.ignore.field(f.field)
            and not settings.ignore.operation(f.operation.method, f.operation.path)]


def _kept(oracle: Oracle, settings: SpecConfig) -> bool:
    """Whether the config leaves this oracle to be checked (kinds to skip, ignored fields/operations)."""
    return (oracle.kind not in settings.skip_kinds and not settings.ignore.field(oracle.field)
            and not settings.ignore.operation(oracle.operation.method, oracle.operation.path))


def _run(spec: Spec, oracles: Sequence[Oracle], target: SpecTarget, options: CheckOptions
         ) -> tuple[RunResult | None, str | None]:
    if not target.staging_url:
        return None, "no staging URL"
    plan = plan_requests(spec, target.plan)
    observe = observed_fields(observable(spec.fields, target.settings)) if target.settings.observe.enabled else None
    collection = build_collection(spec, oracles, target.staging_url, target.settings.null_like, plan, target.team,
                                  target.plan.unsafe, observe)
    if options.on_stage is not None:
        requests = sum(1 for _ in collection.items())
        options.on_stage(f"running {requests} request(s) with {len(oracles)} oracle(s) against {target.staging_url}")
    config = RunConfig(base_url=target.staging_url, timeout_s=options.timeout_s, retries=options.retries,
                       max_bytes=options.max_response_bytes,
                       environ=dict(options.environ), headers=target.headers, min_exercised=target.min_exercised,
                       fail_on_server_errors=target.fail_on_server_errors, progress=options.on_request)
    from satori_ci.run.native import run_native
    from satori_ci.run.newman import find_newman, run_newman

    if options.runner == "native":
        return run_native(collection, config), None
    try:
        find_newman()
    except RunError as exc:
        if options.runner == "newman":
            raise
        result = run_native(collection, config)
        return replace(result, notes=(*result.notes, f"Newman not found, the native runner was used: {exc}")), None
    return run_newman(collection, config), None


def preexisting(run: RunResult | None, before: OracleFile | None, new_oracles: frozenset[tuple[str, ...]],
                 settings: SpecConfig) -> frozenset[tuple[str, str, str, str, str, str]]:
    """The violations of added or changed oracles whose offending value an oracle the field had before rejects
    too (a run of the earlier oracles on the same data): re-checked on the value the violation records, so only
    when it was not cut short (at most 200 characters of JSON)."""
    if run is None or before is None:
        return frozenset()
    earlier: dict[tuple[OperationKey, str], list[Oracle]] = {}
    for o in before.enabled_oracles():
        if _kept(o, settings):
            earlier.setdefault((o.operation, o.field), []).append(o)
    out: set[tuple[str, str, str, str, str, str]] = set()
    for v in run.violations:
        ident = identity(v.oracle)
        olds = earlier.get((v.operation, v.field), [])
        if ident not in new_oracles or not olds:
            continue
        ok, value = parse_json(v.value)
        if ok and value is not None and any(complaint(o.kind, o.value, value, settings.null_like) is not None
                                            for o in olds):
            out.add((*ident, v.pointer))
    return frozenset(out)


def _locations(spec: Spec, field_diff: FieldDiff | None, oracle_diff: OracleDiff | None,
               run: RunResult | None) -> dict[tuple[str, str, str, str], FieldLocation]:
    wanted: set[tuple[str, str, str, str]] = set()
    if oracle_diff is not None:
        for changed in oracle_diff.fields:
            op = changed.operation
            wanted.add((op.method, op.path, op.status, changed.field))
    if run is not None:
        for v in run.violations:
            wanted.add((v.operation.method, v.operation.path, v.operation.status, v.field))
    if field_diff is not None:
        for f in (*field_diff.added, *(c.head for c in field_diff.changed)):
            wanted.add((f.operation.method, f.operation.path, f.operation.status, f.field))
    out: dict[tuple[str, str, str, str], FieldLocation] = {}
    for f in spec.fields:
        key = (f.operation.method, f.operation.path, f.operation.status, f.field)
        if key in wanted and key not in out:
            out[key] = FieldLocation(f.location.file, spec.line_of(f.location))
    return out


def _new_in_this_change(exc: SpecError, target: SpecTarget) -> bool:
    """A base that is missing only because the change adds the spec: the head's own path, at a revision that
    exists. A bad revision or another path (a typo) is an input error."""
    if exc.kind is not SpecErrorKind.NOT_FOUND or not exc.message.endswith("no such file at that revision"):
        return False
    rev_path = (target.base or "").partition(":")[2]
    while rev_path.startswith("./"):
        rev_path = rev_path[2:]
    return rev_path == target.settings.path


def check_spec(target: SpecTarget, options: CheckOptions) -> SpecOutcome:
    """Check one spec; a spec that cannot be read gives a `SpecCheck` with `error` set."""
    try:
        head = load_spec(target.head, follow_remote_refs=options.follow_remote_refs,
                         max_bytes=options.max_bytes)
    except SpecError as exc:
        return SpecOutcome(SpecCheck(spec=target.settings.path, head_source=target.head, base_source=target.base,
                                     oracle_file=str(target.oracle_file), field_diff=None, oracle_diff=None,
                                     inference=None, oracles_enabled=0, run=None, error=str(exc),
                                     error_code=ExitCode.INPUT_ERROR), None)
    base: Spec | None = None
    notices: tuple[str, ...] = ()
    if target.base is not None:
        try:
            base = load_spec(target.base, follow_remote_refs=options.follow_remote_refs,
                         max_bytes=options.max_bytes)
        except SpecError as exc:
            if not _new_in_this_change(exc, target):
                return SpecOutcome(SpecCheck(
                    spec=target.settings.path, head_source=head.source, base_source=target.base,
                    oracle_file=str(target.oracle_file), field_diff=None, oracle_diff=None, inference=None,
                    oracles_enabled=0, run=None, error=f"the base spec cannot be read: {exc}",
                    error_code=ExitCode.INPUT_ERROR), None)
            notices = (f"The spec is new in this change (not in {target.base.partition(':')[0]}): every field "
                       "is new.",)
    field_diff = diff_fields(base.fields, head.fields) if base is not None else None
    previous = read_previous(target.oracle_file)
    observing = target.settings.observe.enabled
    store_file = store_file_of(target.oracle_file)
    stored = read_store(store_file) if observing else None
    trusted = read_store_at(target.trusted_store) if target.trusted_store else None
    backend = make_backend(options.backend, options.llm, options.progress, context=head.fields, spec=head)
    update = update_oracle_file(head.file, head.fields, previous, backend, options.on_inferred,
                                context_digests(head.fields, head))
    checked = [o for o in update.file.enabled_oracles() if _kept(o, target.settings)]
    run, skipped = _run(head, checked, target, options)
    updated, store, observation = update.file, None, None
    if observing:
        settings = proposal_settings(target.settings)
        found = observe_update(update.file, stored, run.observed if run is not None else None,
                               observable(head.fields, target.settings), settings, lambda v: redact(v) != v)
        updated = found.file
        if stored is not None or found.responses:
            store = found.store
        ops = found.store.operations.values()
        observation = ObservationSummary(str(store_file), found.responses, len(ops),
                                         sum(1 for op in ops if ready(op, settings)), settings.min_responses)
    oracle_diff = diff_oracle_files(previous, updated)
    new_oracles = frozenset(
        identity(o) for f in oracle_diff.fields for o in (*f.added, *(c.new for c in f.changed))
    )
    check = SpecCheck(
        spec=target.settings.path, head_source=head.source, base_source=base.source if base else None,
        oracle_file=str(target.oracle_file), field_diff=field_diff, oracle_diff=oracle_diff,
        inference=InferenceSummary(options.backend, update.reused, update.moved, update.inferred, update.pending,
                                   update.stats),
        oracles_enabled=len(checked), run=run, run_skipped=skipped, new_oracles=new_oracles,
        locations=_locations(head, field_diff, oracle_diff, run), notices=notices,
        suggestions=pending(updated), suspects=suspects(trusted, checked), observation=observation,
        preexisting=preexisting(run, previous, new_oracles, target.settings),
    )
    return SpecOutcome(check, updated, store)
