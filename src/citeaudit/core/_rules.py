"""The rule table: every finding code, its name, default severity and summary.

Codes are stable: documentation (``docs/rules.md``), configuration and tests refer to them.
A code is ``CA`` plus three digits; the first digit is the family (1 markers, 2 source ids,
3 claims, 4 answer, 5 support).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

__all__ = ["RULES", "Rule", "Severity"]

_CODE = re.compile(r"CA[1-9][0-9]{2}")


class Severity(StrEnum):
    """How much a finding matters. Only ``error`` fails an audit."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Rule:
    """One check's identity: its code, a kebab-case name, default severity and summary."""

    code: str
    name: str
    severity: Severity
    summary: str
    default_enabled: bool = True


def _table(*rules: Rule) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for rule in rules:
        if not _CODE.fullmatch(rule.code):
            raise ValueError(f"rule code {rule.code!r} does not match CA + three digits")
        if rule.code in table:
            raise ValueError(f"rule code {rule.code} registered twice")
        table[rule.code] = rule
    return table


RULES: Mapping[str, Rule] = MappingProxyType(_table(
    Rule("CA101", "malformed-marker", Severity.WARNING,
         "text looks like a marker but breaks the grammar; it is treated as prose"),
    Rule("CA102", "unread-marker", Severity.WARNING,
         "bracketed text looks like a citation but the grammar in use does not read it"),
    Rule("CA201", "unknown-source", Severity.ERROR,
         "a cited id is not in this request's snapshot"),
    Rule("CA202", "out-of-range", Severity.ERROR,
         "a numeric id is outside 1..N (including 0 and negatives)"),
    Rule("CA203", "duplicate-citation", Severity.ERROR,
         "a structured citations list names the same id twice"),
    Rule("CA204", "cited-text-mismatch", Severity.ERROR,
         "a provider citation quotes text its source does not hold at the cited location"),
    Rule("CA205", "location-out-of-bounds", Severity.ERROR,
         "a provider citation's character, page or block range lies outside its source"),
    Rule("CA206", "answer-span-mismatch", Severity.ERROR,
         "a provider citation's range in the answer lies outside the answer text"),
    Rule("CA207", "empty-snapshot", Severity.ERROR,
         "nothing was retrieved for the request: no citation can be verified"),
    Rule("CA301", "missing-citation", Severity.ERROR,
         "a claim carries no citation marker"),
    Rule("CA302", "unmarked-quantity", Severity.ERROR,
         "a claim stating a number or quantity carries no citation marker"),
    Rule("CA401", "answered-without-citation", Severity.ERROR,
         "an answer that is not a refusal cites nothing at all"),
    Rule("CA402", "refusal-with-citation", Severity.ERROR,
         "a refusal (or status \"unknown\") still cites sources"),
    Rule("CA403", "empty-answer", Severity.ERROR,
         "the answer has no claims at all", default_enabled=False),
    Rule("CA404", "invalid-answer", Severity.ERROR,
         "the answer object breaks the answer contract"),
    Rule("CA501", "number-mismatch", Severity.ERROR,
         "an amount the claim states is not stated by its cited passages (with --support)"),
    Rule("CA502", "quote-mismatch", Severity.ERROR,
         "a quotation in the claim is not in its cited passages (with --support)"),
    Rule("CA503", "unsupported-claim", Severity.WARNING,
         "the support judge scores the cited passages below its threshold (with --support)"),
    Rule("CA504", "contradicted-claim", Severity.ERROR,
         "the support judge finds the cited passages state the opposite of the claim"
         " (with --support)"),
))
