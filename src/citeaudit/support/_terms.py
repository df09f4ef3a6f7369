# cython: boundscheck=False, wraparound=False
# (for the compiled build: every index below is checked against the text's bounds before it
# is read, and none is negative; the fuzzer runs this module under AddressSanitizer)
"""The lexical judge's content words: the stems of a claim and of each passage sentence, and
the best window of one or two passage sentences for a claim's stems. Most of what the judge
costs is here, so the module is compiled from its own source where the package is built (the
C types in ``_terms.pxd``; see ``docs/compiled.md``).

A word is a match of :data:`WORDS` (leftmost, non-overlapping), read by a loop over the
text's characters that slices each word once; a stop word is left out (a negation among them
marks the text negated, as an "n't" anywhere in it does), and the others are stemmed, each
word once per process.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import Stemmer

__all__ = ["QUOTES", "SCAN_ALL", "STEMS", "WORDS", "Place", "Window", "aligned", "plain_quotes",
           "terms", "windows"]

SCAN_ALL = 128  # passages with more sentences are scored from an index of their words
# The words the loop of _stemmed reads (its specification, held to it by a test): words, not
# bare numbers.
WORDS = re.compile(r"[a-z][a-z0-9]*(?:'[a-z]+)?")
# Typographic quotes and the no-break space, as plain ones. A chain of replace() calls, each
# skipped when its character is absent: a dict translate() costs ~140 µs a kB of non-ASCII text,
# the chain ~3 µs, with the same result.
QUOTES = (("“", '"'), ("”", '"'), ("„", '"'), ("«", '"'), ("»", '"'), ("‘", "'"), ("’", "'"),
          ("\u00a0", " "))
_NEGATIONS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor",
                        "cannot", "without", "n't"})
_STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself of off on once only or other our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they this
those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself yourselves also may must per via within s t
""".split()) | _NEGATIONS  # noqa: SIM905 - a word list reads better as text
_STEMMER = Stemmer.Stemmer("english")
STEMS: dict[str, str] = {}  # every word stemmed once per process (vocabularies are small)

Window = tuple[str, frozenset[str], bool]  # text, content-word stems, negated (a plain tuple:
# passages have dozens of windows, and a NamedTuple costs a Python call each)
Place = tuple[int, int, int]  # the passage's position among the cited, first and last sentence


def plain_quotes(text: str) -> str:
    """``text`` with typographic quotes and the no-break space as plain ones."""
    if text.isascii():
        return text
    for typographic, plain in QUOTES:
        if typographic in text:
            text = text.replace(typographic, plain)
    return text


def terms(text: str, lowered: str | None = None) -> tuple[frozenset[str], bool]:
    """Content-word stems of ``text`` (``lowered``: the same, lower-cased, quotes folded),
    and whether it is negated.
    """
    if lowered is None:
        lowered = plain_quotes(text.lower())
    elif type(lowered) is not str:
        lowered = str.__str__(lowered)  # a subclass's text, as a str
    return _stemmed(lowered, 0, len(lowered))


def windows(text: str, lowered: str, spans: Iterable[tuple[int, int]]) -> list[Window]:
    """Each sentence of ``text`` at ``spans`` (stripped), its content-word stems and whether
    it is negated (``lowered``: ``text`` lower-cased, quotes folded, the same length).
    """
    if type(lowered) is not str:
        lowered = str.__str__(lowered)
    found: list[Window] = []
    length = len(lowered)
    for start, end in spans:
        if 0 <= start <= end <= length:
            stems, negated = _stemmed(lowered, start, end)
        else:  # not a span sentences() gives: whatever its slice holds
            stems, negated = terms("", lowered[start:end])
        found.append((text[start:end].strip(), stems, negated))
    return found


def _stemmed(lowered: str, begin: int, end: int) -> tuple[frozenset[str], bool]:
    """The content-word stems of ``lowered[begin:end]`` and whether it is negated: each word
    is tested against the stop words and looked up among the stems; the words never seen
    before are stemmed together at the end.
    """
    cache = STEMS
    stems: set[str] = set()
    missing: list[str] = []
    negated = False
    for word in _words(lowered, begin, end):
        if word in _STOPWORDS:
            negated = negated or word in _NEGATIONS
            continue
        stem = cache.get(word)
        if stem is None:
            missing.append(word)
        else:
            stems.add(stem)
    if missing:
        if len(cache) > 500_000:
            cache.clear()
        cache.update(zip(missing, _STEMMER.stemWords(missing), strict=True))
        for word in missing:
            stems.add(cache[word])
    if not negated:
        negated = lowered.find("n't", begin, end) >= 0
    return frozenset(stems), negated


