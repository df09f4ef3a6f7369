# cython: boundscheck=False
# (for the compiled build: every index below is checked against its string's bounds before it
# is read; the fuzzer runs this module under AddressSanitizer)
"""The per-chunk work of streaming: what a :class:`~citeaudit.StreamAuditor` holds back and
what it releases as each chunk arrives (see :mod:`citeaudit.request._stream` for why).

:class:`Feed` is compiled from this source where the package is built (Cython's pure-Python
mode, the C types in ``_feed.pxd``: an extension type, which ``StreamAuditor`` inherits) and
runs as Python elsewhere; ``tests/test_feed.py`` holds the build to this module run as Python,
for any answer cut any way.
"""

from __future__ import annotations

import re
from typing import Any

from citeaudit.core import (
    PATTERN_WINDOW,
    BracketGrammar,
    Grammar,
    Refusal,
    Span,
    code_spans,
    covered,
    mask,
    resolve_id,
)
from citeaudit.request._guard import line_open, strip_marker

__all__ = ["FENCE", "MAX_CONTENT", "QUIET", "REFUSAL_WINDOW", "Feed"]

# What the fast path lets through (``_quiet``): no bracket, code character or newline.
QUIET = re.compile(r"[^\[\]\uff3b\uff3d`~\n]+")
FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
MAX_CONTENT = 200  # the longest bracket content a marker can have (see the grammar)
REFUSAL_WINDOW = 1000

# What a line that ends may be, for following code fences and paragraphs (``_line_shape``).
_OTHER = 0
_BLANK = 1  # spaces, tabs and line breaks only: it ends a paragraph
_MAY_FENCE = 2  # at most three spaces or tabs, then a backtick or a tilde


