"""`infer --batch`: the fields the incremental plan would send to the LLM go to the Batch API, as one batch per
part of the input (`submit`: at most `MAX_BATCH_REQUESTS` requests and `MAX_BATCH_BYTES` bytes each); once every
batch is done, their answers go through the LLM backend itself (one `ReplayClient` in place of the server), so the
oracle file is the one a synchronous run with the same answers writes (`collect`).

Values in, values out: the caller reads and writes the files and prints.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import Contexts, UpdateResult, plan_inference, update_oracle_file
from satori_ci.infer.llm.backend import ProgressCallback
from satori_ci.infer.llm.batch import (
    BATCH_FAILED,
    BatchApi,
    BatchError,
    BatchErrorKind,
    BatchInput,
    BatchStatus,
    Failure,
    ReplayClient,
    build_input,
    fallback_summary,
    outcome,
    parse_results,
)
from satori_ci.infer.llm.batch_state import BatchPart, BatchState
from satori_ci.infer.llm.budget import BATCH_PRICE_FACTOR
from satori_ci.infer.llm.config import LLMConfig
from satori_ci.infer.llm.errors import CallError, Completion
from satori_ci.oracles.file import OracleFile
from satori_ci.spec.model import ResponseField, Spec

UNUSABLE = "answer unusable"


def prepare(fields: Sequence[ResponseField], previous: OracleFile | None, contexts: Contexts,
            config: LLMConfig) -> BatchInput:
    """The input for the fields a synchronous run would infer (reused and moved fields are not sent), split at the
    Batch API's limits (`batch.MAX_BATCH_REQUESTS`, `batch.MAX_BATCH_BYTES`)."""
    return build_input(plan_inference(fields, previous, contexts).to_infer, config)


def part_name(name: str, number: int, parts: int) -> str:
    """The upload name of part `number` of `parts`: `x.batch.jsonl` alone, else `x.batch.2.jsonl`."""
    if parts == 1:
        return name
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{number}.{ext}" if dot else f"{name}.{number}"


@dataclass(frozen=True)
class Submitted:
    """The state to keep (the parts created), their statuses, what was sent, and the error that stopped the
    other parts."""

    state: BatchState
    statuses: tuple[BatchStatus, ...]
    jsonl: str
    """The created parts' lines, in order."""
    error: BatchError | None = None


def submit(api: BatchApi, spec_file: str, batch_input: BatchInput, config: LLMConfig,
           name: str) -> Submitted:
    """Upload each part (as `name`, numbered when there are several) and create its batch, in order. A failure
    at the first part raises (nothing created); at a later one, the parts created are kept, the others' requests
    are counted `not_sent`, and the failure is returned (creations are never retried: no batch twice)."""
    parts: list[BatchPart] = []
    statuses: list[BatchStatus] = []
    error: BatchError | None = None
    for number, part in enumerate(batch_input.parts, start=1):
        data = part.jsonl.encode("utf-8")
        try:
            file_id = api.upload(part_name(name, number, len(batch_input.parts)), data)
            status = api.create(file_id)
        except BatchError as err:
            if not parts:
                raise
            error = err
            break
        parts.append(BatchPart(status.batch_id, file_id, hashlib.sha256(data).hexdigest(), part.requests))
        statuses.append(status)
    sent = len(parts)
    not_sent = sum(len(part.requests) for part in batch_input.parts[sent:])
    state = BatchState(spec_file, config.model, tuple(parts), batch_input.held_back, not_sent)
    return Submitted(state, tuple(statuses), "".join(part.jsonl for part in batch_input.parts[:sent]), error)


def collect_config(config: LLMConfig, state: BatchState) -> LLMConfig:
    """The settings the requests were built with (the state's model), at the Batch API's price; no budget."""
    return dataclasses.replace(config, model=state.model, price_factor=BATCH_PRICE_FACTOR, max_calls=None,
                               max_tokens=None, concurrency=1)


@dataclass(frozen=True)
class Collected:
    update: UpdateResult
    statuses: tuple[BatchStatus, ...]
    requests: int
    """Requests sent (in every part)."""
    fell_back: int
    """Fields the rules answered instead (failed, unusable, missing or not sent)."""
    why: str
    """The fallbacks counted by reason: `2 batch_expired, 1 HTTP 500`."""
    unreadable: int
    """Lines of the output and error files that were not JSON result lines."""


def batches_named(state: BatchState) -> str:
    """`batch b1`, or `batches b1, b2`."""
    ids = state.batch_ids
    return f"batch {ids[0]}" if len(ids) == 1 else f"batches {', '.join(ids)}"


def _answers(api: BatchApi, state: BatchState,
             statuses: Sequence[BatchStatus]) -> tuple[dict[str, Completion | Failure], int]:
    """Each request's completion (or why there is none) by request digest, and the unreadable lines; the
    requests of a `failed` part have none."""
    from satori_ci.infer.llm.client import completion_from_body  # imports openai: only when collecting

    answers: dict[str, Completion | Failure] = {}
    unreadable = 0
    for part, status in zip(state.parts, statuses, strict=True):
        if status.status == "failed":
            for request in part.requests:
                answers[request.digest] = Failure(BATCH_FAILED, f"batch {part.batch_id} failed")
            continue
        texts = [api.content(file_id) for file_id in (status.output_file_id, status.error_file_id) if file_id]
        lines, bad = parse_results(*texts)
        unreadable += bad
        for request in part.requests:
            found = outcome(lines.get(request.custom_id))
            if isinstance(found, Failure):
                answers[request.digest] = found
                continue
            try:
                answers[request.digest] = completion_from_body(found)
            except CallError as err:
                answers[request.digest] = Failure("unreadable answer", f"unreadable answer: {err.message}")
    return answers, unreadable


def collect(api: BatchApi, state: BatchState, statuses: Sequence[BatchStatus], spec: Spec,
            previous: OracleFile | None, contexts: Contexts, config: LLMConfig,
            progress: ProgressCallback | None = None) -> Collected:
    """The oracle file from finished batches, one status per part (`completed`, `expired`/`cancelled` with what
    they answered, `failed` with nothing: its fields fall back), as long as one did not fail."""
    if state.spec != spec.file:
        was = "was" if len(state.parts) == 1 else "were"
        raise BatchError(f"the pending {batches_named(state)} {was} submitted for {state.spec}, not {spec.file}",
                         BatchErrorKind.INPUT)
    if len(statuses) != len(state.parts):
        raise BatchError(f"{len(statuses)} status(es) for {len(state.parts)} batch(es)")
    if any(status.pending for status in statuses) or all(status.status == "failed" for status in statuses):
        raise BatchError(f"{batches_named(state)}: {', '.join(s.status for s in statuses)}: nothing to collect")
    answers, unreadable = _answers(api, state, statuses)
    settings = collect_config(config, state)
    replay = ReplayClient(answers, settings, ", ".join(state.batch_ids))
    backend = make_backend("llm", settings, progress, context=spec.fields, spec=spec, client=replay)
    update = update_oracle_file(spec.file, spec.fields, previous, backend, contexts=contexts)
    fell_back = update.stats.fallbacks
    labels = [*replay.failed, *[UNUSABLE] * max(0, fell_back - len(replay.failed))]
    return Collected(update, tuple(statuses), len(state.requests), fell_back, fallback_summary(labels), unreadable)
