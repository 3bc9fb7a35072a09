"""A small GitHub REST server for tests (127.0.0.1, a free port): what the sticky comment needs.

    with FakeGitHub(login="satori-bot") as gh:
        gh.add_comment("<!-- marker -->", login="someone-else")      # must not be edited
        gh.fail(CREATE, forbidden())                                 # the next POST answers 403
        commenter = StickyCommenter(gh.base_url, "t0ken", "octo/api", 7, ...)
        gh.comments_on(7), gh.requests

Routes (also under `/api/v3`, as PyGithub calls a GitHub Enterprise Server base URL):
`GET /user`, `GET /repos/{o}/{r}`, `GET /repos/{o}/{r}/issues/{n}`,
`GET|POST /repos/{o}/{r}/issues/{n}/comments` (`per_page` ≤ 100, `page`, a `Link` header like
GitHub's), `GET|PATCH|DELETE /repos/{o}/{r}/issues/comments/{id}`, `GET /repos/{o}/{r}/pulls/{n}` (the pull
requests given with `add_pull`: base and head SHA, ref and repository as GitHub reports them),
`GET /repos/{o}/{r}/pulls/{n}/files` (the files given with `add_file`, each with its patch),
`GET /repos/{o}/{r}/pulls/{n}/comments` (review comments, paged like issue comments) and
`POST /repos/{o}/{r}/pulls/{n}/reviews` (stored in `reviews`, its comments in `review_comments`; a comment on a
file the pull request does not change, or on a line outside its patch's hunks, is a 422 as on GitHub).

`login=None` plays a GitHub Actions token: `GET /user` answers 403 and comments are authored by
`github-actions[bot]`. Faults are scripted per route, one per request, in order (`forever=True`
repeats the last); a fault with `apply=True` does the write and then answers the error (a 502
that did post). `hold(route, parties)` makes the next `parties` requests to a route wait for each other
before any is answered (two runs that both list before either creates: a race, forced without timing).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.servers.loopback import LoopbackServer

USER = "user"
REPO = "repo"
ISSUE = "issue"
LIST = "list comments"
CREATE = "create comment"
GET_COMMENT = "get comment"
EDIT = "edit comment"
DELETE = "delete comment"
PULL = "get pull request"
FILES = "list pull request files"
REVIEW_COMMENTS = "list review comments"
CREATE_REVIEW = "create review"
ACTIONS_LOGIN = "github-actions[bot]"
GHES_PREFIX = "/api/v3"
MAX_BODY = 65_536

_ROUTES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("GET", re.compile(r"^/user$"), USER),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)$"), REPO),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)$"), ISSUE),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)/comments$"), LIST),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)/comments$"), CREATE),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/comments/(?P<id>\d+)$"), GET_COMMENT),
    ("PATCH", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/comments/(?P<id>\d+)$"), EDIT),
    ("DELETE", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/comments/(?P<id>\d+)$"), DELETE),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/pulls/(?P<number>\d+)$"), PULL),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/pulls/(?P<number>\d+)/files$"), FILES),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/pulls/(?P<number>\d+)/comments$"), REVIEW_COMMENTS),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/pulls/(?P<number>\d+)/reviews$"), CREATE_REVIEW),
)
HOLD_TIMEOUT_S = 30.0
"""How long held requests wait for the others at most (then they are answered anyway)."""


@dataclass
class Fault:
    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    apply: bool = False
    """Do the write first, then answer the error."""


def forbidden(message: str = "Resource not accessible by integration") -> Fault:
    """What a fork's read-only `GITHUB_TOKEN` gets when it writes."""
    return Fault(403, message)


def server_error(status: int = 500, *, apply: bool = False) -> Fault:
    return Fault(status, "Server Error", apply=apply)


def primary_rate_limit(reset: float | None = None, *, status: int = 403) -> Fault:
    """`x-ratelimit-remaining: 0`, resetting at `reset` (epoch seconds; default now)."""
    when = int(time.time() if reset is None else reset)
    return Fault(status, "API rate limit exceeded for installation ID 1.",
                 {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-used": "5000",
                  "x-ratelimit-reset": str(when), "x-ratelimit-resource": "core"})


