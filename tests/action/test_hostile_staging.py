"""The action against a hostile staging: redirects to another origin, endless bodies (both runners)."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from satori_ci.demo_staging import book_body, list_body
from tests.action.conftest import PR, make_pull_request
from tests.run.conftest import newman_available
from tests.run.test_bounds import Recorder, _endless, _json, _stream
from tests.servers.github_server import FakeGitHub

SECRET = "stg-header-secret-31"


@pytest.fixture(params=["native", "newman"])
def runner(request: pytest.FixtureRequest) -> str:
    if request.param == "newman":
        newman_available()
    return str(request.param)


@pytest.fixture
def elsewhere() -> Iterator[Recorder]:
    with Recorder(lambda h: _json(h, {"books": []})) as server:
        yield server


def _staging(elsewhere: Recorder) -> Recorder:
    """`/books` redirects to another origin; `/books/{isbn}` (sent with the spec's example, as the list gave no id)
    streams a JSON body that never ends."""
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/books?") or handler.path == "/books":
            _json(handler, {}, status=302, headers={"Location": f"{elsewhere.origin}/books?stolen=1"})
        elif handler.path.startswith("/books/"):
            _stream(handler, _endless())
        else:
            _json(handler, list_body() if handler.path == "/list" else book_body())
    return Recorder(answer)


def test_a_redirecting_endless_staging_gets_no_secret_elsewhere_and_the_run_goes_on(
        tmp_path: Path, elsewhere: Recorder, runner: str) -> None:
    with _staging(elsewhere) as staging, FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        run = pr.run(inputs={"staging-url": staging.origin, "runner": runner,
                             "staging-headers": f"X-Staging-Token: {SECRET}"})
        (comment,) = github.comments_on(PR)
    assert elsewhere.received == [], elsewhere.received  # the redirect was not followed
    assert any(h.get("X-Staging-Token") == SECRET for _, h in staging.received)
    body = comment.body.replace("\\", "")
    assert "redirected to" in body and "not followed" in body and "stolen" not in body
    assert "too large" in body  # the endless body of the detail operation, bounded; the run went on
    for text in (run.stdout, run.stderr, run.summary, comment.body):
        assert SECRET not in "\n".join(line for line in text.splitlines() if not line.startswith("::add-mask::"))
    assert run.code == 3, run.stdout  # no response could be checked: not green
