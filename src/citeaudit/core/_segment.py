# cython: boundscheck=False
# (for the compiled build: every index below is checked against the text's bounds before it
# is read; the fuzzer runs this module under AddressSanitizer)
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

One source for both builds: where the package is built with a C compiler, Cython compiles
this module as it stands, with the C types of ``_segment.pxd`` beside it (see
``docs/compiled.md``); otherwise, or with ``CITEAUDIT_PURE=1``, it runs as the Python it is.
That is why the scan walks the characters with indices (the compiler makes those loops C, where
it can do nothing with a regular expression's calls and the tuples they build), and why the
separator rules live in functions of one character each rather than in one pattern
(``tests/test_segment.py`` holds the scan to the pattern they implement).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

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
_TABLE_SEPARATOR = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|?)+[ \t]*$")
_QUOTE = re.compile(r"(?:[ \t]*>)+[ \t]?")
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")

_TITLES = (
    "mr", "mrs", "ms", "mx", "dr", "prof", "sr", "jr", "st", "mt", "gen", "col", "lt", "capt",
    "sgt", "rep", "sen", "gov", "rev", "hon", "messrs", "mme", "mlle", "e.g", "i.e", "cf", "viz",
    "approx", "ca", "vs", "v",  # "Steel vs. Aluminium", "Smith v. Jones"
)
# The titles by their last letter, either case: the few to compare before a full stop.
_TITLES_ENDING: dict[str, tuple[str, ...]] = {
    letter: tuple(title for title in _TITLES if title[-1] == letter.lower())
    for letter in {title[-1] for title in _TITLES} | {title[-1].upper() for title in _TITLES}}


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


# Whether the full stop just before the match's position ends an initial or an abbreviation,
# as case-blind matching reads it: asked only where a character that folds onto an ASCII
# letter (İ ı ſ K) stands before the stop (see _abbreviated).
_ABBREVIATED = re.compile(rf"(?<=\b[A-Z]\.)|{_after(_TITLES)}")

# Marker spans are masked with NUL before splitting, so the grammar decides what a marker is;
# code blocks are masked with SOH, so they become pieces of their own that are dropped.
# The character tests below spell them as literals, which the compiler turns into C
# comparisons (a module constant would be compared as a Python object).
_MASK = "\x00"
_CODE = "\x01"
# A marker's mask by its length, made once: a marker is a few characters long, and masking
# made a string for each (a longer mark is masked by a string made for it).
_MASKS = tuple(_MASK * size for size in range(64))

# Claims as the segmenter makes them: (start, end) pairs, made Spans only where segment()
# returns them (a named tuple is made by a Python-level __new__, ten times a pair's cost).
Claims = list[tuple[int, int]]
Judge = Callable[[Claims], bool]


def segment(text: str, marks: Sequence[tuple[int, int]] = ()) -> list[Span]:
    """Claim spans of ``text``, in order, trimmed of surrounding whitespace.

    ``marks`` are the sorted spans of marker-looking text (valid and malformed markers); they
    decide which bracketed text after a full stop still belongs to the sentence.
    """
    return [Span(start, end) for start, end in claim_pairs(text, marks)]


def claim_pairs(text: str, marks: Sequence[tuple[int, int]] = ()) -> Claims:
    """The claims of :func:`segment` as (start, end) pairs: for a caller that reads them and
    makes no Span of them (the claim assembly).
    """
    claims = _segmented(_segmentable(str.__str__(text), marks), None)  # (a subclass: its str)
    return claims if claims is not None else []


def segment_until(text: str, marks: Sequence[tuple[int, int]], judge: Judge,
                  ) -> Claims | None:
    """The claims of :func:`segment` as (start, end) pairs, asking ``judge`` about the claims
    each time one is made, and stopping (None) where it answers False: so that a caller that
    stops at the first claim it rejects does not segment the rest of the text.

    Only the last claim can change once made: a piece of markers alone extends it, and a
    table's separator row deletes the claims made since the row before it began, which every
    other piece ends, so at most the one that row made. Every claim before the last is final.
    """
    return _segmented(_segmentable(str.__str__(text), marks), judge)


