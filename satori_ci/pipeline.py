"""The pull-request check, shared by `satori-ci check`/`demo` and the GitHub Action's entrypoint.

Per spec: load head (and base) -> field diff -> incremental inference against the committed oracle
file -> the requests -> run against staging (skipped with a reason without a URL) -> the run's observed
responses into the observation store and its suggestions into the oracle file -> oracle diff -> a
`SpecCheck`. One spec that cannot be read does not stop the others. Reads specs, the oracle file and the
observation stores; writes nothing (callers write the updated oracle files and stores, and print the report).

The check is three steps: `prepare` (everything before the run: reads), the run, and `conclude` (pure: the run's
observations, the oracle diff, the report's values). A sharded check (`check_shard`) prepares the same way in
every shard, runs the shard's slice of the requests, and hands its `ShardSpec` to the merge
(`satori_ci.shards`), which concludes once with the run the shards add up to.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from satori_ci.config import SpecConfig
from satori_ci.errors import ExitCode
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
from satori_ci.observe.summary import without_values
from satori_ci.observe.update import observe_update, suspects
from satori_ci.oracles.check import complaint
from satori_ci.oracles.diff import OracleDiff, diff_oracle_files
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import OracleFile, load_oracle_file
from satori_ci.oracles.model import OBSERVED, Oracle
from satori_ci.plan import PlanSettings, RequestPlan, plan_requests
from satori_ci.plan.expand import build_requests
from satori_ci.plan.requests import RequestSet
from satori_ci.plan.shards import Shard, ShardError, slice_plan, unshardable
from satori_ci.postman.match import given_requests
from satori_ci.postman.read import TeamCollection
from satori_ci.redaction import redact
from satori_ci.report.model import FieldLocation, InferenceSummary, ObservationSummary, SpecCheck, identity
from satori_ci.run.interface import RunnerName
from satori_ci.run.model import RunResult
from satori_ci.run.outcome import DEFAULT_MAX_BYTES, Progress, RunConfig, parse_json
from satori_ci.run.shards import RunOrder, own_part, run_order
from satori_ci.spec import OperationKey, ResponseField, Spec, SpecError, SpecErrorKind, diff_fields, load_spec
from satori_ci.spec.diff import FieldDiff
from satori_ci.spec.model import FieldFacts, SourceLocation
from satori_ci.spec.source import DEFAULT_MAX_BYTES as SPEC_MAX_BYTES
from satori_ci.spec.source import SourceReader, open_source


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


def _requests(spec: Spec, oracles: Sequence[Oracle], target: SpecTarget, staging_url: str,
              plan: RequestPlan | None = None) -> RequestSet:
    """The requests a run sends (the whole set: a shard slices it)."""
    plan = plan if plan is not None else plan_requests(spec, target.plan)
    observe = observed_fields(observable(spec.fields, target.settings)) if target.settings.observe.enabled else None
    given = given_requests(target.team, spec, staging_url) if target.team is not None else None
    return build_requests(spec, oracles, staging_url, target.settings.null_like, plan, given, target.plan.unsafe,
                          observe)


def _execute(planned: RequestSet, oracles: int, target: SpecTarget, options: CheckOptions,
             staging_url: str, what: str = "") -> RunResult:
    if options.on_stage is not None:
        requests = sum(1 for _ in planned.requests())
        options.on_stage(f"{what}running {requests} request(s) with {oracles} oracle(s) against {staging_url}")
    config = RunConfig(base_url=staging_url, timeout_s=options.timeout_s, retries=options.retries,
                       max_bytes=options.max_response_bytes,
                       environ=dict(options.environ), headers=target.headers, min_exercised=target.min_exercised,
                       fail_on_server_errors=target.fail_on_server_errors, progress=options.on_request)
    return RunnerName(options.runner).build(target.team).run(planned, config)


def _run(spec: Spec, oracles: Sequence[Oracle], target: SpecTarget, options: CheckOptions) -> RunResult | None:
    if not target.staging_url:
        return None
    planned = _requests(spec, oracles, target, target.staging_url)
    return _execute(planned, len(oracles), target, options, target.staging_url)


def preexisting(run: RunResult | None, before: OracleFile | None, new_oracles: frozenset[tuple[str, ...]],
                 settings: SpecConfig) -> frozenset[tuple[str, str, str, str, str, str]]:
    """The violations of added or changed oracles whose offending value an oracle the field had before rejects
    too (a run of the earlier oracles on the same data): re-checked on the value the violation records, so only
    when it was not cut short (at most 200 characters of JSON)."""
    if run is None or before is None:
        return frozenset()
    earlier: dict[tuple[OperationKey, str], list[Oracle]] = {}
    for o in before.enabled_oracles():
        if settings.checks(o):
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


FieldKey = tuple[str, str, str, str]
"""(method, path, status, field)."""


def wanted_locations(field_diff: FieldDiff | None, oracle_diff: OracleDiff | None, run: RunResult | None
                     ) -> set[FieldKey]:
    """The fields a report locates in the spec: those with an oracle change, a violation, or added or changed."""
    wanted: set[FieldKey] = set()
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
    return wanted


def located(spec: Spec, wanted: AbstractSet[FieldKey]) -> list[tuple[int, FieldKey, FieldLocation]]:
    """(index of the field in the spec, its key, where it is written) of the first field of each wanted key,
    in spec order."""
    out: list[tuple[int, FieldKey, FieldLocation]] = []
    seen: set[FieldKey] = set()
    for n, f in enumerate(spec.fields):
        key = (f.operation.method, f.operation.path, f.operation.status, f.field)
        if key in wanted and key not in seen:
            seen.add(key)
            out.append((n, key, FieldLocation(f.location.file, spec.line_of(f.location))))
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


@dataclass(frozen=True)
class CheckFrame:
    """One spec's check before the run: everything `conclude` needs besides the run, nothing left to read (the
    same in every shard of a sharded check, and what their partial reports carry)."""

    check: SpecCheck
    """What is known before the run; `conclude` adds the run, the oracle diff and what observation brings. The
    final check when `final` (the spec could not be read: nothing is run)."""
    final: bool = False
    previous: OracleFile | None = None
    """The oracle file as it was (None: there was none)."""
    inferred: OracleFile | None = None
    """The oracle file after incremental inference, before observed suggestions."""
    rules: SpecConfig | None = None
    """The config's null-like values, kinds skipped and ignored fields and operations (what decides which earlier
    oracles make a violation pre-existing); nothing about where requests go."""
    observing: bool = False
    stored: ObservationStore | None = None
    """The observation store next to the oracle file, as it was (secrets scrubbed)."""
    proposal: ProposalSettings = field(default_factory=ProposalSettings)
    store_file: str = ""


@dataclass(frozen=True)
class Prepared:
    frame: CheckFrame
    head: Spec | None
    checked: tuple[Oracle, ...]
    """The enabled oracles the config keeps: what the run checks."""


def _failed(target: SpecTarget, head_source: str, error: str) -> Prepared:
    check = SpecCheck(spec=target.settings.path, head_source=head_source, base_source=target.base,
                      oracle_file=str(target.oracle_file), field_diff=None, oracle_diff=None, inference=None,
                      oracles_enabled=0, run=None, error=error, error_code=ExitCode.INPUT_ERROR)
    return Prepared(CheckFrame(check, final=True), None, ())


def secret_value(value: str) -> bool:
    """Whether the process's redactor would hide (part of) `value`: such values are never kept in a store."""
    return redact(value) != value


