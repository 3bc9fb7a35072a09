"""The circuit breaker per host (`run.breaker`): pure, thread-safe, a success resets the count."""

from __future__ import annotations

import threading

from satori_ci.run.breaker import Breaker, cause_of, origin


def test_three_attempts_in_a_row_without_an_answer_trip_it_once() -> None:
    breaker = Breaker()
    assert breaker.record("http://h:8080/a", "connection refused") is None
    assert breaker.wary("http://h:8080/b") and breaker.allows("http://h:8080/b")
    assert breaker.record("http://h:8080/b", "connection refused") is None
    trip = breaker.record("http://h:8080/c", "connection refused")
    assert trip is not None and trip.line == "connection refused, 3 times in a row: stopped sending to http://h:8080"
    assert breaker.record("http://h:8080/d", "connection refused") is None  # one attempt gets the trip
    assert breaker.tripped == trip and not breaker.allows("http://h:8080/") and breaker.allows("http://other/")


def test_an_answer_resets_the_count_and_ends_the_wary_wait() -> None:
    breaker = Breaker()
    for _ in range(5):
        breaker.record("https://h/a", "no answer within 5 s")
        breaker.record("https://h/a", "no answer within 5 s")
        breaker.record("https://h/b", None)
    assert breaker.tripped is None and breaker.answered("https://h/") and not breaker.wary("https://h/")
    breaker.record("https://h/a", "no answer within 5 s")
    assert not breaker.wary("https://h/")  # it answered once: it keeps the whole timeout


def test_threads_share_the_count() -> None:
    breaker = Breaker()
    trips = []

    def fail() -> None:
        trip = breaker.record("http://h/", "connection refused")
        if trip is not None:
            trips.append(trip)

    threads = [threading.Thread(target=fail) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(trips) == 1 and trips[0].failures == 3


def test_the_origin_never_carries_credentials_a_path_or_a_query() -> None:
    assert origin("https://user:secret@staging.example.com/v1/x?token=abc#f") == "https://staging.example.com:443"
    assert origin("http://[::1]:8080/a") == "http://[::1]:8080"
    assert origin("http://h") == "http://h:80"


def test_causes_in_a_few_words() -> None:
    assert cause_of("connection failed: connection refused (127.0.0.1:9)") == "connection refused"
    assert cause_of("timed out: no connection within 5 s") == "no connection within 5 s"
    assert cause_of("ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9") == "connection refused"
    assert cause_of("ETIMEDOUT: no complete response within 30000 ms") == "no answer within 30 s"
    assert cause_of("TLS error: certificate verify failed (h:443)") == "certificate verify failed"
