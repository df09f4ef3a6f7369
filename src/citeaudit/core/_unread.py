# cython: boundscheck=False
# (for the compiled build: every index below is checked against the text's bounds before it
# is read; the fuzzer runs this module under AddressSanitizer)
"""Bracketed shapes that look like citations but that the grammar in use does not read
(CA102): ``[Source 1]`` under a numeric grammar, ``[doc1]``, ``【1】``, ``(Passage ID 3)``.

One regex finds the shapes (it opens with a character class and every loop is bounded, so it
is linear and skips ordinary text fast); a shape that overlaps a marker or a malformed marker
of the grammar in use is read, the rest are unread.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from citeaudit.core._grammar import ID, SOURCE, Grammar, numbered

__all__ = ["SQUARE_HINT", "looks_cited", "might_be_unread", "square_hints", "unread",
           "would_read"]

# Case-blind words inside, a plain character class first: the engine skips to brackets fast.
_WORD = r"(?i:sources?|src|docs?|documents?|passages?|refs?|references?|context|chunks?|S)"
_ID = rf"(?:{_WORD}\s{{0,3}}(?:(?i:id)\s{{0,3}})?[:#_\-]?\s{{0,3}})?[0-9]{{1,6}}"
LOOKS_CITED = re.compile(
    rf"[\[(【]"
    rf"(?:(?<=\[)\s{{0,3}}{_ID}(?:\s{{0,3}}(?:[,;–-]|(?i:and))\s{{0,3}}{_ID}){{0,20}}\s{{0,3}}\]"
    rf"|(?<=\()\s{{0,3}}{_WORD}\s{{0,3}}(?:(?i:id)\s{{0,3}})?[:#]?\s{{0,3}}[0-9]{{1,6}}"
    rf"(?:\s{{0,3}},\s{{0,3}}[0-9]{{1,6}}){{0,20}}\s{{0,3}}\)"
    rf"|(?<=【)[^】\n]{{1,40}}】)")


# Where a square-bracketed shape of LOOKS_CITED can open: a digit, or the first letters of one
# of its words ("[citation needed]" cannot). Opens with a literal: the engine skips to "[".
SQUARE_HINT = re.compile(r"\[\s{0,3}(?:[0-9]|(?i:so|sr|do|pa|re|co|ch)|[sS](?:[\s:#_\-0-9]|id))")
# Opens with a character class: the regex engine skips ordinary text fast.
_HINT = re.compile(rf"[【(](?:(?<=【)|\s{{0,3}}{_WORD}\b)")


def square_hints(text: str) -> int:
    """How many ``[`` in ``text`` open a shape a citation may take: the matches of
    :data:`SQUARE_HINT`, which it implements (no match holds a ``[`` after its first: each
    ``[`` is tried on its own).
    """
    chars = str.__str__(text)
    size = len(chars)
    count = 0
    at = chars.find("[")
    while at >= 0:
        probe = at + 1
        blanks = 0
        while blanks < 3 and probe < size and chars[probe].isspace():
            probe += 1
            blanks += 1
        if probe < size and _hint_at(chars, probe, size):
            count += 1
        at = chars.find("[", at + 1)
    return count


def _hint_at(text: str, at: int, size: int) -> bool:
    """Whether what follows a ``[`` (and its white space) at ``at`` opens a shape: a digit, one
    of "so", "sr", "do", "pa", "re", "co", "ch" (case-blind, U+017F an "s" too, as the regex
    engine folds it), or "s"/"S" then white space, ":", "#", "_", "-", a digit or "id".
    """
    first = text[at]
    second = text[at + 1] if at + 1 < size else "\x00"  # (matches none of the tests below)
    if first in "0123456789":
        return True
    if first in "sS\u017f" and second in "oOrR":
        return True
    if (first in "dD" and second in "oO") or (first in "pP" and second in "aA") or \
            (first in "rR" and second in "eE") or (first in "cC" and second in "oOhH"):
        return True
    return first in "sS" and (second.isspace() or second in ":#_-0123456789" or (
        second == "i" and at + 2 < size and text[at + 2] == "d"))


def might_be_unread(text: str) -> bool:
    """Whether ``text`` has a citation-looking shape that is not in square brackets (the
    cheap test before :func:`unread`, when every square bracket was read).
    """
    return ("【" in text or "(" in text) and _HINT.search(text) is not None


def looks_cited(text: str) -> list[tuple[int, int]]:
    """The spans of every citation-looking shape in ``text``."""
    if "[" not in text and "(" not in text and "【" not in text:
        return []
    return [match.span() for match in LOOKS_CITED.finditer(text)]


def unread(text: str, read: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The citation-looking spans of ``text`` that overlap none of the ``read`` spans (the
    grammar's markers and malformed markers, sorted).
    """
    spans = sorted(read)
    shapes = _candidates(text, {start for start, _ in spans})
    if not shapes:
        return []
    out = []
    index = 0
    for start, end in shapes:
        while index < len(spans) and spans[index][1] <= start:
            index += 1
        if index < len(spans) and spans[index][0] < end:
            continue  # it is (part of) something the grammar read
        out.append((start, end))
    return out


def _candidates(text: str, read_starts: set[int]) -> list[tuple[int, int]]:
    """The citation-looking shapes of ``text`` that do not start where a read marker does:
    each other ``[`` is tried once (str.find, not a scan of every character), and ``(`` and
    ``【`` where a hint of a citation follows.
    """
    found = []
    position = text.find("[")
    while position >= 0:
        if position not in read_starts and (match := LOOKS_CITED.match(text, position)):
            found.append(match.span())
        position = text.find("[", position + 1)
    if "(" in text or "【" in text:
        for hint in _HINT.finditer(text):
            if match := LOOKS_CITED.match(text, hint.start()):
                found.append(match.span())
        found.sort()
    return found


def would_read(raw: Sequence[str]) -> str | None:
    """The name of a preset grammar that reads the first of the ``raw`` shapes it can."""
    candidates: tuple[Grammar, ...] = (numbered(), SOURCE, ID)
    for shape in raw:
        for grammar in candidates:
            if grammar.scan(shape).markers:
                return grammar.name
    return None
