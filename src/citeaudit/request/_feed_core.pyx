# cython: language_level=3, cdivision=True
"""The compiled copy of :class:`citeaudit.request._feed.Feed`, the per-chunk work of streaming.

It mirrors the reference method for method, with the same state and the same decisions,
typed: positions are C integers (``-1`` where the reference holds None), places in the answer
are (chunk index, offset) pairs of fields, and the character tests the reference makes with
``in`` and a regular expression (the fast path's, a fence's opening) and the guard's
``line_open`` are loops over the string's characters. Everything else (the grammar's scan, resolution, code spans, the guard's
junctions, the renderer) is the reference's own code, called from here.
``tests/test_feed.py`` proves the two release the same text for any answer cut any way.
"""

cimport cython
from cpython.list cimport PyList_GET_SIZE
from cpython.unicode cimport PyUnicode_FindChar

from citeaudit.core._records cimport item as _item

from citeaudit.core._engine import resolve_id
from citeaudit.core._grammar import BracketGrammar
from citeaudit.core._refusal import PATTERN_WINDOW
from citeaudit.core._segment import Span, code_spans, covered, mask
from citeaudit.request._feed import FENCE, MAX_CONTENT, REFUSAL_WINDOW
from citeaudit.request._guard import junction, space_before


cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int, void*, Py_ssize_t)
    object PyUnicode_FromOrdinal(int)
    int PyList_SetSlice(object, Py_ssize_t, Py_ssize_t, void*) except -1


cdef Py_ssize_t _MAX_CONTENT = MAX_CONTENT
cdef Py_ssize_t _REFUSAL_WINDOW = REFUSAL_WINDOW
cdef Py_ssize_t _PATTERN_WINDOW = PATTERN_WINDOW
cdef object _fence_match = FENCE.match


# What a line that ends may be (Feed._line_shape).
cdef enum:
    _OTHER = 0
    _BLANK = 1
    _FENCE_MAY = 2


