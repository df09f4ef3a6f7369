"""The lexical judge's content words (``citeaudit.support._terms``), compiled from their own
Python where the package is built, and that Python run as such, give the stems, negations and
best windows of their specification: the word pattern (``_terms.WORDS``) and set operations
(``spec_terms``, ``spec_windows`` and ``spec_aligned`` below), for any text, over every
sentence span and any other, and for any claim over any passages, short or long enough to be
scored from their index; and the judge gives the same judgements with either build.

Both builds are compared in one process whichever mode the suite runs in
(``CITEAUDIT_PURE=1`` only chooses which one the library uses).
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterable, Sequence
from itertools import filterfalse
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit import _speedups
from citeaudit.core import Judgement
from citeaudit.support import _lexical, _terms
from citeaudit.support._judges import sentences
from citeaudit.support._lexical import LexicalJudge, _analyse
from citeaudit.support._terms import SCAN_ALL, STEMS, WORDS, plain_quotes
from test_core import _source

SOURCE = _source("citeaudit.support._terms")  # the module as Python, whichever build runs
BUILDS = [pytest.param(_terms, id="library"), pytest.param(SOURCE, id="source")]
# Words, the word pattern's edges (digits after letters, apostrophes, a trailing one), the
# stop words and negations, case, typographic quotes, non-ASCII letters and sentence ends.
PIECES = ["refund", "Refunds", "within", "not", "never", "n't", "don't", "isn't", "'tis",
          "abc'def'ghi", "x'", "'", "’", "a1b", "3rd", "42", "GPT-4", "the", "of", "no",
          "café", "İstanbul", "naïve", "straße", "ﬁle", "日本", " ", "  ", ". ", "! ", "\n",
          "?", ",", "-", "\u00a0", "“quoted”", "ǅ", "K", "ſ", "z", "Z"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join) | st.text(max_size=60)


class _Text(str):
    """A caller's own string type."""


def spec_terms(text: str, lowered: str | None = None) -> tuple[frozenset[str], bool]:
    """What ``terms`` gives, from the word pattern and set operations (the stop words read
    from the module as Python: compiled, they are C values)."""
    if lowered is None:
        lowered = plain_quotes(text.lower())
    words = set(WORDS.findall(lowered))
    negated = not SOURCE._NEGATIONS.isdisjoint(words) or "n't" in lowered
    words = words.difference(SOURCE._STOPWORDS)
    missing = list(filterfalse(STEMS.__contains__, words))
    STEMS.update(zip(missing, SOURCE._STEMMER.stemWords(missing), strict=True))
    return frozenset(map(STEMS.__getitem__, words)), negated


def spec_windows(text: str, lowered: str, spans: Iterable[tuple[int, int]],
                 ) -> list[tuple[str, frozenset[str], bool]]:
    """What ``windows`` gives: each span's stripped text and its slice's terms."""
    return [(text[start:end].strip(), *spec_terms("", lowered[start:end]))
            for start, end in spans]


def spec_aligned(terms: frozenset[str], negated: bool, analysed: Sequence[tuple[str, Any]],
                 ) -> tuple[float, str, str | None, bool, tuple[int, int, int] | None]:
    """What ``aligned`` gives: the first best window of one sentence or two adjacent ones,
    its terms shared with the claim counted by set operations.
    """
    score, evidence, source, denied = 0.0, "", None, False
    place: tuple[int, int, int] | None = None
    for at, (source_id, passage) in enumerate(analysed):
        windows = passage.sentences
        visit: Iterable[int] = range(len(windows)) \
            if len(windows) <= SCAN_ALL else passage.candidates(terms)
        last = -2
        before: frozenset[str] | None = None  # the claim's terms in the sentence before
        before_negated = False
        for position in visit:
            if position != last + 1:
                before = None
                if position > 0:
                    _, before_terms, before_negated = windows[position - 1]
                    before = terms & before_terms
            last = position
            text, sentence_terms, sentence_negated = windows[position]
            shared = terms & sentence_terms
            candidates = [(len(shared), sentence_negated, text, (at, position, position))]
            if before is not None:
                candidates.append((len(shared | before), sentence_negated or before_negated,
                                   f"{windows[position - 1][0]} {text}",
                                   (at, position - 1, position)))
            for size, window_negated, window, where in candidates:
                if not size:
                    continue  # no shared term scores 0, never above the best
                overlap = size / len(terms) * (0.25 if window_negated != negated else 1)
                if overlap > score:
                    score, evidence, source = overlap, window, source_id
                    denied, place = window_negated != negated, where
            before, before_negated = shared, sentence_negated
    return score, evidence, source, denied, place


