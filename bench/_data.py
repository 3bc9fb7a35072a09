"""Reading the labelled data (the AGORA data set folder, ../shared/data by default): labels and their matching."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
"""Where the labelled-data benches look for the data set unless given `--data DIR`."""


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """The benches' `--data DIR` option (default `DEFAULT_DATA`)."""
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, metavar="DIR",
                        help=f"the labelled data set folder, one folder per operation (default {DEFAULT_DATA})")


def require_data(data: Path) -> Path:
    """`data` when it is a folder; else one line on stderr naming it and `--data DIR`, and exit 2."""
    if not data.is_dir():
        print(f"no data folder {data}: this bench needs the labelled AGORA data set; "
              "pass its folder with --data DIR", file=sys.stderr)
        raise SystemExit(2)
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def match_key(line: dict[str, Any]) -> tuple[str, str, str, str, str]:
    """What two interchange lines must share before their values are compared (contract §3)."""
    return (line["method"], line["path"], str(line["status"]), line["field"], line["oracle"])


def _norm(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return frozenset(_norm(v) for v in value)
    return json.dumps(value, sort_keys=True)


def same_value(a: Any, b: Any) -> bool:
    """Values equal as the contract compares them: numbers numerically, lists as sets."""
    return bool(_norm(a) == _norm(b))


def api_of(folder: str) -> str:
    """The API a labelled folder belongs to: `omdb-bySearch` and `omdb-byIdOrTitle` are both `omdb`."""
    return folder.split("-", 1)[0]
