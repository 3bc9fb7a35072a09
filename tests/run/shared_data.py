"""The labelled operations in ../shared/data: spec, oracles (labels.jsonl), null-like set, recorded responses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satori_ci.oracles.file import normalize_value
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import OperationKey
from tests.run.conftest import SHARED_DATA


@dataclass(frozen=True)
class Folder:
    name: str
    path: Path
    method: str
    op_path: str
    null_like: tuple[str, ...]
    oracles: tuple[Oracle, ...]
    lines: tuple[str, ...]
    """responses.jsonl, one recorded response a line."""

    @property
    def spec(self) -> str:
        return str(self.path / "spec.json")


def oracle_from_line(line: dict[str, Any]) -> Oracle:
    """An interchange line (contract §3) as an Oracle."""
    kind = OracleKind(line["oracle"])
    return Oracle(OperationKey(line["method"], line["path"], str(line["status"])), line["field"], kind,
                  normalize_value(kind, line.get("value")), str(line.get("source") or "label"),
                  str(line.get("reason") or ""), operation_id=line.get("operation_id"))


def folders() -> list[Folder]:
    found = []
    for path in sorted(SHARED_DATA.glob("*/")) if SHARED_DATA.is_dir() else []:
        needed = [path / n for n in ("spec.json", "meta.json", "labels.jsonl", "responses.jsonl")]
        if not all(p.is_file() for p in needed):
            continue
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        labels = [json.loads(x) for x in (path / "labels.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
        lines = tuple(x for x in (path / "responses.jsonl").read_text(encoding="utf-8").splitlines() if x.strip())
        found.append(Folder(path.name, path, meta["method"], meta["path"], tuple(meta.get("null_like") or ()),
                            tuple(oracle_from_line(x) for x in labels), lines))
    return found