def test_the_library_runs_the_compiled_build_unless_pure() -> None:
    """The build compiles the module from its source: what the library runs unless
    ``CITEAUDIT_PURE=1`` chooses the Python.
    """
    built = importlib.util.find_spec("citeaudit.support._terms")
    assert built is not None
    assert built.origin is not None
    assert built.origin.endswith(".py") == _speedups.PURE
    assert _terms.__file__ == built.origin
    assert _lexical._terms is _terms
    assert SOURCE.__file__.endswith("_terms.py")


@given(texts, st.integers(0, 70), st.integers(0, 70))
def test_the_word_loop_reads_the_word_pattern(text: str, begin: int, end: int) -> None:
    """The loop (a C function where compiled: tested as Python) finds the pattern's words, in
    the whole text and in any part of it.
    """
    lowered = text.lower()
    assert SOURCE._words(lowered, 0, len(lowered)) == WORDS.findall(lowered)
    begin, end = min(begin, end, len(lowered)), min(max(begin, end), len(lowered))
    assert SOURCE._words(lowered, begin, end) == WORDS.findall(lowered[begin:end])


@pytest.mark.parametrize("build", BUILDS)
@given(text=texts)
def test_terms_equal_the_specification(build: ModuleType, text: str) -> None:
    assert build.terms(text) == spec_terms(text)
    lowered = plain_quotes(text.lower())
    assert build.terms("", lowered) == spec_terms("", lowered)
    assert build.terms(_Text(text)) == build.terms("", _Text(lowered)) == spec_terms(text)


@pytest.mark.parametrize("build", BUILDS)
@given(text=texts, spans=st.lists(st.tuples(st.integers(-5, 70), st.integers(-5, 70)),
                                  max_size=6))
def test_windows_equal_the_specification(build: ModuleType, text: str,
                                         spans: list[tuple[int, int]]) -> None:
    lowered = plain_quotes(text.lower())
    if len(lowered) != len(text):
        lowered = plain_quotes("".join(c.lower()[:1] for c in text))
    for chosen in (sentences(text), spans):
        assert build.windows(text, lowered, chosen) == spec_windows(text, lowered, chosen)
        assert build.windows(_Text(text), _Text(lowered), chosen) == \
            spec_windows(text, lowered, chosen)


@pytest.mark.parametrize("build", BUILDS)
def test_the_stem_cache_is_cleared_when_full(build: ModuleType) -> None:
    """Past 500,000 words the cache starts again; the words of the text it was cleared for
    are stemmed all the same.
    """
    build.terms("refunds policy")  # both words cached
    build.STEMS.update((f"w{n}", "w") for n in range(500_001))
    assert build.terms("refunds policy travellers") == \
        (frozenset({"refund", "polici", "travel"}), False)
    assert len(build.STEMS) <= 3  # cleared (which words it then holds may differ)


# Sentences over few words, so that claims and sentences share some, negated or not.
SENTENCE = st.lists(st.sampled_from(["refund", "paid", "within", "days", "claim", "travel",
                                     "not", "never", "late", "policy", "desk", "card"]),
                    max_size=8).map(" ".join)
