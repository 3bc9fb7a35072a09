"""The action end to end: observed suggestions on lines of the pull request's diff of the oracle file become one
review of GitHub suggested changes, posted once however often the action runs, never with comments off."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.conftest import PR, PullRequest, git, make_pull_request
from tests.servers.github_server import CREATE_REVIEW, FILES, FakeGitHub, forbidden

ORACLES = ".satori/api.openapi.oracles.yaml"
CONFIG = "specs:\n  - path: api/openapi.yaml\n    observe: false\n"
"""Observation off: the suggestions committed in the oracle file stay as they are (no store to support them)."""
ISBN = ('        - {kind: string_fixed_length, value: 13, source: "observed", evidence: 40, enabled: false, '
        'reason: "observed: 13 characters in all 40 responses"}')
TITLE = ('        - {kind: string_specific_values, value: ["Dune ```` x"], source: "observed", evidence: 41, '
         'enabled: false, reason: "observed: one title ```` in 41 responses"}')
UPDATED = ('        - {kind: boolean_always_false, source: "observed", evidence: 30, enabled: false, '
           'reason: "observed: always false in 30 responses"}')


def _with_oracle(text: str, field: str, line: str) -> str:
    """`text` with `line` as the only oracle of the first field named `field` (written `oracles: []`)."""
    head, sep, rest = text.partition(f'    "{field}":\n')
    fingerprint, empty, tail = rest.partition("      oracles: []\n")
    assert sep and empty, field
    return f"{head}{sep}{fingerprint}      oracles:\n{line}\n{tail}"


def _commit(repo: Path, text: str, message: str) -> str:
    (repo / ORACLES).write_text(text, encoding="utf-8")
    git(repo, "commit", "-q", "-am", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def suggesting(tmp_path: Path) -> Iterator[PullRequest]:
    """Base: the oracle file with one waiting suggestion (`GET /books/{isbn} 200` `title`); head: two more added
    (`GET /books 200` `books[].isbn` and `books[].title`, whose line holds backtick runs). GitHub's patch of the
    file is git's."""
    with FakeGitHub(login=None) as github:
        pr = make_pull_request(tmp_path, github, base_files={".satori.yml": CONFIG},
                               head_files={".satori.yml": CONFIG})
        text = (pr.repo / ORACLES).read_text(encoding="utf-8")
        detail = text.index('  "GET /books/{isbn} 200":')
        text = text[:detail] + _with_oracle(text[detail:], "title", UPDATED)
        pr.base_sha = _commit(pr.repo, text, "an earlier suggestion")
        text = _with_oracle(_with_oracle(text, "books[].isbn", ISBN), "books[].title", TITLE)
        pr.head_sha = _commit(pr.repo, text, "two new suggestions")
        diff = subprocess.run(["git", "diff", pr.base_sha, pr.head_sha, "--", ORACLES], cwd=pr.repo, check=True,
                              capture_output=True, text=True).stdout
        github.add_file(PR, ORACLES, diff[diff.index("@@"):].rstrip("\n"))
        github.add_file(PR, "api/openapi.yaml", "@@ -1 +1 @@\n-a\n+b")
        yield pr


def _line_of(pr: PullRequest, line: str) -> int:
    """The line's number in the oracle file as the pull request's head commit has it."""
    return git(pr.repo, "show", f"{pr.head_sha}:{ORACLES}").split("\n").index(line) + 1


def _body(oracle: str, where: str, evidence: int, reason: str, selectors: str, line: str, fence: str = "```") -> str:
    return (f"<!-- satori-ci:suggestion=.satori/api.openapi.oracles.yaml -->\n"
            f"**Suggested oracle (observed):** {oracle} on `GET /books 200` {where}, held in {evidence} observed "
            f"responses ({reason}).\n\n"
            "Commit this suggestion to switch it on (`enabled: true`); to dismiss it for good: `satori-ci reject "
            f"api/openapi.yaml {selectors}`.\n\n"
            f"{fence}suggestion\n{line.replace('enabled: false', 'enabled: true')}\n{fence}\n")


def test_one_review_with_a_suggested_change_per_waiting_suggestion_in_the_diff(suggesting: PullRequest) -> None:
    github = suggesting.github
    first = suggesting.run()
    assert first.code == 0, first.stdout + first.stderr
    (review,) = github.reviews_on(PR)
    assert review.event == "COMMENT" and review.body.startswith("<!-- satori-ci:suggestions -->\n")
    assert "suggests 2 observed oracles" in review.body and "not shown" not in review.body
    assert [(c.path, c.line, c.side) for c in review.comments] == [
        (ORACLES, _line_of(suggesting, ISBN), "RIGHT"), (ORACLES, _line_of(suggesting, TITLE), "RIGHT")]
    assert review.comments[0].body == _body(
        "`string_fixed_length 13`", "`books[].isbn`", 40, "observed: 13 characters in all 40 responses",
        "--operation 'GET /books 200' --field 'books[].isbn' --kind string_fixed_length", ISBN)
    assert review.comments[1].body == _body(
        '`````string_specific_values ["Dune ```` x"]`````', "`books[].title`", 41,
        r"observed: one title \`\`\`\` in 41 responses",
        "--operation 'GET /books 200' --field 'books[].title' --kind string_specific_values", TITLE, "`````")
    assert "::warning" not in first.stdout
    assert "- `api/openapi.yaml`: 3 suggested (0 new), off until accepted: `satori-ci accept api/openapi.yaml --all`" \
        in first.summary  # the third is outside the diff's hunks: in the comment's commands only

    second = suggesting.run()  # the next push: nothing new to say
    assert second.code == 0, second.stdout + second.stderr
    assert len(github.reviews_on(PR)) == 1 and len(github.requests_to(CREATE_REVIEW)) == 1
    assert len(github.requests_to(FILES)) == 2


def test_no_review_with_comments_off(suggesting: PullRequest) -> None:
    run = suggesting.run(inputs={"comment": "off"})
    assert run.code == 0, run.stdout + run.stderr
    assert suggesting.github.reviews_on(PR) == [] and suggesting.github.requests_to(FILES) == []
    assert "satori-ci accept api/openapi.yaml --all" in run.summary


def test_a_failed_review_is_a_warning_not_a_failure(suggesting: PullRequest) -> None:
    suggesting.github.fail(CREATE_REVIEW, forbidden(), forever=True)
    run = suggesting.run()
    assert run.code == 0, run.stdout + run.stderr
    assert "::warning::satori-ci: could not post the suggested changes on the oracle files (read-only token" in \
        run.stdout
    assert suggesting.github.reviews_on(PR) == []
