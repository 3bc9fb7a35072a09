"""A Jupyter-Server-like staging app on 127.0.0.1 for the converted team collection (tests/postman/fixtures/jupyter).

Serves the seven GET operations of the fixture's trimmed spec, with `Authorization: Bearer tok` (else 403), file
paths with slashes under `/api/contents/`, two kernels and one session. Three planted faults, one per operation a
wrong match would miss: the kernel detail's `connections` is -1, the file's `size` is -5 and the checkpoint's
`last_modified` is not a time; the lists are correct.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Self

from satori_ci.demo import Canned, Received, Responder, StagingServer

FIXTURES = Path(__file__).resolve().parent.parent / "postman" / "fixtures" / "jupyter"
SPEC_PATH = FIXTURES / "openapi.yaml"
COLLECTION_PATH = FIXTURES / "jupyter.postman_collection.json"
ENVIRONMENT_PATH = FIXTURES / "jupyter.postman_environment.json"
TOKEN = "tok"

KERNELS = [
    {"id": "6f1c2a4e-3b5d-4e7f-9a1b-2c3d4e5f6a7b", "name": "python3", "last_activity": "2025-01-02T03:04:05.000000Z",
     "execution_state": "idle", "connections": 1},
    {"id": "0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d", "name": "python3", "last_activity": "2025-01-02T03:04:06.000000Z",
     "execution_state": "busy", "connections": 0},
]
SESSIONS = [{"id": "d3c2b1a0-9f8e-4d7c-8b6a-5f4e3d2c1b0a", "path": "notebooks/intro.ipynb", "name": "intro.ipynb",
             "type": "notebook", "kernel": KERNELS[0]}]
FILE = {"name": "summary.json", "path": "data/clean/summary.json", "type": "file", "writable": True,
        "created": "2025-01-01T00:00:00Z", "last_modified": "2025-01-01T00:00:00Z", "size": -5,
        "mimetype": "application/json", "content": "{}", "format": "text"}
CHECKPOINTS = [{"id": "checkpoint", "last_modified": "yesterday"}]


class JupyterApp:
    """The app on a `StagingServer` (a context manager); `received` lists what it was sent."""

    def __init__(self) -> None:
        self.server = StagingServer()
        self.server.route("GET", "/api", lambda r, p: Canned({"version": "2.21.1"}))
        self.server.route("GET", "/api/status", self._authed(lambda r, p: Canned(
            {"started": "2025-01-01T00:00:00Z", "last_activity": "2025-01-02T03:04:06Z", "connections": 1,
             "kernels": len(KERNELS)})))
        self.server.route("GET", "/api/kernels", self._authed(lambda r, p: Canned(KERNELS)))
        self.server.route("GET", "/api/kernels/{kernel_id}", self._authed(self._kernel))
        self.server.route("GET", "/api/sessions", self._authed(lambda r, p: Canned(SESSIONS)))
        self.server.route("GET", "/api/sessions/{session}", self._authed(self._session))
        # {path} holds slashes: the server's own routes take them segment by segment
        self.server.route("GET", "/api/contents/{a}/{b}/checkpoints", self._authed(self._checkpoints))
        self.server.route("GET", "/api/contents/{a}/{b}/{c}", self._authed(self._contents))

    @staticmethod
    def _authed(answer: Responder) -> Responder:
        def guarded(received: Received, params: dict[str, str]) -> Canned:
            if received.headers.get("Authorization") != f"Bearer {TOKEN}":
                return Canned({"message": "Forbidden", "reason": None}, status=403)
            return answer(received, params)
        return guarded

    @staticmethod
    def _kernel(received: Received, params: dict[str, str]) -> Canned:
        found = next((k for k in KERNELS if k["id"] == params["kernel_id"]), None)
        if found is None:
            return Canned({"message": f"Kernel does not exist: {params['kernel_id']}"}, status=404)
        return Canned({**found, "connections": -1})

    @staticmethod
    def _session(received: Received, params: dict[str, str]) -> Canned:
        found = next((s for s in SESSIONS if s["id"] == params["session"]), None)
        return Canned(found) if found else Canned({"message": "Session not found"}, status=404)

    @staticmethod
    def _contents(received: Received, params: dict[str, str]) -> Canned:
        path = "/".join((params["a"], params["b"], params["c"]))
        return Canned(FILE) if path == FILE["path"] else Canned({"message": f"No such file: {path}"}, status=404)

    @staticmethod
    def _checkpoints(received: Received, params: dict[str, str]) -> Canned:
        if (params["a"], params["b"]) != ("notebooks", "analysis.ipynb"):
            return Canned({"message": "No such file"}, status=404)
        return Canned(CHECKPOINTS)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def received(self) -> list[Received]:
        return self.server.received

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.server.stop()