PASSAGE = st.lists(SENTENCE, min_size=0, max_size=8).map(". ".join)


@pytest.mark.parametrize("build", BUILDS)
@given(claim=SENTENCE, passages=st.lists(PASSAGE, max_size=3))
def test_aligned_equals_the_specification(build: ModuleType, claim: str,
                                          passages: list[str]) -> None:
    terms, negated = spec_terms(claim)
    analysed = [(str(n), _lexical._Passage(text)) for n, text in enumerate(passages, 1)]
    assert build.aligned(terms, negated, analysed) == spec_aligned(terms, negated, analysed)
    assert build.aligned(_Frozen(terms), negated, analysed) == \
        spec_aligned(terms, negated, analysed)


class _Frozen(frozenset[str]):
    """A caller's own set type."""


@pytest.mark.parametrize("build", BUILDS)
@given(claim=SENTENCE, padding=st.integers(0, 400), seed=st.integers(0, 2**32))
def test_aligned_equals_the_specification_over_an_indexed_passage(
        build: ModuleType, claim: str, padding: int, seed: int) -> None:
    """A passage of more than ``SCAN_ALL`` sentences is scored at its candidate sentences
    only: runs of them, with gaps, and the sentence after each.
    """
    words = ["refund", "paid", "within", "days", "claim", "not", "filler", "text", "more"]
    rng = random.Random(seed)
    text = ". ".join(" ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                     for _ in range(SCAN_ALL - 20 + padding)) + "."
    terms, negated = spec_terms(claim)
    analysed = [("1", _lexical._Passage(text)), ("2", _lexical._Passage("Refunds are paid."))]
    assert build.aligned(terms, negated, analysed) == spec_aligned(terms, negated, analysed)


JUDGED = [
    ("Refunds are paid within 30 days.", ["Refunds are paid within thirty days of a claim."]),
    ("Refunds are not paid after 30 days.", ["Refunds are paid after 30 days. Never late."]),
    ("The desk said \"no receipts\" in March 2024.",
     ["In March 2024 the desk said: “No receipts.” It was 2024-03-03."]),
    ("Acme's GPT-4 pilot cut costs by 12%.", ["Acme ran a pilot.\nCosts fell 12 percent.",
                                             "Unrelated text about travel."]),
    ("Travellers can't claim mileage.", ["Mileage is claimable by travellers. It isn't."]),
]


def _judged_with(build: ModuleType, claim: str, cited: list[tuple[str, str]]) -> Judgement:
    """The judgement with ``build``'s content words, from a cold cache."""
    saved = _lexical._terms
    _lexical._terms = build
    try:
        _analyse.cache_clear()
        return LexicalJudge().judge_one(claim, cited)
    finally:
        _lexical._terms = saved
        _analyse.cache_clear()


@pytest.mark.parametrize(("claim", "passages"), JUDGED)
def test_the_judge_judges_the_same_with_either(claim: str, passages: list[str]) -> None:
    cited = [(str(n), text) for n, text in enumerate(passages, 1)]
    assert _judged_with(SOURCE, claim, cited) == _judged_with(_terms, claim, cited)


@given(SENTENCE, st.lists(PASSAGE, min_size=1, max_size=3), st.integers(0, 2))
def test_the_spans_are_the_same_with_either(claim: str, passages: list[str],
                                            padded: int) -> None:
    """The evidence offsets, from short passages and from one long enough to be scored from
    its index, whichever build found the best window.
    """
    if padded:
        passages = [*passages, ". ".join(["filler text"] * (SCAN_ALL + 5))
                    + ". " + passages[0]]
    cited = [(str(n), text) for n, text in enumerate(passages, 1)]
    built = _judged_with(_terms, claim, cited)
    source = _judged_with(SOURCE, claim, cited)
    assert built.spans == source.spans
    assert built == source
    for span in built.spans:
        assert dict(cited)[span.source_id][span.start:span.end] == span.quote
