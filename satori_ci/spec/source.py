"""Where spec bytes come from: a file on disk or `REV:path` in a git repository."""

from __future__ import annotations

import os
import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path

from satori_ci.spec.errors import SpecError, SpecErrorKind

DEFAULT_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class SourceReader:
    """Reads the root document and the files its relative `$ref`s name, confined to one root.

    `root` is a directory on disk (the repository, or the spec's folder outside one), or a git
    revision with `git_dir` naming the repository; `entry` is the root document's path under it.
    """

    root: str
    entry: str
    rev: str | None = None
    git_dir: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES

    @property
    def display_entry(self) -> str:
        return f"{self.rev}:{self.entry}" if self.rev else self.entry

    def join(self, base_file: str, ref_path: str) -> str | None:
        """The repository-relative path a relative ref names, or None when it leaves the root."""
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(base_file), ref_path))
        if joined.startswith("../") or joined == ".." or posixpath.isabs(joined):
            return None
        return joined

    def read(self, rel: str) -> bytes:
        """The bytes of `rel` (a path under the root), refusing files past the size budget."""
        if self.rev is not None:
            return self._read_git(rel)
        path = Path(self.root) / rel
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{rel}: cannot read ({exc.strerror or exc})") from None
        if size > self.max_bytes:
            raise _too_large(rel, size, self.max_bytes)
        try:
            return path.read_bytes()
        except OSError as exc:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{rel}: cannot read ({exc.strerror or exc})") from None

    def _read_git(self, rel: str) -> bytes:
        spec = f"{self.rev}:{rel}"
        size_out = _git(self.git_dir, "cat-file", "-s", spec)
        if size_out is None:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{spec}: no such file at that revision")
        size = int(size_out.strip() or 0)
        if size > self.max_bytes:
            raise _too_large(spec, size, self.max_bytes)
        data = _git(self.git_dir, "cat-file", "blob", spec)
        if data is None:
            raise SpecError(SpecErrorKind.GIT, f"{spec}: git could not read it")
        return data


def _too_large(name: str, size: int, budget: int) -> SpecError:
    return SpecError(
        SpecErrorKind.TOO_LARGE,
        f"{name}: {size:,} bytes is past the size budget of {budget:,} bytes (raise it with --max-bytes)",
    )


def _git(cwd: str | None, *args: str) -> bytes | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, check=False, timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _git_toplevel(directory: str) -> str | None:
    out = _git(directory, "rev-parse", "--show-toplevel")
    return out.decode().strip() if out else None


def open_source(ref: str, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceReader:
    """A reader for a file path, or for `REV:path` (e.g. `origin/main:api/openapi.yaml`)."""
    if os.path.isfile(ref):
        absolute = os.path.abspath(ref)
        directory = os.path.dirname(absolute)
        root = _git_toplevel(directory) or directory
        return SourceReader(root=root, entry=os.path.relpath(absolute, root).replace(os.sep, "/"),
                            max_bytes=max_bytes)
    if ":" in ref and not os.path.exists(ref):
        rev, _, rel = ref.partition(":")
        toplevel = _git_toplevel(os.getcwd())
        if toplevel is None:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{ref}: no such file, and not inside a git repository")
        if _git(toplevel, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}") is None:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{ref}: no such file, and {rev!r} is not a git revision")
        prefix = (_git(os.getcwd(), "rev-parse", "--show-prefix") or b"").decode().strip()
        rel = posixpath.normpath(posixpath.join(prefix, rel[2:]) if rel.startswith("./") else rel)
        return SourceReader(root=toplevel, entry=rel, rev=rev, git_dir=toplevel, max_bytes=max_bytes)
    raise SpecError(SpecErrorKind.NOT_FOUND, f"{ref}: no such file")
