"""The Batch API through the `openai` package: upload the input file, create the batch, read its status and
download its files. Every failure is one redacted `BatchError` (infrastructure: the server is down, refuses the
key, or does not know the batch). Uploads and creation are never retried (no second batch by accident); reads
are, by the client's own retries.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

import openai
from openai.types import Batch

from satori_ci.redaction import Redactor, url_secrets

from .batch import COMPLETION_WINDOW, ENDPOINT, BatchError, BatchStatus
from .client import call_error
from .errors import ConnectFailed

READ_RETRIES = 2


def batch_status(batch: Batch) -> BatchStatus:
    counts = batch.request_counts
    errors = tuple(f"{e.code or 'error'}: {e.message or 'no message'}" + (f" (line {e.line})" if e.line else "")
                   for e in (batch.errors.data or [] if batch.errors else []))
    return BatchStatus(batch.id, str(batch.status), counts.total if counts else 0,
                       counts.completed if counts else 0, counts.failed if counts else 0,
                       batch.output_file_id or None, batch.error_file_id or None, errors)


class BatchClient:
    """The Batch API of an OpenAI-compatible server (`base_url` None: `OPENAI_BASE_URL`, else OpenAI's)."""

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float = 60.0) -> None:
        self._redactor = Redactor([api_key, *url_secrets(base_url)])
        try:
            self._client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)
        except openai.OpenAIError as err:
            raise BatchError(f"the LLM client could not start ({self._redactor.redact(str(err))})") from err
        self._reads = self._client.with_options(max_retries=READ_RETRIES)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    @property
    def base_url(self) -> str:
        """The endpoint, for messages (credentials in it masked)."""
        return self._redactor.redact(str(self._client.base_url))

    def _failed(self, what: str, err: openai.OpenAIError) -> BatchError:
        failure = call_error(err)
        if isinstance(failure, ConnectFailed):
            text = f"cannot reach the LLM server at {self.base_url} to {what} ({failure.message})"
        else:
            text = f"could not {what} at {self.base_url} ({failure.message})"
        return BatchError(self._redactor.redact(text))

    def upload(self, name: str, data: bytes) -> str:
        try:
            return self._client.files.create(file=(name, data, "application/jsonl"), purpose="batch").id
        except openai.OpenAIError as err:
            raise self._failed("upload the batch input file", err) from err

    def create(self, input_file_id: str) -> BatchStatus:
        try:
            return batch_status(self._client.batches.create(input_file_id=input_file_id, endpoint=ENDPOINT,
                                                            completion_window=COMPLETION_WINDOW))
        except openai.OpenAIError as err:
            raise self._failed("create the batch", err) from err

    def retrieve(self, batch_id: str) -> BatchStatus:
        try:
            return batch_status(self._reads.batches.retrieve(batch_id))
        except openai.OpenAIError as err:
            raise self._failed(f"read batch {batch_id}", err) from err

    def content(self, file_id: str) -> str:
        try:
            return self._reads.files.content(file_id).content.decode("utf-8", errors="replace")
        except openai.OpenAIError as err:
            raise self._failed(f"download file {file_id}", err) from err
