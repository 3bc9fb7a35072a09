"""One schema seen through its `$ref`s and `allOf`/`oneOf`/`anyOf` members, merged (contract §1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from satori_ci.spec.documents import DocumentSet
from satori_ci.spec.pointers import escape_token

Part = tuple[Any, str, str]
"""A schema node, the file it is in, and its JSON pointer there."""

_STRUCTURE = frozenset({"properties", "items", "additionalProperties", "allOf", "oneOf", "anyOf", "$ref"})


@dataclass
class SchemaView:
    """Keywords merged first-wins (the schema's own, then `$ref` target and `allOf` members)."""

    keywords: dict[str, Any] = field(default_factory=dict)
    types: list[str] = field(default_factory=list)
    alt_types: list[str] = field(default_factory=list)
    nullable: bool = False
    properties: dict[str, list[Part]] = field(default_factory=dict)
    items: list[Part] = field(default_factory=list)
    additional: list[Part] = field(default_factory=list)
    ids: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    cost: int = 0
    """The work merging took: the nodes merged, their keys and their properties (the walk's budget)."""

    def json_type(self) -> str | None:
        """The field's type: one of the JSON types, several joined by `|`, or None when unknown."""
        chosen = self.types or self.alt_types
        if not chosen:
            if self.properties or self.additional:
                return "object"
            if self.items:
                return "array"
            return _type_of_values(self.keywords.get("enum"), self.keywords.get("const"))
        unique = list(dict.fromkeys(chosen))
        return unique[0] if len(unique) == 1 else "|".join(unique)


def _type_of_values(enum: Any, const: Any) -> str | None:
    values = [v for v in (enum if isinstance(enum, list) else [const]) if v is not None]
    kinds = {_json_type(v) for v in values}
    return kinds.pop() if len(kinds) == 1 else None


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def build_view(documents: DocumentSet, parts: list[Part], ancestors: set[int]) -> SchemaView | None:
    """Merge `parts` into one view; None when the schema contains itself (a cycle on this path)."""
    view, complete = build_view_or_cut(documents, parts, ancestors)
    return view if complete else None


def build_view_or_cut(documents: DocumentSet, parts: list[Part], ancestors: set[int]) -> tuple[SchemaView, bool]:
    """Merge `parts` into one view, and whether it is complete (False: the schema contains itself).

    Either way `view.ids` holds every node looked at, the one found among `ancestors` included: the
    outcome depends on `ancestors` only through them.
    """
    view = SchemaView()
    for node, file, pointer in parts:
        if not _absorb(documents, view, node, file, pointer, ancestors, alternative=False):
            return view, False
    return view, True


def _absorb(documents: DocumentSet, view: SchemaView, node: Any, file: str, pointer: str,
            ancestors: set[int], alternative: bool) -> bool:
    if not isinstance(node, dict):
        return True  # `true`/`false` schemas and junk carry nothing
    if id(node) in ancestors:
        view.ids.add(id(node))
        return False
    if id(node) in view.ids:
        return True
    view.ids.add(id(node))
    view.cost += 1 + len(node)
    _take_keywords(view, node, alternative)
    _take_structure(documents, view, node, file, pointer, alternative)
    if "$ref" in node:
        resolved = documents.follow(node["$ref"], file, pointer)
        if resolved.note is not None:
            view.notes.append(resolved.note)
        elif not _absorb(documents, view, resolved.node, resolved.file, resolved.pointer, ancestors, alternative):
            return False
    if "allOf" in node:
        for index, member in enumerate(_members(node, "allOf")):
            if not _absorb(documents, view, member, file, f"{pointer}/allOf/{index}", ancestors, alternative):
                return False
    for keyword in ("oneOf", "anyOf"):
        if keyword not in node:  # most schemas have neither
            continue
        members = _members(node, keyword)
        single = sum(1 for member in members if not _is_null_schema(member)) == 1
        for index, member in enumerate(members):
            if _is_null_schema(member):
                view.nullable = True
                continue
            as_alternative = alternative or not single  # `oneOf: [X, null]` is just a nullable X
            if not _absorb(documents, view, member, file, f"{pointer}/{keyword}/{index}", ancestors,
                           as_alternative):
                return False
    return True


def _members(node: dict[str, Any], keyword: str) -> list[Any]:
    members = node.get(keyword)
    return members if isinstance(members, list) else []


def _is_null_schema(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null" and len(node) == 1


def _take_keywords(view: SchemaView, node: dict[str, Any], alternative: bool) -> None:
    declared = node.get("type")
    if isinstance(declared, list):
        if "null" in declared:
            view.nullable = True
        names = [t for t in declared if isinstance(t, str) and t != "null"]
    elif isinstance(declared, str) and declared != "null":
        names = [declared]
    else:
        names = []
    if declared == "null":
        view.nullable = True
    if names:
        (view.alt_types if alternative else view.types).extend(names)
    if node.get("nullable") is True:
        view.nullable = True
    if alternative:
        return  # an alternative's own keywords do not hold for the whole field
    for key, value in node.items():
        if key not in _STRUCTURE and key != "type":
            view.keywords.setdefault(key, value)


def _take_structure(documents: DocumentSet, view: SchemaView, node: dict[str, Any], file: str, pointer: str,
                    alternative: bool) -> None:
    properties = node.get("properties")
    if isinstance(properties, dict):
        view.cost += len(properties)
        known = documents.property_parts.get(id(properties))
        if known is not None and known[0] == file and known[1] == pointer:
            parts = known[2]
        else:
            parts = [(name, (schema, file, f"{pointer}/properties/{escape_token(name)}"))
                     for name, schema in properties.items()]
            documents.property_parts[id(properties)] = (file, pointer, parts)
        for name, part in parts:
            existing = view.properties.get(name)
            if existing is None:
                view.properties[name] = [part]
            elif not alternative:
                existing.append(part)  # allOf: both constraints hold
    items = node.get("items")
    if isinstance(items, dict) and (not view.items or not alternative):
        view.items.append((items, file, f"{pointer}/items"))
    additional = node.get("additionalProperties")
    if isinstance(additional, dict) and additional and (not view.additional or not alternative):
        view.additional.append((additional, file, f"{pointer}/additionalProperties"))
