"""Shard reports as an attacker who can upload artifacts writes them: genuine reports edited as text, with every
digest they carry recomputed from the published format (a digest over the report's own content proves nothing)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _sha(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def redigest(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reports (shard 1 first) with each spec's `check` digest and each report's `digest` recomputed."""
    carrier = data[0]
    for n, spec in enumerate(carrier.get("specs") or []):
        check = _sha(spec["common"])
        for report in data:
            report["specs"][n]["check"] = check
    for report in data:
        report["digest"] = _sha({k: v for k, v in report.items() if k != "digest"})
    return data


def forge(reports: Sequence[Path], into: Path, edit: Callable[[str], str]) -> list[Path]:
    """`reports` (shard 1 first) rewritten by `edit` (their text), digests recomputed, written into `into`
    under the same names."""
    into.mkdir(parents=True, exist_ok=True)
    data = redigest([json.loads(edit(path.read_text(encoding="utf-8"))) for path in reports])
    out = []
    for path, report in zip(reports, data, strict=True):
        target = into / path.name
        target.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
        out.append(target)
    return out
