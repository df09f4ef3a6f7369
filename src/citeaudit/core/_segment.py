"""Citation-aware claim segmentation of free text.

A claim is a sentence, a list item's sentence, or a table row. Markers after the terminal
punctuation (``... 7 days. [S1]``, ``etc.[1] [3]..``) belong to the sentence before them.
Headings, code blocks, table header and separator rows and horizontal rules are not claims
(which sentences need a citation is the claim policy's business: :mod:`._policy`).
Abbreviations (``e.g.``, ``Dr.``, also with a marker before the stop: ``(e.g[4]. Transfer
pack)``), decimals (``3.5%``), initials, quotes, markdown bullets and numbered lists
(``1[1]. Analyze ...``) do not split a claim; CJK sentence punctuation (``。！？``) does.

Why our own: of the segmenters we measured (``benchmarks/bench_segment.py``), pysbd and nltk
are 11 to 67 times slower than our whole scan and split, and none of them (sentencex, fast,
included) knows that a marker after a full stop belongs to the sentence before it, nor
markdown lists, tables and code.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple, Protocol

from citeaudit.core._native import core

__all__ = ["Segmenter", "Span", "code_spans", "covered", "mask", "segment"]


class Span(NamedTuple):
    """A half-open character range ``[start, end)``."""

    start: int
    end: int


class Segmenter(Protocol):
    """Splits text into claim spans, given the spans of marker-looking text."""

    def __call__(self, text: str, marks: Sequence[Span]) -> list[Span]:
        """Claim spans of ``text`` in order; ``marks`` are the sorted marker spans."""
        ...


_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"[ \t]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_SEPARATOR = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|?)+[ \t]*$")
# A list item: a bullet (optionally a task box) or a number with optional markers and . or )
_ITEM = re.compile(
    r"[ \t]*(?:[-*+•‣◦][ \t]+(?:\[[ xX]\][ \t]+)?"
    r"|([0-9]{1,9})(\x00*)[.)][ \t]+)")  # markers are masked by then
_QUOTE = re.compile(r"(?:[ \t]*>)+[ \t]?")
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")
_WORD = re.compile(r"\w")

_TITLES = (
    "mr", "mrs", "ms", "mx", "dr", "prof", "sr", "jr", "st", "mt", "gen", "col", "lt", "capt",
    "sgt", "rep", "sen", "gov", "rev", "hon", "messrs", "mme", "mlle", "e.g", "i.e", "cf", "viz",
    "approx", "ca",
)


def _after(words: tuple[str, ...], *, negated: bool = False) -> str:
    """Lookbehinds: the full stop just matched follows one of ``words`` (``negated``: follows
    none of them).

    One fixed-width lookbehind per word length, as the engine requires; case-blind.
    """
    by_length: dict[int, list[str]] = {}
    for word in words:
        by_length.setdefault(len(word), []).append(re.escape(word))
    sign, glue = ("!", "") if negated else ("=", "|")
    return glue.join(f"(?<{sign}\\b(?i:{'|'.join(group)})\\.)" for group in by_length.values())


# Marker spans are masked with NUL before splitting, so the grammar decides what a marker is;
# code blocks are masked with SOH, so they become pieces of their own that are dropped.
_MASK = "\x00"
_CODE = "\x01"
_MARKS = r"(?>(?:\s*\x00+[.!?。！？]*)*)"
# Every separator is one capture group, so re.split returns pieces and separators alternately.
# A sentence end starts with the terminal punctuation and the markers that belong to the
# sentence before it; the rest of every separator is white space (or a table row's "|").
# The pattern opens with one character class and branches on that character by lookbehind:
# the engine then skips ordinary text at C speed (three times faster than an alternation of
# branches with their own first characters, which defeats that skip).
_SEPARATOR = re.compile(
    r"([.!?…。！？\n|\x01:](?:"
    # a sentence end, unless lower case or a digit follows ("e.g. the", "3.5%", "No. 5") or
    # the full stop follows an abbreviation or an initial ("Dr. Smith", "J. Smith")
    rf"(?<=[.!?…])(?:(?<!\.)|(?<!\b[A-Z]\.){_after(_TITLES, negated=True)})"
    rf"(?>[.!?…]*[\"'”’)»]*){_MARKS}(?:[ \t\r\n]+(?![a-zà-ÿ0-9 \t\r\n])|[ \t\r\n]*\Z)"
    rf"|(?<=[。！？])(?>[。！？]*[」』”’)）]*){_MARKS}[ \t\r\n]*"  # CJK ends need no space
    r"|(?<=\n)(?:[ \t\r]*\n[ \t\r\n]*"  # a blank line, or a line that opens structure:
    r"|(?=[ \t]*(?:[-*+•‣◦][ \t]|[0-9]{1,9}\x00*[.)][ \t]|#|\||>|\x01"
    r"|(?:-{3,}|\*{3,}|_{3,})[ \t]*$)))"
    r"|(?<=\|)[ \t\r]*\n"  # the end of a table row
    r"|(?<=:)[ \t\r]*\n[ \t\r\n]*"  # the end of a lead-in line ("Sources:")
    r"|(?<=\x01)\x01*"  # a code block
    r"))", re.MULTILINE)
# The compiled core's separator scanner (_core.split) asks at a full stop whether it ends an
# initial or an abbreviation: the lookbehinds of _SEPARATOR's, matched just after the stop.
_ABBREVIATED = re.compile(rf"(?<=\b[A-Z]\.)|{_after(_TITLES)}")
_BARE_NUMBER = re.compile(r"[0-9]{1,9}(\x00*)[.)]")


def segment(text: str, marks: Sequence[Span] = ()) -> list[Span]:
    """Claim spans of ``text``, in order, trimmed of surrounding whitespace.

    ``marks`` are the sorted spans of marker-looking text (valid and malformed markers); they
    decide which bracketed text after a full stop still belongs to the sentence.
    """
    masked = _masked(text, marks) if marks else text
    # a one-character search first: memchr, where "```" in text is a slower substring search
    if ("`" in text and "```" in text) or ("~" in text and "~~~" in text):
        masked = mask(masked, _fences(text), _CODE)
    parts = _SEPARATOR.split(masked)
    offsets = list(accumulate(map(len, parts), initial=0))
    separators = parts[1::2]
    separators.append(" ")  # after the last piece: nothing that belongs to it
    claims: list[Span] = []
    new = tuple.__new__  # many small values: no per-item Python frames
    lead = -1  # after a bare list number ("1[1]."), where the next claim starts
    table_row = -1  # claims before the last table row: a separator row below drops it
    for piece, separator, offset in zip(parts[::2], separators, offsets[::2], strict=False):
        start = offset
        end = offset + len(piece)
        if separator[0] not in _GAP:  # terminal punctuation and its markers: no space at its end
            end += len(separator.rstrip())
        else:
            while end > start and masked[end - 1].isspace():
                end -= 1
        while start < end and masked[start].isspace():
            start += 1
        if end <= start:
            continue
        pending, lead = lead, -1  # a bare list number's lead applies to the next piece only
        head = masked[start]
        if head in _STRUCTURE:
            if head == "|":
                if "-" in piece and _TABLE_SEPARATOR.fullmatch(masked, start, end):
                    if table_row >= 0:
                        del claims[table_row:]  # the row above was the header
                    table_row = -1
                    continue
                table_row = len(claims)
                start, end = _trim(masked, start, end, " \t|")
                while start < end and masked[start].isspace():  # "|\x1f0": any white space
                    start += 1
                while end > start and masked[end - 1].isspace():
                    end -= 1
                if end > start and _WORD.search(masked, start, end):
                    claims.append(new(Span, (start, end)))
                continue
            if head.isdigit() and (number := _BARE_NUMBER.fullmatch(masked, start, end)):
                lead = number.start(1) if number[1] else -1
                table_row = -1
                continue
            start = _structure_start(masked, start, end)
            while start < end and masked[start].isspace():
                start += 1
            if start >= end:
                continue
        table_row = -1
        if pending >= 0:
            start = pending
        if not masked[start].isalnum() and not _WORD.search(masked, start, end):
            if claims and masked.find(_MASK, start, end) >= 0:
                claims[-1] = new(Span, (claims[-1].start, end))  # markers alone join the claim
            continue
        claims.append(new(Span, (start, end)))
    return claims


_ABBREVIATIONS = frozenset(("e.g", "i.e", "cf", "viz", "approx"))
_LAST_LETTERS = frozenset("gGeEfFzZxX")  # of the abbreviations: a cheap test first


def _masked(text: str, marks: Sequence[Span]) -> str:
    """``text`` with the marks masked (see :func:`mask`), and the full stop after marks that
    follow an abbreviation moved before them (``e.g[4].`` reads as ``e.g.[4]``), so the
    abbreviation rule sees it. Same length; one pass, as the masking makes it anyway.
    """
    pieces: list[str] = []
    position = previous = 0
    run = run_at = 0  # where the current run of adjacent marks starts, in text and pieces
    for start, end in marks:
        if start < position:
            continue
        pieces.append(text[position:start])
        if start != previous:
            run, run_at = start, len(pieces)
        pieces.append(_MASK * (end - start))
        position = previous = end
        if text[end:end + 1] == "." and run and text[run - 1] in _LAST_LETTERS and \
                text[max(0, run - 7):run].lower().rsplit(" ", 1)[-1].lstrip("(\"'[") \
                in _ABBREVIATIONS:
            pieces.insert(run_at, ".")
            position = end + 1
    pieces.append(text[position:])
    return "".join(pieces)
_GAP = frozenset(" \t\r\n|\x01")
_STRUCTURE = frozenset("#|>-*+•‣◦_0123456789\x01")


def _trim(text: str, start: int, end: int, chars: str) -> tuple[int, int]:
    while start < end and text[start] in chars:
        start += 1
    while end > start and text[end - 1] in chars:
        end -= 1
    return start, end


def _structure_start(text: str, start: int, end: int) -> int:
    """Where the claim starts in a piece that opens with markdown structure (``end``: none)."""
    head = text[start]
    if head == _CODE:
        return end
    if head == "#" and _HEADING.match(text, start):
        newline = text.find("\n", start, end)  # the heading line is no claim; text after it is
        if newline < 0:
            return end
        return newline + 1
    if head in "-*_" and _RULE.match(text, start, end):
        return end
    if head == ">":
        quote = _QUOTE.match(text, start, end)
        return quote.end() if quote else start
    item = _ITEM.match(text, start, end)
    if item is None:
        return start
    if item[2]:  # "1[1] Analyze" on one line: the claim starts at the markers
        return item.end(1)
    return item.end()


def mask(text: str, spans: Sequence[Span], char: str = _MASK) -> str:
    """``text`` with every span (sorted) replaced by ``char`` characters, so that spans stay
    valid; with ``char=""`` the spans are removed instead.
    """
    pieces = []
    position = 0
    for start, end in spans:
        if start < position:
            continue
        pieces.append(text[position:start])
        pieces.append(char * (end - start))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def code_spans(text: str) -> list[Span]:
    """Sorted, disjoint spans of fenced code blocks and inline code, where brackets are never
    markers. Linear in the text: backtick runs are paired by length with a bisect, never by
    rescanning.
    """
    if "`" not in text and "~~~" not in text:
        return []
    spans = _fences(text)
    fence_starts = [span.start for span in spans]
    runs = [m.span() for m in _BACKTICKS.finditer(text)
            if not covered(m.start(), spans, fence_starts)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    breaks = [m.start() for m in _BLANK_LINE.finditer(text)]  # code spans stop at paragraphs
    inline: list[Span] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        later = bisect_right(same, index)
        if later < len(same):
            close_start, close_end = runs[same[later]]
            if bisect_left(breaks, end) == bisect_left(breaks, close_start):
                inline.append(Span(start, close_end))
                index = same[later] + 1
                continue
        index += 1
    return sorted(spans + inline)


def _fences(text: str) -> list[Span]:
    spans: list[Span] = []
    fence: str | None = None
    fence_start = 0
    position = 0
    # Lines end at "\n" only, as the streaming auditor reads them: a fence after a lone "\r"
    # or a Unicode line separator is no fence for either.
    for bare in text.split("\n"):
        line = bare + "\n"
        match = _FENCE.match(line)
        if fence is None and match:
            fence, fence_start = match[1], position
        elif fence is not None and match and match[1].startswith(fence) and \
                not line[match.end():].strip():
            spans.append(Span(fence_start, position + len(line)))
            fence = None
        position += len(line)
    if fence is not None:
        spans.append(Span(fence_start, len(text)))
    return [Span(span.start, min(span.end, len(text))) for span in spans]


def covered(position: int, spans: Sequence[Span], starts: Sequence[int]) -> bool:
    """Whether ``position`` lies in one of the sorted, disjoint ``spans`` (``starts`` are their
    starts): a bisect, not a scan.
    """
    index = bisect_right(starts, position) - 1
    return index >= 0 and position < spans[index].end


# The compiled core mirrors segment() (and reads this module's patterns, all defined by now);
# the reference stays reachable, for the equivalence tests and CITEAUDIT_PURE=1.
reference_segment = segment
if (_compiled := core()) is not None:
    segment = _compiled.segment
