"""What the sticky comment and the suggested changes share: one PyGithub client (its own retries off, the caller
retries whole operations) and the login whose comments are ours."""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Callable
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import requests
from github import Auth, Github, GithubException, RateLimitExceededException

from satori_ci.github.retry import ApiError, RetryPolicy

GITHUB_ACTIONS_LOGIN = "github-actions[bot]"
"""The author of comments made with `GITHUB_TOKEN`, whose `GET /user` answers 403."""
USER_AGENT = "satori-ci"


def github_client(api_url: str, token: str, *, per_page: int, timeout: int,
                  seconds_between_requests: float | None, seconds_between_writes: float | None) -> Github:
    """A lazy client (`get_repo`, `get_issue`, `get_pull` build objects from URLs without a request), PyGithub's
    own retries off (`retry=None`: a POST answered 502 may have posted, so the caller retries whole operations).
    The pacing is off for an API on this machine (`is_loopback`): no secondary rate limit to keep under."""
    if is_loopback(api_url):
        seconds_between_requests = seconds_between_writes = None
    return Github(base_url=api_url.rstrip("/"), auth=Auth.Token(token) if token else None, retry=None,
                  per_page=per_page, timeout=timeout, user_agent=USER_AGENT, lazy=True,
                  seconds_between_requests=seconds_between_requests, seconds_between_writes=seconds_between_writes)


def is_loopback(api_url: str) -> bool:
    """Whether the API is served on this machine (`localhost`, 127.0.0.0/8, ::1): a local mirror or test server."""
    try:
        host = urlsplit(api_url).hostname or ""
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OwnLogin:
    """The login whose comments are ours: `GET /user`, or `bot_login` when the token may not read users (a GitHub
    Actions or App installation token: 403 that is not a rate limit). Raises the library's errors otherwise (used
    inside retries); asked once."""

    def __init__(self, gh: Github, bot_login: str = GITHUB_ACTIONS_LOGIN) -> None:
        self._gh = gh
        self._bot_login = bot_login
        self._login: str | None = None

    def __call__(self) -> str:
        if self._login is None:
            try:
                self._login = self._gh.get_user().login
            except GithubException as err:
                error = api_error(err)
                if error is None or error.status != 403 or rate_limited(error):
                    raise
                self._login = self._bot_login
        return self._login


def api_error(exc: Exception) -> ApiError | None:
    """PyGithub's and requests' failures as an `ApiError`; None for anything else (a bug: re-raised)."""
    if isinstance(exc, GithubException):
        data = exc.data
        message = data.get("message") if isinstance(data, dict) else data
        headers = {str(k).lower(): str(v) for k, v in (exc.headers or {}).items()}
        return ApiError(exc.status, str(message or exc.message or ""), headers,
                        rate_limit_message=isinstance(exc, RateLimitExceededException))
    if isinstance(exc, requests.RequestException):
        return ApiError(None, f"{type(exc).__name__}: {exc}")
    if isinstance(exc, json.JSONDecodeError):
        return ApiError(None, "the answer is not valid JSON")
    return None


def rate_limited(error: ApiError) -> bool:
    return (error.rate_limit_message or "retry-after" in error.headers
            or error.headers.get("x-ratelimit-remaining", "").strip() == "0")


class PullRequestSession:
    """A client for one pull request's comments, with the retry policy its operations run under (a context
    manager: closing it closes the client). `api_url` is `GITHUB_API_URL` (`https://api.github.com`,
    `https://HOST/api/v3` on GHES); `seconds_between_*` are PyGithub's own pacing (its defaults, GitHub's advice for
    writes; none for an API on this machine); `bot_login` is whose comments are ours when `GET /user` is refused."""

    def __init__(self, api_url: str, token: str, repo: str, pr_number: int, *, retries: int = 3,
                 backoff: float = 1.0, max_wait: float = 20.0, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time, bot_login: str = GITHUB_ACTIONS_LOGIN,
                 per_page: int = 100, timeout: int = 15, seconds_between_requests: float | None = 0.25,
                 seconds_between_writes: float | None = 1.0) -> None:
        self._token = token
        self._policy = RetryPolicy(retries=retries, backoff=backoff, max_wait=max_wait)
        self._sleep = sleep
        self._clock = clock
        self._gh = github_client(api_url, token, per_page=per_page, timeout=timeout,
                                 seconds_between_requests=seconds_between_requests,
                                 seconds_between_writes=seconds_between_writes)
        self._own_login = OwnLogin(self._gh, bot_login)
        self._repo = repo
        self._pr_number = pr_number

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._gh.close()
