"""The per-chunk work of streaming: what a :class:`~citeaudit.StreamAuditor` holds back and
what it releases as each chunk arrives (see :mod:`citeaudit.request._stream` for why).

:class:`Feed` is the pure-Python reference. ``_feed_core.pyx`` is its compiled copy, with the
same state and the same decisions, typed: the stream uses it unless the reference is chosen
(``CITEAUDIT_PURE=1``, or the core is not built), and ``tests/test_feed.py`` proves the two
release the same text for any answer cut any way.
"""

from __future__ import annotations

import re
from typing import Any

from citeaudit.core import (
    PATTERN_WINDOW,
    Grammar,
    Marker,
    Refusal,
    Span,
    code_spans,
    covered,
    mask,
    resolve_id,
)
from citeaudit.request._guard import junction, line_open, space_before

__all__ = ["FENCE", "MAX_CONTENT", "QUIET", "REFUSAL_WINDOW", "Feed"]

QUIET = re.compile(r"[^\[\]\uff3b\uff3d`~\n]+")  # no bracket, code character or newline
FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
MAX_CONTENT = 200  # the longest bracket content a marker can have (see the grammar)
REFUSAL_WINDOW = 1000


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
        # Lines and paragraphs (blocks), for code fences and code spans: where each starts,
        # as (chunk index, offset) and as a position in the answer.
        self._line_at = (0, 0)
        self._line_start = 0
        self._lines = 0
        self._fence: str | None = None
        self._block_at = (0, 0)
        self._block_start = 0
        self._code_from: int | None = None  # first backtick or tilde in the open block
        self._code: list[Span] = []
        self._code_starts: list[int] = []
        self._refusing = True  # the answer may still be the refusal
        self._finished = False
        # The fast path's test, when nothing but spaces is held: a chunk with no bracket,
        # code character or newline changes nothing but the text. None: no fast path.
        self._quiet: Any = None

    def feed(self, chunk: str) -> str:
        """Take the next piece of the answer; return what is now settled: plain text (every
        unverifiable marker removed, verified ones as written) or, with ``render``, its
        escaped HTML or Markdown with verified markers as links.
        """
        shown = self._feed(chunk)
        if self._renderer is None:
            return shown
        refs = self._refs
        assert refs is not None
        rendered: str = self._renderer.take(shown, refs)
        refs.clear()
        return rendered

    def _feed(self, chunk: str) -> str:
        quiet = self._quiet
        if quiet is not None and quiet(chunk):
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
        if not isinstance(chunk, str):
            raise TypeError(f"feed() takes a str, not {type(chunk).__name__}")
        if self._finished:
            raise RuntimeError("feed() after finish()")
        if not chunk:
            return ""
        self._chunks.append(chunk)
        length = self._count()
        position = length - len(chunk)
        start = position - len(self._pending) - self._tail_length  # of what is not shown
        self._track(chunk, len(self._chunks) - 1, position)
        if (self._code_from is not None and self._code_from <= start) or (
                not self._brackets and self._line_start <= start):
            # Held whole until its paragraph (or line) ends: no need to look at it again.
            self._quiet = None
            self._tail.append(chunk)
            self._tail_length += len(chunk)
            return ""
        self._pending += self._untail() + chunk
        shown = self._release(self._settled())
        if not self._refusing and self._code_from is None and self._brackets and \
                not self._pending.strip(" \t"):
            self._quiet = QUIET.fullmatch
            if self._pending:  # held spaces move to the tail, where the fast path keeps them
                self._tail.append(self._pending)
                self._tail_length = len(self._pending)
                self._pending = ""
        else:
            self._quiet = None
        return shown

    def _stop(self) -> str:
        """End the feed: the whole text received (a second call is an error)."""
        if self._finished:
            raise RuntimeError("finish() called twice")
        self._finished = True
        self._quiet = None
        return "".join(self._chunks)

    def _flush(self) -> str:
        """Once the answer is known not to be a refusal: display everything held."""
        self._close_block(self._count(), (len(self._chunks), 0))
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
        if self._counted < len(chunks):
            self._length += sum(map(len, chunks[self._counted:]))
            self._counted = len(chunks)
        return self._length

    def _slice(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """The answer between two (chunk index, offset) places."""
        chunks = self._chunks
        (first, offset), (last, stop) = start, end
        if first == last:
            return chunks[first][offset:stop]
        tail = chunks[last][:stop] if last < len(chunks) else ""
        return chunks[first][offset:] + "".join(chunks[first + 1:last]) + tail

    # Tracking lines and paragraphs -------------------------------------------------------

    def _track(self, chunk: str, index: int, position: int) -> None:
        if "\n" not in chunk and (self._code_from is not None or
                                  ("`" not in chunk and "~" not in chunk)):
            return  # no line ends and no code starts
        start = 0
        while start < len(chunk):
            newline = chunk.find("\n", start)
            end = len(chunk) if newline < 0 else newline + 1
            if self._code_from is None:
                found = [i for i in (chunk.find("`", start, end), chunk.find("~", start, end))
                         if i >= 0]
                if found:
                    self._code_from = position + min(found)
            if newline >= 0:
                line = self._slice(self._line_at, (index, end))
                self._line_at = (index, end)
                self._line_start = position + end
                self._end_line(line, position + end, (index, end))
            start = end

    def _end_line(self, line: str, end: int, at: tuple[int, int]) -> None:
        """A line is complete: follow code fences, and close the block at a blank line."""
        self._lines += 1
        match = FENCE.match(line)
        if self._fence is None and match:
            self._fence = match[1]
        elif self._fence is not None and match and match[1].startswith(self._fence) and \
                not line[match.end():].strip():
            self._fence = None
        elif self._fence is None and self._lines > 1 and not line.strip(" \t\r\n"):
            self._close_block(end, at)

    def _close_block(self, end: int, at: tuple[int, int]) -> None:
        """The paragraph up to ``end`` (chunk place ``at``) is complete: its code is known."""
        if self._code_from is not None:
            base = self._block_start
            for span in code_spans(self._slice(self._block_at, at)):
                self._code.append(Span(span.start + base, span.end + base))
                self._code_starts.append(span.start + base)
            self._code_from = None
        self._block_at = at
        self._block_start = end

    # Deciding what is settled -------------------------------------------------------------

    def _settled(self) -> int:
        """How far (in answer positions) the text is settled."""
        pending = self._pending
        limit = self._length
        base = limit - len(pending)
        if self._code_from is not None:
            limit = min(limit, self._code_from)
        if not self._brackets:
            limit = min(limit, self._line_start)
        else:
            opening = max(pending.rfind("["), pending.rfind("\uff3b"))
            if opening >= 0:
                after = pending[opening + 1:]
                closing = max(after.find("]"), after.find("\uff3d"))
                if (closing < 0 and len(after) <= MAX_CONTENT and "\n" not in after) or (
                        closing == len(after) - 1 and closing <= MAX_CONTENT):
                    limit = min(limit, base + opening)
        if self._refusing and self._may_refuse(pending[:limit - base]):
            return base
        cut = limit - base
        if cut > 0 and pending[cut - 1] in " \t":
            limit = base + len(pending[:cut].rstrip(" \t"))
        return max(limit, base)

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
        base = self._length - len(self._pending)
        if limit <= base:
            return ""
        cut = limit - base
        window = self._pending[:cut]
        after_window = self._pending[cut:cut + 1]
        self._pending = self._pending[cut:]
        before = self._before
        self._before = window[-1]
        if "[" not in window and "\uff3b" not in window and self._brackets:
            return self._shown(window)
        scan = self._grammar.scan(before + window)
        offset = base - len(before)
        pieces: list[str] = []
        length = 0  # of the pieces
        refs = self._refs
        position = len(before)
        text = before + window
        for marker in scan.markers:
            start = marker.start
            if start < len(before) or (self._code and covered(start + offset, self._code,
                                                              self._code_starts)):
                continue
            valid = self._valid(marker)
            if len(valid) == len(marker.ids):  # shown as written
                if refs is not None:
                    at = length + start - position
                    refs.append((at, at + marker.end - start, valid))
                continue
            if valid:
                pieces.append(text[position:start])
                length += start - position
                shown = f"[{', '.join(dict.fromkeys(w for w, _ in valid))}]"
                if refs is not None:
                    refs.append((length, length + len(shown), valid))
                pieces.append(shown)
                length += len(shown)
            else:
                # ``before`` was displayed already: it only gives context.
                pieces.append(text[position:max(space_before(text, start), len(before))])
                so_far = "".join(pieces)
                after = text[marker.end:marker.end + 1] or after_window
                pieces = [so_far, junction((so_far or self._last)[-1:], after,
                                           line_open(so_far, self._opened))]
                length = len(so_far) + len(pieces[1])
            position = marker.end
        pieces.append(text[position:])
        return self._shown("".join(pieces))

    def _shown(self, text: str) -> str:
        """Note what is displayed (the last character, an open bracket) and return it."""
        if text:
            self._last = text[-1]
            if "[" in text or "]" in text or "\n" in text or "\uff3b" in text or \
                    "\uff3d" in text:
                self._opened = line_open(text, self._opened)
        return text

    def _valid(self, marker: Marker) -> list[tuple[str, str]]:
        """The marker's ids that resolve: (as written, snapshot id)."""
        snapshot = self._snapshot
        found = []
        for source_id in marker.ids:
            resolved = resolve_id(source_id, marker.prefix, snapshot)
            if resolved is not None:
                found.append((source_id, resolved))
        return found
