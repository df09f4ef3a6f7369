"""A list of claim strings: each string is one claim, scanned for markers on its own."""

from __future__ import annotations

from itertools import repeat
from typing import Any

from citeaudit.core import (
    Answer,
    Citation,
    Claim,
    Grammar,
    Malformed,
    Problem,
    Reading,
    Refusal,
    SourcesAsGiven,
    citations_of,
    without_markers,
)

__all__ = ["ClaimsFormat"]


class ClaimsFormat(SourcesAsGiven):
    """A list of claim strings (``list[str]``)."""

    name = "claims"
    keys = ()
    expects = "a list of claim strings"

    def recognises(self, answer: object) -> bool:
        return isinstance(answer, list)

    def parse(self, answer: object, reading: Reading) -> Answer:
        assert isinstance(answer, list)
        return _parse_claims(answer, reading.grammar, reading.refusal)


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
    if len(items) == 1 and strings and refusal.matches(strings[0][1]):
        return Answer("claims", strings[0][1], (), (), (), True, tuple(problems))
    claims: list[Claim] = []
    citations: list[Citation] = []
    malformed: list[tuple[int | None, Malformed]] = []
    for position, text in strings:
        index = position + 1
        scan = grammar.scan(text)
        claims.append(Claim(index, text, (0, len(text)), tuple(scan.markers),
                            tuple(scan.malformed)))
        citations.extend(citations_of(scan.markers, repeat(index)))
        malformed.extend((index, bad) for bad in scan.malformed)
    refused = bool(claims) and len(items) == 1 and citations and refusal.matches(
        without_markers(claims[0].text, list(claims[0].markers)))
    if refused:
        return Answer("claims", claims[0].text, (), tuple(citations), (), True, tuple(problems))
    text = "\n".join(text for _, text in strings)
    return Answer("claims", text, tuple(claims), tuple(citations), tuple(malformed), False,
                  tuple(problems))


