"""What a partial report is bound to, as a job reads its own checkout: the commit (and base) and the trusted
config's digest (`RunBinding`), and per spec the digests of its documents, of the oracle file and of the store,
and where the oracle file is (`SpecBinding`, `bind_spec`). The shard job writes them into its report; the merge
job computes the same values itself (never takes them from a report) and refuses a report whose binding
differs (`merge`)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from satori_ci.check.stores import store_file_of
from satori_ci.config import ProjectConfig
from satori_ci.oracles.errors import OracleFileError
from satori_ci.shard.codec import digest, encode_as
from satori_ci.spec import SpecError
from satori_ci.spec.source import SourceReader, open_source

MAX_BOUND_FILES = 10_000
"""The documents of one spec that a binding names, at most (the merge reads no more of them)."""


@dataclass(frozen=True)
class SpecBinding:
    """What one spec of a partial report is bound to, as a job reads its own checkout: the shard writes it, the
    merge computes it again (never takes it from a report) and refuses a report whose binding differs."""

    spec: str
    """The spec's repository path (the config's, or the one `--head` names)."""
    files: tuple[tuple[str, str | None], ...]
    """(path under the spec's root, sha256 of its bytes; None: it cannot be read) of every document the spec was
    read from, the entry first (remote documents left out: the merge fetches nothing)."""
    oracle_file: str
    """Where the job reads and writes the oracle file (the observation store is next to it)."""
    oracle: str | None
    """sha256 of the oracle file's bytes; None: there is none."""
    store: str | None
    """sha256 of the observation store's bytes; None: there is none."""


def _file_sha(path: str) -> str | None:
    """sha256 of a regular file's bytes (read in chunks); None when there is no such file."""
    if not os.path.isfile(path):  # no such file (and never a pipe or a device, which a read would wait on)
        return None
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OracleFileError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _document_sha(reader: SourceReader, name: str) -> str | None:
    """sha256 of a document under the reader's root; None for a name that is not a plain relative path there
    (`..`, absolute, `.git/`) or a document that cannot be read."""
    if reader.join("", name) != name or name.split("/", 1)[0] == ".git":
        return None
    try:
        if reader.rev is not None:
            return hashlib.sha256(reader.read(name)).hexdigest()
        return _file_sha(reader.confined(name))
    except (SpecError, OracleFileError):
        return None


def bind_spec(head: str, spec: str, oracle_file: Path, files: Sequence[str] = ()) -> SpecBinding:
    """The binding of one spec as this job reads it: its entry document (`head`: a file or `REV:path`) and the
    other documents `files` names (the ones it was read from; in a merge, the ones a report names), the oracle
    file at `oracle_file` and the store next to it. Reads, never raises for a file that is missing."""
    try:
        reader = open_source(head)
    except SpecError:
        documents: tuple[tuple[str, str | None], ...] = ((head, None),)
    else:
        names = [n for n in dict.fromkeys(files) if n != reader.entry and not n.startswith(("http://", "https://"))]
        documents = tuple((n, _document_sha(reader, n)) for n in [reader.entry, *names[:MAX_BOUND_FILES]])
    return SpecBinding(spec, documents, oracle_file.as_posix(), _file_sha(str(oracle_file)),
                       _file_sha(str(store_file_of(oracle_file))))


@dataclass(frozen=True)
class RunBinding:
    """What every partial report of one check is bound to besides its specs, as a job computes it from its own
    checkout and trusted inputs (the shard job writes it, the merge job computes it again)."""

    commit: str | None
    """The commit checked: the action's head commit (`GITHUB_SHA` when there is no pull request); on the command
    line `git rev-parse HEAD` (None outside a repository: the specs' digests still bind the report)."""
    base: str | None
    """The base commit a pull request is compared with (the action); None on the command line."""
    config: str
    """`config_digest` of the trusted config."""


def config_digest(config: ProjectConfig) -> str:
    """The digest of a config's values (not of the name of the file they were read from)."""
    plain = replace(config, source=None, specs=tuple(replace(s, source="") for s in config.specs))
    return digest(encode_as(ProjectConfig, plain))