def prepare(target: SpecTarget, options: CheckOptions) -> Prepared:
    """Everything of one spec's check before the run: specs read, field diff, incremental inference, the stores
    read, the suspects; a spec that cannot be read gives a final frame with `error` set."""
    try:
        head = load_spec(target.head, follow_remote_refs=options.follow_remote_refs,
                         max_bytes=options.max_bytes)
    except SpecError as exc:
        return _failed(target, target.head, str(exc))
    base: Spec | None = None
    notices: tuple[str, ...] = ()
    if target.base is not None:
        try:
            base = load_spec(target.base, follow_remote_refs=options.follow_remote_refs,
                             max_bytes=options.max_bytes)
        except SpecError as exc:
            if not _new_in_this_change(exc, target):
                return _failed(target, head.source, f"the base spec cannot be read: {exc}")
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
    checked = tuple(o for o in update.file.enabled_oracles() if target.settings.checks(o))
    settings = target.settings
    check = SpecCheck(
        spec=settings.path, head_source=head.source, base_source=base.source if base else None,
        oracle_file=str(target.oracle_file), field_diff=field_diff, oracle_diff=None,
        inference=InferenceSummary(options.backend, update.reused, update.moved, update.inferred, update.pending,
                                   update.stats),
        oracles_enabled=len(checked), run=None, run_skipped=None if target.staging_url else "no staging URL",
        notices=notices, suspects=suspects(trusted, checked),
    )
    rules = SpecConfig(path=settings.path, null_like=settings.null_like, skip_kinds=settings.skip_kinds,
                       ignore=settings.ignore)
    frame = CheckFrame(check, previous=previous, inferred=update.file, rules=rules, observing=observing,
                       stored=stored, proposal=proposal_settings(settings), store_file=str(store_file))
    return Prepared(frame, head, checked)