def _segmentable(text: str, marks: Sequence[tuple[int, int]]) -> str:
    """``text`` as the segmenter reads it: markers and code masked."""
    masked = _masked(text, marks) if marks else text
    # a one-character search first: memchr, where "```" in text is a slower substring search
    if ("`" in text and "```" in text) or ("~" in text and "~~~" in text):
        masked = mask(masked, _fences(text), _CODE)
    return masked


def _segmented(text: str, judge: Judge | None) -> Claims | None:  # noqa: C901 -- one flat loop kept in C by the compiler; a helper would cost a call a piece
    """The claims of the masked ``text``: the pieces between separators (see
    :func:`_separator_end`), trimmed, read by the markdown structure they open with.
    """
    size = len(text)
    offset = 0
    lead = -1  # after a bare list number ("1[1]."), where the next claim starts
    table_row = -1  # claims before the last table row: a separator row below drops it
    titled = False  # after a heading cut at its number ("## 2. Methods"): its title is next
    claims: Claims = []
    last = False
    while not last:
        start = offset
        piece_end, separator_end = _next_separator(text, offset, size)
        if piece_end < 0:  # the last piece: nothing after it belongs to it
            piece_end = separator_end = size
            last = True
        end = piece_end
        offset = separator_end
        if not last and text[piece_end] not in " \t\r\n|\x01":
            end = separator_end  # terminal punctuation and its markers, without white space
        while end > start and text[end - 1].isspace():
            end -= 1
        while start < end and text[start].isspace():
            start += 1
        if end <= start:
            continue
        if titled:  # a numbered heading's title, as the heading's own piece would be
            titled = False
            newline = text.find("\n", start, end)
            if newline < 0:
                continue
            start = newline + 1
            while start < end and text[start].isspace():
                start += 1
            if start >= end:
                continue
        pending, lead = lead, -1  # a bare list number's lead applies to the next piece only
        head = text[start]
        if head in "#|>-*+\u2022\u2023\u25e6_0123456789\x01":  # markdown structure, perhaps
            if head == "|":
                row_end = text.find("\n", end)
                if row_end >= 0 and piece_end < row_end and text[piece_end] != "|" and \
                        _header_above(text, row_end + 1, size):
                    # a header row cut at a stop in a cell ("| 2030 Est. | 2040 Est. |"):
                    # whole, so that the separator row below drops it
                    offset = end = row_end
                    while end > start and text[end - 1].isspace():
                        end -= 1
                if _separator_row(text, start, end):
                    if table_row >= 0:
                        del claims[table_row:]  # the row above was the header
                    table_row = -1
                    continue
                table_row = len(claims)
                start, end = _cells(text, start, end)
                if end > start and _has_word(text, start, end):
                    claims.append((start, end))
                    if judge is not None and not judge(claims):
                        return None
                continue
            if "0" <= head <= "9":
                number = _bare_number(text, start, end)
                if number != -2:  # a number alone: the lead of the item that follows
                    lead = number
                    table_row = -1
                    continue
            if head == "#" and _numbered_heading(text, start, end):
                titled = True
                continue
            start = _structure_start(text, start, end)
            while start < end and text[start].isspace():
                start += 1
            if start >= end:
                continue
        table_row = -1
        if pending >= 0:
            start = pending
        if not text[start].isalnum() and not _has_word(text, start, end):
            if claims and text.find(_MASK, start, end) >= 0:  # markers alone join the claim
                claims[-1] = (claims[-1][0], end)
            continue
        claims.append((start, end))
        if judge is not None and not judge(claims):
            return None
    return claims