cdef inline bint _quiet(str text):
    """The reference's ``QUIET.fullmatch``: no bracket, code character or newline (and not
    empty)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    if n == 0:
        return False
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == 0x5B or c == 0x5D or c == 0x60 or c == 0x7E or c == 0x0A or \
                c == 0xFF3B or c == 0xFF3D:
            return False
    return True


cdef inline bint _marks_line(str text):
    """Whether ``text`` holds a bracket (either width) or a newline: what can change whether
    the displayed line has an open ``[``."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == 0x5B or c == 0x5D or c == 0x0A or c == 0xFF3B or c == 0xFF3D:
            return True
    return False


cpdef bint line_open(str text, bint opened):
    """``citeaudit.request._guard.line_open``: whether a ``[`` is left unclosed on the last
    line, once ``text`` is added to a line that was (``opened``) or was not. The last bracket
    (either width) after the last newline decides; with none, a newline closes the line."""
    cdef Py_ssize_t i = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    while i > 0:
        i -= 1
        c = PyUnicode_READ(kind, data, i)
        if c == 0x5B or c == 0xFF3B:
            return True
        if c == 0x5D or c == 0xFF3D or c == 0x0A:
            return False
    return opened


cdef inline Py_ssize_t _body(str text, Py_ssize_t n):
    """The length of ``text[:n].rstrip(" \\t")``."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    while n > 0:
        c = PyUnicode_READ(kind, data, n - 1)
        if c != 0x20 and c != 0x09:
            break
        n -= 1
    return n


cdef inline str _char(str text, Py_ssize_t at):
    """``text[at]`` (a cached string for the first 256 code points)."""
    return PyUnicode_FromOrdinal(PyUnicode_READ(PyUnicode_KIND(text), PyUnicode_DATA(text), at))


cdef inline int _clear(list items) except -1:
    """``items.clear()``."""
    return PyList_SetSlice(items, 0, PyList_GET_SIZE(items), NULL)


cdef inline Py_ssize_t _either(Py_ssize_t a, Py_ssize_t b):
    """The first of two ``find`` results (-1 for neither)."""
    if a < 0:
        return b
    if b < 0:
        return a
    return a if a < b else b


cdef class Feed:
    """The reference's :class:`citeaudit.request._feed.Feed`, compiled (same arguments)."""

    cdef readonly object _grammar, _refusal, _snapshot, _renderer, _refs
    cdef dict _index  # the snapshot's sources by id
    cdef object _markers  # a bracket grammar's markers of a text, else None
    cdef list _chunks, _tail, _code, _code_starts
    cdef Py_ssize_t _counted, _length, _tail_length
    cdef str _before, _last, _pending
    cdef bint _brackets, _opened, _refusing, _finished, _quiet
    cdef Py_ssize_t _line_chunk, _line_offset, _line_start, _lines
    cdef object _fence
    cdef Py_ssize_t _block_chunk, _block_offset, _block_start
    cdef Py_ssize_t _code_from  # -1: no backtick or tilde in the open block

    def __init__(self, grammar, refusal, snapshot, bint brackets, *, renderer, refs):
        self._grammar = grammar
        self._refusal = refusal
        self._snapshot = snapshot
        index = snapshot.index
        self._index = index if type(index) is dict else dict(index)
        self._brackets = brackets
        self._markers = grammar.markers if type(grammar) is BracketGrammar else None
        self._renderer = renderer
        self._refs = refs
        self._chunks = []
        self._counted = 0
        self._length = 0
        self._before = ""
        self._last = ""
        self._opened = False
        self._pending = ""
        self._tail = []
        self._tail_length = 0
        self._line_chunk = 0
        self._line_offset = 0
        self._line_start = 0
        self._lines = 0
        self._fence = None
        self._block_chunk = 0
        self._block_offset = 0
        self._block_start = 0
        self._code_from = -1
        self._code = []
        self._code_starts = []
        self._refusing = True
        self._finished = False
        self._quiet = False

    @cython.always_allow_keywords(False)
    def feed(self, str chunk not None):
        """Take the next piece of the answer; return what is now settled: plain text (every
        unverifiable marker removed, verified ones as written) or, with ``render``, its
        escaped HTML or Markdown with verified markers as links.
        """
        cdef str shown = self._feed(chunk)
        if self._renderer is None:
            return shown
        refs = self._refs
        assert refs is not None
        rendered = self._renderer.take(shown, refs)
        refs.clear()
        return rendered

    cdef str _feed(self, str chunk):
        cdef Py_ssize_t n, body, length, position, start
        cdef list tail
        cdef str shown
        if self._quiet and _quiet(chunk):
            self._chunks.append(chunk)
            tail = self._tail
            n = PyUnicode_GET_LENGTH(chunk)
            body = _body(chunk, n)
            if body == n:
                self._before = self._last = _char(chunk, n - 1)
                if PyList_GET_SIZE(tail):
                    shown = "".join(tail) + chunk
                    _clear(tail)
                    self._tail_length = 0
                    return shown
                return chunk
            if body == 0:
                tail.append(chunk)
                self._tail_length += n
                return ""
            shown = "".join(tail) + chunk[:body] if PyList_GET_SIZE(tail) else chunk[:body]
            _clear(tail)
            tail.append(chunk[body:])
            self._tail_length = n - body
            self._before = self._last = _char(chunk, body - 1)
            return shown
        if self._finished:
            raise RuntimeError("feed() after finish()")
        if not chunk:
            return ""
        self._chunks.append(chunk)
        length = self._count()
        position = length - PyUnicode_GET_LENGTH(chunk)
        start = position - PyUnicode_GET_LENGTH(self._pending) - self._tail_length
        self._track(chunk, len(self._chunks) - 1, position)
        if (self._code_from >= 0 and self._code_from <= start) or (
                not self._brackets and self._line_start <= start):
            self._quiet = False
            self._tail.append(chunk)
            self._tail_length += PyUnicode_GET_LENGTH(chunk)
            return ""
        self._pending = self._pending + self._untail() + chunk
        shown = self._release(self._settled())
        if not self._refusing and self._code_from < 0 and self._brackets and \
                _body(self._pending, PyUnicode_GET_LENGTH(self._pending)) == 0:
            self._quiet = True
            if self._pending:
                self._tail.append(self._pending)
                self._tail_length = PyUnicode_GET_LENGTH(self._pending)
                self._pending = ""
        else:
            self._quiet = False
        return shown

    def _stop(self):
        if self._finished:
            raise RuntimeError("finish() called twice")
        self._finished = True
        self._quiet = False
        return "".join(self._chunks)

    def _flush(self):
        self._close_block(self._count(), len(self._chunks), 0)
        self._pending = self._pending + self._untail()
        self._refusing = False
        return self._release(self._length)

    cdef str _untail(self):
        if not self._tail:
            return ""
        cdef str held = "".join(self._tail)
        self._tail = []
        self._tail_length = 0
        return held

    cdef Py_ssize_t _count(self) except -1:
        cdef list chunks = self._chunks
        cdef Py_ssize_t i, n = len(chunks)
        if self._counted < n:
            for i in range(self._counted, n):
                self._length += PyUnicode_GET_LENGTH(chunks[i])
            self._counted = n
        return self._length

    cdef str _slice(self, Py_ssize_t first, Py_ssize_t offset, Py_ssize_t last,
                    Py_ssize_t stop):
        cdef list chunks = self._chunks
        cdef str tail
        if first == last:
            return (<str>chunks[first])[offset:stop]
        tail = (<str>chunks[last])[:stop] if last < len(chunks) else ""
        return (<str>chunks[first])[offset:] + "".join(chunks[first + 1:last]) + tail

    # Tracking lines and paragraphs -------------------------------------------------------

    cdef int _track(self, str chunk, Py_ssize_t index, Py_ssize_t position) except -1:
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(chunk), start = 0, newline, end, found
        cdef str line
        if PyUnicode_FindChar(chunk, 0x0A, 0, n, 1) < 0 and (
                self._code_from >= 0 or (PyUnicode_FindChar(chunk, 0x60, 0, n, 1) < 0 and
                                         PyUnicode_FindChar(chunk, 0x7E, 0, n, 1) < 0)):
            return 0
        while start < n:
            newline = PyUnicode_FindChar(chunk, 0x0A, start, n, 1)
            end = n if newline < 0 else newline + 1
            if self._code_from < 0:
                found = _either(PyUnicode_FindChar(chunk, 0x60, start, end, 1),
                                PyUnicode_FindChar(chunk, 0x7E, start, end, 1))
                if found >= 0:
                    self._code_from = position + found
            if newline >= 0:
                shape = self._line_shape(self._line_chunk, self._line_offset, index, end)
                # the line itself only where it may open or close a fence
                line = self._slice(self._line_chunk, self._line_offset, index, end) \
                    if shape == _FENCE_MAY else None
                self._line_chunk = index
                self._line_offset = end
                self._line_start = position + end
                self._end_line(line, shape == _BLANK, position + end, index, end)
            start = end
        return 0

    cdef int _line_shape(self, Py_ssize_t first, Py_ssize_t offset, Py_ssize_t last,
                         Py_ssize_t stop) except -1:
        """What ``_end_line`` asks of the line from chunk ``first`` at ``offset`` to chunk
        ``last`` at ``stop``, read in place: whether it may be a fence (``FENCE.match`` can
        succeed only after at most three spaces or tabs, then a backtick or a tilde), else
        whether it is blank (spaces, tabs and line breaks only).
        """
        cdef list chunks = self._chunks
        cdef Py_ssize_t index = first, at, end, seen = 0
        cdef str chunk
        cdef Py_UCS4 c
        while index <= last:
            chunk = <str>chunks[index]
            at = offset if index == first else 0
            end = stop if index == last else PyUnicode_GET_LENGTH(chunk)
            while at < end:
                c = PyUnicode_READ(PyUnicode_KIND(chunk), PyUnicode_DATA(chunk), at)
                if seen < 4 and (c == 0x60 or c == 0x7E):
                    return _FENCE_MAY
                if c != 0x20 and c != 0x09 and c != 0x0D and c != 0x0A:
                    return _OTHER
                if c == 0x0D or c == 0x0A:
                    seen = 4  # a fence opens within the first four, blanks only before it
                seen += 1
                at += 1
            index += 1
        return _BLANK

    cdef int _end_line(self, str line, bint blank, Py_ssize_t end, Py_ssize_t index,
                       Py_ssize_t offset) except -1:
        """A line has ended (``line``: its text, given only when it may be a fence)."""
        self._lines += 1
        if line is None:
            if self._fence is None and self._lines > 1 and blank:
                self._close_block(end, index, offset)
            return 0
        match = _fence_match(line)  # (_line_shape found that it may be a fence)
        if self._fence is None and match:
            self._fence = match[1]
        elif self._fence is not None and match and match[1].startswith(self._fence) and \
                not line[match.end():].strip():
            self._fence = None
        elif self._fence is None and self._lines > 1 and not line.strip(" \t\r\n"):
            self._close_block(end, index, offset)
        return 0

    cdef int _close_block(self, Py_ssize_t end, Py_ssize_t index,
                          Py_ssize_t offset) except -1:
        cdef Py_ssize_t base
        if self._code_from >= 0:
            base = self._block_start
            for span in code_spans(self._slice(self._block_chunk, self._block_offset, index,
                                               offset)):
                self._code.append(Span(span.start + base, span.end + base))
                self._code_starts.append(span.start + base)
            self._code_from = -1
        self._block_chunk = index
        self._block_offset = offset
        self._block_start = end
        return 0

    # Deciding what is settled -------------------------------------------------------------

    cdef Py_ssize_t _settled(self) except -1:
        cdef str pending = self._pending, after
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(pending)
        cdef Py_ssize_t limit = self._length, base = limit - n, opening, closing, cut, size
        if self._code_from >= 0 and self._code_from < limit:
            limit = self._code_from
        if not self._brackets:
            if self._line_start < limit:
                limit = self._line_start
        else:
            opening = PyUnicode_FindChar(pending, 0x5B, 0, n, -1)
            closing = PyUnicode_FindChar(pending, 0xFF3B, 0, n, -1)
            if closing > opening:
                opening = closing
            if opening >= 0:
                size = n - opening - 1  # the length of what follows it
                closing = PyUnicode_FindChar(pending, 0x5D, opening + 1, n, 1)
                cut = PyUnicode_FindChar(pending, 0xFF3D, opening + 1, n, 1)
                if cut > closing:
                    closing = cut
                if closing >= 0:
                    closing -= opening + 1
                if (closing < 0 and size <= _MAX_CONTENT and
                        PyUnicode_FindChar(pending, 0x0A, opening + 1, n, 1) < 0) or (
                            closing == size - 1 and closing <= _MAX_CONTENT):
                    if base + opening < limit:
                        limit = base + opening
        if self._refusing and self._may_refuse(pending[:limit - base]):
            return base
        cut = limit - base
        if cut > 0:
            size = _body(pending, cut)
            if size < cut:
                limit = base + size
        return limit if limit > base else base

    cdef bint _may_refuse(self, str head) except -1:
        refusal = self._refusal
        cdef Py_ssize_t window = refusal.longest + _REFUSAL_WINDOW
        if refusal.pattern is not None and _PATTERN_WINDOW > window:
            window = _PATTERN_WINDOW
        if PyUnicode_GET_LENGTH(head) <= window:
            if refusal.may_start(head):
                return True
            scan = self._grammar.scan(head)
            if scan.markers and refusal.may_start(
                    mask(head, [Span(m.start, m.end) for m in scan.markers], "")):
                return True
        self._refusing = False
        return False

    cdef str _release(self, Py_ssize_t limit):
        cdef str pending = self._pending, window, after_window, before, text, so_far, shown
        cdef Py_ssize_t base = self._length - PyUnicode_GET_LENGTH(pending), cut, offset
        cdef Py_ssize_t length, position, start, end, at, held
        cdef list pieces, valid
        if limit <= base:
            return ""
        cut = limit - base
        window = pending[:cut]
        after_window = pending[cut:cut + 1]
        self._pending = pending[cut:]
        before = self._before
        self._before = window[PyUnicode_GET_LENGTH(window) - 1:]
        if self._brackets and PyUnicode_FindChar(window, 0x5B, 0, cut, 1) < 0 and \
                PyUnicode_FindChar(window, 0xFF3B, 0, cut, 1) < 0:
            return self._shown(window)
        held = PyUnicode_GET_LENGTH(before)
        text = before + window
        markers = self._markers(text) if self._markers is not None else \
            self._grammar.scan(text).markers
        offset = base - held
        pieces = []
        length = 0
        refs = self._refs
        position = held
        code = self._code
        for marker in markers:  # (raw, start, end, ids, prefix, ordinal)
            start = _item(marker, 1)
            if start < held or (code and covered(start + offset, code, self._code_starts)):
                continue
            end = _item(marker, 2)
            valid = self._valid(marker)
            if len(valid) == len(<tuple>_item(marker, 3)):
                if refs is not None:
                    at = length + start - position
                    refs.append((at, at + end - start, valid))
                continue
            if valid:
                pieces.append(text[position:start])
                length += start - position
                shown = f"[{', '.join(dict.fromkeys(w for w, _ in valid))}]"
                if refs is not None:
                    refs.append((length, length + PyUnicode_GET_LENGTH(shown), valid))
                pieces.append(shown)
                length += PyUnicode_GET_LENGTH(shown)
            else:
                at = space_before(text, start)
                pieces.append(text[position:at if at > held else held])
                so_far = "".join(pieces)
                after = text[end:end + 1] or after_window
                pieces = [so_far, junction((so_far or self._last)[-1:], after,
                                           line_open(so_far, self._opened))]
                length = PyUnicode_GET_LENGTH(so_far) + PyUnicode_GET_LENGTH(pieces[1])
            position = end
        pieces.append(text[position:])
        return self._shown("".join(pieces))

    cdef str _shown(self, str text):
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
        if n:
            self._last = text[n - 1:]
            if _marks_line(text):
                self._opened = line_open(text, self._opened)
        return text

    cdef list _valid(self, marker):
        # (raw, start, end, ids, prefix, ordinal): most ids are in the snapshot as written
        snapshot = self._snapshot
        cdef dict index = self._index
        cdef list found = []
        for source_id in <tuple>_item(marker, 3):
            if source_id in index:
                found.append((source_id, source_id))
                continue
            resolved = resolve_id(source_id, _item(marker, 4), snapshot)
            if resolved is not None:
                found.append((source_id, resolved))
        return found
