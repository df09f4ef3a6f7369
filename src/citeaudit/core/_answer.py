"""Answer shapes and how each becomes claims and citations.

* free text (``str``): markers are scanned, claims segmented (:mod:`citeaudit.segment`);
* a list of claim strings (``list[str]``): each string is one claim, scanned on its own;
* a structured object ``{"status": "answered" | "unknown", "text": str, "citations": [ids]}``:
  the citations list is authoritative and the text is not scraped for markers;
* a refusal (one of the accepted strings, compared after normalising white space, case,
  quote characters and final punctuation, or a ``refusal-regex`` match; :mod:`.refusal`):
  no claims, outcome ``no_evidence``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Literal, NamedTuple

from citeaudit.core._findings import Problem
from citeaudit.core._grammar import Grammar, Malformed, Marker
from citeaudit.core._refusal import Refusal
from citeaudit.core._segment import Segmenter, Span, code_spans, covered, mask, segment

__all__ = ["Answer", "Citation", "Claim", "parse_answer"]

AnswerKind = Literal["text", "claims", "structured", "invalid"]


class Claim(NamedTuple):
    """One unit a citation must cover. ``span`` is in the answer text (free text) or in the claim
    string (claim lists); ``number`` is 1-based.
    """

    number: int
    text: str
    span: tuple[int, int]
    markers: tuple[Marker, ...]
    malformed: tuple[Malformed, ...]


class Citation(NamedTuple):
    """One cited id, from a marker or a structured citations list."""

    source_id: str
    claim: int | None
    span: tuple[int, int] | None
    marker: str | None
    path: str | None
    prefix: str = ""
    ordinal: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer reduced to what the checks need."""

    kind: AnswerKind
    text: str
    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...]
    malformed: tuple[tuple[int | None, Malformed], ...]
    refusal: bool
    problems: tuple[Problem, ...]  # contract violations (CA404)


_STATUSES = ("answered", "unknown")


def parse_answer(value: Any, grammar: Grammar, refusal: str | Sequence[str] | Refusal,
                 segmenter: Segmenter = segment) -> Answer:
    """Reduce an answer in any accepted shape to claims and citations.

    ``refusal``: the accepted refusal strings (or a :class:`~citeaudit.refusal.Refusal`);
    ``segmenter`` splits free text into claims (default: :func:`~citeaudit.segment`).
    """
    refusal = Refusal.of(refusal)
    if isinstance(value, str):
        return _parse_text(value, grammar, refusal, segmenter)
    if isinstance(value, list):
        return _parse_claims(value, grammar, refusal)
    if isinstance(value, dict):
        return _parse_structured(value, refusal)
    problem = Problem("CA404", "an answer must be text, a list of claim strings or an object"
                      f" with status, text and citations, not {type(value).__name__}", path="$")
    return Answer("invalid", "", (), (), (), False, (problem,))


def _is_refusal(text: str, refusal: Refusal) -> bool:
    return refusal.matches(text)


def _without(text: str, markers: Sequence[Marker]) -> str:
    return mask(text, [Span(m.start, m.end) for m in markers], "")


def _parse_text(text: str, grammar: Grammar, refusal: Refusal, segmenter: Segmenter,
                ) -> Answer:
    if _is_refusal(text, refusal):
        return Answer("text", text, (), (), (), True, ())
    scan = grammar.scan(text)
    markers, malformed = scan.markers, scan.malformed
    if "`" in text or "~~~" in text:
        code = code_spans(text)
        starts = [span.start for span in code]
        markers = [m for m in markers if not covered(m.start, code, starts)]
        malformed = [m for m in malformed if not covered(m.start, code, starts)]
    if markers and refusal.may_match(text) and _is_refusal(_without(text, markers), refusal):
        return Answer("text", text, (), tuple(_citations(markers, repeat(None))), (), True,
                      ())
    marks = [Span(m.start, m.end) for m in markers]
    if malformed:
        marks.extend(Span(m.start, m.end) for m in malformed)
        marks.sort()
    spans = segmenter(text, marks)
    new = tuple.__new__  # the hot loop builds many small values: no per-item Python frames
    starts = [m.start for m in markers]
    bad_starts = [m.start for m in malformed]
    owner: list[int | None] = [None] * len(markers)  # the claim each marker belongs to
    bad_owner: list[int | None] = [None] * len(malformed)
    claims: list[Claim] = []
    index = bad = 0
    for number, (start, end) in enumerate(spans, 1):
        first = bisect_left(starts, start, index)  # markers before it lie outside any claim
        index = bisect_left(starts, end, first)
        if index > first:
            owner[first:index] = [number] * (index - first)
        own_bad: tuple[Malformed, ...] = ()
        if bad_starts:
            first_bad = bisect_left(bad_starts, start, bad)
            bad = bisect_left(bad_starts, end, first_bad)
            if bad > first_bad:
                bad_owner[first_bad:bad] = [number] * (bad - first_bad)
                own_bad = tuple(malformed[first_bad:bad])
        claims.append(new(Claim, (number, text[start:end], (start, end),
                                  tuple(markers[first:index]), own_bad)))
    return Answer("text", text, tuple(claims), tuple(_citations(markers, owner)),
                  tuple(zip(bad_owner, malformed, strict=True)), False, ())


