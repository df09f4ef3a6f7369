"""The lexical support judge: no model, fast enough for every record of a large dataset.

For one claim and its cited passages it checks that

* every amount the claim states (numbers, percentages, money, dates, durations, units) is
  stated by a cited passage, however written (CA501, :mod:`.quantities`);
* every quotation in the claim appears in a cited passage, whitespace, quote characters and
  case aside (CA502);
* the claim's content words (stemmed) are found together in one passage sentence or two
  adjacent ones, with a guard for negation that one side has and the other lacks (CA503 below
  the threshold), and every name it capitalises after its first word appears in a cited
  passage (CA503).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence

from citeaudit.core import Evidence, Judgement, Passage
from citeaudit.support import _terms
from citeaudit.support._judges import sentences
from citeaudit.support._quantities import (
    Quantity,
    consistent,
    contradicted,
    matches,
    quantities,
    value_key,
)
from citeaudit.support._terms import Place, Window, plain_quotes

__all__ = ["DEFAULT_THRESHOLD", "LexicalJudge"]

# Chosen on WiCE's dev split (real claims and the pages they cite): the best balanced
# accuracy of the judge's verdicts there (0.695, against 0.677 at 0.5); see the README.
DEFAULT_THRESHOLD = 0.44
_SHOWN = 12  # amounts named in a CA501 message
_VISIT = 128  # sentences scored at most per claim and passage, from the index
# A capitalised word after the first: a name (not the scale of "$1.5M").
_NAME = re.compile(r"(?<![\w.])[A-Za-z][\w-]*")
_QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»\n]{2,}?)[\"“”„«»]")

def _normal(text: str) -> str:
    """Text for quote matching: quote characters, whitespace and case folded."""
    return " ".join(plain_quotes(text).casefold().split())


class _Passage:
    """A passage analysed on demand: sentence windows always, amounts and quote-matching text
    only for claims that state amounts or quote.
    """

    __slots__ = ("_amounts", "_index", "_normal", "_quantities", "_stating", "lowered", "sentences",
                 "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        lowered = plain_quotes(text.lower())
        if len(lowered) != len(text):  # a rare character that lower-cases to two
            lowered = plain_quotes("".join(c.lower()[:1] for c in text))
        self.lowered = lowered
        # Windows of two adjacent sentences are scored from the sentences' overlaps with the
        # claim, never built here: most passages are cited by a claim or two.
        spans = sentences(text)
        # Where each sentence starts, for evidence: ints in one list (tuples of spans, kept
        # for every passage, would cost the garbage collector more than building them does).
        self.starts = [start for start, _ in spans]
        self.sentences: list[Window] = _terms.windows(text, lowered, spans)
        self._index: dict[str, list[int]] | None = None
        self._quantities: dict[float, list[Quantity]] | None = None
        self._amounts: list[str] = []
        self._normal: str | None = None
        self._stating: dict[tuple[str, str | None], list[int]] | None = None

    @property
    def quantities(self) -> dict[float, list[Quantity]]:
        """The passage's amounts by value (see :func:`value_key`): a claim's amount is looked
        up, never compared with every amount of a long passage.
        """
        if self._quantities is None:
            index: dict[float, list[Quantity]] = {}
            for quantity in quantities(self.text):
                index.setdefault(value_key(quantity.value), []).append(quantity)
            self._quantities = index
            self._amounts = list(dict.fromkeys(q.text for qs in index.values() for q in qs))
        return self._quantities

    def candidates(self, terms: frozenset[str]) -> list[int]:
        """The sentences worth scoring for a claim with ``terms`` (and the one after each, for
        two-sentence windows), in order: those sharing a term, from the claim's rarest terms
        on, at most about :data:`_VISIT` of them, so a claim costs the same however long the
        passage (a long passage cited by many claims stays linear).
        """
        if self._index is None:
            index: dict[str, list[int]] = {}
            for position, (_, sentence_terms, _) in enumerate(self.sentences):
                for term in sentence_terms:
                    index.setdefault(term, []).append(position)
            self._index = index
        postings = sorted((self._index.get(term, []) for term in terms), key=len)
        chosen: set[int] = set()
        for posting in postings:
            if len(chosen) >= _VISIT:
                break
            chosen.update(posting[:_VISIT])
        last = len(self.sentences) - 1
        return sorted(chosen | {p + 1 for p in chosen if p < last})

    def stripped_start(self, position: int) -> int:
        """Where sentence ``position`` starts, white space before it left out."""
        starts = self.starts
        start = starts[position]
        end = starts[position + 1] if position + 1 < len(starts) else len(self.text)
        segment = self.text[start:end]
        return start + len(segment) - len(segment.lstrip())

    @property
    def stating(self) -> dict[tuple[str, str | None], list[int]]:
        """The sentences stating an amount, by its kind and (but for dates) unit, in order:
        where a claim's contradicted amount is contradicted (made once, for every claim
        citing the passage).
        """
        if self._stating is None:
            stating: dict[tuple[str, str | None], set[int]] = {}
            starts = self.starts
            for group in self.quantities.values():
                for stated in group:
                    position = bisect.bisect_right(starts, stated.start) - 1
                    stating.setdefault(_kind(stated), set()).add(max(position, 0))
            self._stating = {kind: sorted(positions) for kind, positions in stating.items()}
        return self._stating

    @property
    def amounts(self) -> list[str]:
        """The amounts it states as written, each once (for messages)."""
        _ = self.quantities
        return self._amounts

    @property
    def normal(self) -> str:
        if self._normal is None:
            self._normal = _normal(self.text)
        return self._normal


@functools.lru_cache(maxsize=4096)  # a passage is cited by many claims of its answer
def _analyse(text: str) -> _Passage:
    return _Passage(text)


class LexicalJudge:
    """Numbers, quotations and content-word alignment against the cited passages."""

    name = "lexical"

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        """One judgement per (claim, cited passages) pair."""
        return [self.judge_one(claim, passages) for claim, passages in pairs]

    def judge_one(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Whether ``passages`` support ``claim``: score, verdict, evidence and problems."""
        analysed = [(source_id, _analyse(text)) for source_id, text in passages]
        problems: list[tuple[str, str]] = []
        claimed = quantities(claim)
        unstated: list[str] = []
        against: list[Evidence] = []  # where the passages state other amounts
        terms, negated = _terms.terms(claim)
        stated_here: list[Quantity] | None = None  # every amount the passages state, once
        for quantity in claimed:
            key = value_key(quantity.value)
            if any(matches(quantity, p.quantities.get(key, ())) for _, p in analysed):
                continue
            if stated_here is None:
                stated_here = [q for _, p in analysed for group in p.quantities.values()
                               for q in group]
            if consistent(quantity, stated_here):
                continue  # "in 1889" against "March 3, 1889": the same, less precisely
            if contradicted(quantity, stated_here):
                against += _contradicting(quantity, terms, analysed)
                stated = list(dict.fromkeys(a for _, p in analysed for a in p.amounts[:_SHOWN]))
                found = ", ".join(stated[:_SHOWN]) + (", ..." if len(stated) > _SHOWN or any(
                    len(p.amounts) > _SHOWN for _, p in analysed) else "")
                problems.append(("CA501", f"the claim states {quantity.text!r}; its cited"
                                          f" passages do not (they state: {found})"))
            else:
                unstated.append(quantity.text)
        for quoted in _QUOTED.findall(claim):
            wanted = _normal(quoted).strip(" .,;:!?")
            if wanted and not any(wanted in p.normal for _, p in analysed):
                problems.append(("CA502", f"the quotation \"{quoted}\" is not in its cited"
                                          " passages"))
        names = [name for name in _NAME.findall(claim)[1:] if name[0].isupper()
                 and name != "I"]
        for name in names:
            if not any(name.lower() in p.lowered for _, p in analysed):
                problems.append(("CA503", f"the claim names {name!r}, which its cited passages"
                                          " do not mention"))
                break
        score, evidence, source, denied = 1.0, "", None, False
        place: Place | None = None
        if terms:
            score, evidence, source, denied, place = _terms.aligned(terms, negated, analysed)
        refuted = bool(problems)  # an amount, a quotation or a name the passages lack
        if unstated:  # not contradicted, not supported either: weaker support, no error
            score *= 0.5 ** len(unstated)
            problems.append(("CA503", f"the claim states {', '.join(map(repr, unstated))};"
                                      " its cited passages state no such amount"))
        if score < self.threshold and not any(code == "CA503" for code, _ in problems):
            why = "; one of them is negated and the other not" if denied else ""
            problems.append(("CA503", f"the cited passages share {score:.0%} of the claim's"
                                      f" content words (threshold {self.threshold:.0%}){why}"))
        if refuted:
            score *= 0.25
        spans = tuple(dict.fromkeys(against)) if against else _placed(place, analysed)
        return Judgement(score, not problems, evidence, source, tuple(problems), spans,
                         bool(against), "" if spans else _NO_SPAN if terms else _NO_TERMS)


