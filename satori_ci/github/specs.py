"""Which specs a run checks: the inputs' globs, the config's specs, or every OpenAPI file the change touches."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from satori_ci.github.errors import ActionConfigError
from satori_ci.spec.source import is_within, leaves_repository

SPEC_SUFFIXES = (".yaml", ".yml", ".json")
_SNIFF_BYTES = 4096


def looks_like_openapi(path: Path) -> bool:
    """A YAML or JSON file that names `openapi:` or `swagger:` near its top."""
    if path.suffix.lower() not in SPEC_SUFFIXES or not path.is_file():
        return False
    try:
        head = path.open("rb").read(_SNIFF_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return any(marker in head for marker in ('openapi:', '"openapi"', "swagger:", '"swagger"'))


def _git_lines(workspace: Path, *args: str) -> list[str] | None:
    try:
        proc = subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True, check=False,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.splitlines() if proc.returncode == 0 else None


def changed_files(workspace: Path, base: str, head: str) -> list[str] | None:
    """Files changed between two commits (None when git cannot tell, e.g. a shallow clone without base)."""
    return _git_lines(workspace, "diff", "--name-only", "--no-renames", f"{base}...{head}") or _git_lines(
        workspace, "diff", "--name-only", "--no-renames", base, head)


def inside(workspace: Path, rel: str, named_by: str) -> str:
    """`rel` when it names a file inside the repository, symlinks resolved; an ActionConfigError (one line)
    when it is absolute, climbs out with `..`, or a symlink (its own or a folder's) leads outside."""
    if leaves_repository(rel):
        raise ActionConfigError(f"{named_by} names {rel!r}, which is outside the repository: only specs inside "
                                "it are checked")
    root = os.path.realpath(workspace)
    if not is_within(os.path.realpath(os.path.join(root, rel)), root):
        raise ActionConfigError(f"{named_by} names {rel!r}, a symlink that leads outside the repository: only "
                                "specs inside it are checked")
    return rel


def expand_globs(workspace: Path, patterns: Iterable[str]) -> list[str]:
    found: list[str] = []
    for pattern in patterns:
        if leaves_repository(pattern):
            raise ActionConfigError(f"input 'specs' has {pattern!r}, which is outside the repository: give globs "
                                    "relative to its root")
        for match in sorted(workspace.glob(pattern)):
            rel = match.relative_to(workspace).as_posix()
            if rel not in found and inside(workspace, rel, "input 'specs'") and match.is_file():
                found.append(rel)
    return found


def all_specs(workspace: Path) -> list[str]:
    tracked = _git_lines(workspace, "ls-files") or []
    return [p for p in tracked if p.lower().endswith(SPEC_SUFFIXES) and inside(workspace, p, "the repository")
            and looks_like_openapi(workspace / p)]


def select_specs(workspace: Path, globs: tuple[str, ...], configured: tuple[str, ...], base: str | None,
                 head: str | None) -> list[str]:
    """Globs if given, else the config's specs, else changed OpenAPI files (all of them without a base)."""
    if globs:
        return expand_globs(workspace, globs)
    if configured:
        return [p for p in configured if inside(workspace, p, "the config's specs[].path")
                and (workspace / p).is_file()]
    if base and head:
        changed = changed_files(workspace, base, head)
        if changed is not None:
            return affected_specs(workspace, changed)
    return all_specs(workspace)


def affected_specs(workspace: Path, changed: list[str]) -> list[str]:
    """Changed specs, plus specs next to (or above) a changed YAML/JSON file they may `$ref`."""
    specs = [p for p in changed if p.lower().endswith(SPEC_SUFFIXES) and inside(workspace, p, "the change")
             and looks_like_openapi(workspace / p)]
    others = [p for p in changed if p not in specs and p.lower().endswith(SPEC_SUFFIXES)]
    if others:
        for spec in all_specs(workspace):
            folder = Path(spec).parent.as_posix()
            prefix = "" if folder == "." else folder + "/"
            if spec not in specs and any(o.startswith(prefix) for o in others):
                specs.append(spec)
    return specs
