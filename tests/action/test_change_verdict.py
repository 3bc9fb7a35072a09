"""The action's verdict about the change: a pull request whose added or changed oracles met no value is not green
(exit 4, "the change went unchecked"), by the `min-changed-exercised` input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from satori_ci.demo import Canned, StagingServer
from tests.action.conftest import make_pull_request
from tests.servers.github_server import FakeGitHub

BOOK = {"isbn": "9780441172719", "title": "Dune", "format": "paperback", "rating": 4.5,
        "cover_url": "https://covers.example.com/9780441172719.jpg", "published": "1965-08-01"}
"""A v1 book: the fields v2 adds (language, store) are not there yet."""


@pytest.fixture
def staging() -> Iterator[StagingServer]:
    with StagingServer() as server:
        server.route("GET", "/books", lambda r, p: Canned({"total": 1, "books": [BOOK]}))
        server.route("GET", "/books/{isbn}", lambda r, p: Canned(BOOK))
        yield server


@pytest.mark.parametrize(("minimum", "code"), [("100%", 4), ("", 0), ("0", 0)])
def test_the_change_unexercised_is_not_green(tmp_path: Path, staging: StagingServer, minimum: str,
                                             code: int) -> None:
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        run = pr.run(inputs={"staging-url": staging.base_url, "runner": "native", "min-changed-exercised": minimum})
    assert run.code == code, run.stdout + run.stderr
    if code == 4:
        assert "## ⚠️ satori-ci: the change went unchecked" in run.summary
        assert "went unchecked:" in run.summary and "at least" in run.summary
        assert "#### The change: " in run.summary
        assert "::error file=api/openapi.yaml,line=" in run.stdout and "title=Change not exercised%3A GET /books" in \
            run.stdout
    else:
        assert "oracles this change adds or changes" in run.summary


def test_a_bad_minimum_input_is_one_line(tmp_path: Path, staging: StagingServer) -> None:
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github)
        run = pr.run(inputs={"staging-url": staging.base_url, "min-changed-exercised": "most"})
    assert run.code == 2
    assert ("::error title=satori-ci::min-changed-exercised must be a whole number (0 or more) or a share like 50%25 "
            "(got 'most')\n") in run.stdout
