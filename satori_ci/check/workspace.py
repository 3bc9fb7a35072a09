"""The repository's files that a check reads and writes, for the CLI and the action alike: where an oracle file
goes, the refusal of a path that leads outside the repository, writes that are all or nothing, and the team's
Postman collection read from the working tree or a commit (its credentials named for the redactor)."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from satori_ci.errors import terminate_as_interrupt
from satori_ci.oracles.errors import OracleFileError
from satori_ci.oracles.file import oracle_file_name
from satori_ci.postman.export import BASE_URL_VARIABLE
from satori_ci.postman.read import TeamCollection, TeamCollectionError, read_team_collection
from satori_ci.redaction import header_secrets, key_like
from satori_ci.spec.errors import SpecError
from satori_ci.spec.source import git_toplevel, is_within, open_source


def default_oracle_path(spec_file: str, directory: str = ".satori") -> Path:
    """`.satori/<spec path with / as .>.oracles.yaml`, e.g. `api/openapi.yaml` -> `.satori/api.openapi.oracles.yaml`;
    a relative `directory` is at the repository's root (whichever folder the command runs from), the path is
    given relative to the current folder."""
    name = oracle_file_name(Path(spec_file).as_posix())
    if Path(directory).is_absolute():
        return Path(directory) / name
    root = git_toplevel(os.getcwd())
    if root is None:
        return Path(directory) / name
    return Path(os.path.relpath(Path(root) / directory / name))


def workspace_root() -> str:
    """Where oracle files may be written: the current directory's git repository, else the directory itself
    (symlinks resolved)."""
    cwd = os.getcwd()
    return os.path.realpath(git_toplevel(cwd) or cwd)


def ensure_inside_workspace(path: Path, *, outside_ok: bool = False) -> None:
    """Refuse (OracleFileError, one line) an oracle file path that is outside the repository, or that a
    symlink (of the file or of a parent folder, e.g. a `.satori` that a pull request made a link) takes
    outside it. `outside_ok`: an absolute path the user typed that names a place outside the repository
    (not through it) is their own choice."""
    root = workspace_root()
    absolute = os.path.abspath(path)
    real = os.path.realpath(absolute)
    if is_within(real, root):
        return
    if not is_within(absolute, root):
        if outside_ok:
            return
        raise OracleFileError(f"{path}: outside the repository ({root}); oracle files are written inside it")
    raise OracleFileError(f"{path}: a symlink leads outside the repository ({real}); refused, "
                          "oracle files are written inside it")


def write_atomically(path: Path, text: str, *, outside_ok: bool = False) -> None:
    """Write `text` to `path` (0666 less the umask, like any file the user writes), all or nothing, refusing
    a path outside the repository (see `ensure_inside_workspace`). A write cut short (an error, Ctrl-C,
    SIGTERM) leaves the previous file as it was and no temporary file."""
    ensure_inside_workspace(path, outside_ok=outside_ok)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _terminate_as_interrupt():
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # like any file the user writes (mkstemp makes it 0600)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """In the block, SIGTERM raises KeyboardInterrupt (when nothing else handles it), so what it cuts short
    cleans up after itself instead of dying half done."""
    if not in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _read(ref: str) -> str:
    """A file of the repository (or `REV:path`), confined to it."""
    try:
        reader = open_source(ref)
        return reader.read(reader.entry).decode("utf-8")
    except SpecError as exc:
        raise TeamCollectionError(str(exc)) from None
    except UnicodeDecodeError:
        raise TeamCollectionError(f"{ref}: not UTF-8 text") from None


def team_secrets(team: TeamCollection | None) -> list[str]:
    """The credentials of a team collection: what its auth sends (header and query values, token, password), its
    secret-typed values and the values of its key-like variables (`token`, `apiKey`): for the redactor, so that no
    report (a team test's message included) shows them."""
    if team is None:
        return []
    values = (*team.environment, *team.variables, *team.globals)
    out: list[str] = [*team.secrets, *(v for k, v in values if key_like(k))]
    for request in team.requests:
        auth = request.auth
        if auth is None:
            continue
        header, query = auth.header(), auth.query()
        out += header_secrets([header[1]]) if header else []
        out += [query[1]] if query else []
        out += [auth.param("token"), auth.param("password")]
    return [v for v in out if v and "{{" not in v]


def load_team(collection: str | None, environment: str | None, rev: str | None = None,
              base_url: str | None = None) -> TeamCollection | None:
    """The team's collection (and environment), read from the working tree or, with `rev`, from that commit; the
    base URL the user gave (`base_url`: a flag, an input, the trusted config) is the team's `{{baseUrl}}`, whatever
    its environment or variables say."""
    if collection is None:
        if environment is not None:
            raise TeamCollectionError(f"{environment}: an environment file needs a collection "
                                      "(--postman-collection or requests.collection)")
        return None
    name = f"{rev}:{collection}" if rev else collection
    env_name = (f"{rev}:{environment}" if rev else environment) if environment else None
    overrides = ((BASE_URL_VARIABLE, base_url),) if base_url else ()
    return read_team_collection(_read(name), name, _read(env_name) if env_name else None, env_name,
                                overrides=overrides)