class Feed:
    """The text received, what of it is displayed and what is held back, for one answer.

    ``grammar`` reads the markers, ``brackets`` says whether all its markers are ``[...]`` on
    one line, ``refusal`` is what a refusal looks like; ``refs`` (None without a renderer)
    collects the verified markers of the text released, for the renderer.
    """

    def __init__(self, grammar: Grammar, refusal: Refusal, snapshot: Any, brackets: bool, *,
                 renderer: Any, refs: list[tuple[int, int, list[tuple[str, str]]]] | None,
                 ) -> None:
        self._grammar = grammar
        self._refusal = refusal
        self._snapshot = snapshot
        self._brackets = brackets
        # A bracket grammar's markers alone, without the malformed ones the stream ignores.
        self._markers = grammar.markers if type(grammar) is BracketGrammar else None
        self._renderer = renderer
        self._refs = refs
        self._chunks: list[str] = []
        self._counted = 0  # chunks counted in ``_length``; the fast path does not count
        self._length = 0  # characters received, once counted
        self._before = ""  # the last character of the answer displayed (or removed)
        self._last = ""  # the last character displayed
        self._opened = False  # whether the displayed line has an unclosed "["
        # Received but not settled, the end of the answer: ``_pending``, then ``_tail``, chunks
        # held whole and not looked at (spaces, or what follows code in an open paragraph).
        self._pending = ""
        self._tail: list[str] = []
        self._tail_length = 0
        # Lines and paragraphs (blocks), for code fences and code spans: where each starts, as
        # a chunk's index and an offset in it, and as a position in the answer.
        self._line_chunk = 0
        self._line_offset = 0
        self._line_start = 0
        self._lines = 0
        self._fence: str | None = None
        self._block_chunk = 0
        self._block_offset = 0
        self._block_start = 0
        self._code_from = -1  # the first backtick or tilde in the open block (-1: none)
        self._code: list[Span] = []
        self._code_starts: list[int] = []
        self._refusing = True  # the answer may still be the refusal
        self._finished = False
        # Whether the next chunk may take the fast path: nothing is held but spaces, and a
        # chunk with no bracket, code character or newline changes nothing but the text.
        self._quiet = False

    def feed(self, chunk: str) -> str:
        """Take the next piece of the answer; return what is now settled: plain text (every
        unverifiable marker removed, verified ones as written) or, with ``render``, its
        escaped HTML or Markdown with verified markers as links.
        """
        if type(chunk) is not str:
            if not isinstance(chunk, str):
                raise TypeError(f"feed() takes a str, not {type(chunk).__name__}")
            chunk = str.__str__(chunk)  # a subclass's text, as a str
        shown = self._feed(chunk)
        if self._renderer is None:
            return shown
        refs = self._refs
        assert refs is not None
        rendered: str = self._renderer.take(shown, refs)
        refs.clear()
        return rendered

    def _feed(self, chunk: str) -> str:
        if self._quiet and _quiet(chunk):
            # The fast path: nothing held but spaces (in ``_tail``), nothing in the chunk
            # that needs a decision.
            self._chunks.append(chunk)
            tail = self._tail
            if chunk[-1] not in " \t":
                self._before = self._last = chunk[-1]
                if tail:
                    held = "".join(tail)
                    tail.clear()
                    self._tail_length = 0
                    return held + chunk
                return chunk
            body = chunk.rstrip(" \t")
            if not body:  # spaces are held: an unverifiable marker after them takes them
                tail.append(chunk)
                self._tail_length += len(chunk)
                return ""
            shown = "".join(tail) + body if tail else body
            tail.clear()
            tail.append(chunk[len(body):])
            self._tail_length = len(chunk) - len(body)
            self._before = self._last = body[-1]
            return shown
        if self._finished:
            raise RuntimeError("feed() after finish()")
        if not chunk:
            return ""
        self._chunks.append(chunk)
        length = self._count()
        position = length - len(chunk)
        start = position - len(self._pending) - self._tail_length  # of what is not shown
        self._track(chunk, len(self._chunks) - 1, position)
        if (0 <= self._code_from <= start) or (not self._brackets and self._line_start <= start):
            # Held whole until its paragraph (or line) ends: no need to look at it again.
            self._quiet = False
            self._tail.append(chunk)
            self._tail_length += len(chunk)
            return ""
        self._pending += self._untail() + chunk
        shown = self._release(self._settled())
        if not self._refusing and self._code_from < 0 and self._brackets and \
                not self._pending.strip(" \t"):
            self._quiet = True
            if self._pending:  # held spaces move to the tail, where the fast path keeps them
                self._tail.append(self._pending)
                self._tail_length = len(self._pending)
                self._pending = ""
        else:
            self._quiet = False
        return shown

    def _stop(self) -> str:
        """End the feed: the whole text received (a second call is an error)."""
        if self._finished:
            raise RuntimeError("finish() called twice")
        self._finished = True
        self._quiet = False
        return "".join(self._chunks)

    def _flush(self) -> str:
        """Once the answer is known not to be a refusal: display everything held."""
        self._close_block(self._count(), len(self._chunks), 0)
        self._pending += self._untail()
        self._refusing = False
        return self._release(self._length)

    def _untail(self) -> str:
        """Take the held tail back (to be looked at)."""
        if not self._tail:
            return ""
        held = "".join(self._tail)
        self._tail = []
        self._tail_length = 0
        return held

    def _count(self) -> int:
        """Characters received (counting the chunks the fast path let through)."""
        chunks = self._chunks
        while self._counted < len(chunks):
            self._length += len(chunks[self._counted])
            self._counted += 1
        return self._length

    def _slice(self, first: int, offset: int, last: int, stop: int) -> str:
        """The answer from chunk ``first`` at ``offset`` to chunk ``last`` at ``stop``."""
        chunks = self._chunks
        if first == last:
            return chunks[first][offset:stop]
        tail = chunks[last][:stop] if last < len(chunks) else ""
        return chunks[first][offset:] + "".join(chunks[first + 1:last]) + tail

    # Tracking lines and paragraphs -------------------------------------------------------

    def _track(self, chunk: str, index: int, position: int) -> None:
        """Follow the lines and code that chunk ``index`` (at ``position``) brings."""
        if "\n" not in chunk and (self._code_from >= 0 or
                                  ("`" not in chunk and "~" not in chunk)):
            return  # no line ends and no code starts
        size = len(chunk)
        at = 0
        while at < size:
            char = chunk[at]
            if self._code_from < 0 and char in "`~":
                self._code_from = position + at
            elif char == "\n":
                self._end_line(index, at + 1, position + at + 1)
            at += 1

    def _end_line(self, index: int, offset: int, end: int) -> None:
        """The line up to chunk ``index`` at ``offset`` (``end`` in the answer) is complete:
        follow code fences, and close the block at a blank line.
        """
        self._lines += 1
        shape = self._line_shape(index, offset)
        if shape == _MAY_FENCE:
            line = self._slice(self._line_chunk, self._line_offset, index, offset)
            match = FENCE.match(line)
            if self._fence is None and match:
                self._fence = match[1]
            elif self._fence is not None and match and match[1].startswith(self._fence) and \
                    not line[match.end():].strip():
                self._fence = None
        elif shape == _BLANK and self._fence is None and self._lines > 1:
            self._close_block(end, index, offset)
        self._line_chunk = index
        self._line_offset = offset
        self._line_start = end

    def _line_shape(self, index: int, offset: int) -> int:
        """What the line that ends at chunk ``index``, ``offset`` may be, read in place (as far
        as its first character that is not a space, tab or line break): ``_MAY_FENCE``,
        ``_BLANK`` or ``_OTHER``.
        """
        chunks = self._chunks
        blanks = 0  # spaces and tabs before the first other character
        at = self._line_offset
        for number in range(self._line_chunk, index + 1):
            chunk = chunks[number]
            stop = offset if number == index else len(chunk)
            while at < stop:
                char = chunk[at]
                if char in " \t":
                    blanks += 1
                elif char in "\r\n":
                    blanks = 4  # a fence opens its line
                elif char in "`~" and blanks <= 3:
                    return _MAY_FENCE
                else:
                    return _OTHER
                at += 1
            at = 0
        return _BLANK

    def _close_block(self, end: int, index: int, offset: int) -> None:
        """The paragraph up to ``end`` (chunk ``index`` at ``offset``) is complete: its code is
        known.
        """
        if self._code_from >= 0:
            base = self._block_start
            for start, stop in code_spans(self._slice(self._block_chunk, self._block_offset,
                                                      index, offset)):
                self._code.append(Span(start + base, stop + base))
                self._code_starts.append(start + base)
            self._code_from = -1
        self._block_chunk = index
        self._block_offset = offset
        self._block_start = end

    # Deciding what is settled -------------------------------------------------------------

    def _settled(self) -> int:
        """How far (in answer positions) the text is settled."""
        pending = self._pending
        size = len(pending)
        limit = self._length
        base = limit - size
        if 0 <= self._code_from < limit:
            limit = self._code_from
        if not self._brackets:
            limit = min(limit, self._line_start)
        else:
            # The last "[" is held while what follows it may still become a marker: content
            # without "]" and newline within the bound, or a "]" at the very end (a link's "("
            # may follow).
            opening = max(pending.rfind("["), pending.rfind("\uff3b"))
            if opening >= 0:
                closing = max(pending.find("]", opening), pending.find("\uff3d", opening))
                content = (size if closing < 0 else closing) - opening - 1
                if content <= MAX_CONTENT and (
                        (closing < 0 and pending.find("\n", opening) < 0) or
                        closing == size - 1):
                    limit = min(limit, base + opening)
        if self._refusing and self._may_refuse(pending[:limit - base]):
            return base
        cut = limit - base
        while cut > 0 and pending[cut - 1] in " \t":
            cut -= 1
        return max(base + cut, base)

    def _may_refuse(self, head: str) -> bool:
        """Whether the answer so far (``head``: everything, as nothing is shown while this
        holds) may still turn out to be the refusal; once it cannot, it never can.
        """
        refusal = self._refusal
        if len(head) <= max(refusal.longest + REFUSAL_WINDOW, PATTERN_WINDOW
                            if refusal.pattern is not None else 0):
            if refusal.may_start(head):
                return True
            scan = self._grammar.scan(head)
            if scan.markers and refusal.may_start(
                    mask(head, [Span(m.start, m.end) for m in scan.markers], "")):
                return True
        self._refusing = False
        return False

    def _release(self, limit: int) -> str:
        """Display the answer up to ``limit``: markers checked, unverifiable ones removed (the
        verified ones are noted in ``_refs`` for a renderer).
        """
        pending = self._pending
        base = self._length - len(pending)
        if limit <= base:
            return ""
        cut = limit - base
        window = pending[:cut]
        after_window = pending[cut:cut + 1]
        self._pending = pending[cut:]
        before = self._before
        self._before = window[-1]
        if self._brackets and "[" not in window and "\uff3b" not in window:
            return self._shown(window)
        text = before + window
        markers = self._grammar.scan(text).markers if self._markers is None else \
            self._markers(text)
        held = len(before)
        offset = base - held
        pieces: list[str] = []
        length = 0  # of the pieces
        refs = self._refs
        position = held
        for _raw, start, end, ids, prefix, _ordinal in markers:  # (a named tuple, unpacked)
            if start < held or (self._code and covered(start + offset, self._code,
                                                       self._code_starts)):
                continue
            valid = self._valid(ids, prefix)
            if len(valid) == len(ids):  # shown as written
                if refs is not None:
                    at = length + start - position
                    refs.append((at, at + end - start, valid))
                continue
            if valid:
                pieces.append(text[position:start])
                length += start - position
                shown = f"[{', '.join(dict.fromkeys([written for written, _ in valid]))}]"
                if refs is not None:
                    refs.append((length, length + len(shown), valid))
                pieces.append(shown)
                length += len(shown)
            else:
                # ``before`` was displayed already: it only gives context.
                so_far = "".join(pieces)
                cut, joint = strip_marker(text, start, end, max(position, held),
                                          shown=so_far or self._last,
                                          opened=line_open(so_far, self._opened),
                                          after=after_window)
                so_far += text[position:cut]
                pieces = [so_far, joint]
                length = len(so_far) + len(joint)
            position = end
        pieces.append(text[position:])
        return self._shown("".join(pieces))

    def _shown(self, text: str) -> str:
        """Note what is displayed (the last character, an open bracket) and return it."""
        if text:
            self._last = text[-1]
            if _marks_line(text):
                self._opened = line_open(text, self._opened)
        return text

    def _valid(self, ids: tuple[str, ...], prefix: str) -> list[tuple[str, str]]:
        """The marker's ids that resolve: (as written, snapshot id)."""
        snapshot = self._snapshot
        found = []
        for source_id in ids:
            resolved = resolve_id(source_id, prefix, snapshot)
            if resolved is not None:
                found.append((source_id, resolved))
        return found


def _quiet(chunk: str) -> bool:
    """Whether ``chunk`` may take the fast path: ``QUIET.fullmatch(chunk)``."""
    if not chunk:
        return False
    for char in chunk:  # noqa: SIM110 -- a loop the compiler makes C; any() it cannot
        if char in "[]\uff3b\uff3d`~\n":
            return False
    return True


def _marks_line(text: str) -> bool:
    """Whether ``text`` holds a bracket (either width) or a newline: what can change whether
    the displayed line has an open ``[``.
    """
    for char in text:  # noqa: SIM110 -- a loop the compiler makes C; any() it cannot
        if char in "[]\uff3b\uff3d\n":
            return True
    return False
