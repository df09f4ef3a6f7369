"""The lexical judge's tokenising and window overlap compiled
(``citeaudit.support._lexical_core``) and their pure-Python reference
(``_lexical.reference_terms``, ``reference_windows`` and ``reference_aligned``) give the same
stems and negations for any text, over every sentence span and any other, and the same best
window for any claim over any passages, short or long enough to be scored from their index;
and the judge gives the same judgements with either.

Both are compared in one process whichever mode the suite runs in. Where the core is not
built these tests skip, unless ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit.core import Judgement
from citeaudit.support import _lexical
from citeaudit.support._judges import sentences
from citeaudit.support._lexical import LexicalJudge, _analyse, _plain_quotes
from test_core import compiled_or_skip

COMPILED = compiled_or_skip("citeaudit.support._lexical_core")
# Words, the word pattern's edges (digits after letters, apostrophes, a trailing one), the
# stop words and negations, case, typographic quotes, non-ASCII letters and sentence ends.
PIECES = ["refund", "Refunds", "within", "not", "never", "n't", "don't", "isn't", "'tis",
          "abc'def'ghi", "x'", "'", "’", "a1b", "3rd", "42", "GPT-4", "the", "of", "no",
          "café", "İstanbul", "naïve", "straße", "ﬁle", "日本", " ", "  ", ". ", "! ", "\n",
          "?", ",", "-", "\u00a0", "“quoted”", "ǅ", "K", "ſ", "z", "Z"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join) | st.text(max_size=60)


@given(texts)
def test_terms_equal_the_reference(text: str) -> None:
    assert COMPILED.terms(text) == _lexical.reference_terms(text)
    lowered = _plain_quotes(text.lower())
    assert COMPILED.terms("", lowered) == _lexical.reference_terms("", lowered)


@given(texts, st.lists(st.tuples(st.integers(-5, 70), st.integers(-5, 70)), max_size=6))
def test_windows_equal_the_reference(text: str, spans: list[tuple[int, int]]) -> None:
    lowered = _plain_quotes(text.lower())
    if len(lowered) != len(text):
        lowered = _plain_quotes("".join(c.lower()[:1] for c in text))
    for chosen in (sentences(text), spans):
        assert COMPILED.windows(text, lowered, chosen) == \
            _lexical.reference_windows(text, lowered, chosen)


def test_the_stem_cache_is_cleared_when_full_in_both() -> None:
    """Past 500,000 words the cache starts again; the words of the text it was cleared for
    are stemmed all the same.
    """
    for terms, new, stem in ((COMPILED.terms, "travellers", "travel"),
                             (_lexical.reference_terms, "receipts", "receipt")):
        terms("refunds policy")  # both words cached
        _lexical._STEMS.update((f"w{n}", "w") for n in range(500_001))
        assert terms(f"refunds policy {new}") == (frozenset({"refund", "polici", stem}), False)
        assert len(_lexical._STEMS) <= 3  # cleared (which words it then holds may differ)


# Sentences over few words, so that claims and sentences share some, negated or not.
SENTENCE = st.lists(st.sampled_from(["refund", "paid", "within", "days", "claim", "travel",
                                     "not", "never", "late", "policy", "desk", "card"]),
                    max_size=8).map(" ".join)
PASSAGE = st.lists(SENTENCE, min_size=0, max_size=8).map(". ".join)


@given(SENTENCE, st.lists(PASSAGE, max_size=3))
def test_aligned_equals_the_reference(claim: str, passages: list[str]) -> None:
    terms, negated = _lexical.reference_terms(claim)
    analysed = [(str(n), _lexical._Passage(text)) for n, text in enumerate(passages, 1)]
    assert COMPILED.aligned(terms, negated, analysed) == \
        _lexical.reference_aligned(terms, negated, analysed)


@given(SENTENCE, st.integers(0, 400), st.integers(0, 2**32))
def test_aligned_equals_the_reference_over_an_indexed_passage(claim: str, padding: int,
                                                               seed: int) -> None:
    """A passage of more than ``_SCAN_ALL`` sentences is scored at its candidate sentences
    only: runs of them, with gaps, and the sentence after each.
    """
    words = ["refund", "paid", "within", "days", "claim", "not", "filler", "text", "more"]
    rng = random.Random(seed)
    text = ". ".join(" ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                     for _ in range(_lexical._SCAN_ALL - 20 + padding)) + "."
    terms, negated = _lexical.reference_terms(claim)
    analysed = [("1", _lexical._Passage(text)), ("2", _lexical._Passage("Refunds are paid."))]
    assert COMPILED.aligned(terms, negated, analysed) == \
        _lexical.reference_aligned(terms, negated, analysed)


JUDGED = [
    ("Refunds are paid within 30 days.", ["Refunds are paid within thirty days of a claim."]),
    ("Refunds are not paid after 30 days.", ["Refunds are paid after 30 days. Never late."]),
    ("The desk said \"no receipts\" in March 2024.",
     ["In March 2024 the desk said: “No receipts.” It was 2024-03-03."]),
    ("Acme's GPT-4 pilot cut costs by 12%.", ["Acme ran a pilot.\nCosts fell 12 percent.",
                                             "Unrelated text about travel."]),
    ("Travellers can't claim mileage.", ["Mileage is claimable by travellers. It isn't."]),
]


@pytest.mark.parametrize(("claim", "passages"), JUDGED)
def test_the_judge_judges_the_same_with_either(claim: str, passages: list[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    cited = [(str(n), text) for n, text in enumerate(passages, 1)]
    monkeypatch.setattr(_lexical, "_terms", COMPILED.terms)
    monkeypatch.setattr(_lexical, "_windows", COMPILED.windows)
    monkeypatch.setattr(_lexical, "_aligned", COMPILED.aligned)
    _analyse.cache_clear()
    compiled = LexicalJudge().judge_one(claim, cited)
    monkeypatch.setattr(_lexical, "_terms", _lexical.reference_terms)
    monkeypatch.setattr(_lexical, "_windows", _lexical.reference_windows)
    monkeypatch.setattr(_lexical, "_aligned", _lexical.reference_aligned)
    _analyse.cache_clear()
    assert LexicalJudge().judge_one(claim, cited) == compiled
    _analyse.cache_clear()


def _judged_with(claim: str, cited: list[tuple[str, str]], terms: Any, windows: Any,
                 aligned: Any) -> Judgement:
    """The judgement with the given tokenising and window overlap, from a cold cache."""
    saved = _lexical._terms, _lexical._windows, _lexical._aligned
    _lexical._terms, _lexical._windows, _lexical._aligned = terms, windows, aligned
    try:
        _analyse.cache_clear()
        return LexicalJudge().judge_one(claim, cited)
    finally:
        _lexical._terms, _lexical._windows, _lexical._aligned = saved
        _analyse.cache_clear()


@given(SENTENCE, st.lists(PASSAGE, min_size=1, max_size=3), st.integers(0, 2))
def test_the_spans_are_the_same_with_either(claim: str, passages: list[str],
                                            padded: int) -> None:
    """The evidence offsets, from short passages and from one long enough to be scored from
    its index, whichever implementation found the best window.
    """
    if padded:
        passages = [*passages, ". ".join(["filler text"] * (_lexical._SCAN_ALL + 5))
                    + ". " + passages[0]]
    cited = [(str(n), text) for n, text in enumerate(passages, 1)]
    compiled = _judged_with(claim, cited, COMPILED.terms, COMPILED.windows, COMPILED.aligned)
    reference = _judged_with(claim, cited, _lexical.reference_terms,
                             _lexical.reference_windows, _lexical.reference_aligned)
    assert compiled.spans == reference.spans
    assert compiled == reference
    for span in compiled.spans:
        assert dict(cited)[span.source_id][span.start:span.end] == span.quote
