"""The retry policy, without a server: what each failure means and how long to wait."""

from __future__ import annotations

import pytest

from satori_ci.github.marker import comment_marker, is_marker, with_marker
from satori_ci.github.outcome import FailureKind
from satori_ci.github.retry import ApiError, GaveUp, RetryPolicy, classify, parse_retry_after, run_with_retries

NOW = 1_700_000_000.0
POLICY = RetryPolicy(retries=3, backoff=0.5, max_wait=10.0)


def decide(error: ApiError, attempt: int = 1) -> tuple[FailureKind, float | None]:
    decision = classify(error, attempt=attempt, policy=POLICY, now=NOW)
    return decision.failure, decision.wait


def test_server_errors_back_off_exponentially() -> None:
    assert decide(ApiError(500, "Server Error"), 1) == (FailureKind.SERVER_ERROR, 0.5)
    assert decide(ApiError(502), 3) == (FailureKind.SERVER_ERROR, 2.0)
    assert decide(ApiError(503, headers={"retry-after": "4"})) == (FailureKind.SERVER_ERROR, 4.0)


def test_network_errors_are_retried() -> None:
    assert decide(ApiError(None, "ConnectionError"), 2) == (FailureKind.NETWORK, 1.0)


def test_primary_rate_limit_waits_for_the_reset() -> None:
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 7)}
    assert decide(ApiError(403, "API rate limit exceeded", headers, rate_limit_message=True)) == (
        FailureKind.RATE_LIMITED, 7.0)
    assert decide(ApiError(429, "", headers)) == (FailureKind.RATE_LIMITED, 7.0)
    past = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) - 5)}
    assert decide(ApiError(403, "", past)) == (FailureKind.RATE_LIMITED, 0.0)


def test_secondary_rate_limit_uses_retry_after_or_a_minute() -> None:
    assert decide(ApiError(403, "secondary", {"retry-after": "3"})) == (FailureKind.RATE_LIMITED, 3.0)
    assert decide(ApiError(429, "Too Many Requests")) == (FailureKind.RATE_LIMITED, 60.0)
    assert decide(ApiError(403, "You have exceeded a secondary rate limit", rate_limit_message=True)) == (
        FailureKind.RATE_LIMITED, 60.0)


@pytest.mark.parametrize(("status", "kind"), [
    (403, FailureKind.READ_ONLY), (401, FailureKind.AUTH), (404, FailureKind.NOT_FOUND), (422, FailureKind.REJECTED),
])
def test_other_client_errors_are_final(status: int, kind: FailureKind) -> None:
    assert decide(ApiError(status, "Resource not accessible by integration")) == (kind, None)


def test_reasons_are_one_short_line() -> None:
    decision = classify(ApiError(403, "Resource not\naccessible " + "x" * 500), attempt=1, policy=POLICY, now=NOW)
    assert decision.reason.startswith("read-only token: GitHub answered 403 (Resource not accessible xxx")
    assert "\n" not in decision.reason and len(decision.reason) < 300


def test_parse_retry_after() -> None:
    assert parse_retry_after("12", NOW) == 12.0
    assert parse_retry_after(None, NOW) is None
    assert parse_retry_after("soon", NOW) is None
    assert parse_retry_after("Tue, 14 Nov 2023 22:13:30 GMT", NOW) == 10.0
    assert parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", NOW) == 0.0


class Flaky:
    def __init__(self, *errors: ApiError) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise _Failure(self.errors.pop(0))
        return "done"


class _Failure(Exception):
    def __init__(self, error: ApiError) -> None:
        super().__init__(error.status)
        self.error = error


def to_error(exc: Exception) -> ApiError | None:
    return exc.error if isinstance(exc, _Failure) else None


def test_run_with_retries_sleeps_between_attempts() -> None:
    sleeps: list[float] = []
    action = Flaky(ApiError(500), ApiError(502))
    result = run_with_retries(action, to_error, policy=POLICY, sleep=sleeps.append, clock=lambda: NOW)
    assert result == ("done", 3) and sleeps == [0.5, 1.0]


def test_run_with_retries_gives_up_after_the_last_retry() -> None:
    sleeps: list[float] = []
    action = Flaky(*[ApiError(500)] * 10)
    result = run_with_retries(action, to_error, policy=POLICY, sleep=sleeps.append, clock=lambda: NOW)
    assert isinstance(result, GaveUp) and result.attempts == 4 and action.calls == 4
    assert result.failure is FailureKind.SERVER_ERROR and result.reason.endswith("gave up after 4 attempts")
    assert sleeps == [0.5, 1.0, 2.0]


def test_run_with_retries_never_waits_beyond_the_budget() -> None:
    sleeps: list[float] = []
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 3600)}
    result = run_with_retries(Flaky(ApiError(403, "API rate limit exceeded", reset)), to_error, policy=POLICY,
                              sleep=sleeps.append, clock=lambda: NOW)
    assert isinstance(result, GaveUp) and result.failure is FailureKind.RATE_LIMITED and result.attempts == 1
    assert "waiting 3600 s more would exceed the 10 s retry budget" in result.reason
    assert sleeps == []


def test_run_with_retries_lets_bugs_through() -> None:
    def broken() -> str:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        run_with_retries(broken, to_error, policy=POLICY, sleep=lambda _: None)


# -- markers --------------------------------------------------------------------------------------

def test_markers_are_hidden_one_line_and_never_contain_each_other() -> None:
    short, nested = comment_marker("api.yaml"), comment_marker("v2/api.yaml")
    assert short == "<!-- satori-ci:spec=api.yaml -->"
    assert is_marker(short) and is_marker(nested)
    assert short not in nested and nested not in short


def test_a_key_cannot_close_the_html_comment() -> None:
    marker = comment_marker("evil --> <b>x</b>\n")
    assert is_marker(marker) and marker.count("-->") == 1 and "<b>" not in marker


def test_with_marker_prefixes_the_body_once() -> None:
    marker = comment_marker("a")
    assert with_marker(marker, "body") == f"{marker}\nbody"
    assert with_marker(marker, f"{marker}\nbody") == f"{marker}\nbody"
    # the marker quoted further down is content, not the comment's marker: it is still prefixed
    assert with_marker(marker, f"x {marker} y") == f"{marker}\nx {marker} y"
    with pytest.raises(ValueError, match="one-line HTML comment"):
        with_marker("satori", "body")
