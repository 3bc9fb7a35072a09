"""What satori-ci reads of a team collection's scripts without running them: whether there are any, and which
variables they set. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from satori_ci.postman.urls import text_of

SETS = re.compile(r"""\b(?:pm\s*\.\s*(?:collectionVariables|environment|globals|variables)\s*\.\s*set|"""
                  r"""postman\s*\.\s*set(?:Environment|Global)Variable)\s*\(\s*(['"`])([^'"`{}]{1,200})\1""")
"""A script's `pm.collectionVariables.set("name", …)` (or environment, globals, variables; or the legacy
`postman.setEnvironmentVariable`) with a literal name: group 2."""


def has_scripts(node: dict[str, Any]) -> bool:
    """Whether `node` has an enabled pre-request or test event with a non-blank script."""
    return any(event.get("listen") in ("prerequest", "test") and script_text(event.get("script")).strip()
               for event in _events(node))


def script_text(script: Any) -> str:
    """An event's script as one text (`exec` lines joined)."""
    if isinstance(script, str):
        return script
    code = script.get("exec") if isinstance(script, dict) else None
    if isinstance(code, list):
        return "\n".join(text_of(line) for line in code)
    return text_of(code)


def setters(node: dict[str, Any], names: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(variable, where) for each `set` call with a literal name in the scripts of `node` and below, depth first;
    where is the item's `Folder/Name`, or "the collection"."""
    where = "/".join(names) or "the collection"
    for event in _events(node):
        for found in SETS.finditer(script_text(event.get("script"))):
            yield found.group(2), where
    items = node.get("item")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict):
            yield from setters(item, (*names, text_of(item.get("name"))))


def _events(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    events = node.get("event")
    for event in events if isinstance(events, list) else ():
        if isinstance(event, dict) and event.get("disabled") is not True:
            yield event