Locate = Callable[[AbstractSet[FieldKey]], Mapping[FieldKey, FieldLocation]]


def conclude(frame: CheckFrame, run: RunResult | None, fields: Sequence[ResponseField], locate: Locate,
             secret: Callable[[str], bool] = secret_value) -> SpecOutcome:
    """The check of one spec from its frame and its run (pure): the run's observations into the store and its
    suggestions into the oracle file, the oracle diff, the pre-existing violations, the fields located.
    `fields`: the observable fields (config's ignored ones left out) in spec order, at least those of every
    operation the store or the run observed; `locate`: where the spec writes the fields of a set of keys."""
    if frame.final or frame.inferred is None:
        return SpecOutcome(frame.check, None)
    updated, store, observation = frame.inferred, None, None
    if frame.observing:
        settings = frame.proposal
        found = observe_update(frame.inferred, frame.stored, run.observed if run is not None else None, fields,
                               settings, secret)
        updated = found.file
        if frame.stored is not None or found.responses:
            store = found.store
        ops = found.store.operations.values()
        observation = ObservationSummary(frame.store_file, found.responses, len(ops),
                                         sum(1 for op in ops if ready(op, settings)), settings.min_responses)
    oracle_diff = diff_oracle_files(frame.previous, updated)
    new_oracles = frozenset(
        identity(o) for f in oracle_diff.fields for o in (*f.added, *(c.new for c in f.changed))
    )
    check = frame.check
    check = replace(
        check, oracle_diff=oracle_diff, run=run, new_oracles=new_oracles,
        locations=dict(locate(wanted_locations(check.field_diff, oracle_diff, run))),
        suggestions=pending(updated), observation=observation,
        preexisting=preexisting(run, frame.previous, new_oracles, frame.rules or SpecConfig(path=check.spec)),
    )
    return SpecOutcome(check, updated, store)


def check_spec(target: SpecTarget, options: CheckOptions) -> SpecOutcome:
    """Check one spec; a spec that cannot be read gives a `SpecCheck` with `error` set."""
    prepared = prepare(target, options)
    head = prepared.head
    if prepared.frame.final or head is None:
        return SpecOutcome(prepared.frame.check, None)
    run = _run(head, prepared.checked, target, options)

    def locate(wanted: AbstractSet[FieldKey]) -> dict[FieldKey, FieldLocation]:
        return {key: where for _, key, where in located(head, wanted)}

    return conclude(prepared.frame, run, observable(head.fields, target.settings), locate)


