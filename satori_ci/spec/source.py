"""Where spec bytes come from: a file on disk or `REV:path` in a git repository."""

from __future__ import annotations

import functools
import os
import posixpath
import re
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
    scope: str = "the repository"
    """What `root` is, for messages: "the repository" or "the spec's folder"."""

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
        """The bytes of `rel` (a path under the root), refusing files past the size budget and files that a
        symlink (the file's or a parent folder's) puts outside the root."""
        if self.rev is not None:
            return self._read_git(rel)
        path = Path(self.confined(rel))
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

    def confined(self, rel: str) -> str:
        """The real path of `rel` under the root, symlinks resolved; a SpecError when that is outside the root."""
        root = os.path.realpath(self.root)
        target = os.path.realpath(os.path.join(self.root, rel))
        if not is_within(target, root):
            raise SpecError(SpecErrorKind.NOT_FOUND,
                            f"{rel}: a symlink leads outside {self.scope}; refused (only files inside it are read)")
        return target

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


_GIT_LOCATING_ENV = ("GIT_DIR", "GIT_WORK_TREE")
"""Set, these make git name a repository that no `.git` above the folder shows."""


def _git_markers(directory: str) -> list[str]:
    """The folders from `directory` up (symlinks resolved) that hold a `.git` entry: git's own search for the
    repository a folder is in finds it at one of them, or finds none, unless `_GIT_LOCATING_ENV` says otherwise."""
    return _markers_from(os.path.realpath(directory))


def _markers_from(here: str) -> list[str]:
    """`_git_markers` of a folder whose symlinks are already resolved."""
    found = []
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            found.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            return found
        here = parent


def _git_locating_env() -> tuple[str | None, ...]:
    """The values of `_GIT_LOCATING_ENV`, in its order."""
    return tuple(os.environ.get(name) for name in _GIT_LOCATING_ENV)


def _git_located_by_env() -> bool:
    return any(_git_locating_env())


def git_toplevel(directory: str) -> str | None:
    """The work tree root of the git repository `directory` is in (symlinks resolved), or None. Git is asked only
    where a `.git` above the folder (or the environment) could make the answer a repository, and once per folder,
    `.git` entries and environment: a check reads many files, and each question is a process."""
    located = _git_locating_env()
    real_dir = os.path.realpath(directory)
    markers = tuple(_markers_from(real_dir))
    if not any(located) and not markers:
        return None
    return _asked_toplevel(real_dir, markers, located)


@functools.lru_cache(maxsize=256)
def _asked_toplevel(real_dir: str, markers: tuple[str, ...], located: tuple[str | None, ...]) -> str | None:
    """Git's answer for a folder; `markers` and `located` are in the key so that a new repository, or another
    one named by the environment, is asked about again."""
    del markers, located
    out = _git(real_dir, "rev-parse", "--show-toplevel")
    return out.decode().strip() if out else None


def leaves_repository(path: str) -> bool:
    """Whether a repository-relative path names a place outside the repository, read as text: absolute
    (`/x`, `C:/x`, `~/x`) or climbing out with `..`. Symlinks are checked where files are opened."""
    text = path.replace("\\", "/")
    if text.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", text):
        return True
    return posixpath.normpath(text).split("/", 1)[0] == ".."


def is_within(path: str, root: str) -> bool:
    """Whether `path` is `root` or under it (both absolute and normalised; no symlinks resolved here)."""
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


def _may_be_in_workspace(absolute: str) -> bool:
    """Whether the repository of the current folder may hold `absolute`: only a folder with a `.git`, from the
    current one up, can be its top (the environment aside), so a path under none of them is outside it."""
    return _git_located_by_env() or any(is_within(absolute, top) for top in _git_markers(os.getcwd()))


def _file_source(ref: str, max_bytes: int) -> SourceReader:
    """A reader rooted at the repository of a spec file.

    A path written inside the current repository stays rooted there even when a symlinked folder on the
    way leads elsewhere (git, asked from that folder, would name the repository it leads to); `read`
    then refuses every file, the root document included, that symlinks put outside the root.
    """
    absolute = os.path.abspath(ref)
    real_dir = os.path.realpath(os.path.dirname(absolute))
    toplevel = git_toplevel(real_dir)
    workspace = git_toplevel(os.getcwd()) if _may_be_in_workspace(absolute) else None
    if workspace is not None and is_within(absolute, workspace) and (
        toplevel is None or not is_within(toplevel, workspace)
    ):
        root, entry = workspace, os.path.relpath(absolute, workspace)
    elif toplevel is not None:
        named = absolute if is_within(absolute, toplevel) else os.path.join(real_dir, os.path.basename(absolute))
        root, entry = toplevel, os.path.relpath(named, toplevel)
    else:  # outside any repository: the spec's folder; a symlinked spec named there is the user's own choice
        real = os.path.realpath(absolute)
        named = real if os.path.dirname(real) != real_dir else absolute
        return SourceReader(root=os.path.dirname(named), entry=os.path.basename(named), max_bytes=max_bytes,
                            scope="the spec's folder")
    return SourceReader(root=root, entry=entry.replace(os.sep, "/"), max_bytes=max_bytes)


def open_source(ref: str, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceReader:
    """A reader for a file path, or for `REV:path` (e.g. `origin/main:api/openapi.yaml`)."""
    if os.path.isfile(ref):
        return _file_source(ref, max_bytes)
    if ":" in ref and not os.path.exists(ref):
        rev, _, rel = ref.partition(":")
        toplevel = git_toplevel(os.getcwd())
        if toplevel is None:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{ref}: no such file, and not inside a git repository")
        if _git(toplevel, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}") is None:
            raise SpecError(SpecErrorKind.NOT_FOUND, f"{ref}: no such file, and {rev!r} is not a git revision")
        prefix = (_git(os.getcwd(), "rev-parse", "--show-prefix") or b"").decode().strip()
        rel = posixpath.normpath(posixpath.join(prefix, rel[2:]) if rel.startswith("./") else rel)
        return SourceReader(root=toplevel, entry=rel, rev=rev, git_dir=toplevel, max_bytes=max_bytes)
    raise SpecError(SpecErrorKind.NOT_FOUND, f"{ref}: no such file")
