"""Properties of the provider formats whose citations carry offsets and the text they cover:
a response built from random documents and random valid citations audits clean, and moving
any one offset by one makes it fail.

Each response is validated against its provider's own types (the SDK's pydantic models, or
botocore's service model for Bedrock) before it is audited. OpenAI's ``url_citation`` is
left out: it carries no text to compare, so an offset moved inside the text cannot be told
from a right one (only offsets outside it are, CA206).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import botocore.session
import pytest
from anthropic.types import Message as AnthropicMessage
from botocore.validate import ParamValidator
from cohere.v2.types.v2chat_response import V2ChatResponse
from google.genai.types import GenerateContentResponse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.beta.threads import Message as AssistantsMessage

import citeaudit
from thorough import examples

WORDS = ["grass", "green", "river", "café", "naïve", "mountain", "Zürich", "bright", "quiet",
         "stone", "ocean", "señor", "façade", "crème"]
# Documents without white space: the quote check compares white space normalised, so a
# range moved onto a space could quote the same words.
LETTERS = st.characters(codec="utf-8", categories=("L", "N", "P", "S"))
DOCUMENTS = st.lists(st.text(LETTERS, min_size=8, max_size=60), min_size=1, max_size=4,
                     unique=True)
_BEDROCK = botocore.session.get_session().get_service_model("bedrock-agent-runtime") \
    .operation_model("RetrieveAndGenerate").output_shape

Path = tuple[str | int, ...]
Built = tuple[dict[str, Any], Any, list[Path]]  # response, request, its offsets


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], list[str], list[tuple[int, int, int]]]:
    """Documents, answer sentences, and for each sentence a document and a range in it."""
    documents = draw(DOCUMENTS)
    sentences = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6))
        sentences.append(" ".join(words).capitalize() + ".")
    ranges = []
    for _ in sentences:
        index = draw(st.integers(0, len(documents) - 1))
        start = draw(st.integers(0, len(documents[index]) - 1))
        end = draw(st.integers(start + 1, len(documents[index])))
        ranges.append((index, start, end))
    return documents, sentences, ranges


def anthropic(documents: list[str], sentences: list[str],
              ranges: list[tuple[int, int, int]]) -> Built:
    request = {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": d},
         "citations": {"enabled": True}} for d in documents]}]}
    content: list[dict[str, Any]] = []
    offsets: list[Path] = []
    for sentence, (index, start, end) in zip(sentences, ranges, strict=True):
        if content:
            content.append({"type": "text", "text": " "})
        offsets += [("content", len(content), "citations", 0, f) for f in
                    ("start_char_index", "end_char_index")]
        quoted = documents[index][start:end]
        if all(d[start:end] != quoted for d in documents[index - 1:index] +
               documents[index + 1:index + 2]):  # a neighbour quoting the same text is right
            offsets.append(("content", len(content), "citations", 0, "document_index"))
        content.append({"type": "text", "text": sentence, "citations": [{
            "type": "char_location", "document_index": index, "start_char_index": start,
            "end_char_index": end, "cited_text": documents[index][start:end]}]})
    response = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
                "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}
    AnthropicMessage.model_validate(response)
    return response, request, offsets


def _spans(sentences: list[str]) -> tuple[str, list[tuple[int, int]]]:
    text = " ".join(sentences)
    spans, at = [], 0
    for sentence in sentences:
        spans.append((at, at + len(sentence)))
        at += len(sentence) + 1
    return text, spans


def cohere(documents: list[str], sentences: list[str],
           ranges: list[tuple[int, int, int]]) -> Built:
    text, spans = _spans(sentences)
    citations = [{"start": s, "end": e, "text": text[s:e], "type": "TEXT_CONTENT",
                  "sources": [{"type": "document", "id": f"doc:{index}"}]}
                 for (s, e), (index, _, _) in zip(spans, ranges, strict=True)]
    response = {"id": "r1", "finish_reason": "COMPLETE", "message": {
        "role": "assistant", "content": [{"type": "text", "text": text}],
        "citations": citations}}
    V2ChatResponse.model_validate(response)
    offsets: list[Path] = [("message", "citations", i, f) for i in range(len(citations))
                           for f in ("start", "end")]
    return response, {"documents": documents}, offsets


def gemini(documents: list[str], sentences: list[str],
           ranges: list[tuple[int, int, int]]) -> Built:
    text, spans = _spans(sentences)
    supports = [{"segment": {"start_index": len(text[:s].encode()),
                             "end_index": len(text[:e].encode()), "text": text[s:e]},
                 "grounding_chunk_indices": [index]}
                for (s, e), (index, _, _) in zip(spans, ranges, strict=True)]
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "grounding_metadata": {
                                    "grounding_chunks": [{"retrieved_context": {"text": d}}
                                                         for d in documents],
                                    "grounding_supports": supports}}]}
    GenerateContentResponse.model_validate(response)
    offsets: list[Path] = [("candidates", 0, "grounding_metadata", "grounding_supports", i,
                            "segment", f) for i in range(len(supports))
                           for f in ("start_index", "end_index")]
    return response, None, offsets


def bedrock(documents: list[str], sentences: list[str],
            ranges: list[tuple[int, int, int]]) -> Built:
    text, spans = _spans(sentences)
    citations = [{"generatedResponsePart": {"textResponsePart": {
        "span": {"start": s, "end": e - 1}, "text": text[s:e]}},
        "retrievedReferences": [{"content": {"text": documents[index], "type": "TEXT"},
                                 "metadata": {"x-amz-bedrock-kb-chunk-id": f"chunk-{index}"}}]}
        for (s, e), (index, _, _) in zip(spans, ranges, strict=True)]
    response = {"sessionId": "s1", "output": {"text": text}, "citations": citations}
    assert not ParamValidator().validate(response, _BEDROCK).has_errors()
    offsets: list[Path] = [("citations", i, "generatedResponsePart", "textResponsePart",
                            "span", f) for i in range(len(citations)) for f in ("start", "end")]
    return response, None, offsets


def assistants(documents: list[str], sentences: list[str],
               ranges: list[tuple[int, int, int]]) -> Built:
    value, annotations = "", []
    for at, (sentence, (index, _, _)) in enumerate(zip(sentences, ranges, strict=True)):
        marker = f"【4:{at}†source】"
        value += ("" if at == 0 else " ") + sentence[:-1]
        annotations.append({"type": "file_citation", "text": marker, "start_index": len(value),
                            "end_index": len(value) + len(marker),
                            "file_citation": {"file_id": f"file-{index}"}})
        value += marker + "."
    response = {"id": "msg_1", "object": "thread.message", "created_at": 1,
                "thread_id": "thread_1", "role": "assistant", "status": "completed",
                "content": [{"type": "text", "text": {"value": value,
                                                      "annotations": annotations}}]}
    AssistantsMessage.model_validate(response)
    sources = [{"id": f"file-{i}", "text": d} for i, d in enumerate(documents)]
    offsets: list[Path] = [("content", 0, "text", "annotations", i, f)
                           for i in range(len(annotations)) for f in ("start_index",
                                                                      "end_index")]
    return response, sources, offsets


BUILDERS: dict[str, Callable[..., Built]] = {
    "anthropic": anthropic, "cohere": cohere, "gemini": gemini, "bedrock": bedrock,
    "openai-assistants": assistants}


def _moved(response: dict[str, Any], path: Path, by: int) -> dict[str, Any]:
    moved = copy.deepcopy(response)
    owner: Any = moved
    for key in path[:-1]:
        owner = owner[key]
    owner[path[-1]] += by
    return moved


@pytest.mark.parametrize("name", list(BUILDERS))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_valid_citations_audit_clean_and_any_offset_moved_by_one_fails(
        name: str, case: tuple[list[str], list[str], list[tuple[int, int, int]]]) -> None:
    response, request, offsets = BUILDERS[name](*case)
    report = citeaudit.audit(response, request)
    assert report.shape == name
    assert report.findings == (), report.findings
    assert report.metrics.claim_coverage == 1.0
    for path in offsets:
        assert citeaudit.audit(_moved(response, path, 0), request).passed  # the control
        for by in (-1, 1):
            moved = citeaudit.audit(_moved(response, path, by), request)
            assert not moved.passed, (path, by)
