"""Citation-aware claim segmentation of free text.

A claim is a sentence, a list item's sentence, or a table row. Markers after the terminal
punctuation (``... 7 days. [S1]``, ``etc.[1] [3]..``) belong to the sentence before them.
Headings, code blocks, table header and separator rows, horizontal rules and lead-in lines
ending in ``:`` are not claims. Abbreviations (``e.g.``, ``Dr.``), decimals (``3.5%``),
initials, quotes, markdown bullets and numbered lists (``1[1]. Analyze ...``) do not split
a claim; CJK sentence punctuation (``。！？``) does.

Why our own: the maintained segmenters we measured (``benchmarks/bench_segment.py``) are
one to three orders of magnitude slower than the whole audit's budget and do not know
that a marker after a full stop belongs to the sentence before it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import NamedTuple, Protocol

__all__ = ["Segmenter", "Span", "code_spans", "segment"]


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
    r"|([0-9]{1,9})((?:\[[^\[\]\n]{0,64}\])*)[.)][ \t]+)")
_QUOTE = re.compile(r"(?:[ \t]*>)+[ \t]?")
_TERMINATOR = re.compile(r"[.!?…]+[\"'”’)»]*|[。！？]+[」』”’)）]*")
_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_WORD = re.compile(r"\w")

# Abbreviations after which a full stop does not end a sentence when a capital follows.
_TITLES = frozenset((
    "mr", "mrs", "ms", "mx", "dr", "prof", "sr", "jr", "st", "mt", "gen", "col", "lt", "capt",
    "sgt", "rep", "sen", "gov", "rev", "hon", "messrs", "mme", "mlle", "e.g", "i.e", "cf", "viz",
    "approx", "ca",
))
# ... and when a digit follows ("Fig. 3", "No. 5").
_BEFORE_NUMBERS = frozenset((
    "no", "nos", "nr", "fig", "figs", "p", "pp", "vol", "vols", "art", "sec", "ch", "chap", "eq",
    "ref", "refs", "approx", "ca", "v", "vs", "op", "para",
))


def code_spans(text: str) -> list[Span]:
    """Spans of fenced code blocks and inline code, where brackets are never markers."""
    if "`" not in text and "~~~" not in text:
        return []
    spans: list[Span] = []
    fence: str | None = None
    fence_start = 0
    position = 0
    for line in text.splitlines(keepends=True):
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
    inline = [Span(*m.span()) for m in _INLINE_CODE.finditer(text) if "\n\n" not in m[0]]
    spans.extend(s for s in inline if not _inside(s.start, spans))
    spans.sort()
    return spans


def _inside(position: int, spans: Sequence[Span]) -> bool:
    return any(start <= position < end for start, end in spans)


def segment(text: str, marks: Sequence[Span] = ()) -> list[Span]:
    """Claim spans of ``text``, in order, trimmed of surrounding whitespace.

    ``marks`` are the sorted spans of marker-looking text (valid and malformed markers); they
    decide which bracketed text after a full stop still belongs to the sentence.
    """
    splitter = _Splitter(text, marks)
    if "\n" not in text and not _special_start(text):
        splitter.split(0, len(text))
        return splitter.claims
    splitter.blocks()
    return splitter.claims


def _special_start(text: str) -> bool:
    head = text.lstrip()[:1]
    return head in ("#", "|", "-", "*", "+", ">", "`", "~", "•") or head.isdigit()


class _Splitter:
    __slots__ = ("claims", "mark_ends", "mark_starts", "text")

    def __init__(self, text: str, marks: Sequence[Span]) -> None:
        self.text = text
        self.mark_starts = [m.start for m in marks]
        self.mark_ends = [m.end for m in marks]
        self.claims: list[Span] = []

    def blocks(self) -> None:
        """Walk the lines, classifying them, and split each prose block into sentences."""
        text = self.text
        length = len(text)
        block_start = -1  # start of the current paragraph, -1 when none
        block_end = 0
        fence: str | None = None
        table_row_claims = -1  # number of claims before the last table row, for header removal
        position = 0
        while position < length:
            newline = text.find("\n", position)
            line_end = length if newline < 0 else newline
            next_line = line_end + 1
            line = text[position:line_end]
            if fence is not None:
                match = _FENCE.match(line)
                if match and match[1].startswith(fence) and not line[match.end():].strip():
                    fence = None
                position = next_line
                continue
            stripped = line.strip()
            match = _FENCE.match(line) if stripped[:1] in ("`", "~") else None
            if not stripped or match or _HEADING.match(line) or _RULE.match(line):
                self._flush(block_start, block_end)
                block_start = -1
                if match:
                    fence = match[1]
                position = next_line
                continue
            if stripped[0] == "|" or (table_row_claims >= 0 and "|" in stripped):
                self._flush(block_start, block_end)
                block_start = -1
                if _TABLE_SEPARATOR.fullmatch(line) and "-" in line:
                    if table_row_claims >= 0:
                        del self.claims[table_row_claims:]  # the row above was the header
                    table_row_claims = -1
                    position = next_line
                    continue
                table_row_claims = len(self.claims)
                self._table_row(position, line_end)
                position = next_line
                continue
            table_row_claims = -1
            item = _ITEM.match(line) if stripped[0] in "-*+•‣◦0123456789" else None
            if item is not None:
                self._flush(block_start, block_end)
                lead = position + item.end(1) if item[2] else None
                block_start, block_end = position + item.end(), line_end
                if lead is not None:
                    self._flush(block_start, block_end, lead)
                    block_start = -1
                position = next_line
                continue
            quote = _QUOTE.match(line) if stripped[0] == ">" else None
            content_start = position + (quote.end() if quote else 0)
            if block_start < 0:
                block_start = content_start
            block_end = line_end
            position = next_line
        self._flush(block_start, block_end)

    def _flush(self, start: int, end: int, lead: int | None = None) -> None:
        if start >= 0 and end > start:
            self.split(start, end, lead)

    def _table_row(self, start: int, end: int) -> None:
        text = self.text
        while start < end and text[start] in " \t|":
            start += 1
        while end > start and text[end - 1] in " \t|\r":
            end -= 1
        if end > start and self._has_words(start, end):
            self.claims.append(Span(start, end))

    def split(self, start: int, end: int, lead: int | None = None) -> None:
        """Split ``text[start:end]`` into sentences; ``lead`` moves the first claim's start back
        over a numbered item's markers (``1[1]. ...``).
        """
        text = self.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            return
        sentence_start = start if lead is None else lead
        consumed = start
        for match in _TERMINATOR.finditer(text, start, end):
            stop, after = match.span()
            if after <= consumed:
                continue
            after = self._absorb(after, end)
            cjk = text[stop] in "。！？"
            if after < end and not cjk and not text[after].isspace():
                continue  # 3.5%, example.com, "days.Next"
            following = self._next_start(after, end)
            if following < end and not cjk and self._continues(stop, match.end(), following,
                                                                 sentence_start):
                continue
            self._emit(sentence_start, after)
            sentence_start = consumed = following
        if sentence_start < end:
            self._emit(sentence_start, end)

    def _next_start(self, position: int, end: int) -> int:
        """Where the next sentence starts: past white space and a blockquote's ``>`` prefix."""
        text = self.text
        newline = False
        while position < end:
            char = text[position]
            if char == "\n":
                newline = True
            elif not (char.isspace() or (newline and char == ">")):
                break
            position += 1
        return position

    def _absorb(self, position: int, end: int) -> int:
        """Move past markers (and punctuation glued to them) right after a terminator."""
        text = self.text
        starts = self.mark_starts
        while True:
            probe = position
            while probe < end and text[probe] in " \t\r\n":
                probe += 1
            index = bisect_left(starts, probe)
            if index == len(starts) or starts[index] != probe:
                return position
            position = self.mark_ends[index]
            while position < end and text[position] in ".!?。！？":
                position += 1

    def _continues(self, stop: int, punct_end: int, following: int, sentence_start: int) -> bool:
        """Whether the sentence goes on after the punctuation at ``stop`` (abbreviations etc.)."""
        text = self.text
        first = text[following]
        if first.islower():
            return True  # "e.g. the", "etc. and", '"Is it?" she asked'
        if text[stop] != "." or punct_end - stop != 1:
            return False
        word_start = stop
        while word_start > sentence_start and (text[word_start - 1].isalpha()
                                               or text[word_start - 1] == "."):
            word_start -= 1
        word = text[word_start:stop]
        if not word:
            return False
        if len(word) == 1 and word.isupper():
            return True  # an initial: "J. Smith"
        lowered = word.lower()
        if first.isdigit():
            return lowered in _BEFORE_NUMBERS
        return lowered in _TITLES

    def _emit(self, start: int, end: int) -> None:
        text = self.text
        while end > start and text[end - 1].isspace():
            end -= 1
        if end <= start:
            return
        if not self._has_words(start, end):
            if self.claims and self._has_marks(start, end):
                previous = self.claims[-1]
                self.claims[-1] = Span(previous.start, end)  # markers alone join the claim before
            return
        if text[end - 1] == ":" and not self._has_marks(start, end):
            return  # a lead-in such as "Here is what the passages say:"
        self.claims.append(Span(start, end))

    def _has_marks(self, start: int, end: int) -> bool:
        index = bisect_left(self.mark_starts, start)
        return index < len(self.mark_starts) and self.mark_starts[index] < end

    def _has_words(self, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` has a word character outside every marker."""
        text = self.text
        starts, ends = self.mark_starts, self.mark_ends
        index = bisect_left(ends, start + 1)
        position = start
        while index < len(starts) and starts[index] < end:
            if _WORD.search(text, position, starts[index]):
                return True
            position = max(position, ends[index])
            index += 1
        return _WORD.search(text, position, end) is not None
