"""The per-field prompt (SATORI §III-A): a system message, then one user message with a
context part, a properties part and an oracles part with one question per applicable kind.

The text is a pure function of the field: the same field always gives a byte-identical prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from satori_ci.oracles.kinds import OracleKind, kinds_for_type
from satori_ci.spec.model import ResponseField

SYSTEM_PROMPT = (
    "You are an expert in testing REST APIs. From the OpenAPI description of one response field, "
    "you infer test oracles: properties that every value of that field must satisfy in every "
    "successful response. Answer with a JSON object only: no explanation, no Markdown, no code "
    "fences, nothing before or after the object."
)

REASONS_KEY = "reasons"


@dataclass(frozen=True)
class Question:
    """How one oracle kind is asked for: the question, the answer's JSON type and its default."""

    text: str
    json_type: str
    default: str
    """The answer when the property does not hold, as JSON text: `false` or `null`."""


QUESTIONS: dict[OracleKind, Question] = {
    OracleKind.STRING_IS_URL: Question(
        "Is every value an absolute URL, such as https://example.com/path?", "boolean", "false"),
    OracleKind.STRING_IS_NUMERIC: Question(
        "Is every value a decimal number written as text, such as \"42\" or \"-3.5\"?", "boolean", "false"),
    OracleKind.STRING_SPECIFIC_VALUES: Question(
        "Can the field only take values from a fixed list? If so, give the complete list "
        "(exact, case-sensitive strings).", "array of strings", "null"),
    OracleKind.STRING_IS_EMAIL: Question(
        "Is every value an email address?", "boolean", "false"),
    OracleKind.STRING_IS_DATE: Question(
        "Is every value a calendar date without a time of day, such as 2024-05-31?", "boolean", "false"),
    OracleKind.STRING_IS_TIME: Question(
        "Is every value a time of day or a date-time, such as 14:30 or 2024-05-31T14:30:00Z?",
        "boolean", "false"),
    OracleKind.STRING_FIXED_LENGTH: Question(
        "Does every value have the same number of characters? If so, give that number.", "integer", "null"),
    OracleKind.BOOLEAN_ALWAYS_TRUE: Question(
        "Is the value always true?", "boolean", "false"),
    OracleKind.BOOLEAN_ALWAYS_FALSE: Question(
        "Is the value always false?", "boolean", "false"),
    OracleKind.NUMBER_MIN_VALUE: Question(
        "Is there a smallest value the field can take? If so, give it.", "number", "null"),
    OracleKind.NUMBER_MAX_VALUE: Question(
        "Is there a largest value the field can take? If so, give it.", "number", "null"),
    OracleKind.NUMBER_SPECIFIC_VALUES: Question(
        "Can the field only take values from a fixed list of numbers? If so, give the complete list.",
        "array of numbers", "null"),
    OracleKind.ARRAY_MIN_SIZE: Question(
        "Does the array always have at least a certain number of elements (more than zero)? "
        "If so, give that number.", "integer", "null"),
    OracleKind.ARRAY_MAX_SIZE: Question(
        "Does the array have at most a certain number of elements? If so, give that number.",
        "integer", "null"),
    OracleKind.ARRAY_SPECIFIC_SIZES: Question(
        "Does the array always have one of a few specific lengths? If so, list them.",
        "array of integers", "null"),
    OracleKind.ARRAY_NUMBER_ASC_ORDER: Question(
        "Are the elements always sorted in ascending order?", "boolean", "false"),
    OracleKind.ARRAY_NUMBER_DESC_ORDER: Question(
        "Are the elements always sorted in descending order?", "boolean", "false"),
}


@dataclass(frozen=True)
class Prompt:
    """The two messages sent for one field, and the kinds its questions ask about."""

    system: str
    user: str
    kinds: tuple[OracleKind, ...]


def applicable_kinds(field: ResponseField) -> tuple[OracleKind, ...]:
    return kinds_for_type(field.type, field.facts.items_type)


def _json(value: Any) -> str:
    """Deterministic JSON text for a value of the spec."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _type_text(field: ResponseField) -> str:
    if field.type == "array" and field.facts.items_type:
        return f"array of {field.facts.items_type}"
    return field.type


def context_part(field: ResponseField) -> str:
    op = field.operation
    operation = field.operation_id or "(no operationId)"
    return "\n".join([
        "# Context",
        f"API: {_json(field.api_title)}",
        f"Operation: {operation} ({op.method} {op.path}, response status {op.status})",
        f"Response field: {_json(field.name)}, of type {_type_text(field)}",
        f"The field's path in the response body is {_json(field.field)}",
        "(in paths, `[]` stands for every element of an array and `{}` for every value of a map).",
    ])


def properties_part(field: ResponseField) -> str:
    lines = ["# Properties", "The specification gives the field these properties:",
             f"\"name\": {_json(field.name)}", f"\"type\": {_json(field.type)}"]
    for key, value in field.facts.as_dict().items():
        lines.append(f"{_json(key)}: {_json(value)}")
    return "\n".join(lines)


def oracles_part(kinds: tuple[OracleKind, ...], ask_reasons: bool) -> str:
    lines = [
        "# Oracles",
        "Using this information, answer the following questions about the values this field takes. "
        "Claim a property only when the specification supports it; otherwise give the default.",
    ]
    for number, kind in enumerate(kinds, start=1):
        q = QUESTIONS[kind]
        lines.append(f"{number}. {q.text} JSON property \"{kind.value}\", of type {q.json_type}; "
                     f"{q.default} if not.")
    names = ", ".join(kind.value for kind in kinds)
    lines += ["", "# Answer format",
              f"Answer with one JSON object with exactly these properties: {names}."]
    if ask_reasons:
        lines.append(f"You may add a property \"{REASONS_KEY}\": an object that maps each property you "
                     "set to true or to a value onto a one-line justification.")
    lines.append("Write only the JSON object, with no explanation in natural language.")
    return "\n".join(lines)


def chat_request_body(prompt: Prompt, *, model: str, temperature: float | None = 0.0,
                      max_output_tokens: int | None = None, json_mode: bool = True) -> dict[str, Any]:
    """The JSON body of the chat completion request for `prompt`: what the synchronous client sends, and what
    each line of a Batch API input file carries (`None` settings are not sent)."""
    body: dict[str, Any] = {"model": model, "messages": [{"role": "system", "content": prompt.system},
                                                         {"role": "user", "content": prompt.user}]}
    if temperature is not None:
        body["temperature"] = temperature
    if max_output_tokens is not None:
        body["max_tokens"] = max_output_tokens
    if json_mode:
        body["response_format"] = {"type": "json_object"}
    return body


def build_prompt(field: ResponseField, *, ask_reasons: bool = True) -> Prompt:
    """The prompt for one field. A field with no applicable kind (an object) gets no questions."""
    kinds = applicable_kinds(field)
    user = "\n\n".join([context_part(field), properties_part(field), oracles_part(kinds, ask_reasons)])
    return Prompt(system=SYSTEM_PROMPT, user=user, kinds=kinds)