# -- shards ----------------------------------------------------------------------------------------------------


MAX_BOUND_FILES = 10_000
"""The documents of one spec that a binding names, at most (the merge reads no more of them)."""


@dataclass(frozen=True)
class SpecBinding:
    """What one spec of a partial report is bound to, as a job reads its own checkout: the shard writes it, the
    merge computes it again (never takes it from a report) and refuses a report whose binding differs."""

    spec: str
    """The spec's repository path (the config's, or the one `--head` names)."""
    files: tuple[tuple[str, str | None], ...]
    """(path under the spec's root, sha256 of its bytes; None: it cannot be read) of every document the spec was
    read from, the entry first (remote documents left out: the merge fetches nothing)."""
    oracle_file: str
    """Where the job reads and writes the oracle file (the observation store is next to it)."""
    oracle: str | None
    """sha256 of the oracle file's bytes; None: there is none."""
    store: str | None
    """sha256 of the observation store's bytes; None: there is none."""


def _file_sha(path: str) -> str | None:
    """sha256 of a regular file's bytes (read in chunks); None when there is no such file."""
    if not os.path.isfile(path):  # no such file (and never a pipe or a device, which a read would wait on)
        return None
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OracleFileError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _document_sha(reader: SourceReader, name: str) -> str | None:
    """sha256 of a document under the reader's root; None for a name that is not a plain relative path there
    (`..`, absolute, `.git/`) or a document that cannot be read."""
    if reader.join("", name) != name or name.split("/", 1)[0] == ".git":
        return None
    try:
        if reader.rev is not None:
            return hashlib.sha256(reader.read(name)).hexdigest()
        return _file_sha(reader.confined(name))
    except (SpecError, OracleFileError):
        return None


def bind_spec(head: str, spec: str, oracle_file: Path, files: Sequence[str] = ()) -> SpecBinding:
    """The binding of one spec as this job reads it: its entry document (`head`: a file or `REV:path`) and the
    other documents `files` names (the ones it was read from; in a merge, the ones a report names), the oracle
    file at `oracle_file` and the store next to it. Reads, never raises for a file that is missing."""
    try:
        reader = open_source(head)
    except SpecError:
        documents: tuple[tuple[str, str | None], ...] = ((head, None),)
    else:
        names = [n for n in dict.fromkeys(files) if n != reader.entry and not n.startswith(("http://", "https://"))]
        documents = tuple((n, _document_sha(reader, n)) for n in [reader.entry, *names[:MAX_BOUND_FILES]])
    return SpecBinding(spec, documents, oracle_file.as_posix(), _file_sha(str(oracle_file)),
                       _file_sha(str(store_file_of(oracle_file))))


@dataclass(frozen=True)
class ShardSpec:
    """One spec's part of a sharded check (`check_shard`): the frame (the same in every shard), the order of a run
    of the whole request set, this shard's part of the run, what `conclude` needs of the spec for the fields that
    part observed, and what the part is bound to."""

    frame: CheckFrame
    order: RunOrder | None = None
    """None when nothing was run (no staging URL, or the spec could not be read)."""
    run: RunResult | None = None
    """What the operations this shard owns gave (`satori_ci.run.shards.own_part`)."""
    fields: tuple[tuple[int, ResponseField], ...] = ()
    """(index, field) of the observable fields of the operations that the store or this part observed."""
    locations: tuple[tuple[int, FieldKey, FieldLocation], ...] = ()
    """(index in the spec, key, location) of every field the merged report may locate, as far as this shard
    knows (field diff, oracle changes, suggestions, stored and observed fields, its violations)."""
    inputs: str = ""
    """A digest of what the run sends and how (requests, chain seeds, staging origin, header names, runner,
    bounds): shards that would send different things do not merge."""
    binding: SpecBinding | None = None
    """The spec's files, oracle file and store as this shard read them (`bind_spec`)."""


