"""`infer --batch`: the fields the incremental plan would send to the LLM go to the Batch API as one input file
(`submit`); once the batch is done, its answers go through the LLM backend itself (a `ReplayClient` in place of
the server), so the oracle file is the one a synchronous run with the same answers writes (`collect`).

Values in, values out: the caller reads and writes the files and prints.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from satori_ci.infer.factory import make_backend
from satori_ci.infer.incremental import Contexts, UpdateResult, plan_inference, update_oracle_file
from satori_ci.infer.llm.backend import LLMConfig, ProgressCallback
from satori_ci.infer.llm.batch import (
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
from satori_ci.infer.llm.batch_state import BatchState
from satori_ci.infer.llm.budget import BATCH_PRICE_FACTOR
from satori_ci.infer.llm.errors import CallError, Completion
from satori_ci.oracles.file import OracleFile
from satori_ci.spec.model import ResponseField, Spec

UNUSABLE = "answer unusable"


def prepare(fields: Sequence[ResponseField], previous: OracleFile | None, contexts: Contexts,
            config: LLMConfig) -> BatchInput:
    """The input file for the fields a synchronous run would infer (reused and moved fields are not sent)."""
    return build_input(plan_inference(fields, previous, contexts).to_infer, config)


def submit(api: BatchApi, spec_file: str, batch_input: BatchInput, config: LLMConfig,
           name: str) -> tuple[BatchState, BatchStatus]:
    """Upload the input file as `name` and create the batch; the state to keep, and the batch's status."""
    data = batch_input.jsonl.encode("utf-8")
    file_id = api.upload(name, data)
    status = api.create(file_id)
    state = BatchState(spec_file, config.model, status.batch_id, file_id, hashlib.sha256(data).hexdigest(),
                       batch_input.requests, batch_input.held_back)
    return state, status


def collect_config(config: LLMConfig, state: BatchState) -> LLMConfig:
    """The settings the requests were built with (the state's model), at the Batch API's price; no budget."""
    return dataclasses.replace(config, model=state.model, price_factor=BATCH_PRICE_FACTOR, max_calls=None,
                               max_tokens=None, concurrency=1)


@dataclass(frozen=True)
class Collected:
    update: UpdateResult
    status: BatchStatus
    requests: int
    """Requests in the batch."""
    fell_back: int
    """Fields the rules answered instead (failed, unusable, missing or not sent)."""
    why: str
    """The fallbacks counted by reason: `2 batch_expired, 1 HTTP 500`."""
    unreadable: int
    """Lines of the output and error files that were not JSON result lines."""


def _answers(api: BatchApi, state: BatchState,
             status: BatchStatus) -> tuple[dict[str, Completion | Failure], int]:
    """Each request's completion (or why there is none) by request digest, and the unreadable lines."""
    from satori_ci.infer.llm.client import completion_from_body  # imports openai: only when collecting

    texts = [api.content(file_id) for file_id in (status.output_file_id, status.error_file_id) if file_id]
    lines, unreadable = parse_results(*texts)
    answers: dict[str, Completion | Failure] = {}
    for request in state.requests:
        found = outcome(lines.get(request.custom_id))
        if isinstance(found, Failure):
            answers[request.digest] = found
            continue
        try:
            answers[request.digest] = completion_from_body(found)
        except CallError as err:
            answers[request.digest] = Failure("unreadable answer", f"unreadable answer: {err.message}")
    return answers, unreadable


def collect(api: BatchApi, state: BatchState, status: BatchStatus, spec: Spec, previous: OracleFile | None,
            contexts: Contexts, config: LLMConfig, progress: ProgressCallback | None = None) -> Collected:
    """The oracle file from a finished batch (`completed`, or `expired`/`cancelled` with what it answered)."""
    if state.spec != spec.file:
        raise BatchError(f"the pending batch {state.batch_id} was submitted for {state.spec}, not {spec.file}",
                         BatchErrorKind.INPUT)
    if status.pending or status.status == "failed":
        raise BatchError(f"batch {state.batch_id} is {status.status}: nothing to collect")
    answers, unreadable = _answers(api, state, status)
    settings = collect_config(config, state)
    replay = ReplayClient(answers, settings, state.batch_id)
    backend = make_backend("llm", settings, progress, context=spec.fields, spec=spec, client=replay)
    update = update_oracle_file(spec.file, spec.fields, previous, backend, contexts=contexts)
    fell_back = update.stats.fallbacks
    labels = [*replay.failed, *[UNUSABLE] * max(0, fell_back - len(replay.failed))]
    return Collected(update, status, len(state.requests), fell_back, fallback_summary(labels), unreadable)