_NO_SPAN = "no passage sentence shares a content word with the claim"
_NO_TERMS = "the claim has no content words to find in the passages"


def _placed(place: Place | None, analysed: Sequence[tuple[str, _Passage]],
            ) -> tuple[Evidence, ...]:
    """The evidence of the best window :func:`_terms.aligned` found (none: it found none)."""
    if place is None:
        return ()
    source_id, passage = analysed[place[0]]
    return (_evidence(source_id, passage, place[1], place[2]),)


def _evidence(source_id: str, passage: _Passage, first: int, last: int) -> Evidence:
    """Sentences ``first`` to ``last`` of ``passage`` as evidence, white space at the ends
    out (the sentences are not blank: :func:`sentences` leaves blank ones out).
    """
    start = passage.stripped_start(first)
    end = passage.stripped_start(last) + len(passage.sentences[last][0])
    return Evidence(source_id, start, end, passage.text[start:end])


def _contradicting(quantity: Quantity, terms: frozenset[str],
                   analysed: Sequence[tuple[str, _Passage]]) -> list[Evidence]:
    """The sentence that states an amount of the claim's kind other than its own (as
    :func:`contradicted` tells, for a claim it found contradicted): of those that do, the one
    sharing most content words with the claim (the first of them).
    """
    kind = _kind(quantity)
    best: tuple[int, str, _Passage, int] | None = None
    for source_id, passage in analysed:
        sentences = passage.sentences
        for position in passage.stating.get(kind, ()):
            shared = len(terms & sentences[position][1])
            if best is None or shared > best[0]:
                best = (shared, source_id, passage, position)
    if best is None:
        return []
    _, source_id, passage, position = best
    return [_evidence(source_id, passage, position, position)]


def _kind(quantity: Quantity) -> tuple[str, str | None]:
    """What a contradicting amount shares with the claim's: its kind, and but for a date its
    unit (see :func:`contradicted`).
    """
    return quantity.kind, None if quantity.kind == "date" else quantity.unit
