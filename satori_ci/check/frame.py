"""Everything of one spec's check before the run (`prepare`: reads): specs read, field diff, incremental
inference, the stores, the suspects, as a `CheckFrame` (the same in every shard of a sharded check)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from satori_ci.check.stores import read_previous, read_store, read_store_at, store_file_of
from satori_ci.check.target import CheckOptions, SpecTarget
from satori_ci.config import SpecConfig
from satori_ci.errors import ExitCode
from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import update_oracle_file
from satori_ci.infer.rules import context_digests
from satori_ci.observe.fields import queried_operations
from satori_ci.observe.propose import ProposalSettings
from satori_ci.observe.store import ObservationStore
from satori_ci.observe.update import suspects
from satori_ci.oracles.file import OracleFile
from satori_ci.oracles.model import Oracle
from satori_ci.report.model import InferenceSummary, SpecCheck
from satori_ci.spec import ResponseField, Spec, SpecError, SpecErrorKind, diff_fields, load_spec


def proposal_settings(settings: SpecConfig, spec: Spec) -> ProposalSettings:
    """The config's `observe:` thresholds over the defaults, and the spec's operations with a query parameter."""
    default = ProposalSettings()
    found = settings.observe
    return ProposalSettings(min_responses=found.min_responses or default.min_responses,
                            min_requests=found.min_requests or default.min_requests,
                            request_sized=queried_operations(spec.operations))


def observable(fields: Sequence[ResponseField], settings: SpecConfig) -> list[ResponseField]:
    """The fields observed under the config (ignored fields and operations left out)."""
    return [f for f in fields if not settings.ignore.field(f.field)
            and not settings.ignore.operation(f.operation.method, f.operation.path)]


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
    compared: bool = True
    """There is a base to compare with (a pull request, `--base`): the oracles the change adds or changes are
    judged (`SpecCheck.changed`); without one, a check has no change to judge."""


MAX_INFERENCE_WARNINGS = 3
"""The inference's warnings (an LLM server that failed and was left for the rules) the report repeats as notices."""


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
        notices=(*notices, *update.stats.warnings[:MAX_INFERENCE_WARNINGS]), suspects=suspects(trusted, checked),
        min_changed=target.min_changed,
    )
    rules = SpecConfig(path=settings.path, null_like=settings.null_like, skip_kinds=settings.skip_kinds,
                       ignore=settings.ignore)
    frame = CheckFrame(check, previous=previous, inferred=update.file, rules=rules, observing=observing,
                       stored=stored, proposal=proposal_settings(settings, head), store_file=str(store_file),
                       compared=target.base is not None)
    return Prepared(frame, head, checked)
