# cython: boundscheck=False
# (for the compiled build: every index below is within its list's bounds by construction;
# the fuzzer runs this module under AddressSanitizer)
"""Free text with inline markers: the markers are scanned, masked, and the text segmented
into claims (sentences, list items); each marker belongs to the claim it sits in.

One source for both builds: where the package is built with a C compiler, Cython compiles
this module as it stands, with the C types of ``_text.pxd`` beside it (see
``docs/compiled.md``); otherwise, or with ``CITEAUDIT_PURE=1``, it runs as the Python it is.
That is why the claim assembly searches the markers' starts with a loop (``_bisect``) and
works on (start, end) pairs: the compiler makes those C.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from itertools import repeat

from citeaudit.core import (
    Answer,
    AnswerKind,
    BracketGrammar,
    Claim,
    Exempt,
    Exemptions,
    Malformed,
    Marker,
    Problem,
    Reading,
    SourcesAsGiven,
    Span,
    Status,
    citations_of,
    claim_pairs,
    code_spans,
    covered,
    judge_of,
    new_answer,
    reference_blocks,
    segment,
    segment_until,
    sighting,
    without_markers,
)

__all__ = ["TextFormat", "parse_text"]

# An answer of white space and invisible format characters (zero-width spaces, joiners, a
# byte order mark) only: nobody meant it to pass, so it breaks the answer contract (CA404) in
# every entry point alike. An empty claim list stays allowed (seed 000). The pattern is the
# specification of blank()'s loop, which a test holds to it.
BLANK = re.compile(r"[\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]*")
_EMPTY = Problem("CA404", "the answer is empty: it holds nothing but white space", path="$")


def blank(text: str) -> bool:
    """Whether free text holds nothing but white space (:data:`BLANK`): a loop over its
    characters, which the compiler makes C, stopping at the first other one.
    """
    chars = str.__str__(text)  # a subclass of str is read as its str
    for char in chars:
        if not char.isspace() and char not in (
                "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"):
            return False
    return True


class TextFormat(SourcesAsGiven):
    """Free text (``str``)."""

    name = "text"
    keys = ()
    expects = "free text (a string)"

    def recognises(self, answer: object) -> bool:
        return isinstance(answer, str)

    def parse(self, answer: object, reading: Reading) -> Answer:
        assert isinstance(answer, str)
        if blank(answer):
            return Answer("text", answer, (), (), (), False, (_EMPTY,))
        return parse_text(answer, reading)

    def settled(self, answer: str, reading: Reading, empty_fails: bool) -> Status | None:
        """The status :func:`parse_text` and the checks would give ``answer`` (see
        :func:`settle_text`).
        """
        return settle_text(answer, reading, empty_fails)


def parse_text(text: str, reading: Reading, kind: AnswerKind = "text") -> Answer:
    """Free text reduced to claims and the citations its markers make (``kind``: the format
    whose text it is).
    """
    text = str.__str__(text)  # a subclass of str is read as its str
    refusal = reading.refusal
    if refusal.matches(text):
        return Answer(kind, text, (), (), (), True, ())
    scan = reading.scanned if reading.scanned is not None else reading.grammar.scan(text)
    markers: Sequence[Marker] = scan.markers
    malformed: Sequence[Malformed] = scan.malformed
    if "`" in text or ("~" in text and "~~~" in text):
        code = code_spans(text)
        starts = [span.start for span in code]
        markers = [m for m in markers if not covered(m.start, code, starts)]
        malformed = [m for m in malformed if not covered(m.start, code, starts)]
    blocks = None
    if markers or malformed:  # a reference list's ids are no markers
        blocks = reference_blocks(text)
        markers, malformed = _outside_references(blocks, markers, malformed)
    if markers and refusal.may_match(text) and refusal.matches(without_markers(text, markers)):
        return Answer(kind, text, (), tuple(citations_of(markers, repeat(None))), (), True,
                      (), tuple((m.start, m.end) for m in markers))
    marks = _marks(markers, malformed)
    spans: Sequence[tuple[int, int]]
    if reading.segmenter is segment:  # its claims as pairs: the claims are made of them
        spans = claim_pairs(text, marks)
    else:  # a segmenter of the caller's is given Spans
        spans = reading.segmenter(text, [Span(start, end) for start, end in marks])
    markers = tuple(markers)  # a claim's markers are a slice of them
    rules = reading.not_citable  # the claim policy: uncited sentences it exempts are no claims
    exemptions = Exemptions(text, rules, "listed" in rules and "\n" in text, marks,
                            judge_of(text, reading.claims, reading.snapshot, blocks))
    claims, owner, bad_owner = _assemble(text, spans, markers, malformed, exemptions)
    return new_answer(kind, text, tuple(claims), tuple(citations_of(markers, owner)),
                      tuple(zip(bad_owner, malformed, strict=True)), False, (), tuple(marks),
                      tuple(Exempt((start, end), kind_, score)
                            for start, end, kind_, score in exemptions.found))


def _outside_references(blocks: list[tuple[int, int]], markers: Sequence[Marker],
                        malformed: Sequence[Malformed],
                        ) -> tuple[Sequence[Marker], Sequence[Malformed]]:
    """The markers and malformed markers that lie outside the answer's reference lists
    (``blocks``, its ``reference_blocks``).
    """
    if not blocks:
        return markers, malformed
    spans = [Span(start, end) for start, end in blocks]
    starts = [span.start for span in spans]
    return ([m for m in markers if not covered(m.start, spans, starts)],
            [m for m in malformed if not covered(m.start, spans, starts)])


def settle_text(text: str, reading: Reading, empty_fails: bool) -> Status | None:
    """The status of free text whose verdict follows from its markers and claims (see
    ``Config.settles``): a refusal has no evidence; an id the snapshot does not hold, or a
    claim without a marker, fails it (CA201/CA202, CA301/CA302); no claims is no evidence
    (``empty_fails``: CA403 fails it). What :func:`parse_text` reads, without its claims and
    citations. ``None`` where only the whole audit can say: code spans, a refusal that cites,
    markers that name no id, an empty snapshot.
    """
    refusal = reading.refusal
    if refusal.matches(text):
        return "no_evidence"
    if blank(text):  # CA404, whatever the configuration makes of it
        return None
    snapshot = reading.snapshot
    if "`" in text or ("~" in text and "~~~" in text) or snapshot is None or \
            not len(snapshot) or reference_blocks(text):
        return None
    grammar = reading.grammar
    if reading.scanned is None and type(grammar) is BracketGrammar:  # no markers made
        sighted = grammar.sight(text, snapshot)
    else:  # markers already made (the grammar's inference scanned), or another kind of grammar
        scan = reading.scanned if reading.scanned is not None else grammar.scan(text)
        sighted = sighting(scan, snapshot)
    if sighted is None:  # an id the snapshot does not hold
        return None if refusal.may_match(text) else "unverified"
    named, marks, starts, bad_starts = sighted
    if starts and refusal.may_match(text):
        return None
    rules = reading.not_citable
    # Segmented only as far as the first uncited claim; the content judge, where it reads a
    # unit's neighbours and the answer's layout, segments it whole.
    until = reading.segmenter is segment
    judge = judge_of(text, reading.claims, reading.snapshot, [],  # it has no reference list
                     partial(segment, text, marks) if until else None)
    exemptions = Exemptions(text, rules, "listed" in rules and "\n" in text, marks, judge)
    if until:
        claims = _segment_claimed(text, marks, starts, bad_starts, exemptions)
    else:  # another segmenter is given the marks as the Segmenter protocol says: spans
        claims = _claimed(reading.segmenter(text, [Span(start, end) for start, end in marks]),
                          starts, bad_starts, exemptions)
    if claims < 0:
        return "unverified"
    if claims == 0:
        return "unverified" if empty_fails else "no_evidence"
    return "ok" if named else None  # markers that name nothing: CA401 decides


def _claimed(spans: Sequence[tuple[int, int]], starts: list[int], bad_starts: list[int],
             exemptions: Exemptions) -> int:
    """How many claims :func:`_assemble` makes of ``spans`` (the markers and malformed
    markers starting at ``starts`` and ``bad_starts``), or -1 at the first claim it would make
    without a marker (``exemptions``: the claim policy over the text).
    """
    return _Claiming(starts, bad_starts, exemptions).rest(list(spans))


def _segment_claimed(text: str, marks: Sequence[tuple[int, int]], starts: list[int],
                     bad_starts: list[int],
                     exemptions: Exemptions) -> int:
    """:func:`_claimed` over the claim spans :func:`segment` makes of ``text``, stopping at the
    first claim without a marker: each claim is judged once the segmenter can no longer
    change it (every claim but the last: see :func:`segment_until`), so the rest of the text
    is not segmented.
    """
    claiming = _Claiming(starts, bad_starts, exemptions)
    claims = segment_until(text, marks, claiming)
    if claims is None:
        return -1
    return claiming.rest(claims)


class _Claiming:
    """:func:`_claimed` one span at a time: where the searches of the markers' and malformed
    markers' starts stand (``index``, ``bad``), the claims counted so far (``number``) and the
    spans judged (``done``). Called, it is :func:`segment_until`'s judge.
    """

    def __init__(self, starts: list[int], bad_starts: list[int], exemptions: Exemptions,
                 ) -> None:
        self.starts = starts
        self.bad_starts = bad_starts
        self.exemptions = exemptions
        self.index = self.bad = self.number = self.done = 0

    def __call__(self, spans: list[tuple[int, int]]) -> bool:
        """False at a claim without a marker; the last span is left for later (the segmenter
        may still change it).
        """
        return self.judged(spans, len(spans) - 1)

    def rest(self, spans: list[tuple[int, int]]) -> int:
        """Judge the spans not judged yet: the number of claims, or -1."""
        return self.number if self.judged(spans, len(spans)) else -1

    def judged(self, spans: list[tuple[int, int]], stop: int) -> bool:
        """Judge the spans up to ``stop``; False at one that would be a claim without a
        marker.
        """
        while self.done < stop:
            at = self.done
            self.done = at + 1
            if not self._take(spans, at):
                return False
        return True

    def _take(self, spans: list[tuple[int, int]], at: int) -> bool:
        start, end = spans[at]
        first = _bisect(self.starts, start, self.index)
        self.index = _bisect(self.starts, end, first)
        first_bad = self.bad
        if self.bad_starts:
            first_bad = _bisect(self.bad_starts, start, self.bad)
            self.bad = _bisect(self.bad_starts, end, first_bad)
        if self.index > first:
            self.number += 1
            return True
        # uncited: no claim if the policy exempts it
        return self.bad == first_bad and self.exemptions.exempts(spans, at, start, end)


def _bisect(values: list[int], value: int, low: int) -> int:
    """``bisect_left(values, value, low)``: a loop, which the compiler makes C."""
    high = len(values)
    while low < high:
        middle = (low + high) // 2
        probe = values[middle]
        if probe < value:
            low = middle + 1
        else:
            high = middle
    return low


def _marks(markers: Sequence[Marker], malformed: Sequence[Malformed]) -> list[tuple[int, int]]:
    """Where the markers and malformed markers are, as (start, end) pairs in text order: what
    the segmenter masks.
    """
    marks = [(marker.start, marker.end) for marker in markers]
    if malformed:
        for marker in malformed:
            marks.append((marker.start, marker.end))
        marks.sort()
    return marks


def _assemble(text: str, spans: Sequence[tuple[int, int]], markers: tuple[Marker, ...],
              malformed: Sequence[Malformed], exemptions: Exemptions,
              ) -> tuple[list[Claim], list[int | None], list[int | None]]:
    """Each span becomes a claim owning the markers inside it, unless it is uncited and the
    claim policy (``exemptions``) exempts it.
    Returns the claims and the claim number of each marker and malformed marker (None outside
    every claim).
    """
    starts = [marker.start for marker in markers]
    bad_starts = [marker.start for marker in malformed]
    owner: list[int | None] = [None] * len(markers)  # the claim each marker belongs to
    bad_owner: list[int | None] = [None] * len(malformed)
    claims: list[Claim] = []
    index = bad = number = 0
    for at, (start, end) in enumerate(spans):
        first = _bisect(starts, start, index)  # markers before it lie outside any claim
        index = _bisect(starts, end, first)
        first_bad = bad
        if bad_starts:
            first_bad = _bisect(bad_starts, start, bad)
            bad = _bisect(bad_starts, end, first_bad)
        if index == first and bad == first_bad and exemptions.exempts(spans, at, start, end):
            continue  # uncited, and the policy exempts it
        number += 1
        for k in range(first, index):
            owner[k] = number
        own_bad: tuple[Malformed, ...] = ()
        if bad > first_bad:
            for k in range(first_bad, bad):
                bad_owner[k] = number
            own_bad = tuple(malformed[first_bad:bad])
        claims.append(Claim(number, text[start:end], (start, end), markers[first:index],
                            own_bad))
    return claims, owner, bad_owner