def _words(lowered: str, begin: int, end: int) -> list[str]:
    """The matches of :data:`WORDS` in ``lowered[begin:end]``, in one pass over its characters:
    a word starts at a letter, goes on over letters and digits, then perhaps over an
    apostrophe and the letters after it.
    """
    words = []
    start = -1  # where the word being read starts (-1: none is)
    apostrophe = -1  # where its apostrophe is (-1: none yet)
    at = begin
    for char in lowered[begin:end]:
        if "a" <= char <= "z":
            if start < 0:
                start = at
        elif start >= 0:
            if apostrophe < 0 and "0" <= char <= "9":
                pass
            elif apostrophe < 0 and char == "'":
                apostrophe = at
            else:  # the word ends, before its apostrophe if no letter follows that
                words.append(lowered[start:at - 1 if apostrophe == at - 1 else at])
                start = apostrophe = -1
        at += 1
    if start >= 0:
        words.append(lowered[start:end - 1 if apostrophe == end - 1 else end])
    return words


def aligned(terms: frozenset[str], negated: bool, analysed: Sequence[tuple[str, Any]],
            ) -> tuple[float, str, str | None, bool, Place | None]:
    """The best window for the claim's ``terms``: one passage sentence or two adjacent ones,
    scored by the share of the terms it holds (a quarter of it when one side is negated and
    the other not). ``analysed``: the cited passages, each with its ``sentences`` (windows)
    and, past :data:`SCAN_ALL` of them, the ``candidates(terms)`` worth scoring. Returns the
    score, the window's text, its source, whether the negations differ and where the window
    is (which passage, its first and last sentence; ``None``: no window shares a term); the
    first best window wins. A window's text is joined only when it is the best so far.
    """
    score = 0.0
    evidence = ""
    source: str | None = None
    denied = False
    place: Place | None = None
    count = len(terms)
    at = -1
    for source_id, passage in analysed:
        at += 1
        sentences = passage.sentences
        visit = None  # every sentence, in order
        total = len(sentences)
        if total > SCAN_ALL:
            visit = passage.candidates(terms)
            total = len(visit)
        last = -2
        has_before = False  # whether the window ending here has a sentence before it
        before = None  # the claim's terms in the sentence before (None: none shared)
        before_negated = False
        for k in range(total):
            position = k if visit is None else visit[k]
            if position != last + 1:
                has_before = False
                before = None
                if position > 0:  # the window ending here needs the one before
                    _, before_terms, before_negated = sentences[position - 1]
                    before = _shared(terms, before_terms)
                    has_before = True
            last = position
            text, sentence_terms, sentence_negated = sentences[position]
            shared = _shared(terms, sentence_terms)
            if shared is not None:  # no shared term scores 0, never above the best
                overlap = len(shared) / count
                if sentence_negated != negated:
                    overlap *= 0.25  # one side denies what the other states
                if overlap > score:
                    score, evidence, source = overlap, text, source_id
                    denied = sentence_negated != negated
                    place = (at, position, position)
            union = _union_size(shared, before) if has_before else 0
            if union:  # the two sentences together
                window_negated = sentence_negated or before_negated
                overlap = union / count
                if window_negated != negated:
                    overlap *= 0.25
                if overlap > score:
                    score, source = overlap, source_id
                    evidence = f"{sentences[position - 1][0]} {text}"
                    denied = window_negated != negated
                    place = (at, position - 1, position)
            has_before = True
            before, before_negated = shared, sentence_negated
    return score, evidence, source, denied, place


def _shared(first: frozenset[str], second: frozenset[str]) -> set[str] | None:
    """The terms ``first`` and ``second`` share, or None where they share none (no set built
    for the sentences of a passage that share nothing with the claim, most of them).
    """
    if len(first) > len(second):
        first, second = second, first
    found: set[str] | None = None
    for term in first:
        if term in second:
            if found is None:
                found = set()
            found.add(term)
    return found


def _union_size(first: set[str] | None, second: set[str] | None) -> int:
    """How many terms two sentences share with the claim together (None: a sentence shares
    none).
    """
    if first is None:
        return 0 if second is None else len(second)
    if second is None:
        return len(first)
    return len(first | second)
