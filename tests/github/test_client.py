"""PyGithub's pacing (GitHub's advice for its API) is kept for GitHub and turned off for an API on this machine."""

from __future__ import annotations

import time

import pytest

from satori_ci.github.client import is_loopback
from satori_ci.github.comments import StickyCommenter
from satori_ci.github.marker import comment_marker
from tests.servers.github_server import FakeGitHub


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:8080", True), ("http://127.3.4.5/api/v3", True), ("http://localhost:9/", True),
    ("http://[::1]:8080", True), ("https://api.github.com", False), ("https://ghes.example/api/v3", False),
    ("https://10.0.0.5/api/v3", False), ("https://127.0.0.1.example", False), ("not a url", False),
])
def test_an_api_on_this_machine_is_loopback(url: str, local: bool) -> None:
    assert is_loopback(url) is local


def test_writes_to_a_local_api_are_not_paced() -> None:
    """With PyGithub's default pacing (a second between writes) these five writes would take four seconds."""
    with FakeGitHub(login="satori-bot", token="t") as server:
        sticky = StickyCommenter(server.base_url, "t", "octo/api", 7, sleep=lambda _: None)
        started = time.monotonic()
        for n in range(5):
            assert sticky.upsert(comment_marker("api.yaml"), f"{n} violations").ok
        assert time.monotonic() - started < 2
        assert len(server.comments_on(7)) == 1