def secondary_rate_limit(retry_after: str | None = "0", *, status: int = 429) -> Fault:
    headers = {} if retry_after is None else {"retry-after": retry_after}
    return Fault(status, "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                         "try again.", headers)


@dataclass
class StoredComment:
    id: int
    issue: int
    body: str
    login: str
    user_type: str = "User"
    created_at: str = "2024-01-01T00:00:00Z"
    updated_at: str = "2024-01-01T00:00:00Z"
    edits: int = 0


@dataclass
class StoredPull:
    """A pull request as `GET /repos/{o}/{r}/pulls/{n}` reports it."""

    number: int
    base_sha: str
    head_sha: str
    base_repo: str
    head_repo: str | None
    """None: the fork was deleted (GitHub answers `"repo": null`)."""
    base_ref: str = "main"
    head_ref: str = "feature"


@dataclass
class StoredFile:
    """A file of a pull request's diff as `GET /pulls/{n}/files` lists it (`patch` None: a diff too large)."""

    number: int
    filename: str
    patch: str | None
    status: str = "modified"


@dataclass
class StoredReviewComment:
    id: int
    number: int
    path: str
    line: int | None
    """None once outdated (GitHub keeps `original_line`)."""
    original_line: int
    body: str
    login: str
    review_id: int | None = None
    side: str = "RIGHT"


@dataclass
class StoredReview:
    id: int
    number: int
    body: str
    event: str
    login: str
    comments: list[StoredReviewComment] = field(default_factory=list)


@dataclass
class RecordedRequest:
    method: str
    route: str | None
    path: str
    """Without the `/api/v3` prefix and the query."""
    prefix: str
    """`/api/v3` or ""."""
    query: dict[str, str]
    body: Any
    headers: dict[str, str]


class FakeGitHub(LoopbackServer):
    name = "fake-github"
    quiet_errors = False

    def __init__(self, *, login: str | None = "satori-bot", repository: str = "octo/api",
                 token: str | None = None) -> None:
        self.login = login
        """`GET /user`'s login; None: 403 there, as for a GitHub Actions token."""
        self.repository = repository
        self.token = token
        """When set, requests must carry it (else 401 Bad credentials)."""
        self.comments: list[StoredComment] = []
        self.pulls: dict[int, StoredPull] = {}
        self.files: list[StoredFile] = []
        self.reviews: list[StoredReview] = []
        self.review_comments: list[StoredReviewComment] = []
        self._holds: dict[str, tuple[threading.Barrier, list[int]]] = {}
        self.requests: list[RecordedRequest] = []
        self._faults: dict[str, list[Fault]] = {}
        self._forever: dict[str, Fault] = {}
        self._next_id = 1000
        self._lock = threading.Lock()
        super().__init__()

    # -- lifecycle ----------------------------------------------------------------------------

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    @property
    def base_url(self) -> str:
        """`GITHUB_API_URL` for github.com-style paths."""
        return self.origin

    @property
    def ghes_base_url(self) -> str:
        """`GITHUB_API_URL` as on GitHub Enterprise Server (`…/api/v3`)."""
        return self.origin + GHES_PREFIX

    @property
    def author_login(self) -> str:
        """Who the token's comments are by."""
        return self.login or ACTIONS_LOGIN

    # -- scripting and inspection -------------------------------------------------------------

    def fail(self, route: str, *faults: Fault, forever: bool = False) -> None:
        """The next requests to `route` answer `faults`, one each; `forever`: the last one for good."""
        with self._lock:
            self._faults.setdefault(route, []).extend(faults)
            if forever and faults:
                self._forever[route] = faults[-1]

    def add_comment(self, body: str, *, login: str = "octocat", user_type: str = "User",
                    issue: int = 7) -> StoredComment:
        with self._lock:
            return self._store(issue, body, login, user_type)

    def add_pull(self, number: int, *, base_sha: str, head_sha: str, base_repo: str | None = None,
                 head_repo: str | None = "", base_ref: str = "main", head_ref: str = "feature") -> StoredPull:
        """A pull request `GET /pulls/{number}` reports; `base_repo` defaults to this repository, `head_repo` too
        ("": the same repository, None: a deleted fork)."""
        pull = StoredPull(number, base_sha, head_sha, base_repo or self.repository,
                          self.repository if head_repo == "" else head_repo, base_ref, head_ref)
        with self._lock:
            self.pulls[number] = pull
        return pull

    def add_file(self, number: int, filename: str, patch: str | None, status: str = "modified") -> StoredFile:
        """A file the diff of pull request `number` changes, with GitHub's `patch` of it (hunks, no header)."""
        stored = StoredFile(number, filename, patch, status)
        with self._lock:
            self.files.append(stored)
        return stored

    def add_review_comment(self, number: int, path: str, line: int | None, body: str, *, login: str = "octocat",
                           original_line: int | None = None) -> StoredReviewComment:
        """A review comment already on the pull request (someone's, or ours from an earlier run)."""
        with self._lock:
            self._next_id += 1
            stored = StoredReviewComment(self._next_id, number, path, line, original_line or line or 1, body, login)
            self.review_comments.append(stored)
        return stored

    def reviews_on(self, number: int) -> list[StoredReview]:
        with self._lock:
            return [r for r in self.reviews if r.number == number]

    def hold(self, route: str, parties: int = 2) -> None:
        """The next `parties` requests to `route` are answered from the state they arrived in, then wait until all
        of them have arrived before their answers go out."""
        with self._lock:
            self._holds[route] = (threading.Barrier(parties), [parties])

    def comments_on(self, issue: int) -> list[StoredComment]:
        with self._lock:
            return [c for c in self.comments if c.issue == issue]

    def requests_to(self, route: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.route == route]

    # -- behaviour ----------------------------------------------------------------------------

    def _store(self, issue: int, body: str, login: str, user_type: str) -> StoredComment:
        self._next_id += 1
        comment = StoredComment(self._next_id, issue, body, login, user_type)
        self.comments.append(comment)
        return comment

    def _wait_if_held(self, route: str) -> None:
        with self._lock:
            held = self._holds.get(route)
            if held is None:
                return
            barrier, left = held
            left[0] -= 1
            if left[0] == 0:
                del self._holds[route]
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=HOLD_TIMEOUT_S)

    def _take_fault(self, route: str) -> Fault | None:
        queue = self._faults.get(route)
        if queue:
            fault = queue.pop(0)
            if not queue and route in self._forever:
                queue.append(self._forever[route])
            return fault
        return None

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        """(status, JSON body, extra headers) for one request."""
        parts = urlsplit(raw_path)
        prefix = GHES_PREFIX if parts.path.startswith(GHES_PREFIX + "/") else ""
        path = parts.path[len(prefix):]
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        route, params = _match(method, path)
        with self._lock:
            self.requests.append(RecordedRequest(method, route, path, prefix, query, body, headers))
        if self.token is not None and headers.get("authorization", "").split(" ", 1)[-1] != self.token:
            return 401, {"message": "Bad credentials"}, {}
        if route is None:
            return 404, {"message": "Not Found"}, {}
        with self._lock:
            fault = self._take_fault(route)
            if fault is not None and not fault.apply:
                result = fault.status, {"message": fault.message}, fault.headers
            else:
                answer = _Answer(self, self.origin + prefix).answer(route, params, query, body)
                result = (fault.status, {"message": fault.message}, fault.headers) if fault is not None else answer
        self._wait_if_held(route)  # after answering: every held request saw the same state (the race, every time)
        return result


