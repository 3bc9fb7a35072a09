"""The specs we bench on, dumped to YAML by the common writers, read to the same fields as the originals.

ruamel (round-trip and safe dumpers, C and pure, default, block and flow styles; its flow style writes
`{url: https://x}`, which libyaml 0.1's parser refuses) and PyYAML (C and pure dumpers). The real specs are
../shared/data/*/spec.json next to the checkout (skipped when absent); the fixtures under tests/spec/pinned
and the bundled example specs always run.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped,unused-ignore]
from ruamel.yaml import YAML

from satori_ci.report.spec_text import field_record
from satori_ci.spec import load_spec
from satori_ci.spec.yaml_loader import load_yaml

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
SOURCES = {
    **{f"shared/{p.parent.name}": p for p in sorted(SHARED.glob("*/spec.json"))},
    "pinned/swagger": REPO / "tests" / "spec" / "pinned" / "swagger.json",
    "pinned/api": REPO / "tests" / "spec" / "pinned" / "api.yaml",
    "bookshop/v2": REPO / "satori_ci" / "examples" / "bookshop" / "openapi.v2.yaml",
}


def _ruamel(typ: str, pure: bool, flow: bool | None, width: int | None) -> Any:
    def dump(data: Any) -> str:
        writer = YAML(typ=typ, pure=pure)
        writer.sort_base_mapping_type_on_output = False  # keep the spec's order (the safe dumper sorts)
        if flow is not None:
            writer.default_flow_style = flow
        if width is not None:
            writer.width = width
        out = io.StringIO()
        writer.dump(data, out)
        return out.getvalue()

    return dump


def _pyyaml(dumper: Any, flow: bool | None) -> Any:
    def dump(data: Any) -> str:
        return str(yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=flow, allow_unicode=True))

    return dump


DUMPERS = {
    **{f"ruamel-rt-{flow}-{width}": _ruamel("rt", False, flow, width)
       for flow in (None, False, True) for width in (None, 4096)},
    **{f"ruamel-safe-{flow}": _ruamel("safe", False, flow, None) for flow in (None, False, True)},
    **{f"ruamel-safe-pure-{flow}": _ruamel("safe", True, flow, None) for flow in (None, False, True)},
    **{f"pyyaml-C-{flow}": _pyyaml(yaml.CSafeDumper, flow) for flow in (None, False, True)},
    "pyyaml-pure": _pyyaml(yaml.SafeDumper, False),
}


def _records(path: Path) -> list[str]:
    """Each field as its `fields --json` record without `source` (the file and line differ by design)."""
    out = []
    for f in load_spec(str(path)).fields:
        record = field_record(f)
        del record["source"]
        out.append(json.dumps(record, ensure_ascii=False, default=str))  # NaN-safe, unlike comparing floats
    return out


def _load_original(path: Path) -> Any:
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    return load_yaml(path.read_bytes(), path.name)[0]  # YAML 1.2 typing, as the spec stage reads it


@pytest.mark.parametrize("dumper", sorted(DUMPERS))
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_yaml_dump_reads_to_the_same_fields(tmp_path: Path, source: str, dumper: str) -> None:
    original = SOURCES[source]
    for sibling in original.parent.glob("*.json"):  # the files its $refs name
        shutil.copy(sibling, tmp_path / sibling.name)
    shutil.copy(original, tmp_path / original.name)
    copy = tmp_path / f"dumped-{original.stem}.yaml"
    copy.write_text(DUMPERS[dumper](_load_original(original)), encoding="utf-8")
    expected = _records(tmp_path / original.name)
    assert expected
    assert _records(copy) == expected


def test_the_flow_dumps_are_read_by_libyaml_0_2_not_the_pure_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """ruamel's flow style of a spec with URLs, which ruamel's own C parser (libyaml 0.1) refuses, is composed by
    PyYAML's C parser (libyaml 0.2): a flow-style spec is read at C speed, the pure-Python parser never called."""
    from satori_ci.spec import yaml_loader

    if yaml_loader._LibyamlParser is None or yaml_loader._CParser is None:
        pytest.skip("no C parser")
    text = DUMPERS["ruamel-rt-True-None"](_load_original(SOURCES["bookshop/v2"]))
    assert "url: http://localhost:8080]" in text
    with pytest.raises(Exception, match="unexpected ':'"):
        yaml_loader._FastParser(text.encode()).get_single_node()

    def _no_pure(data: bytes) -> None:
        raise AssertionError("the pure-Python parser was called")

    monkeypatch.setattr(yaml_loader, "_compose_pure", _no_pure)
    value, _ = load_yaml(text.encode(), "flow.yaml")
    assert value["servers"][0]["url"] == "http://localhost:8080"
