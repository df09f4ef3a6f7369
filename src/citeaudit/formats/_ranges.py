"""What provider formats share: SDK objects read as their JSON, and an answer text whose
cited ranges (from the provider's structure, not from markers) decide which sentences are
cited. A response with no answer text is CA404 (:func:`without_text`), never "no evidence";
its fields are read with their types by :mod:`citeaudit.formats._fields`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from citeaudit.core import (
    Answer,
    Citation,
    Claim,
    Problem,
    Reading,
    exempt,
    new_answer,
)
from citeaudit.formats._fields import Fields
from citeaudit.formats._text import blank

__all__ = ["Cited", "answer_of", "as_list", "chat_message", "claims_of", "plain",
           "read_chat_message", "spanned", "without_text"]

_WORD = re.compile(r"\w")
_RANGE = itemgetter(0, 1)  # a cited range's start and end, its sort key
# A cited range of the answer text and the citations made there: each a Citation, or the
# tuple of its fields (the compiled readers'), made a Citation with its claim.
Cited = list[tuple[int, int, list[Citation]]]


def plain(value: Any) -> Any:
    """An SDK object (a pydantic model) as the JSON it stands for; JSON as it is."""
    if type(value) is dict:
        return value  # decoded JSON, most often: no attribute looked up
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


def chat_message(response: Any) -> dict[str, Any]:
    """A chat completion's ``choices[0].message`` (``{}``: it has none)."""
    choices = response.get("choices") if isinstance(response, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    return message if isinstance(message, dict) else {}


def read_chat_message(response: dict[str, Any], fields: Fields) -> dict[str, Any] | None:
    """A chat completion's ``choices[0].message``; None, with a CA404 saying what breaks the
    shape, where it has none.
    """
    choices = fields.items(response, "choices", "$", "a chat completion", needed=True)
    if not choices:
        if isinstance(response.get("choices"), list):
            fields.add("$.choices", "a chat completion needs a choice: \"choices\" is empty")
        return None
    first = fields.value(choices[0], dict, "$.choices[0]", "a choice")
    if first is None:
        return None
    found: dict[str, Any] | None = fields.field(first, "message", dict, "$.choices[0]",
                                                "a choice", needed=True)
    return found


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else nothing (providers leave fields out or null)."""
    return value if isinstance(value, list) else []


def spanned(citation: Citation, span: tuple[int, int]) -> Citation:
    """``citation`` citing ``span`` of the answer."""
    return Citation(citation[0], citation[1], span, *citation[3:])


def answer_of(name: str, text: str, cited: Cited, problems: list[Problem],  # noqa: PLR0917 -- the parts of every provider's answer
              reading: Reading, where: str, *, ordered: bool = False,
              declined: bool = False) -> Answer:
    """The answer of format ``name``: a refusal (its citations kept, for CA402), or its
    sentences as claims cited by the ranges they overlap. ``where``: the JSON path of the
    answer's text, named when there is none (:func:`without_text`). ``declined``: the
    provider says its model refused (in a field made for it), whatever the text. ``ordered``:
    the format made ``cited`` in order of its ranges already (sorting a response's ranges by
    a key cost ~0.35 us).
    """
    if type(text) is not str:  # a subclass of str (a caller's own type): read as a str
        text = str.__str__(text)
    if not ordered:
        cited.sort(key=_RANGE)
    if declined or reading.refusal.matches(text.strip()):
        every = tuple(c for _, _, made in cited for c in made)
        return Answer(name, text, (), every, (), True, tuple(problems))
    if blank(text):
        return without_text(name, text, problems, where)
    claims, citations = claims_of(text, cited, reading)
    return new_answer(name, text, tuple(claims), tuple(citations), (), False, tuple(problems),
                      (), ())


def without_text(name: str, text: str, problems: list[Problem], where: str) -> Answer:
    """The answer of a response that holds no answer text (none, or white space only): not
    an answer at all, so a CA404 at ``where`` (unless what holds it is already one: missing,
    or of another type), never a pass as "no evidence".
    """
    if not any(where.startswith(p.path) for p in problems if p.path):
        problems.append(Problem("CA404", "the response holds no answer text", path=where))
    return Answer(name, text, (), (), (), False, tuple(problems))


def claims_of(text: str, cited: Cited, reading: Reading,
            ) -> tuple[list[Claim], list[Citation]]:
    """The answer's sentences as claims, each with the citations of the cited ranges it
    overlaps (``cited``: ``(start, end, citations)`` sorted by start; a model splits one
    sentence into several cited pieces: "According to the documents, " then a cited "the
    grass is green"); uncited sentences the claim policy exempts are no claims. A range
    inside a sentence cites it; a range across sentences cites those it shares a letter or
    digit with: a cited piece ". Cards cost 5 dollars" cites the sentence it states, not the
    one whose full stop it starts with.
    """
    return _ranged(text, reading.segmenter(text, []), cited, reading.not_citable)


def _ranged(text: str, spans: Sequence[tuple[int, int]], cited: Cited, rules: frozenset[str],
            ) -> tuple[list[Claim], list[Citation]]:
    """The claims of :func:`claims_of` from the sentence ``spans`` (typed in ``_ranges.pxd``:
    the loop of every provider's answer).
    """
    claims: list[Claim] = []
    citations: list[Citation] = []
    count = len(cited)
    first = 0  # the first cited block that may overlap the next sentence
    for start, end in spans:
        while first < count and cited[first][1] <= start:
            first += 1
        overlapping: list[list[Citation]] = []
        at = first
        while at < count:
            low, high, made = cited[at]
            if low >= end:
                break  # sorted by start: none after it overlaps this sentence
            at += 1
            if high > start and ((start <= low and high <= end) or
                                 _WORD.search(text, max(low, start), min(high, end))):
                overlapping.append(made)
        if not overlapping and rules and exempt(text, start, end, rules):
            continue
        number = len(claims) + 1
        claims.append(Claim(number, text[start:end], (start, end), (), ()))
        for made in overlapping:
            for source_id, _, cited_span, marker, path, prefix, ordinal, location in made:
                citations.append(Citation(source_id, number, cited_span, marker, path, prefix,
                                          ordinal, location))  # the format's, by this claim
    return claims, citations

