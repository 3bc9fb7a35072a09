"""A staging app whose data only exploring reaches (tests/run/test_explore.py, `explore_app.yaml`).

- `/silence/{silenceID}` takes the ids of its sibling list `/silences`;
- `/buckets/{bid}/collections/{cid}/records/{rid}`: three levels, and only the last of eight buckets has
  collections (the first ids of the list have no children);
- the records of a collection come in two pages (`next` in the body); the poetry records are on the second;
- `/contents/{path}` lists a folder whose entries' `path` are its own values (the root is the empty path);
- `/reports?silence_id=` needs a real silence id (400 otherwise);
- `/search?q=` has no value anywhere: it must not be sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from satori_ci.demo import Canned, Received, StagingServer

SPEC = Path(__file__).with_name("explore_app.yaml")
SILENCES = [{"id": f"sil-{n}", "state": "active" if n % 2 else "expired", "comment": f"silence {n}"}
            for n in range(6)]
BUCKETS = [f"b{n}" for n in range(8)]
RECORDS = [{"id": f"r{n}", "type": "novel", "pages": 100 + n} for n in range(1, 4)] + [
    {"id": f"r{n}", "type": "poetry", "rhymes": True} for n in range(4, 8)]
FILES: dict[str, dict[str, Any]] = {
    "": {"type": "directory", "content": ["docs", "empty", "a.txt"]},
    "docs": {"type": "directory", "content": ["docs/deep", "docs/b.txt"]},
    "docs/deep": {"type": "directory", "content": ["docs/deep/c.txt"]},
    "empty": {"type": "directory", "content": []},
    "a.txt": {"type": "file", "size": 3}, "docs/b.txt": {"type": "file", "size": 5},
    "docs/deep/c.txt": {"type": "file", "size": 8},
}


def _not_found(*_: Any) -> Canned:
    return Canned({"error": "not found"}, 404)


def _silence(_: Received, params: dict[str, str]) -> Canned:
    found = next((s for s in SILENCES if s["id"] == params["silenceID"]), None)
    return Canned(found) if found else _not_found()


def _collections(_: Received, params: dict[str, str]) -> Canned:
    if params["bid"] not in BUCKETS:
        return _not_found()
    return Canned({"data": [{"id": "c1"}] if params["bid"] == BUCKETS[-1] else []})


def _records(received: Received, params: dict[str, str]) -> Canned:
    if (params["bid"], params["cid"]) != (BUCKETS[-1], "c1"):
        return _not_found()
    if dict(received.query).get("page") == "2":
        return Canned({"data": RECORDS[3:]})
    return Canned({"data": RECORDS[:3], "next": f"/buckets/{BUCKETS[-1]}/collections/c1/records?page=2"})


def _record(_: Received, params: dict[str, str]) -> Canned:
    found = next((r for r in RECORDS if r["id"] == params["rid"]), None)
    return Canned(found) if found and (params["bid"], params["cid"]) == (BUCKETS[-1], "c1") else _not_found()


def _contents(_: Received, params: dict[str, str]) -> Canned:
    path = params.get("path", "")
    node = FILES.get(path)
    if node is None:
        return _not_found()
    if node["type"] == "file":
        return Canned({"path": path, "type": "file", "size": node["size"]})
    return Canned({"path": path, "type": "directory",
                   "content": [{"path": p, "type": FILES[p]["type"]} for p in node["content"]]})


def _report(received: Received, _: dict[str, str]) -> Canned:
    wanted = dict(received.query).get("silence_id")
    if wanted not in {s["id"] for s in SILENCES}:
        return Canned({"error": "unknown silence"}, 400)
    return Canned({"silence_id": wanted, "matched": 2})


class ExploreApp:
    """The app on a `StagingServer` (a context manager, as the server is)."""

    def __init__(self) -> None:
        self.server = StagingServer()
        routes = [
            ("GET", "/silences", lambda *_: Canned(SILENCES)), ("GET", "/silence/{silenceID}", _silence),
            ("DELETE", "/silence/{silenceID}", lambda *_: Canned({})),
            ("GET", "/buckets", lambda *_: Canned({"data": [{"id": b} for b in BUCKETS]})),
            ("GET", "/buckets/{bid}/collections", _collections),
            ("GET", "/buckets/{bid}/collections/{cid}/records", _records),
            ("GET", "/buckets/{bid}/collections/{cid}/records/{rid}", _record),
            ("GET", "/contents/", _contents), ("GET", "/contents/{path}", _contents),
            ("GET", "/reports", _report), ("GET", "/search", lambda *_: Canned(["x"])),
        ]
        for method, template, responder in routes:
            self.server.route(method, template, responder)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def received(self) -> list[Received]:
        return list(self.server.received)

    def __enter__(self) -> ExploreApp:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