def _citations(markers: Sequence[Marker], owners: Iterable[int | None]) -> list[Citation]:
    """One citation per id each marker names; ``owners`` gives each marker's claim number."""
    new = tuple.__new__
    return [new(Citation, (source_id, claim, (m.start, m.end), m.raw, None, m.prefix,
                           m.ordinal))
            for m, claim in zip(markers, owners, strict=False)  # owners may be repeat()
            for source_id in m.ids]


def _parse_claims(items: list[Any], grammar: Grammar, refusal: Refusal) -> Answer:
    problems: list[Problem] = []
    strings: list[tuple[int, str]] = []
    for position, item in enumerate(items):
        if isinstance(item, str):
            strings.append((position, item))
        else:
            problems.append(Problem("CA404", f"claim {position + 1} must be a string, not"
                                    f" {type(item).__name__}", claim=position + 1,
                                    path=f"$[{position}]"))
    if len(items) == 1 and strings and _is_refusal(strings[0][1], refusal):
        return Answer("claims", strings[0][1], (), (), (), True, tuple(problems))
    claims: list[Claim] = []
    citations: list[Citation] = []
    malformed: list[tuple[int | None, Malformed]] = []
    for position, text in strings:
        index = position + 1
        scan = grammar.scan(text)
        claims.append(Claim(index, text, (0, len(text)), tuple(scan.markers),
                            tuple(scan.malformed)))
        citations.extend(_citations(scan.markers, repeat(index)))
        malformed.extend((index, bad) for bad in scan.malformed)
    refused = bool(claims) and len(items) == 1 and citations and _is_refusal(
        _without(claims[0].text, list(claims[0].markers)), refusal)
    if refused:
        return Answer("claims", claims[0].text, (), tuple(citations), (), True, tuple(problems))
    text = "\n".join(text for _, text in strings)
    return Answer("claims", text, tuple(claims), tuple(citations), tuple(malformed), False,
                  tuple(problems))


def _parse_structured(value: dict[str, Any], refusal: Refusal) -> Answer:
    problems: list[Problem] = []
    status = value.get("status")
    if status not in _STATUSES:
        problems.append(Problem("CA404", "status must be \"answered\" or \"unknown\", not"
                                f" {_show(status)}", path="$.status"))
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        problems.append(Problem("CA404", f"text must be a non-empty string, not {_show(text)}",
                                path="$.text"))
        text = text if isinstance(text, str) else ""
    refused = status == "unknown" or (status != "answered" and _is_refusal(text, refusal))
    claim = None if refused or not text.strip() else 1
    citations: list[Citation] = []
    raw = value.get("citations")
    if not isinstance(raw, list):
        problems.append(Problem("CA404", f"citations must be a list, not {_show(raw)}",
                                path="$.citations"))
    else:
        for position, item in enumerate(raw):
            path = f"$.citations[{position}]"
            if not isinstance(item, str) or not item.strip():
                problems.append(Problem("CA404", "a citation must be a non-empty string id, not"
                                        f" {_show(item)}", path=path))
            else:
                citations.append(Citation(item, claim, None, None, path))
    claims = () if claim is None else (Claim(1, text, (0, len(text)), (), ()),)
    return Answer("structured", text, claims, tuple(citations), (), refused, tuple(problems))


def _show(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    return type(value).__name__
