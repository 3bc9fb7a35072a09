"""Agreement of `load_spec`'s field lists with the labelled `../shared/data/*/fields.jsonl`.

For each folder: load `spec.json`, take the fields of the operation that `meta.json` names (method,
path, and the operation_id of the `fields.jsonl` lines), and compare line for line with
`fields.jsonl`. Our line is `satori_ci.report.spec_text.field_record` without the bookkeeping keys
(`fingerprint`, `source`, `notes`); the keys compared are field, type, operation_id, method, path,
status and the facts.

    python3 bench/fields_agree.py [--data DIR]   (default ../shared/data)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _data
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's satori_ci

from _data import add_data_option, require_data

from satori_ci.report.spec_text import field_record
from satori_ci.spec import SpecError, load_spec

BOOKKEEPING = ("fingerprint", "source", "notes")


def _ours(spec_path: Path, method: str, path: str, operation_ids: set[str | None]) -> list[dict[str, Any]]:
    spec = load_spec(str(spec_path))
    out = []
    for field in spec.fields:
        if field.operation.method != method.upper() or field.operation.path != path:
            continue
        if operation_ids and field.operation_id not in operation_ids:
            continue
        record = field_record(field)
        for key in BOOKKEEPING:
            record.pop(key, None)
        out.append(record)
    return out


def _describe(record: dict[str, Any] | None) -> str:
    if record is None:
        return "(none)"
    return json.dumps(record, ensure_ascii=False, sort_keys=True)[:400]


def _differences(ours: dict[str, Any], theirs: dict[str, Any]) -> str:
    keys = sorted(set(ours) | set(theirs))
    parts = [f"{k}: ours {ours.get(k, '(absent)')!r} vs labelled {theirs.get(k, '(absent)')!r}"
             for k in keys if ours.get(k, _ABSENT) != theirs.get(k, _ABSENT)]
    return "; ".join(parts)[:600]


_ABSENT = object()


def compare(folder: Path) -> tuple[int, int, list[str]]:
    """(lines that agree, lines compared, one message per disagreement) for one data folder."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    theirs = [json.loads(line) for line in (folder / "fields.jsonl").read_text(encoding="utf-8").splitlines()
              if line.strip()]
    operation_ids = {line.get("operation_id") for line in theirs}
    try:
        ours = _ours(folder / "spec.json", meta["method"], meta["path"], operation_ids)
    except SpecError as exc:
        return 0, len(theirs), [f"load_spec failed: {exc}"]
    problems: list[str] = []
    agree = 0
    for index in range(max(len(ours), len(theirs))):
        mine = ours[index] if index < len(ours) else None
        label = theirs[index] if index < len(theirs) else None
        if mine == label:
            agree += 1
            continue
        if mine is not None and label is not None and mine.get("field") == label.get("field"):
            problems.append(f"line {index + 1} ({label['field']!r}): {_differences(mine, label)}")
        else:
            problems.append(f"line {index + 1}: ours {_describe(mine)}\n      labelled {_describe(label)}")
    return agree, max(len(ours), len(theirs)), problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    args = parser.parse_args()
    folders = sorted(p for p in require_data(args.data).iterdir()
                     if (p / "fields.jsonl").is_file() and (p / "spec.json").is_file())
    if not folders:
        print(f"no data folders under {args.data}", file=sys.stderr)
        return 2
    total_agree = total_lines = 0
    for folder in folders:
        agree, lines, problems = compare(folder)
        total_agree += agree
        total_lines += lines
        print(f"{folder.name}: {agree}/{lines} lines agree")
        for problem in problems:
            print(f"    {problem}")
    share = total_agree / total_lines if total_lines else 0.0
    print(f"overall: {total_agree}/{total_lines} lines agree ({share:.1%}) over {len(folders)} folders")
    return 0 if total_agree == total_lines else 1


if __name__ == "__main__":
    raise SystemExit(main())
