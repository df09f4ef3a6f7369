# cython: boundscheck=False
# (for the compiled build: every index below is checked against the text's bounds before it
# is read; the fuzzer runs this module under AddressSanitizer)
"""Amounts, not identifiers: the digits of ``GPT-4``, ``Windows 10``, ``SARS-CoV-2``, ``3D``,
``4th grade``, ``Stage 3``, ``Article 2.4`` or ``passage 2`` name something; they state no
quantity. CA302 (a claim stating a quantity cites nothing) and the support judges' amounts
both leave them out.

An amount is a count of things, a measure with a unit, money, a percentage, a date, a
duration: what is left when the identifiers are cut out. Every pattern here is bounded, so
the scan is linear in the text. The digit runs are found by a character loop (``_run_end``),
which the compiled build runs in C; ``_RUN`` is its specification, held to it by a test.
"""

from __future__ import annotations

import re

from citeaudit.core._segment import Span, mask

__all__ = ["identifier_spans", "states_amount", "without_identifiers"]

# Words after which a number is a label, a position or a name, not an amount.
_LABELS = (
    "stage|phase|level|grade|tier|type|class|category|article|art|section|sec|chapter|ch"
    "|part|figure|fig|table|appendix|annex|exhibit|version|ver|release|season|episode|ep"
    "|volume|vol|book|title|rule|step|passage|source|document|doc|item|question|page|p|pp"
    "|paragraph|para|clause|amendment|schedule|windows|python|iphone|ipad|android|ios|java"
    "|office|gen|generation|world war|ww|route|highway|interstate|room|building|floor|gate"
    "|platform|channel|model|mark|mk|series|no|number|act|bill|resolution|directive"
    "|regulation|lot|unit|ward|district|zone|league|division|round|game|match|option"
    "|reference|ref|citation|footnote|note|line|verse|psalm|canto|track|disc|op|opus")
# The word right before a number that makes it a label: "Stage 3", "Article 2.4", "passage 2".
_LABEL_WORDS = frozenset(_LABELS.replace("world war", "war").split("|"))
# A digit run: digits, then any number of a separator with digits after it (the
# specification of _run_end).
_RUN = re.compile(r"[0-9](?:[0-9]*(?:[.\-/][0-9]+)*)")
_ORDINAL = ("st", "nd", "rd", "th")
_NAMED = ("401(k)", "529 plan", "9/11", "24/7")


def _labelled(text: str, start: int) -> bool:
    """Whether the word before the number at ``start`` is a label word (a set lookup, not a
    regex: this runs for every number of every uncited claim).
    """
    if start > 1 and text[start - 2] not in " #.":  # "within 30": one word, one space
        word = text[text.rfind(" ", 0, start - 1) + 1:start - 1].lower()
        if word.isalpha():
            return word in _LABEL_WORDS or (word[-1] == "s" and word[:-1] in _LABEL_WORDS)
    end = start
    while end > 0 and text[end - 1] in " #":
        end -= 1
    if end and text[end - 1] == ".":
        end -= 1
    if not end or not text[end - 1].isalpha():
        return False
    begin = max(text.rfind(" ", max(0, end - 24), end), text.rfind("\n", max(0, end - 24), end))
    word = text[max(begin + 1, end - 24):end].lstrip("([{\"'“‘").lower()
    return word in _LABEL_WORDS or (word[-1:] == "s" and word[:-1] in _LABEL_WORDS)


def _names(text: str, start: int, end: int) -> bool:
    """Whether the digit run at ``start:end`` names something rather than an amount."""
    # Where nothing stands before the run, a character no rule reads before it (a NUL reads
    # as nothing reads: not a space, a letter, a hyphen or a hash).
    before = text[start - 1] if start else "\x00"
    if before == " " and end < len(text) and text[end] in " ,.;:%)\n" and \
            not _labelled(text, start):
        return text.startswith(_NAMED, start)  # "within 30 days": the common case, first
    if (before.isalpha() and not _ideograph(before)) or (
            before == "-" and start > 1 and text[start - 2].isalnum()):
        return True  # GPT-4, SARS-CoV-2, H1N1, B12, v2.1 (not 在2020年, 了40%: no spaces)
    after = text[end:end + 2].lower()
    if after[:1].isalpha() and (after in _ORDINAL or (after[:1] == "d"
                                                      and not after[1:].isalpha())):
        return True  # 4th, 21st, 3D
    if before in " #" and _labelled(text, start):
        return True  # Stage 3, Article 2.4, Windows 10, passage 2
    return text.startswith(_NAMED, start)


def _ideograph(char: str) -> bool:
    """Whether ``char`` is of a script written without spaces (Chinese, Japanese kana, Korean
    syllables): a number glued to it is an amount in the sentence, no name's part.
    """
    return "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u4dbf" or \
        "\u4e00" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af" or \
        "\uf900" <= char <= "\ufaff"


def _run_end(text: str, at: int, size: int) -> int:
    """Where the digit run opening at ``at`` ends (``_RUN``): digits, then any number of a
    separator (``.``, ``-``, ``/``) with digits after it.
    """
    at += 1
    while at < size and "0" <= text[at] <= "9":
        at += 1
    while at + 1 < size and text[at] in ".-/" and "0" <= text[at + 1] <= "9":
        at += 2
        while at < size and "0" <= text[at] <= "9":
            at += 1
    return at


def identifier_spans(text: str) -> list[Span]:
    """Where ``text`` names something with digits (the digit runs, in text order)."""
    chars = text if type(text) is str else str.__str__(text)  # a subclass's text, as a str
    spans = []
    size = len(chars)
    at = 0
    while at < size:
        if "0" <= chars[at] <= "9":
            end = _run_end(chars, at, size)
            if _names(chars, at, end):
                spans.append(Span(at, end))
            at = end
        else:
            at += 1
    return spans


def without_identifiers(text: str) -> str:
    """``text`` with its identifiers blanked (same length: spans stay valid)."""
    spans = identifier_spans(text)
    return mask(text, spans, " ") if spans else text


def states_amount(text: str) -> bool:
    """Whether ``text`` states a quantity: a digit run that names nothing (the first one
    decides, most often).
    """
    chars = text if type(text) is str else str.__str__(text)  # a subclass's text, as a str
    size = len(chars)
    at = 0
    while at < size:
        if "0" <= chars[at] <= "9":
            end = _run_end(chars, at, size)
            if not _names(chars, at, end):
                return True
            at = end
        else:
            at += 1
    return False
