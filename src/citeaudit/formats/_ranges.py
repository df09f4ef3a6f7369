"""What provider formats share: SDK objects read as their JSON, and an answer text whose
cited ranges (from the provider's structure, not from markers) decide which sentences are
cited.
"""

from __future__ import annotations

from typing import Any

from citeaudit.core._answer import Citation, Claim, Reading
from citeaudit.core._policy import exempt

__all__ = ["claims_of", "plain"]


def plain(value: Any) -> Any:
    """An SDK object (a pydantic model) as the JSON it stands for; JSON as it is."""
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


def claims_of(text: str, cited: list[tuple[int, int, list[Citation]]], reading: Reading,
            ) -> tuple[list[Claim], list[Citation]]:
    """The answer's sentences as claims, each with the citations of the cited ranges it
    overlaps (``cited``: ``(start, end, citations)`` sorted by start; a model splits one
    sentence into several cited pieces: "According to the documents, " then a cited "the
    grass is green"); uncited sentences the claim policy exempts are no claims.
    """
    rules = reading.not_citable
    claims: list[Claim] = []
    citations: list[Citation] = []
    first = 0  # the first cited block that may overlap the next sentence
    for start, end in reading.segmenter(text, []):
        while first < len(cited) and cited[first][1] <= start:
            first += 1
        overlapping = []
        for low, high, made in cited[first:]:
            if low >= end:
                break  # sorted by start: none after it overlaps this sentence
            if high > start:
                overlapping.append(made)
        if not overlapping and rules and exempt(text, start, end, rules):
            continue
        number = len(claims) + 1
        claims.append(Claim(number, text[start:end], (start, end), (), ()))
        citations.extend(c._replace(claim=number) for made in overlapping for c in made)
    return claims, citations