def _cells(text: str, start: int, end: int) -> tuple[int, int]:
    """A table row's text: without its outer bars, spaces and tabs, then any white space."""
    while start < end and text[start] in " \t|":
        start += 1
    while end > start and text[end - 1] in " \t|":
        end -= 1
    while start < end and text[start].isspace():  # "|\x1f0": any white space
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _has_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds a word character (alphanumeric or ``_``)."""
    for at in range(start, end):  # noqa: SIM110 -- a loop the compiler makes C; any() it cannot
        if _is_word(text[at]):
            return True
    return False


def _is_word(char: str) -> bool:
    return char == "_" or char.isalnum()


def _bare_number(text: str, start: int, end: int) -> int:
    """Whether ``text[start:end]`` is a list number alone (1 to 9 digits, masked markers,
    ``.`` or ``)``): -2 when it is not, else where its markers start (-1: it has none).
    """
    at = start
    while at < end and "0" <= text[at] <= "9":
        at += 1
    if at == start or at - start > 9:
        return -2
    digits = at
    while at < end and text[at] == "\x00":
        at += 1
    if at + 1 != end or text[at] not in ".)":
        return -2
    return digits if at > digits else -1


def _header_above(text: str, line: int, size: int) -> bool:
    """Whether the line of ``text`` starting at ``line`` is a table's separator row, so the
    row above it is the table's header.
    """
    stop = text.find("\n", line)
    return _separator_row(text, line, size if stop < 0 else stop)


def _separator_row(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a table's separator row ("|---|:--:|"): a dash first
    looked for, as most rows have none.
    """
    return text.find("-", start, end) >= 0 and \
        _TABLE_SEPARATOR.fullmatch(text, start, end) is not None


