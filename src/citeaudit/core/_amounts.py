"""Amounts, not identifiers: the digits of ``GPT-4``, ``Windows 10``, ``SARS-CoV-2``, ``3D``,
``4th grade``, ``Stage 3``, ``Article 2.4`` or ``passage 2`` name something; they state no
quantity. CA302 (a claim stating a quantity cites nothing) and the support judges' amounts
both leave them out.

An amount is a count of things, a measure with a unit, money, a percentage, a date, a
duration: what is left when the identifiers are cut out. Every pattern here is bounded, so
the scan is linear in the text.
"""

from __future__ import annotations

import re

from citeaudit.core._segment import Span, mask

__all__ = ["identifier_spans", "states_amount", "without_identifiers"]

# Words after which a number is a label, a position or a name, not an amount.
_LABELS = (
    "stage|phase|level|grade|tier|type|class|category|article|art|section|sec|chapter|ch"
    "|part|figure|fig|table|appendix|annex|exhibit|version|ver|release|season|episode|ep"
    "|volume|vol|book|title|rule|step|passage|source|document|doc|item|question|page|pp?"
    "|paragraph|para|clause|amendment|schedule|windows|python|iphone|ipad|android|ios|java"
    "|office|gen|generation|world war|ww|route|highway|interstate|room|building|floor|gate"
    "|platform|channel|model|mark|mk|series|no|number|act|bill|resolution|directive"
    "|regulation|lot|unit|ward|district|zone|league|division|round|game|match|option"
    "|reference|ref|citation|footnote|note|line|verse|psalm|canto|track|disc|op|opus")
_IDENTIFIER = re.compile(
    # a labelled number: "Stage 3", "Article 2.4", "Windows 10", "passage 2", "Book XXIII"
    rf"\b(?:{_LABELS})\.?\s{{0,2}}(?:#\s?)?(?:[0-9]{{1,6}}(?:[.\-][0-9]{{1,4}}){{0,3}}[a-z]?\b"
    r"|[ivxlcdm]{1,8}\b)"
    # a name with digits: "GPT-4", "SARS-CoV-2", "HMOX-1", "COVID-19", "H1N1", "B12", "v2.1"
    r"|\b[a-z][a-z0-9]{0,15}(?:-[a-z0-9]{1,15}){0,3}-[0-9]{1,6}[a-z0-9]{0,6}\b"
    r"|\b[a-z]{1,10}[0-9]{1,6}[a-z0-9]{0,6}(?:\.[0-9]{1,4}){0,3}\b"
    # an ordinal or a dimension: "4th grade", "21st", "3D"
    r"|\b[0-9]{1,4}(?:st|nd|rd|th|d)\b"
    # numbers that are names
    r"|\b401\(k\)|\b529\s{1,2}plans?\b|\b9/11\b|\b24/7\b",
    re.IGNORECASE)
_DIGIT = re.compile(r"[0-9]")


def identifier_spans(text: str) -> list[Span]:
    """Where ``text`` names something with digits (in text order)."""
    return [Span(*m.span()) for m in _IDENTIFIER.finditer(text)]


def without_identifiers(text: str) -> str:
    """``text`` with its identifiers blanked (same length: spans stay valid)."""
    spans = identifier_spans(text)
    return mask(text, spans, " ") if spans else text


def states_amount(text: str) -> bool:
    """Whether ``text`` states a quantity: a digit outside every identifier."""
    if _DIGIT.search(text) is None:
        return False
    return _DIGIT.search(without_identifiers(text)) is not None
