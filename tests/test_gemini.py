"""Gemini grounding metadata, built through the ``google-genai`` SDK's types and dumped both
as the SDK's snake_case and as REST camelCase; offsets are UTF-8 bytes of their part.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai.types import (
    Candidate,
    Content,
    GenerateContentResponse,
    GroundingChunk,
    GroundingChunkRetrievedContext,
    GroundingChunkWeb,
    GroundingMetadata,
    GroundingSupport,
    Part,
    Segment,
)

import citeaudit

# Non-ASCII before the cited sentence (a pleasantry, which needs no citation): byte and
# character offsets differ by 5 here ("—", "é", "’").
INTRO = "Great question — here is the café’s answer. "
CLAIM = "Refunds take 14 days."
TEXT = INTRO + CLAIM
START = len(INTRO.encode())
END = START + len(CLAIM.encode())
CHUNKS = [GroundingChunk(web=GroundingChunkWeb(uri="https://kb.example/refunds",
                                               title="Refunds", domain="kb.example")),
          GroundingChunk(retrieved_context=GroundingChunkRetrievedContext(
              uri="gs://docs/policy.txt", title="Policy", text="Refunds take 14 days."))]


def response(*supports: GroundingSupport, parts: tuple[str, ...] = (TEXT,)
             ) -> GenerateContentResponse:
    return GenerateContentResponse(candidates=[Candidate(
        content=Content(role="model", parts=[Part(text=p) for p in parts]),
        grounding_metadata=GroundingMetadata(grounding_chunks=CHUNKS,
                                             grounding_supports=list(supports)))])


def support(start: int, end: int, *chunks: int, text: str | None = CLAIM,
            part: int | None = None) -> GroundingSupport:
    return GroundingSupport(segment=Segment(start_index=start, end_index=end, text=text,
                                            part_index=part),
                            grounding_chunk_indices=list(chunks), confidence_scores=[0.9])


def shapes(answer: GenerateContentResponse) -> list[Any]:
    """The SDK object, its snake_case JSON and the REST API's camelCase JSON."""
    return [answer, answer.model_dump(mode="json", exclude_none=True),
            answer.model_dump(mode="json", exclude_none=True, by_alias=True)]


@pytest.mark.parametrize("shape", [0, 1, 2])
def test_a_grounded_answer_over_non_ascii_text_passes_in_every_shape(shape: int) -> None:
    answer = shapes(response(support(START, END, 0, 1)))[shape]
    report = citeaudit.audit(answer, None)
    assert report.shape == "gemini"
    assert [f.code for f in report.findings] == [], report.findings
    assert [s.id for s in report.snapshot] == ["chunk:0", "chunk:1"]
    assert report.metrics.claim_coverage == 1.0


def test_character_offsets_where_bytes_are_meant_are_caught() -> None:
    # A reader that counted characters would put the segment 3 characters early.
    chars = len(INTRO)
    report = citeaudit.audit(response(support(chars, chars + len(CLAIM), 0)), None)
    # The support is dropped, so the sentence is left uncited as well.
    assert [(f.code, f.path) for f in report.findings] == [
        ("CA302", None),
        ("CA206", "$.candidates[0].grounding_metadata.grounding_supports[0].segment")]
    assert "not the segment's text 'Refunds take 14 days.'" in report.findings[1].message


@pytest.mark.parametrize(("made", "code", "message"), [
    (support(START, END + 99, 0), "CA206", f"bytes {START}..{END + 99} lie outside part 0"
     f" ({END} bytes)"),
    (support(16, 20, 0, text=None), "CA206", "bytes 16..20 cut a character of part 0 in half"
     " (offsets count UTF-8 bytes)"),  # inside the three bytes of "—"
    (support(START, END, 0, part=3), "CA206", "part_index 3 names no text part (the answer"
     " has 1 parts)"),
    (support(START, END, 5), "CA202",
     "grounding chunk 5 names nothing sent: the response has 2 grounding chunks"),
])
def test_each_broken_support_is_found(made: GroundingSupport, code: str, message: str) -> None:
    report = citeaudit.audit(response(made), None)
    assert (code, message) in [(f.code, f.message) for f in report.findings]
    assert not report.passed


def test_offsets_are_relative_to_their_part() -> None:
    answer = response(support(0, len(CLAIM.encode()), 1, part=1), parts=(INTRO, CLAIM))
    report = citeaudit.audit(answer, None)
    assert report.passed, report.findings
    assert [c.span for c in citeaudit.core.prepare(answer, None).answer.citations] == [
        (len(INTRO), len(TEXT))]


def test_an_ungrounded_amount_is_ca302() -> None:
    report = citeaudit.audit(response(), None)
    assert [f.code for f in report.findings] == ["CA302"]
