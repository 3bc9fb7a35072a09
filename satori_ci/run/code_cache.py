"""Where Newman's compiled JavaScript is kept between runs (`satori-preload.js` reads and writes it)."""

from __future__ import annotations

from pathlib import Path

CODE_CACHE_ENV = "SATORI_CODE_CACHE"
"""Names the file `satori-preload.js` keeps V8's compiled code in; only satori-ci sets it (`code_cache_env`)."""
CODE_CACHE_NAME = "newman-code-cache.bin"


def code_cache_file(newman: str) -> Path | None:
    """The cache file of a newman binary: in the node_modules folder that holds it, so that only who can change
    Newman can change what it runs; None where newman is not in a node_modules folder."""
    try:
        real = Path(newman).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    for folder in real.parents:
        if folder.name == "node_modules":
            return folder / ".cache" / "satori-ci" / CODE_CACHE_NAME
    return None


def code_cache_env(newman: str, env: dict[str, str]) -> dict[str, str]:
    """`env` for Newman's process with this newman's cache file, and never one the user's environment named."""
    out = {name: value for name, value in env.items() if name != CODE_CACHE_ENV}
    cache = code_cache_file(newman)
    if cache is not None:
        out[CODE_CACHE_ENV] = str(cache)
    return out
