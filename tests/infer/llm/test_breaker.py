"""The LLM server's circuit breaker: what it counts, when it opens, the cause it gives, and the backoff wait it
cuts short."""

from __future__ import annotations

import threading
import time

import pytest

from satori_ci.infer.llm.breaker import CircuitBreaker, failure_of, pause, server_name
from satori_ci.infer.llm.errors import ConnectFailed, TimedOut, TransientError


def test_it_opens_on_the_third_failure_in_a_row_once() -> None:
    breaker = CircuitBreaker(3)
    assert [breaker.failure("HTTP 503") for _ in range(2)] == [False, False]
    assert not breaker.is_open and breaker.cause is None
    assert breaker.failure("HTTP 503") is True
    assert breaker.is_open and breaker.cause == "HTTP 503 three times in a row"
    assert breaker.failure("HTTP 503") is False  # opened by one call only: one warning
    breaker.success()
    assert breaker.is_open  # stays open for the rest of the run


def test_a_success_starts_the_count_again() -> None:
    breaker = CircuitBreaker(3)
    for _ in range(5):
        breaker.failure("HTTP 500")
        breaker.failure("HTTP 500")
        breaker.success()
    assert not breaker.is_open


def test_mixed_causes_are_named_in_order() -> None:
    breaker = CircuitBreaker(3)
    for what in ("HTTP 500", "no answer within 15 s", "HTTP 500"):
        breaker.failure(what)
    assert breaker.cause == "3 failures in a row (HTTP 500, no answer within 15 s)"


def test_a_threshold_of_one_and_of_many() -> None:
    one = CircuitBreaker(1)
    assert one.failure("no connection") and one.cause == "no connection"
    seven = CircuitBreaker(7)
    for _ in range(7):
        seven.failure("HTTP 502")
    assert seven.cause == "HTTP 502 7 times in a row"
    with pytest.raises(ValueError):
        CircuitBreaker(0)


def test_concurrent_failures_open_it_exactly_once() -> None:
    breaker = CircuitBreaker(3)
    opened: list[bool] = []
    lock = threading.Lock()

    def fail() -> None:
        for _ in range(50):
            result = breaker.failure("HTTP 503")
            with lock:
                opened.append(result)

    threads = [threading.Thread(target=fail) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert opened.count(True) == 1


def test_what_counts() -> None:
    assert failure_of(TransientError("HTTP 503: down", status=503), 15.0) == "HTTP 503"
    assert failure_of(TransientError("HTTP 408", status=408), 15.0) == "HTTP 408"
    assert failure_of(TimedOut("timed out"), 2.5) == "no answer within 2.5 s"
    assert failure_of(ConnectFailed("refused"), 15.0) == "no connection"
    assert failure_of(TransientError("connection error: reset"), 15.0) == "connection lost"
    assert failure_of(TransientError("HTTP 429", status=429), 15.0) is None  # up, asking to slow down


def test_the_server_is_named_by_host_and_port_only() -> None:
    assert server_name("http://127.0.0.1:8080/v1") == "127.0.0.1:8080"
    assert server_name("https://api.openai.com/v1/") == "api.openai.com"
    assert server_name("https://***@llm.example.com/v1") == "llm.example.com"
    assert server_name("http://[::1]:11434/v1") == "[::1]:11434"
    assert server_name("batch b1") == "batch b1"


def test_a_backoff_wait_ends_when_the_breaker_opens() -> None:
    breaker, stop = CircuitBreaker(1), threading.Event()
    threading.Timer(0.1, breaker.failure, args=("HTTP 500",)).start()
    started = time.monotonic()
    assert pause(stop, breaker, 10.0, poll=0.01) is False
    assert time.monotonic() - started < 2.0


def test_a_backoff_wait_says_when_the_run_is_stopped() -> None:
    breaker, stop = CircuitBreaker(3), threading.Event()
    threading.Timer(0.05, stop.set).start()
    assert pause(stop, breaker, 10.0, poll=0.01) is True
    assert pause(threading.Event(), breaker, 0.01) is False