def _match(method: str, path: str) -> tuple[str | None, dict[str, str]]:
    for route_method, pattern, route in _ROUTES:
        found = pattern.match(path)
        if found and route_method == method:
            return route, found.groupdict()
    return None, {}


class _Answer:
    """One request's answer; the server's lock is held."""

    def __init__(self, server: FakeGitHub, api: str) -> None:
        self.server = server
        self.api = api
        self.repo_api = f"{api}/repos/{server.repository}"

    def answer(self, route: str, params: dict[str, str], query: dict[str, str],
               body: Any) -> tuple[int, Any, dict[str, str]]:
        server = self.server
        if route == USER:
            if server.login is None:
                return 403, {"message": "Resource not accessible by integration"}, {}
            return 200, self.user(server.login, "User"), {}
        if params.get("repo", "").lower() != server.repository.lower():
            return 404, {"message": "Not Found"}, {}
        if route == REPO:
            return 200, self.repo(), {}
        if route == PULL:
            pull = server.pulls.get(int(params["number"]))
            return (200, self.pull(pull), {}) if pull is not None else (404, {"message": "Not Found"}, {})
        if route in (FILES, REVIEW_COMMENTS, CREATE_REVIEW):
            return self.pull_part(route, int(params["number"]), query, body)
        if route in (ISSUE, LIST, CREATE):
            number = int(params["number"])
            if route == ISSUE:
                return 200, self.issue(number), {}
            if route == LIST:
                return self.page(number, query)
            return self.create(number, body)
        comment = next((c for c in server.comments if c.id == int(params["id"])), None)
        if comment is None:
            return 404, {"message": "Not Found"}, {}
        if route == GET_COMMENT:
            return 200, self.comment(comment), {}
        if route == DELETE:
            return self.delete(comment)
        return self.edit(comment, body)

    def create(self, number: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        text = body.get("body") if isinstance(body, dict) else None
        problem = _invalid_body(text)
        if problem is not None:
            return 422, {"message": "Validation Failed", "errors": [problem]}, {}
        login = self.server.author_login
        stored = self.server._store(number, str(text), login, "Bot" if login.endswith("[bot]") else "User")
        return 201, self.comment(stored), {"location": f"{self.repo_api}/issues/comments/{stored.id}"}

    def edit(self, comment: StoredComment, body: Any) -> tuple[int, Any, dict[str, str]]:
        text = body.get("body") if isinstance(body, dict) else None
        problem = _invalid_body(text)
        if problem is not None:
            return 422, {"message": "Validation Failed", "errors": [problem]}, {}
        if comment.login != self.server.author_login:
            return 403, {"message": "You must be the author of this comment to edit it"}, {}
        comment.body = str(text)
        comment.edits += 1
        comment.updated_at = "2024-01-02T00:00:00Z"
        return 200, self.comment(comment), {}

    def delete(self, comment: StoredComment) -> tuple[int, Any, dict[str, str]]:
        if comment.login != self.server.author_login:
            return 403, {"message": "You must be the author of this comment to delete it"}, {}
        self.server.comments.remove(comment)
        return 204, None, {}

    def page(self, number: int, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        comments = [self.comment(c) for c in self.server.comments if c.issue == number]
        return self.paged(comments, f"{self.repo_api}/issues/{number}/comments", query)

    def paged(self, items: list[Any], url: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        """One page of `items` (`per_page` ≤ 100, `page`) with GitHub's `Link` header."""
        per_page = min(max(_int(query.get("per_page"), 30), 1), 100)
        page = max(_int(query.get("page"), 1), 1)
        last = max(1, -(-len(items) // per_page))

        def link(to: int, rel: str) -> str:
            return f'<{url}?per_page={per_page}&page={to}>; rel="{rel}"'

        links = []
        if page > 1:
            links += [link(page - 1, "prev"), link(1, "first")]
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        return 200, items[(page - 1) * per_page: page * per_page], ({"link": ", ".join(links)} if links else {})

    def pull_part(self, route: str, number: int, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        """The files, the review comments and the reviews of pull request `number`."""
        base = f"{self.repo_api}/pulls/{number}"
        if route == FILES:
            return self.paged([self.file(f) for f in self.server.files if f.number == number], f"{base}/files", query)
        if route == REVIEW_COMMENTS:
            comments = [self.review_comment(c) for c in self.server.review_comments if c.number == number]
            return self.paged(comments, f"{base}/comments", query)
        return self.create_review(number, body)

    def create_review(self, number: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        """A review with its comments, each on a line GitHub lets a comment sit on; else 422 and nothing stored."""
        data = body if isinstance(body, dict) else {}
        comments = data.get("comments") or []
        files = {f.filename: f for f in self.server.files if f.number == number}
        for c in comments:
            problem = _comment_problem(c, files)
            if problem is not None:
                return 422, {"message": "Unprocessable Entity", "errors": [problem]}, {}
        server = self.server
        server._next_id += 1
        review = StoredReview(server._next_id, number, str(data.get("body") or ""), str(data.get("event") or ""),
                              server.author_login)
        for c in comments:
            server._next_id += 1
            stored = StoredReviewComment(server._next_id, number, c["path"], c["line"], c["line"], c["body"],
                                         server.author_login, review.id, str(c.get("side") or "RIGHT"))
            review.comments.append(stored)
            server.review_comments.append(stored)
        server.reviews.append(review)
        return 200, self.review(review), {}

    # -- JSON shapes (the fields PyGithub reads, so it never completes an object with a GET) --

    def user(self, login: str, user_type: str) -> dict[str, Any]:
        return {"login": login, "id": abs(hash(login)) % 10**8, "type": user_type, "site_admin": False,
                "url": f"{self.api}/users/{login}", "html_url": f"{self.server.origin}/{login}"}

    def repo(self) -> dict[str, Any]:
        owner, name = self.server.repository.split("/")
        return {"id": 1, "name": name, "full_name": self.server.repository, "private": False, "fork": False,
                "url": self.repo_api, "html_url": f"{self.server.origin}/{self.server.repository}",
                "owner": self.user(owner, "Organization"), "default_branch": "main"}

    def issue(self, number: int) -> dict[str, Any]:
        html = f"{self.server.origin}/{self.server.repository}/pull/{number}"
        return {"id": number, "number": number, "title": f"Pull request {number}", "state": "open",
                "url": f"{self.repo_api}/issues/{number}", "html_url": html,
                "comments_url": f"{self.repo_api}/issues/{number}/comments",
                "comments": len([c for c in self.server.comments if c.issue == number]),
                "pull_request": {"url": f"{self.repo_api}/pulls/{number}", "html_url": html},
                "user": self.user("contributor", "User")}

    def pull(self, p: StoredPull) -> dict[str, Any]:
        html = f"{self.server.origin}/{self.server.repository}/pull/{p.number}"

        def part(repo: str | None, ref: str, sha: str) -> dict[str, Any]:
            owner = (repo or "ghost/x").split("/")[0]
            shown = None if repo is None else {**self.repo(), "full_name": repo, "name": repo.split("/")[1],
                                               "url": f"{self.api}/repos/{repo}", "owner": self.user(owner, "User"),
                                               "fork": repo.lower() != self.server.repository.lower()}
            return {"label": f"{owner}:{ref}", "ref": ref, "sha": sha, "repo": shown,
                    "user": self.user(owner, "User")}

        return {"id": p.number, "number": p.number, "state": "open", "title": f"Pull request {p.number}",
                "url": f"{self.repo_api}/pulls/{p.number}", "html_url": html,
                "issue_url": f"{self.repo_api}/issues/{p.number}", "user": self.user("contributor", "User"),
                "base": part(p.base_repo, p.base_ref, p.base_sha), "head": part(p.head_repo, p.head_ref, p.head_sha)}

    def file(self, f: StoredFile) -> dict[str, Any]:
        shown = {"sha": "0" * 40, "filename": f.filename, "status": f.status, "additions": 1, "deletions": 0,
                 "changes": 1, "blob_url": f"{self.server.origin}/{self.server.repository}/blob/x/{f.filename}",
                 "raw_url": f"{self.server.origin}/{self.server.repository}/raw/x/{f.filename}",
                 "contents_url": f"{self.repo_api}/contents/{f.filename}"}
        return shown if f.patch is None else {**shown, "patch": f.patch}

    def review_comment(self, c: StoredReviewComment) -> dict[str, Any]:
        html = f"{self.server.origin}/{self.server.repository}/pull/{c.number}#discussion_r{c.id}"
        return {"id": c.id, "node_id": f"PRRC_{c.id}", "pull_request_review_id": c.review_id, "path": c.path,
                "line": c.line, "original_line": c.original_line, "side": c.side, "body": c.body,
                "user": self.user(c.login, "Bot" if c.login.endswith("[bot]") else "User"),
                "url": f"{self.repo_api}/pulls/comments/{c.id}", "html_url": html,
                "pull_request_url": f"{self.repo_api}/pulls/{c.number}", "commit_id": "0" * 40,
                "original_commit_id": "0" * 40, "diff_hunk": "@@", "created_at": "2024-01-01T00:00:00Z",
                "updated_at": "2024-01-01T00:00:00Z", "author_association": "NONE"}

    def review(self, r: StoredReview) -> dict[str, Any]:
        return {"id": r.id, "node_id": f"PRR_{r.id}", "user": self.user(r.login, "User"), "body": r.body,
                "state": "COMMENTED" if r.event == "COMMENT" else "PENDING", "commit_id": "0" * 40,
                "html_url": f"{self.server.origin}/{self.server.repository}/pull/{r.number}#pullrequestreview-{r.id}",
                "pull_request_url": f"{self.repo_api}/pulls/{r.number}", "submitted_at": "2024-01-01T00:00:00Z"}

    def comment(self, c: StoredComment) -> dict[str, Any]:
        return {"id": c.id, "node_id": f"IC_{c.id}", "body": c.body,
                "url": f"{self.repo_api}/issues/comments/{c.id}",
                "html_url": f"{self.server.origin}/{self.server.repository}/pull/{c.issue}#issuecomment-{c.id}",
                "issue_url": f"{self.repo_api}/issues/{c.issue}", "user": self.user(c.login, c.user_type),
                "created_at": c.created_at, "updated_at": c.updated_at, "author_association": "NONE"}


def _invalid_body(text: Any) -> dict[str, str] | None:
    if not isinstance(text, str) or not text:
        return {"resource": "IssueComment", "code": "missing_field", "field": "body"}
    if len(text) > MAX_BODY:
        return {"resource": "IssueComment", "code": "custom", "field": "body",
                "message": f"Body is too long (maximum is {MAX_BODY} characters)"}
    return None


_HUNK_HEADER = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def diff_lines(patch: str) -> set[int]:
    """The new file's lines a review comment may sit on: the added and context lines of the patch's hunks."""
    lines: set[int] = set()
    new = old_left = new_left = 0
    for row in patch.splitlines():
        header = _HUNK_HEADER.match(row)
        if header:
            old_left, new, new_left = int(header[1] or 1), int(header[2]), int(header[3] or 1)
        elif row.startswith("-") and old_left:
            old_left -= 1
        elif row.startswith("+") and new_left:
            lines.add(new)
            new, new_left = new + 1, new_left - 1
        elif row.startswith(" ") and old_left and new_left:
            lines.add(new)
            new, old_left, new_left = new + 1, old_left - 1, new_left - 1
    return lines


def _comment_problem(comment: Any, files: dict[str, StoredFile]) -> str | None:
    """Why GitHub would refuse a review comment (None: it would take it)."""
    if not isinstance(comment, dict) or not isinstance(comment.get("path"), str):
        return "Path could not be resolved"
    if _invalid_body(comment.get("body")) is not None:
        return "Body is missing or too long"
    found = files.get(comment["path"])
    line = comment.get("line")
    if found is None or found.patch is None:
        return "Path could not be resolved"
    if comment.get("side", "RIGHT") != "RIGHT" or not isinstance(line, int) or line not in diff_lines(found.patch):
        return "Line could not be resolved"
    return None


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _make_handler(server: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                status, payload, extra = server.handle(self.command, self.path, headers, body)
            except Exception as err:  # a bug in the fake is a 500 the test sees
                status, payload, extra = 500, {"message": f"fake server failed: {err!r}"}, {}
            data = b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            if "x-ratelimit-remaining" not in {k.lower() for k in extra}:
                self.send_header("x-ratelimit-limit", "5000")
                self.send_header("x-ratelimit-remaining", "4999")
                self.send_header("x-ratelimit-reset", str(int(time.time()) + 3600))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        do_GET = _serve
        do_POST = _serve
        do_PATCH = _serve
        do_DELETE = _serve

    return Handler