def _numbered_heading(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a markdown heading cut after its number ("## 2.",
    "### 2.1."): the sentence end after the number is none, and its title follows.
    """
    if not _HEADING.match(text, start):
        return False
    at = start
    while at < end and text[at] in " \t#":
        at += 1
    digits = at
    while at < end and ("0" <= text[at] <= "9" or text[at] == "."):
        at += 1
    return at == end and at - digits >= 2 and text[end - 1] == "." and \
        "0" <= text[digits] <= "9"


def _structure_start(text: str, start: int, end: int) -> int:
    """Where the claim starts in a piece that opens with markdown structure (``end``: none)."""
    head = text[start]
    if head == "\x01":
        return end
    if head == "#" and _HEADING.match(text, start):
        newline = text.find("\n", start, end)  # the heading line is no claim; text after it is
        if newline < 0:
            return end
        return newline + 1
    if head in "-*_" and _is_rule(text, start, end, head):
        return end
    if head == ">":
        quote = _QUOTE.match(text, start, end)
        return quote.end() if quote else start
    return _item_start(text, start, end)


def _is_rule(text: str, start: int, end: int, head: str) -> bool:
    """Whether the piece is a horizontal rule: up to ``end`` (or a newline just before it)
    nothing but ``head`` (``-``, ``*`` or ``_``), spaces and tabs, and ``head`` three times or
    more.
    """
    stop = end
    if stop > start and text[stop - 1] == "\n":
        stop -= 1
    count = 0
    for at in range(start, stop):
        char = text[at]
        if char == head:
            count += 1
        elif char not in " \t":
            return False
    return count >= 3


def _item_start(text: str, start: int, end: int) -> int:
    """Where a list item's text starts: after spaces and tabs, a bullet (``-*+•‣◦``), spaces
    and tabs and an optional task box (``[ ]``, ``[x]``), or after a number of 1 to 9 digits,
    ``.`` or ``)`` and spaces and tabs; where masked markers follow the number (``1[1]. ``), at
    those markers. ``start`` where no item opens.
    """
    at = start
    while at < end and text[at] in " \t":
        at += 1
    if at >= end:
        return start
    if text[at] in "-*+\u2022\u2023\u25e6":
        at += 1
        if at >= end or text[at] not in " \t":
            return start
        while at < end and text[at] in " \t":
            at += 1
        if at + 3 < end and text[at] == "[" and text[at + 1] in " xX" and \
                text[at + 2] == "]" and text[at + 3] in " \t":
            at += 4
            while at < end and text[at] in " \t":
                at += 1
        return at
    digits = at
    while at < end and "0" <= text[at] <= "9":
        at += 1
    if at == digits or at - digits > 9:
        return start
    digits = at
    while at < end and text[at] == "\x00":
        at += 1
    marked = at > digits
    if at >= end or text[at] not in ".)":
        return start
    at += 1
    if at >= end or text[at] not in " \t":
        return start
    while at < end and text[at] in " \t":
        at += 1
    return digits if marked else at


# The separators. Between them lie the pieces the claims are made of; each separator is one
# of (its first character decides which):
# - a sentence end: [.!?…], then more of them and closing quotes or brackets, the markers
#   that belong to the sentence before it, and white space that neither lower case nor a
#   digit follows ("e.g. the", "3.5%", "No. 5"), or the end of the text; never a full stop
#   after an initial or an abbreviation ("J. Smith", "Dr. Smith");
# - a CJK sentence end: [。！？], the same without the need of white space;
# - a newline that ends a blank line or opens a line of structure (a list item, a heading,
#   a table row, a quote, code, a horizontal rule);
# - the end of a table row ("|" then a newline), of a lead-in line (":" then a newline),
#   or a code block (SOH characters).


def split(text: str) -> list[str]:
    """The pieces of ``text`` and the separators between them, alternately (as ``re.split``
    with a pattern of one group gives them).
    """
    parts: list[str] = []
    size = len(text)
    last = 0
    while True:
        start, end = _next_separator(text, last, size)
        if start < 0:
            break
        parts.append(text[last:start])
        parts.append(text[start:end])
        last = end
    parts.append(text[last:])
    return parts


def _next_separator(text: str, at: int, size: int) -> tuple[int, int]:
    """Where the next separator at or after ``at`` starts and ends; (-1, -1) where none does.
    Found one at a time, so that a caller may stop early.
    """
    while at < size:
        if text[at] in ".!?\u2026\u3002\uff01\uff1f\n|\x01:":
            end = _separator_end(text, at, size)
            if end >= 0:  # (never empty: each separator ends past its start)
                return at, end
        at += 1
    return -1, -1


def _separator_end(text: str, at: int, size: int) -> int:
    """Where the separator starting at ``at`` ends, or -1 where none starts there."""
    head = text[at]
    probe = at + 1
    if head in ".!?\u2026":
        if head == "." and _abbreviated(text, at):
            return -1
        while probe < size and text[probe] in ".!?\u2026":
            probe += 1
        while probe < size and text[probe] in "\"'\u201d\u2019)\u00bb":
            probe += 1
        probe = _after_marks(text, probe, size)
        blank = probe
        while blank < size and text[blank] in " \t\r\n":
            blank += 1
        if blank >= size or (blank > probe and not _is_lower_or_digit(text[blank])):
            return blank
        return -1
    if head in "\u3002\uff01\uff1f":
        while probe < size and text[probe] in "\u3002\uff01\uff1f":
            probe += 1
        while probe < size and text[probe] in "\u300d\u300f\u201d\u2019)\uff09":
            probe += 1
        probe = _after_marks(text, probe, size)
        while probe < size and text[probe] in " \t\r\n":
            probe += 1
        return probe
    if head == "\n":
        blank = _blank_line_end(text, probe, size)
        if blank >= 0:
            return blank
        return probe if _opens_structure(text, probe, size) else -1
    if head == "|":
        while probe < size and text[probe] in " \t\r":
            probe += 1
        return probe + 1 if probe < size and text[probe] == "\n" else -1
    if head == ":":
        return _blank_line_end(text, probe, size)
    if head == "\x01":
        while probe < size and text[probe] == "\x01":
            probe += 1
        return probe
    return -1


def _is_lower_or_digit(char: str) -> bool:
    return "a" <= char <= "z" or "\u00e0" <= char <= "\u00ff" or "0" <= char <= "9"


def _after_marks(text: str, at: int, size: int) -> int:
    """After the markers that belong to the sentence before them: runs of masked markers, each
    after white space and before more sentence punctuation (no ellipsis).
    """
    while True:
        probe = at
        while probe < size and text[probe].isspace():
            probe += 1
        if probe >= size or text[probe] != "\x00":
            return at
        while probe < size and text[probe] == "\x00":
            probe += 1
        while probe < size and text[probe] in ".!?\u3002\uff01\uff1f":
            probe += 1
        at = probe


def _blank_line_end(text: str, at: int, size: int) -> int:
    """After spaces, a newline and any white space (a blank line's end), or -1."""
    while at < size and text[at] in " \t\r":
        at += 1
    if at >= size or text[at] != "\n":
        return -1
    at += 1
    while at < size and text[at] in " \t\r\n":
        at += 1
    return at


def _opens_structure(text: str, at: int, size: int) -> bool:
    """Whether the line at ``at`` opens markdown structure: after spaces and tabs a bullet and
    a blank, a number (1 to 9 digits, masked markers, ``.`` or ``)``) and a blank, ``#``,
    ``|``, ``>``, code, or a horizontal rule (``---``, ``***``, ``___``) alone on its line.
    """
    while at < size and text[at] in " \t":
        at += 1
    if at >= size:
        return False
    head = text[at]
    if head in "#|>\x01":
        return True
    if head in "-*+\u2022\u2023\u25e6" and at + 1 < size and text[at + 1] in " \t":
        return True
    probe = at
    if "0" <= head <= "9":
        while probe < size and "0" <= text[probe] <= "9":
            probe += 1
        if probe - at > 9:
            return False
        while probe < size and text[probe] == "\x00":
            probe += 1
        return probe + 1 < size and text[probe] in ".)" and text[probe + 1] in " \t"
    if head in "-*_":
        while probe < size and text[probe] == head:
            probe += 1
        if probe - at < 3:
            return False
        while probe < size and text[probe] in " \t":
            probe += 1
        return probe >= size or text[probe] == "\n"
    return False


def _abbreviated(text: str, stop: int) -> bool:
    """Whether the full stop at ``stop`` ends an initial (a capital letter alone) or one of
    the titles, case-blind, as a word of its own.

    Where one of the seven characters before the stop folds onto an ASCII letter in
    case-blind matching (İ ı ſ K), the pattern decides; no other non-ASCII character matches
    a title's letter.
    """
    for at in range(max(stop - 7, 0), stop):
        if text[at] in "\u0130\u0131\u017f\u212a":
            return _ABBREVIATED.match(text, stop + 1) is not None
    if stop == 0:
        return False
    last = text[stop - 1]
    if "A" <= last <= "Z" and (stop < 2 or not _is_word(text[stop - 2])):
        return True
    if last > "\x7f":  # no title ends with it
        return False
    titles = _TITLES_ENDING.get(last, ())
    for title in titles:
        length = len(title)
        if length <= stop and _titled(text, stop - length, title) and \
                (stop == length or not _is_word(text[stop - length - 1])):
            return True
    return False


def _titled(text: str, at: int, title: str) -> bool:
    """Whether ``text`` at ``at`` spells ``title`` (lower case), ASCII letters in either case."""
    for k in range(len(title)):
        char = text[at + k]
        letter = title[k]
        if char != letter and not ("A" <= char <= "Z" and ord(char) + 32 == ord(letter)):
            return False
    return True


_ABBREVIATIONS = frozenset(("e.g", "i.e", "cf", "viz", "approx"))


def _masked(text: str, marks: Sequence[tuple[int, int]]) -> str:
    """``text`` with the marks masked (see :func:`mask`), and the full stop after marks that
    follow an abbreviation moved before them (``e.g[4].`` reads as ``e.g.[4]``), so the
    abbreviation rule sees it. Same length; one pass, as the masking makes it anyway.
    """
    pieces: list[str] = []
    size = len(text)
    position = previous = 0
    run = run_at = 0  # where the current run of adjacent marks starts, in text and pieces
    for start, end in marks:
        if start < position:
            continue
        pieces.append(text[position:start])
        if start != previous:
            run = start
            run_at = len(pieces)
        pieces.append(_MASKS[end - start] if 0 <= end - start < 64 else _MASK * (end - start))
        position = previous = end
        if 0 <= end < size and text[end] == "." and 0 < run <= size and \
                _abbreviation_before(text, run):
            pieces.insert(run_at, ".")
            position = end + 1
    pieces.append(text[position:])
    return "".join(pieces)


def _abbreviation_before(text: str, run: int) -> bool:
    """Whether the text before the marks at ``run`` ends in an abbreviation."""
    return text[run - 1] in "gGeEfFzZxX" and \
        text[max(0, run - 7):run].lower().rsplit(" ", 1)[-1].lstrip("(\"'[") in _ABBREVIATIONS


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