def _scrubbed(store: ObservationStore | None, secret: Callable[[str], bool]) -> ObservationStore | None:
    """The store without the string sets that hold a secret (a run's `held` kept: the merge still needs it)."""
    if store is None:
        return None
    return replace(store, operations={
        k: replace(op, fields={p: without_values(f, secret) for p, f in op.fields.items()})
        for k, op in store.operations.items()})


def _proposable(field: ResponseField) -> ResponseField:
    """The field as far as observation reads it (`observe.propose`: operation, path, type, item type,
    operationId): what a partial report carries of it."""
    return replace(field, facts=FieldFacts(items_type=field.facts.items_type), api_title="",
                   location=SourceLocation("", ""), fingerprint="", notes=())


def _observed_keys(store: ObservationStore | None) -> set[FieldKey]:
    if store is None:
        return set()
    return {(op.method, op.path, op.status, path) for op, found in store.operations.items() for path in found.fields}


def _inputs_digest(planned: RequestSet, target: SpecTarget, options: CheckOptions, staging_url: str) -> str:
    parts = urlsplit(staging_url)
    origin = f"{parts.scheme}://{parts.hostname or ''}{'' if parts.port is None else f':{parts.port}'}{parts.path}"
    data = {"url": origin, "headers": [h for h, _ in target.headers], "runner": options.runner,
            "timeout_s": options.timeout_s, "retries": options.retries, "max_bytes": options.max_response_bytes,
            "min_exercised": target.min_exercised, "server_errors": target.fail_on_server_errors,
            "seeds": [list(s) for s in planned.chain_seeds],
            "items": [[i.id, i.name, i.method, i.path, list(i.requires)] for i in planned.requests()]}
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_shard(target: SpecTarget, options: CheckOptions, shard: Shard) -> ShardSpec:
    """One spec's part of a sharded check: everything before the run as `check_spec` does it, then only the
    requests of the operations this shard owns (and the producers their chained ids come from: sent, not
    checked). Writes nothing; `satori_ci.shards.merge_shards` makes the check out of every shard's part.
    ShardError when the plan cannot be split (opted-in writes, a team collection)."""
    prepared = prepare(target, options)
    frame, head = prepared.frame, prepared.head
    documents = head.documents.files if head is not None and head.documents is not None else ()
    binding = bind_spec(target.head, target.settings.path, target.oracle_file, documents)
    if frame.final or head is None:
        return ShardSpec(frame, binding=binding)
    frame = replace(frame, stored=_scrubbed(frame.stored, secret_value))
    order, part, inputs = None, None, ""
    if target.staging_url:
        plan = plan_requests(head, target.plan)
        why = unshardable(plan, target.team is not None)
        if why is not None:
            raise ShardError(f"{target.settings.path}: cannot be sharded: {why}")
        sliced = slice_plan(plan, shard)
        planned = _requests(head, prepared.checked, target, target.staging_url, plan)
        order = run_order(planned)
        inputs = _inputs_digest(planned, target, options, target.staging_url)
        result = _execute(planned.only(sliced.own, sliced.support), len(prepared.checked), target, options,
                          target.staging_url, f"shard {shard}: ")
        part = own_part(result, order, shard.owns)
        part = replace(part, observed=_scrubbed(part.observed, secret_value))
    fields = observable(head.fields, target.settings)
    observed_ops = {k for store in (frame.stored, part.observed if part else None) if store is not None
                    for k in store.operations}
    mine = tuple((n, _proposable(f)) for n, f in enumerate(fields) if f.operation in observed_ops)
    inferred = frame.inferred
    assert inferred is not None  # a frame that is not final has its inferred file
    wanted = wanted_locations(frame.check.field_diff, diff_oracle_files(frame.previous, inferred), part)
    wanted |= {e.key for e in inferred.entries if any(o.source == OBSERVED for o in e.oracles)}
    wanted |= _observed_keys(frame.stored) | _observed_keys(part.observed if part else None)
    return ShardSpec(frame, order, part, mine, tuple(located(head, wanted)), inputs, binding)
