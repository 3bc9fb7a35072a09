"""The team's collection with the assertions added (`assertify`): a copy of it, nothing else changed. Pure."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from satori_ci.postman.read import TeamCollection
from satori_ci.postman.urls import text_of


def assertify(team: TeamCollection, tests: Mapping[str, Sequence[str]],
              variables: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """A copy of `team.raw`: every request item carries its `TeamRequest.id`, the items in `tests` get that
    test script after their own test events, `variables` are set in the collection's variables."""
    unknown = sorted(set(tests) - {r.id for r in team.requests})
    if unknown:
        raise ValueError(f"{team.source}: no request with id {', '.join(unknown)}")
    out = copy.deepcopy(team.raw)
    for request in team.requests:
        item = _item_at(out, request.index_path)
        if item.get("id") != request.id:
            item["id"] = request.id
        if request.id in tests:
            script = {"type": "text/javascript", "exec": list(tests[request.id])}
            item.setdefault("event", []).append({"listen": "test", "script": script})
    _set_variables(out, variables)
    return out


def _item_at(raw: dict[str, Any], index: tuple[int, ...]) -> dict[str, Any]:
    node = raw
    for i in index:
        node = node["item"][i]
    return node


def _set_variables(raw: dict[str, Any], variables: Sequence[tuple[str, str]]) -> None:
    """Each (key, value) replaces the value of the collection variables with that key (enabling them), or is
    appended."""
    if not variables:
        return
    entries = raw.setdefault("variable", [])
    for key, value in variables:
        found = [e for e in entries if isinstance(e, dict) and text_of(e.get("key", e.get("id"))) == key]
        for entry in found:
            entry["value"] = value
            entry.pop("disabled", None)
        if not found:
            entries.append({"key": key, "value": value, "type": "string"})
