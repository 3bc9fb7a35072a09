"""The module that talks to the `openai` package for chat completions (`batch_client` does the Batch API).

It sends one chat completion and turns the client's errors into the few cases the backend
acts on. The client's own retries are off (`max_retries=0`): retrying is the backend's job. A request waits at
most `connect_timeout` for the connection and `timeout` for each read (one answer), so a server that never
answers costs a bounded time per call.
An error's text can quote the key (a server that echoes the `Authorization` header, a URL with credentials):
every message it raises is redacted with the key, and `base_url` is shown with credentials masked.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from satori_ci.redaction import Redactor, url_secrets

from .errors import (
    BadRequest,
    CallError,
    Completion,
    ConnectFailed,
    FatalError,
    MissingCredentials,
    TimedOut,
    TransientError,
)
from .prompt import Prompt, chat_request_body


def _retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            parsed = email.utils.parsedate_to_datetime(value)
            return max(0.0, parsed.timestamp() - time.time())
    except (TypeError, ValueError, AttributeError):
        return None


def _error_message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return f"HTTP {err.status_code}: {body['message']}"
    return f"HTTP {err.status_code}: {err.message}"


class ChatClient:
    """An OpenAI-compatible chat endpoint (OpenAI, Azure OpenAI's v1 endpoint, Ollama, vLLM...)."""

    def __init__(self, *, model: str, api_key: str, base_url: str | None, timeout: float,
                 temperature: float | None = 0.0, max_output_tokens: int | None = None,
                 connect_timeout: float | None = None) -> None:
        self.model = model
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self._redactor = Redactor([api_key, *url_secrets(base_url)])
        try:
            bounds = openai.Timeout(timeout, connect=min(timeout, connect_timeout or timeout))
            self._client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=bounds, max_retries=0)
        except openai.OpenAIError as err:
            raise MissingCredentials(self._redactor.redact(str(err))) from err

    def close(self) -> None:
        self._client.close()

    @property
    def base_url(self) -> str:
        """The endpoint, for messages (credentials in it masked)."""
        return self._redactor.redact(str(self._client.base_url))

    def complete(self, prompt: Prompt, *, json_mode: bool) -> Completion:
        try:
            return self._complete(prompt, json_mode=json_mode)
        except CallError as err:
            err.message = self._redactor.redact(err.message)
            err.args = (err.message,)
            raise

    def _complete(self, prompt: Prompt, *, json_mode: bool) -> Completion:
        body = chat_request_body(prompt, model=self.model, temperature=self.temperature,
                                 max_output_tokens=self.max_output_tokens, json_mode=json_mode)
        try:
            response = self._client.chat.completions.create(**body)
        except openai.OpenAIError as err:
            raise call_error(err) from err
        return completion_of(response)


def call_error(err: openai.OpenAIError) -> CallError:
    """The failure the backend acts on for an error of the `openai` client (its message not yet redacted)."""
    if isinstance(err, openai.APITimeoutError):
        if _caused_by(err, "ConnectTimeout"):
            return ConnectFailed(f"no connection in time: {err.message}")
        return TimedOut(f"timed out: {err.message}")
    if isinstance(err, openai.APIConnectionError):
        cause = err.__cause__
        detail = f"connection error: {cause or err.message}"
        if _caused_by(err, "ConnectError"):
            return ConnectFailed(detail)
        return TransientError(detail)
    if isinstance(err, openai.RateLimitError | openai.InternalServerError):
        return TransientError(_error_message(err), status=err.status_code,
                              retry_after=_retry_after(err.response.headers))
    if isinstance(err, openai.BadRequestError):
        return BadRequest(_error_message(err), status=400)
    if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError | openai.NotFoundError):
        return FatalError(_error_message(err), status=err.status_code)
    if isinstance(err, openai.APIStatusError):
        if err.status_code == 408:
            return TransientError(_error_message(err), status=408)
        return CallError(_error_message(err), status=err.status_code)
    return CallError(f"{type(err).__name__}: {err}")


def _caused_by(err: BaseException, name: str) -> bool:
    """Whether the error's cause (httpx's, whichever httpx the client uses) is of a class named `name`."""
    cause = err.__cause__
    return cause is not None and any(k.__name__ == name for k in type(cause).__mro__)


def completion_of(response: ChatCompletion) -> Completion:
    """The text, finish reason and token usage of a chat completion."""
    choices = response.choices or []
    text = choices[0].message.content if choices else None
    finish = choices[0].finish_reason if choices else None
    usage = response.usage
    if usage is None:
        return Completion(text, 0, 0, finish, usage_reported=False)
    return Completion(text, usage.prompt_tokens or 0, usage.completion_tokens or 0, finish)


def completion_from_body(body: Mapping[str, Any]) -> Completion:
    """A chat completion's JSON body (a Batch API output line's `response.body`) read like a synchronous answer;
    `CallError` when it is not one."""
    try:
        return completion_of(ChatCompletion.model_construct(**body))
    except (AttributeError, TypeError, IndexError, KeyError) as err:
        raise CallError(f"not a chat completion ({type(err).__name__})") from err
