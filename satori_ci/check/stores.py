"""The files a check reads next to a spec: the oracle file as it was, and the observation stores (the one next
to the oracle file, and the trusted one at a base commit or in a file)."""

from __future__ import annotations

import os
from pathlib import Path

from satori_ci.observe.store import (
    MAX_STORE_BYTES,
    ObservationStore,
    ObservationStoreError,
    load_store,
    store_path,
)
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import OracleFile, load_oracle_file
from satori_ci.spec import SpecError, SpecErrorKind
from satori_ci.spec.source import open_source


def read_previous(path: Path) -> OracleFile | None:
    if not path.exists():
        return None
    try:
        return load_oracle_file(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise OracleFileError(f"{path}: cannot read ({exc})") from None


def store_file_of(oracle_file: Path) -> Path:
    """The observation store next to an oracle file (`.satori/x.oracles.yaml` -> `.satori/x.observed.json`)."""
    return Path(store_path(str(oracle_file)))


def read_store(path: Path) -> ObservationStore | None:
    """The store file at `path`, or None when there is none yet."""
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ObservationStoreError(f"{path}: cannot read ({exc})") from None
    return load_store(text, str(path))


def read_store_at(where: str) -> ObservationStore | None:
    """A store at `REV:path` (read from git) or in a file; None when there is none."""
    if os.path.exists(where) or ":" not in where:
        return read_store(Path(where))
    try:
        reader = open_source(where, max_bytes=MAX_STORE_BYTES)
        data = reader.read(reader.entry)
    except SpecError as exc:
        if exc.kind is SpecErrorKind.NOT_FOUND:
            return None
        raise ObservationStoreError(str(exc)) from None
    return load_store(data.decode("utf-8", "replace"), where)
