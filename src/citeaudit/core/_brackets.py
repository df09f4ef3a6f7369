# cython: boundscheck=False, wraparound=False
# (for the compiled build: every index below is checked against the text's bounds before it
# is read, and none is negative; the fuzzer runs this module under AddressSanitizer)
"""Bracket grammars: citation markers written ``[...]``, whose content a parse function
classifies (the presets of :mod:`citeaudit.core._grammar` are such grammars), and the scan
that finds them.

The scan reads every answer, and what settling a verdict reads of it
(:meth:`BracketGrammar.sight`) every answer the verdict settles, so both are character loops:
a bracket of the ASCII pattern (:data:`BRACKET`, the loop's specification, to which a test
holds it) is found by hand, and an id that is a plain number of a snapshot numbered "1".."N"
is read without making its string. The module is compiled from this source where the
package is built with a C compiler (the C types are in ``_brackets.pxd``; see
``docs/compiled.md``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from citeaudit.core._sources import resolve_id

if TYPE_CHECKING:
    from citeaudit.core._sources import Snapshot

__all__ = ["BRACKET", "FULLWIDTH", "WIDE_BRACKET", "BracketGrammar", "Malformed", "Marker",
           "Parsed", "Scan", "Sighting", "sighting"]


class Marker(NamedTuple):
    """One citation marker in a text.

    ``ids`` are written ids (``"1"``, ``"S1"``, ``"doc_3"``), in the order the marker names them.
    ``prefix``: an id that is not in the snapshot is also tried without it (``S1`` -> ``1``).
    ``ordinal``: a numeric id outside the snapshot's numbering is out of range (CA202) rather
    than unknown (CA201).
    """

    raw: str
    start: int
    end: int
    ids: tuple[str, ...]
    prefix: str = ""
    ordinal: bool = True


class Malformed(NamedTuple):
    """Text that looks like a marker but breaks the grammar; treated as prose."""

    raw: str
    start: int
    end: int
    reason: str


class Scan(NamedTuple):
    """What a grammar found in one text, each list in text order."""

    markers: list[Marker]
    malformed: list[Malformed]


# Parsing the content between brackets returns the ids, None for prose, or a malformed reason.
Parsed = tuple[str, ...] | str | None

# What BracketGrammar.sight gives: (ids named, marks, marker starts, malformed marker starts).
Sighting = tuple[int, list[tuple[int, int]], list[int], list[int]]

# Full-width forms (U+FF01..U+FF5E) map one-to-one onto ASCII, so spans stay valid.
FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3001: ord(",")}
# [ ... ] on one line, not a markdown link/image target, not escaped: what _bracket finds.
BRACKET = re.compile(r"\[(?<![\\!]\[)([^\[\]\n]{0,200})\](?!\()")
# The same where the full-width brackets, backslash, exclamation mark and parenthesis count as
# theirs: it matches the text as if it were folded to ASCII, and only the few contents are
# folded (folding a whole answer with a dict translate() costs ~130 µs a kB of non-ASCII text).
# Linear: the class excludes brackets, so no position is scanned twice.
WIDE_BRACKET = re.compile(r"[\[\uff3b](?<![\\!\uff3c\uff01][\[\uff3b])"
                          r"([^\[\]\uff3b\uff3d\n]{0,200})[\]\uff3d](?![(\uff08])")


class BracketGrammar:
    """A grammar of ``[...]`` markers whose content a parse function classifies."""

    __slots__ = ("digits", "name", "ordinal", "parse", "prefix")

    def __init__(self, name: str, parse: Callable[[str], Parsed], *, prefix: str = "",
                 ordinal: bool = True, digits: bool = False) -> None:
        self.name = name
        # Models repeat the same few marker contents ("1", "2", "1, 2"): parse each once.
        self.parse = functools.lru_cache(maxsize=4096)(parse)
        self.prefix = prefix
        self.ordinal = ordinal
        self.digits = digits  # "[12]" is a marker naming "12": skip the parse function

    def scan(self, text: str) -> Scan:
        """Every marker and malformed marker in ``text``, in text order."""
        chars = str.__str__(text)
        markers, malformed = _scanned(chars, self, _wide(chars))
        return Scan(markers, malformed)

    def markers(self, text: str) -> list[Marker]:
        """:meth:`scan`'s markers alone (the stream's many short scans)."""
        chars = str.__str__(text)
        return _scanned(chars, self, _wide(chars))[0]

    def sight(self, text: str, snapshot: Snapshot) -> Sighting | None:
        """What settling a verdict reads of :meth:`scan`'s markers, without making them: how
        many ids they name, where the markers and malformed markers are (``(start, end)``
        pairs, in text order) and where each starts; None at the first id ``snapshot`` does
        not hold (as :func:`~citeaudit.core._sources.resolve_id` resolves it).
        """
        chars = str.__str__(text)
        return _sighted(chars, self, _wide(chars), snapshot)

    def __repr__(self) -> str:
        return f"<grammar {self.name}>"


def _wide(text: str) -> bool:
    """Whether ``text`` is scanned with :data:`WIDE_BRACKET`: where it holds a full-width
    bracket, backslash, exclamation mark or parenthesis. The ASCII pattern's brackets are
    found faster (by hand, its "[" a literal).
    """
    if text.isascii():
        return False
    for wide in "\uff3b\uff3d\uff3c\uff01\uff08":  # noqa: SIM110 -- any() is a generator
        if wide in text:
            return True
    return False


def _bracket(text: str, at: int) -> tuple[int, int]:
    """The span of the first match of :data:`BRACKET` at or after ``at``, or ``(-1, -1)``: a
    "[" not after a backslash or "!", at most 200 characters that are not "[", "]" or a
    newline, a "]" not followed by "(". Where a candidate fails, the search goes on after its
    "[".
    """
    size = len(text)
    while True:
        start = text.find("[", at)
        if start < 0:
            return -1, -1
        at = start + 1
        if start > 0 and text[start - 1] in "\\!":
            continue
        close = at
        limit = min(size, start + 201)
        while close < limit and text[close] not in "[]\n":
            close += 1
        if close < size and text[close] == "]" and (
                close + 1 == size or text[close + 1] != "("):
            return start, close + 1


def _brackets(text: str, wide: bool) -> list[tuple[int, int]] | None:
    """The spans of :data:`WIDE_BRACKET`'s matches where ``text`` is scanned with it, or None
    (:func:`_bracket` finds them one at a time).
    """
    return [match.span() for match in WIDE_BRACKET.finditer(text)] if wide else None


def _plain_number(text: str, start: int, end: int) -> bool:
    """Whether the characters from ``start`` to ``end`` are ASCII digits, the first not 0:
    what the scan reads as an id at once, without slicing them first.
    """
    if end <= start or text[start] == "0":
        return False
    for at in range(start, end):  # noqa: SIM110 -- a loop the compiler makes C; all() it cannot
        if not "0" <= text[at] <= "9":
            return False
    return True


def _number(text: str, start: int, end: int) -> int:
    """The value of the ASCII digits from ``start`` to ``end`` (see :func:`_plain_number`), or
    -1 where it has more than 18 of them.
    """
    if end - start > 18:
        return -1
    value = 0
    for at in range(start, end):
        value = value * 10 + ord(text[at]) - 48  # the digit's value: "0" is 48
    return value


def _numbered_id(source_id: str, numbered: int) -> bool:
    """Whether ``source_id`` is a plain number from 1 to ``numbered``: an id of a snapshot
    numbered "1".."N" (N: ``numbered``, -1 where it is not so numbered), as
    :func:`~citeaudit.core._sources.resolve_id` would find it, without asking the snapshot.
    """
    if type(source_id) is not str:
        return False
    size = len(source_id)
    return _plain_number(source_id, 0, size) and 0 < _number(source_id, 0, size) <= numbered


def _parsed(text: str, start: int, end: int, grammar: BracketGrammar) -> Parsed:
    """What the bracketed text from ``start`` to ``end`` is: its ids (a tuple), the reason it
    is malformed, or None (prose). Full-width contents are folded to ASCII first.
    """
    content = text[start + 1:end - 1]
    if not content.isascii():
        content = content.translate(FULLWIDTH)
    if grammar.digits and content.isdigit() and content[0] != "0" and content.isascii():
        return (content,)
    return grammar.parse(content)


def _scanned(text: str, grammar: BracketGrammar, wide: bool,
             ) -> tuple[list[Marker], list[Malformed]]:
    """The markers and malformed markers of ``grammar`` in ``text`` (``wide``: found by
    :data:`WIDE_BRACKET`, else by :data:`BRACKET`).
    """
    markers: list[Marker] = []
    malformed: list[Malformed] = []
    if "[" not in text and (text.isascii() or "\uff3b" not in text):
        return markers, malformed
    digits = grammar.digits
    prefix = grammar.prefix
    ordinal = grammar.ordinal
    found = _brackets(text, wide)
    at = 0
    while True:
        if found is None:
            start, end = _bracket(text, at)
            if start < 0:
                break
            at = end
        elif at < len(found):
            start, end = found[at]
            at += 1
        else:
            break
        if digits and _plain_number(text, start + 1, end - 1):  # "[12]": the common case
            markers.append(Marker(text[start:end], start, end, (text[start + 1:end - 1],),
                                  prefix, ordinal))
            continue
        parsed = _parsed(text, start, end, grammar)
        if parsed is None:
            continue
        if isinstance(parsed, str):
            malformed.append(Malformed(text[start:end], start, end, parsed))
        else:
            markers.append(Marker(text[start:end], start, end, parsed, prefix, ordinal))
    return markers, malformed


def _sighted(text: str, grammar: BracketGrammar, wide: bool, snapshot: Snapshot,
             ) -> Sighting | None:
    """:meth:`BracketGrammar.sight`, ``wide`` as for :func:`_scanned`. Where the snapshot's
    ids are exactly "1".."N", a plain number from 1 to N is one of them: read without making
    its string.
    """
    marks: list[tuple[int, int]] = []
    starts: list[int] = []
    bad_starts: list[int] = []
    if "[" not in text and (text.isascii() or "\uff3b" not in text):
        return 0, marks, starts, bad_starts
    numbering = snapshot.numbering
    numbered = numbering[1] if numbering is not None and not numbering[0] else -1
    digits = grammar.digits
    prefix = grammar.prefix
    found = _brackets(text, wide)
    at = named = 0
    while True:
        if found is None:
            start, end = _bracket(text, at)
            if start < 0:
                break
            at = end
        elif at < len(found):
            start, end = found[at]
            at += 1
        else:
            break
        if digits and _plain_number(text, start + 1, end - 1):
            if not 0 < _number(text, start + 1, end - 1) <= numbered:
                source_id = text[start + 1:end - 1]
                if resolve_id(source_id, prefix, snapshot) is None:
                    return None
            named += 1
        else:
            parsed = _parsed(text, start, end, grammar)
            if parsed is None:
                continue
            if isinstance(parsed, str):
                bad_starts.append(start)
                marks.append((start, end))
                continue
            for source_id in parsed:
                if not _numbered_id(source_id, numbered) and \
                        resolve_id(source_id, prefix, snapshot) is None:
                    return None
                named += 1
        starts.append(start)
        marks.append((start, end))
    return named, marks, starts, bad_starts


def sighting(scan: Scan, snapshot: Snapshot) -> Sighting | None:
    """What :meth:`BracketGrammar.sight` gives, from the markers a scan made (any grammar's)."""
    index = snapshot.index
    named = 0
    for marker in scan.markers:
        for source_id in marker.ids:
            if source_id not in index and \
                    resolve_id(source_id, marker.prefix, snapshot) is None:
                return None
            named += 1
    marks = [(marker.start, marker.end) for marker in scan.markers]
    if scan.malformed:
        marks.extend([(bad.start, bad.end) for bad in scan.malformed])
        marks.sort()
    return (named, marks, [marker.start for marker in scan.markers],
            [bad.start for bad in scan.malformed])
