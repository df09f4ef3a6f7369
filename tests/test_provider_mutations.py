"""Provider responses (every provider format's shape) with fields broken at random never
crash the audit: each gives findings, or an input error (exit 2 on the command line), never
another exception.
"""

from __future__ import annotations

import base64
import copy
import functools
import io
import json
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

import citeaudit
import test_anthropic as anthropic_cases
import test_bedrock as bedrock_cases
import test_bedrock_converse as converse_cases
import test_cohere as cohere_cases
import test_gemini as gemini_cases
import test_gemini_interactions as interactions_cases
import test_marked_providers as marked_cases
import test_mistral as mistral_cases
import test_openai as openai_cases
import test_openai_assistants as assistants_cases
import test_perplexity_responses as perplexity_responses_cases
import test_xai as xai_cases
from citeaudit.cli import ExitCode, main
from citeaudit.service import create_app
from thorough import examples

JUNK: list[Any] = [None, 0, -1, 10**9, "", "x", [], {}, [1], {"a": 1}, True, 3.5, "é—"]


def _mutate(value: Any, rnd: random.Random) -> None:
    if isinstance(value, dict) and value:
        key = rnd.choice(list(value))
        roll = rnd.random()
        if roll < 0.3:
            value[key] = rnd.choice(JUNK)
        elif roll < 0.4:
            del value[key]
        else:
            _mutate(value[key], rnd)
    elif isinstance(value, list) and value:
        index = rnd.randrange(len(value))
        if rnd.random() < 0.3:
            value[index] = rnd.choice(JUNK)
        else:
            _mutate(value[index], rnd)


def clean_cases() -> list[tuple[Any, Any]]:
    """A clean response (as JSON) and its request, of every provider format."""
    return [
        (anthropic_cases.CLEAN.model_dump(mode="json"), anthropic_cases.REQUEST),
        (openai_cases.response(openai_cases.FILE, openai_cases.URL).model_dump(mode="json"),
         openai_cases.SOURCES),
        (openai_cases.chat(openai_cases.url_annotation("https://shop.example/shipping"))
         .model_dump(mode="json"), openai_cases.SOURCES),
        (gemini_cases.response(gemini_cases.support(gemini_cases.START, gemini_cases.END, 0))
         .model_dump(mode="json", by_alias=True), None),
        (cohere_cases.CLEAN.model_dump(mode="json"), cohere_cases.REQUEST),
        (bedrock_cases.CLEAN, None),
        (mistral_cases.CLEAN.model_dump(mode="json"), mistral_cases.REQUEST),
        (assistants_cases.CLEAN.model_dump(mode="json"), [assistants_cases.STEP]),
        (marked_cases.perplexity("Refunds take 14 days [1]. Express takes 1 day [2].",
                                 search_results=marked_cases.RESULTS), None),
        (marked_cases.azure("Refunds take 14 days [doc1]."), None),
        (interactions_cases.interaction(
            interactions_cases.url(interactions_cases.B_REFUNDS),
            interactions_cases.place(interactions_cases.B_MUNICH), interactions_cases.DOCUMENT,
            steps=(interactions_cases.FETCHED, interactions_cases.FILES,
                   interactions_cases.MAPS)).model_dump(mode="json", exclude_none=True), None),
        (xai_cases.response(*xai_cases.CLEAN), None),
        (perplexity_responses_cases.response(*perplexity_responses_cases.CLEAN)
         .model_dump(mode="json", exclude_none=True), None),
        (converse_cases.CLEAN, json.loads(json.dumps(  # bytes as the JSON API writes them
            converse_cases.REQUEST, default=lambda raw: base64.b64encode(raw).decode()))),
    ]


def test_broken_provider_responses_give_findings_or_input_errors() -> None:
    cases = clean_cases()
    rnd = random.Random(20261201)
    audited = 0
    for _ in range(3000):
        seed, request = rnd.choice(cases)
        answer = json.loads(json.dumps(seed))
        for _ in range(rnd.randint(1, 4)):
            _mutate(answer, rnd)
        try:
            citeaudit.audit(answer, request)
            audited += 1
        except citeaudit.CiteauditError:
            pass
    assert audited > 2000


# The formats of clean_cases(), in its order.
FORMATS = ("anthropic", "openai-responses", "openai-chat", "gemini", "cohere", "bedrock",
           "mistral", "openai-assistants", "perplexity", "azure-on-your-data",
           "gemini-interactions", "xai", "perplexity-responses", "bedrock-converse")
Where = tuple[str | int, ...]  # a field's place in a response
Edit = Callable[[dict[str, Any]], None]


@functools.cache
def _cases_as_json() -> str:
    return json.dumps([[answer, plain_request(request)] for answer, request in clean_cases()])


def plain_request(request: Any) -> Any:
    """A request (or sources) as JSON: the Assistants run steps are the SDK's objects."""
    if isinstance(request, list):
        return [plain_request(item) for item in request]
    dump = getattr(request, "model_dump", None)
    return dump(mode="json") if callable(dump) else request


def case(name: str) -> tuple[dict[str, Any], Any]:
    """A fresh copy of the clean response of format ``name`` (as JSON) and its request."""
    answer, request = json.loads(_cases_as_json())[FORMATS.index(name)]
    return answer, request


def owner_of(data: Any, path: Where) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


def put(*path_and_value: Any) -> Edit:
    """An edit setting the field at the path (all but the last argument) to the value."""
    *path, value = path_and_value

    def edit(data: dict[str, Any]) -> None:
        owner_of(data, tuple(path))[path[-1]] = copy.deepcopy(value)
    return edit


def drop(*path: str | int) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        del owner_of(data, path)[path[-1]]
    return edit


def keep(*path_and_indices: Any) -> Edit:
    """An edit keeping only the given items of the list at the path."""
    *path, indices = path_and_indices

    def edit(data: dict[str, Any]) -> None:
        items = owner_of(data, tuple(path))[path[-1]]
        owner_of(data, tuple(path))[path[-1]] = [items[i] for i in indices]
    return edit


TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "refunds"}}
CHAT_CONTENT = ("choices", 0, "message", "content")
CANDIDATE = ("candidates", 0)
SUPPORT = ("candidates", 0, "groundingMetadata", "groundingSupports", 0)
SPAN = ("citations", 0, "generatedResponsePart", "textResponsePart")
CHUNKS = ("choices", 0, "message", "content")
# A response recognised as its provider's whose answer part (its text, its citations) breaks
# the shape its provider gives it: CA404 at the JSON path, whatever else is found.
BROKEN: list[tuple[str, Edit, str]] = [
    # Reported: a citation type that is not a string crashed the readers.
    ("anthropic", put("content", 1, "citations", 0, "type", []), "$.content[1].citations[0].type"),
    ("anthropic", put("content", 1, "citations", 0, "type", {}), "$.content[1].citations[0].type"),
    ("anthropic", put("content", 3, "citations", 1, "type", 7), "$.content[3].citations[1].type"),
    ("anthropic", put("content", 4, "citations", 0, "type", None),
     "$.content[4].citations[0].type"),
    ("cohere", put("message", "citations", 0, "type", {}), "$.message.citations[0].type"),
    ("cohere", put("message", "citations", 1, "type", []), "$.message.citations[1].type"),
    ("cohere", put("message", "citations", 0, "type", 3), "$.message.citations[0].type"),
    # Reported: no answer at all passed as no evidence.
    ("anthropic", put("content", []), "$.content"),
    ("anthropic", put("content", [TOOL_USE]), "$.content"),
    ("anthropic", put("content", [{"type": "text", "text": " \n"}]), "$.content"),
    ("openai-responses", keep("output", [0]), "$.output"),
    ("openai-responses", put("output", []), "$.output"),
    ("openai-responses", put("output", 1, "content", []), "$.output"),
    ("openai-chat", put(*CHAT_CONTENT, ""), "$.choices[0].message.content"),
    ("openai-chat", put(*CHAT_CONTENT, 5), "$.choices[0].message.content"),
    ("openai-chat", put("choices", []), "$.choices"),
    ("openai-assistants", put("content", 5), "$.content"),
    ("openai-assistants", put("content", []), "$.content"),
    ("openai-assistants", put("content", 0, "text", "value", ""), "$.content"),
    ("cohere", put("message", "content", []), "$.message.content"),
    ("cohere", put("message", "content", "Emperor penguins."), "$.message.content"),
    ("gemini", put("candidates", []), "$.candidates"),
    ("gemini", put(*CANDIDATE, "content", "parts", []), "$.candidates[0].content.parts"),
    ("gemini", drop(*CANDIDATE, "content"), "$.candidates[0].content"),
    ("bedrock", put("output", "text", ""), "$.output.text"),
    ("mistral", put(*CHUNKS, []), "$.choices[0].message.content"),
    ("mistral", keep(*CHUNKS, [1, 3]), "$.choices[0].message.content"),
    ("perplexity", put("choices", []), "$.choices"),
    ("perplexity", put(*CHAT_CONTENT, ""), "$.choices[0].message.content"),
    ("perplexity", put(*CHAT_CONTENT, 5), "$.choices[0].message.content"),
    ("perplexity", put("choices", 0, "message", None), "$.choices[0].message"),
    ("azure-on-your-data", put(*CHAT_CONTENT, -1), "$.choices[0].message.content"),
    ("azure-on-your-data", put(*CHAT_CONTENT, ""), "$.choices[0].message.content"),
    ("azure-on-your-data", put(*CHAT_CONTENT, None), "$.choices[0].message.content"),
    ("azure-on-your-data", put(*CHAT_CONTENT, ["Refunds take 14 days [doc1]."]),
     "$.choices[0].message.content"),
    # Reported: a wrongly typed field the checks compare was skipped, so a FAIL could pass.
    ("cohere", put("message", "citations", 0, "text", 5), "$.message.citations[0].text"),
    ("cohere", put("message", "citations", 1, "text", ["Antarctica."]),
     "$.message.citations[1].text"),
    ("gemini", put(*SUPPORT, "segment", "text", 5),
     "$.candidates[0].groundingMetadata.groundingSupports[0].segment.text"),
    ("gemini", put(*SUPPORT, "segment", "text", {"text": "Refunds take 14 days."}),
     "$.candidates[0].groundingMetadata.groundingSupports[0].segment.text"),
    ("anthropic", put("content", 1, "citations", 0, "cited_text", 5),
     "$.content[1].citations[0].cited_text"),
    ("bedrock", put(*SPAN, "text", 5),
     "$.citations[0].generatedResponsePart.textResponsePart.text"),
    ("openai-assistants", put("content", 0, "text", "annotations", 0, "text", []),
     "$.content[0].text.annotations[0].text"),
    # The containers of the answer's parts, of another type than their provider's.
    ("anthropic", put("content", 1, 5), "$.content[1]"),
    ("anthropic", put("content", 1, "type", 5), "$.content[1].type"),
    ("anthropic", put("content", 1, "citations", {}), "$.content[1].citations"),
    ("anthropic", put("content", 3, "citations", "x"), "$.content[3].citations"),
    ("openai-responses", put("output", 1, 5), "$.output[1]"),
    ("openai-responses", put("output", 1, "type", []), "$.output[1].type"),
    ("openai-responses", put("output", 1, "content", 5), "$.output[1].content"),
    ("openai-responses", put("output", 1, "content", 0, None), "$.output[1].content[0]"),
    ("openai-responses", put("output", 1, "content", 0, "type", 1),
     "$.output[1].content[0].type"),
    ("openai-responses", put("output", 1, "content", 0, "annotations", {}),
     "$.output[1].content[0].annotations"),
    ("openai-chat", put("choices", 0, 5), "$.choices[0]"),
    ("openai-chat", put("choices", 0, "message", "annotations", {}),
     "$.choices[0].message.annotations"),
    ("openai-assistants", put("content", 0, 5), "$.content[0]"),
    ("openai-assistants", put("content", 0, "type", None), "$.content[0].type"),
    ("openai-assistants", put("content", 0, "text", "Refunds."), "$.content[0].text"),
    ("openai-assistants", put("content", 0, "text", "annotations", {}),
     "$.content[0].text.annotations"),
    ("cohere", put("message", "content", 0, 5), "$.message.content[0]"),
    ("cohere", put("message", "content", 0, "text", 5), "$.message.content[0].text"),
    ("cohere", put("message", "content", 0, "type", False), "$.message.content[0].type"),
    ("cohere", put("message", "citations", {}), "$.message.citations"),
    ("cohere", put("message", "citations", 0, "sources", {"id": "doc:0"}),
     "$.message.citations[0].sources"),
    ("cohere", put("message", "citations", 0, "content_index", "0"),
     "$.message.citations[0].content_index"),
    ("gemini", put(*CANDIDATE, "content", "parts", 0, 5), "$.candidates[0].content.parts[0]"),
    ("gemini", put(*CANDIDATE, "content", "parts", 0, "text", 5),
     "$.candidates[0].content.parts[0].text"),
    ("gemini", put(*CANDIDATE, "groundingMetadata", "groundingSupports", {}),
     "$.candidates[0].groundingMetadata.groundingSupports"),
    ("gemini", put(*CANDIDATE, 5), "$.candidates[0]"),
    ("bedrock", put("citations", 0, 5), "$.citations[0]"),
    ("bedrock", put(*SPAN, 5), "$.citations[0].generatedResponsePart.textResponsePart"),
    ("mistral", put(*CHUNKS, 1, 5), "$.choices[0].message.content[1]"),
    ("mistral", put(*CHUNKS, 0, "type", 5), "$.choices[0].message.content[0].type"),
    ("mistral", put(*CHUNKS, 0, "text", 5), "$.choices[0].message.content[0].text"),
    ("mistral", put(*CHUNKS, 1, "reference_ids", {}),
     "$.choices[0].message.content[1].reference_ids"),
    ("perplexity", put("choices", 0, 5), "$.choices[0]"),
    ("azure-on-your-data", put("choices", 0, "message", "content", {"text": "Refunds."}),
     "$.choices[0].message.content"),
]


@pytest.mark.parametrize(("name", "edit", "path"), BROKEN)
def test_a_broken_answer_is_a_ca404_naming_its_json_path(name: str, edit: Edit,
                                                         path: str) -> None:
    answer, request = case(name)
    edit(answer)
    report = citeaudit.audit(answer, request)
    assert report.shape == name
    assert ("CA404", path) in [(f.code, f.path) for f in report.findings], report.findings
    assert (report.status, report.passed) == ("unverified", False)


SEARCH = ("output", 0, "results", 0)
CONTEXT = ("choices", 0, "message", "context", "citations")
CHUNK = ("candidates", 0, "groundingMetadata", "groundingChunks")
REFERENCE = ("citations", 0, "retrievedReferences")
# A response whose retrieved sources (what it carries as the snapshot) break their shape:
# the audit cannot run, as for any broken snapshot (an input error naming the place).
BROKEN_SOURCES: list[tuple[str, Edit, str]] = [
    ("perplexity", put("search_results", 0, "snippet", 5), "$.search_results[0].snippet"),
    ("perplexity", put("search_results", 1, 5), "$.search_results[1]"),
    ("azure-on-your-data", put(*CONTEXT, 0, "content", 5),
     "$.choices[0].message.context.citations[0].content"),
    ("azure-on-your-data", put(*CONTEXT, 1, "no"), "$.choices[0].message.context.citations[1]"),
    ("gemini", put(*CHUNK, 1, "retrievedContext", "text", 5),
     "$.candidates[0].groundingMetadata.groundingChunks[1].retrievedContext.text"),
    ("gemini", put(*CHUNK, 0, 5), "$.candidates[0].groundingMetadata.groundingChunks[0]"),
    ("gemini", put(*CHUNK, 0, "web", []),
     "$.candidates[0].groundingMetadata.groundingChunks[0].web"),
    ("bedrock", put(*REFERENCE, 0, 5), "$.citations[0].retrievedReferences[0]"),
    ("bedrock", put(*REFERENCE, {}), "$.citations[0].retrievedReferences"),
    ("bedrock", put(*REFERENCE, 0, "content", "text", 5),
     "$.citations[0].retrievedReferences[0].content.text"),
    ("bedrock", put(*REFERENCE, 0, "metadata", "x-amz-bedrock-kb-chunk-id", 5),
     "$.citations[0].retrievedReferences[0].metadata.x-amz-bedrock-kb-chunk-id"),
    ("openai-responses", put(*SEARCH, "text", 5), "$.output[0].results[0].text"),
    ("openai-responses", put(*SEARCH, "file_id", None), "$.output[0].results[0].file_id"),
    ("openai-responses", put("output", 0, "results", 1, []), "$.output[0].results[1]"),
]


@pytest.mark.parametrize(("name", "edit", "place"), BROKEN_SOURCES)
def test_broken_retrieved_sources_in_a_response_are_an_input_error(name: str, edit: Edit,
                                                                   place: str) -> None:
    answer, request = case(name)
    edit(answer)
    with pytest.raises(citeaudit.SnapshotError) as raised:
        citeaudit.audit(answer, request)
    assert raised.value.place == place


REFUSED = "I can't help with that."
# What a provider says when its model declines: a refusal (no evidence), as the docs say.
DECLINED: list[tuple[str, Edit]] = [
    ("anthropic", lambda data: data.update(content=[], stop_reason="refusal")),
    ("anthropic", lambda data: data.update(content=[{"type": "text", "text": "I"}],
                                           stop_reason="refusal")),  # cut off mid-answer
    ("openai-chat", put("choices", 0, "message", {"role": "assistant", "content": None,
                                                  "refusal": REFUSED})),
    ("openai-responses", put("output", 1, "content", [{"type": "refusal", "refusal": REFUSED}])),
    ("openai-assistants", put("content", [{"type": "refusal", "refusal": REFUSED}])),
]


@pytest.mark.parametrize(("name", "edit"), DECLINED)
def test_a_providers_own_refusal_is_no_evidence(name: str, edit: Edit) -> None:
    answer, request = case(name)
    edit(answer)
    report = citeaudit.audit(answer, request)
    assert (report.shape, report.status, report.passed, report.findings) == (
        name, "no_evidence", True, ())


# The fields each format reads from the clean responses above (JSON paths, every list index
# written []): the answer's text and citations, the retrieved sources a response carries,
# and what it is recognised by. A field here of another type than its provider gives it
# breaks the answer (CA404) or its sources (an input error); a field not here is not read,
# so no value of it changes the audit.
READ: dict[str, frozenset[str]] = {name: frozenset(paths.split()) for name, paths in {
    "anthropic": """
        $.type $.stop_reason $.content $.content[] $.content[].type $.content[].text
        $.content[].citations $.content[].citations[] $.content[].citations[].type
        $.content[].citations[].cited_text $.content[].citations[].document_index
        $.content[].citations[].search_result_index $.content[].citations[].start_char_index
        $.content[].citations[].end_char_index $.content[].citations[].start_block_index
        $.content[].citations[].end_block_index""",
    "openai-responses": """
        $.object $.output $.output[] $.output[].type $.output[].content $.output[].content[]
        $.output[].content[].type $.output[].content[].text $.output[].content[].annotations
        $.output[].content[].annotations[] $.output[].content[].annotations[].type
        $.output[].content[].annotations[].url $.output[].content[].annotations[].file_id
        $.output[].content[].annotations[].index $.output[].content[].annotations[].start_index
        $.output[].content[].annotations[].end_index $.output[].results $.output[].results[]
        $.output[].results[].file_id $.output[].results[].text""",
    "openai-chat": """
        $.object $.choices $.choices[] $.choices[].message $.choices[].message.content
        $.choices[].message.annotations $.choices[].message.annotations[]
        $.choices[].message.annotations[].url_citation
        $.choices[].message.annotations[].url_citation.url
        $.choices[].message.annotations[].url_citation.start_index
        $.choices[].message.annotations[].url_citation.end_index""",
    "gemini": """
        $.candidates $.candidates[] $.candidates[].content $.candidates[].content.parts
        $.candidates[].content.parts[] $.candidates[].content.parts[].text
        $.candidates[].groundingMetadata $.candidates[].groundingMetadata.groundingChunks
        $.candidates[].groundingMetadata.groundingChunks[]
        $.candidates[].groundingMetadata.groundingChunks[].web
        $.candidates[].groundingMetadata.groundingChunks[].retrievedContext
        $.candidates[].groundingMetadata.groundingChunks[].retrievedContext.text
        $.candidates[].groundingMetadata.groundingSupports
        $.candidates[].groundingMetadata.groundingSupports[]
        $.candidates[].groundingMetadata.groundingSupports[].groundingChunkIndices
        $.candidates[].groundingMetadata.groundingSupports[].groundingChunkIndices[]
        $.candidates[].groundingMetadata.groundingSupports[].segment
        $.candidates[].groundingMetadata.groundingSupports[].segment.startIndex
        $.candidates[].groundingMetadata.groundingSupports[].segment.endIndex
        $.candidates[].groundingMetadata.groundingSupports[].segment.text""",
    "cohere": """
        $.finish_reason $.message $.message.role $.message.content $.message.content[]
        $.message.content[].type $.message.content[].text $.message.citations
        $.message.citations[] $.message.citations[].type $.message.citations[].start
        $.message.citations[].end $.message.citations[].text $.message.citations[].sources
        $.message.citations[].sources[] $.message.citations[].sources[].id""",
    "bedrock": """
        $.output $.output.text $.citations $.citations[] $.citations[].generatedResponsePart
        $.citations[].generatedResponsePart.textResponsePart
        $.citations[].generatedResponsePart.textResponsePart.span
        $.citations[].generatedResponsePart.textResponsePart.span.start
        $.citations[].generatedResponsePart.textResponsePart.span.end
        $.citations[].generatedResponsePart.textResponsePart.text
        $.citations[].retrievedReferences $.citations[].retrievedReferences[]
        $.citations[].retrievedReferences[].content $.citations[].retrievedReferences[].content.text
        $.citations[].retrievedReferences[].location $.citations[].retrievedReferences[].metadata
        $.citations[].retrievedReferences[].metadata.x-amz-bedrock-kb-chunk-id""",
    "mistral": """
        $.choices $.choices[] $.choices[].message $.choices[].message.content
        $.choices[].message.content[] $.choices[].message.content[].type
        $.choices[].message.content[].text $.choices[].message.content[].reference_ids
        $.choices[].message.content[].reference_ids[]""",
    "openai-assistants": """
        $.object $.content $.content[] $.content[].type $.content[].text $.content[].text.value
        $.content[].text.annotations $.content[].text.annotations[]
        $.content[].text.annotations[].type $.content[].text.annotations[].start_index
        $.content[].text.annotations[].end_index $.content[].text.annotations[].text
        $.content[].text.annotations[].file_citation
        $.content[].text.annotations[].file_citation.file_id""",
    "perplexity": """
        $.choices $.choices[] $.choices[].message $.choices[].message.content $.search_results
        $.search_results[] $.search_results[].snippet""",
    "azure-on-your-data": """
        $.choices $.choices[] $.choices[].message $.choices[].message.content
        $.choices[].message.context $.choices[].message.context.citations
        $.choices[].message.context.citations[] $.choices[].message.context.citations[].content""",
    "gemini-interactions": """
        $.steps $.steps[] $.steps[].type $.steps[].result $.steps[].result[]
        $.steps[].result[].url $.steps[].result[].places $.steps[].result[].places[]
        $.steps[].result[].places[].place_id $.steps[].result[].places[].name
        $.steps[].result[].places[].url $.steps[].content $.steps[].content[]
        $.steps[].content[].type $.steps[].content[].text $.steps[].content[].annotations
        $.steps[].content[].annotations[] $.steps[].content[].annotations[].type
        $.steps[].content[].annotations[].url $.steps[].content[].annotations[].place_id
        $.steps[].content[].annotations[].document_uri
        $.steps[].content[].annotations[].start_index
        $.steps[].content[].annotations[].end_index""",
    "xai": """
        $.citations $.citations[] $.outputs $.outputs[] $.outputs[].index $.outputs[].message
        $.outputs[].message.role $.outputs[].message.content $.outputs[].message.citations
        $.outputs[].message.citations[] $.outputs[].message.citations[].id
        $.outputs[].message.citations[].start_index $.outputs[].message.citations[].end_index
        $.outputs[].message.citations[].web_citation
        $.outputs[].message.citations[].web_citation.url
        $.outputs[].message.citations[].x_citation
        $.outputs[].message.citations[].x_citation.url""",
    "perplexity-responses": """
        $.object $.output $.output[] $.output[].type $.output[].content $.output[].content[]
        $.output[].content[].type $.output[].content[].text $.output[].content[].annotations
        $.output[].content[].annotations[] $.output[].content[].annotations[].type
        $.output[].content[].annotations[].url $.output[].content[].annotations[].start_index
        $.output[].content[].annotations[].end_index $.output[].results $.output[].results[]
        $.output[].results[].url $.output[].results[].title $.output[].results[].snippet
        $.output[].contents $.output[].contents[] $.output[].contents[].url
        $.output[].contents[].title $.output[].contents[].snippet""",
    "bedrock-converse": """
        $.output $.output.message $.output.message.content $.output.message.content[]
        $.output.message.content[].text $.output.message.content[].citationsContent
        $.output.message.content[].citationsContent.content
        $.output.message.content[].citationsContent.content[]
        $.output.message.content[].citationsContent.content[].text
        $.output.message.content[].citationsContent.citations
        $.output.message.content[].citationsContent.citations[]
        $.output.message.content[].citationsContent.citations[].location
        $.output.message.content[].citationsContent.citations[].location.documentChar
        $.output.message.content[].citationsContent.citations[].location.documentChar.documentIndex
        $.output.message.content[].citationsContent.citations[].location.documentChar.start
        $.output.message.content[].citationsContent.citations[].location.documentChar.end
        $.output.message.content[].citationsContent.citations[].location.documentChunk
        $.output.message.content[].citationsContent.citations[].location.documentChunk.documentIndex
        $.output.message.content[].citationsContent.citations[].location.documentChunk.start
        $.output.message.content[].citationsContent.citations[].location.documentChunk.end
        $.output.message.content[].citationsContent.citations[].location.searchResultLocation
        $.output.message.content[].citationsContent.citations[].location.searchResultLocation.searchResultIndex
        $.output.message.content[].citationsContent.citations[].location.searchResultLocation.start
        $.output.message.content[].citationsContent.citations[].location.searchResultLocation.end
        $.output.message.content[].citationsContent.citations[].sourceContent
        $.output.message.content[].citationsContent.citations[].sourceContent[]
        $.output.message.content[].citationsContent.citations[].sourceContent[].text""",
}.items()}


# Fields a format recognises a response by when they are there at all, even null (a Cohere
# stream's response has "finish_reason": null until its last event): left out, the response
# is another shape.
PRESENT: dict[str, frozenset[str]] = {name: frozenset() for name in FORMATS} | {
    "cohere": frozenset({"$.finish_reason"}), "gemini-interactions": frozenset({"$.status"})}


def _paths(value: Any, at: Where = ()) -> Iterator[Where]:
    """The path of every field and list item in ``value`` whose value is not null."""
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, inner in items:
        if inner is not None:
            yield (*at, key)
        yield from _paths(inner, (*at, key))


def written(path: Where) -> str:
    """A path as READ writes it: ``$.content[].text``."""
    return "$" + "".join("[]" if isinstance(key, int) else f".{key}" for key in path)


PATHS = {name: sorted(_paths(case(name)[0]), key=str) for name in FORMATS}
_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
          dict: "object", type(None): "null"}


class Outcome(NamedTuple):
    """What an audit gives, as every entry point shows it: the verdict and the findings, or
    the input error (exit 2) it raised.
    """

    passed: bool
    status: str
    findings: tuple[tuple[str, str | None, str], ...]


def outcome(answer: Any, request: Any) -> Outcome:
    """The audit's outcome; any exception but an input error fails the test."""
    try:
        report = citeaudit.audit(answer, request)
    except citeaudit.CiteauditError:
        return Outcome(False, "input error", ())
    return Outcome(report.passed, report.status,
                   tuple((f.code, f.path, f.message) for f in report.findings))


def _codes(found: Outcome) -> tuple[bool, str, tuple[str, ...]]:
    return found.passed, found.status, tuple(code for code, _, _ in found.findings)


def mutated(name: str, path: Where, value: Any) -> dict[str, Any]:
    answer, _ = case(name)
    owner_of(answer, path)[path[-1]] = value
    return answer


def assert_holds(name: str, path: Where, value: Any) -> Outcome:
    """The properties of a field replaced by ``value``: nothing but an input error is
    raised; null is read as a field left out; a value of another type than the field's breaks
    the answer where the format reads the field (never a pass) and changes nothing where it
    does not; a value of the same type (a huge string for a string) is audited like any.
    """
    answer, request = case(name)
    clean = outcome(answer, request)
    original = owner_of(answer, path)[path[-1]]
    found = outcome(mutated(name, path, value), request)
    if value is None and written(path) in PRESENT[name]:
        assert found == clean, (name, path)
    elif value is None and isinstance(path[-1], str):
        left_out = mutated(name, path, None)
        del owner_of(left_out, path)[path[-1]]
        assert _codes(found) == _codes(outcome(left_out, request)), (name, path)
    elif _TYPES[type(value)] != _TYPES[type(original)]:
        if written(path) in READ[name]:
            assert not found.passed, (name, written(path), value, found)
        else:
            assert found == clean, (name, written(path), value, found)
    return found


def _other_type(value: Any) -> Any:
    return 5 if isinstance(value, str) else "x"


@pytest.mark.parametrize("name", FORMATS)
def test_every_field_of_another_type_or_null_breaks_only_what_reads_it(name: str) -> None:
    for path in PATHS[name]:
        original = owner_of(case(name)[0], path)[path[-1]]
        for value in (_other_type(original), None):
            assert_holds(name, path, value)


def test_every_field_read_is_in_the_clean_responses() -> None:
    for name in FORMATS:
        assert READ[name] <= {written(path) for path in PATHS[name]}, name


HUGE = st.builds(lambda word, count: word * count,
                 st.sampled_from(["x", "é—", "[1] ", "Refunds take 14 days. ", "\u200b"]),
                 st.integers(1_000, 12_000))
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12), HUGE,
    st.lists(st.one_of(st.integers(-5, 50), st.text(max_size=4), st.none()), max_size=3),
    st.dictionaries(st.sampled_from(["type", "text", "id", "start", "x"]),
                    st.one_of(st.integers(-5, 50), st.text(max_size=4)), max_size=3))


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, Where, Any]:
    """A provider format, one of its clean response's fields and a value to put there."""
    name = draw(st.sampled_from(FORMATS))
    return name, draw(st.sampled_from(PATHS[name])), draw(VALUES)


SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)


@settings(SETTINGS, max_examples=examples(300))
@given(mutation=mutations())
def test_a_mutated_field_never_crashes_and_never_passes_a_broken_answer(
        mutation: tuple[str, Where, Any]) -> None:
    assert_holds(*mutation)


def _files(folder: Path, name: str, answer: Any) -> list[str]:
    """The files ``citeaudit check`` reads for a response of format ``name``."""
    request = case(name)[1]
    (folder / "response.json").write_text(json.dumps(answer), encoding="utf-8")
    if request is None:
        return [str(folder / "response.json")]
    (folder / "request.json").write_text(json.dumps(request), encoding="utf-8")
    return [str(folder / "request.json"), str(folder / "response.json")]


def _exit_code(found: Outcome) -> int:
    return ExitCode.INPUT_ERROR if found.status == "input error" else \
        ExitCode.OK if found.passed else ExitCode.FAILED


@settings(SETTINGS, max_examples=examples(60))
@given(mutation=mutations())
def test_check_gives_the_audits_exit_code_and_never_a_traceback(
        mutation: tuple[str, Where, Any]) -> None:
    found = assert_holds(*mutation)
    with tempfile.TemporaryDirectory() as folder:
        out, err = io.StringIO(), io.StringIO()
        code = main(["check", *_files(Path(folder), mutation[0], mutated(*mutation)),
                     "--format", "json"], stdout=out, stderr=err)
    assert code == _exit_code(found), (mutation[:2], err.getvalue())
    if code == ExitCode.INPUT_ERROR:  # one line naming the file and the place
        assert re.fullmatch(r"citeaudit: error: \S+\.json: [^\n]+\n", err.getvalue())
    else:
        assert json.loads(out.getvalue())["passed"] == found.passed


# The reported shapes, as a user runs them: a real process each.
REPORTED = [("anthropic", ("content", 1, "citations", 0, "type"), []),
            ("cohere", ("message", "citations", 0, "type"), {}),
            ("anthropic", ("content",), []),
            ("azure-on-your-data", (*CHAT_CONTENT,), -1),
            ("perplexity", ("choices",), []),
            ("bedrock", (*REFERENCE, 0, "content", "text"), 5)]


@pytest.mark.parametrize(("name", "path", "value"), REPORTED)
def test_check_in_a_real_process(tmp_path: Path, name: str, path: Where, value: Any) -> None:
    found = outcome(mutated(name, path, value), case(name)[1])
    files = _files(tmp_path, name, mutated(name, path, value))
    done = subprocess.run([sys.executable, "-m", "citeaudit", "check", *files],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == _exit_code(found) != ExitCode.OK, done.stderr
    if done.returncode == ExitCode.FAILED:  # CA404 at the field, the rest still audited
        assert done.stderr == ""
        assert f"{files[-1]}:{written_path(path)}: CA404 error:" in done.stdout, done.stdout
    else:  # the sources it carries: one line naming the file and the place
        assert re.fullmatch(rf"citeaudit: error: {re.escape(files[-1])}:"
                            rf" {re.escape(written_path(path))}: [^\n]+\n", done.stderr)


def written_path(path: Where) -> str:
    return "$" + "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path)


def _record(at: int, name: str, answer: Any) -> dict[str, Any]:
    request = case(name)[1]
    return {"id": f"r{at}", "response": answer, **({} if request is None else
                                                   {"request": request})}


@settings(SETTINGS, max_examples=examples(8))
@given(drawn=st.lists(mutations(), min_size=1, max_size=6))
def test_eval_writes_every_record_among_mutated_ones(
        drawn: list[tuple[str, Where, Any]]) -> None:
    records = [(name, mutated(name, path, value)) for name, path, value in [*drawn, *REPORTED]]
    records += [(name, case(name)[0]) for name in FORMATS]  # and good ones
    random.Random(len(drawn)).shuffle(records)
    expected = [outcome(answer, case(name)[1]) for name, answer in records]
    with tempfile.TemporaryDirectory() as folder:
        dataset, results = Path(folder) / "data.jsonl", Path(folder) / "results.jsonl"
        dataset.write_text("".join(json.dumps(_record(at, name, answer)) + "\n"
                                   for at, (name, answer) in enumerate(records)))
        out, err = io.StringIO(), io.StringIO()
        code = main(["eval", str(dataset), "-o", str(results), "-j", "1", "--format", "json"],
                    stdout=out, stderr=err)
        lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["id"] for line in lines] == [f"r{at}" for at in range(len(records))]
    for line, found in zip(lines, expected, strict=True):
        if found.status == "input error":
            assert line["status"] == "unreadable"
        else:
            assert (line["status"], line["audit_passed"]) == (found.status, found.passed)
    unreadable = any(found.status == "input error" for found in expected)
    gates = all(gate["holds"] for gate in json.loads(out.getvalue())["gates"])
    assert code == (ExitCode.INPUT_ERROR if unreadable else
                    ExitCode.OK if gates else ExitCode.FAILED), err.getvalue()


@pytest.fixture(scope="module")
def service() -> Iterator[TestClient]:
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        yield client


@settings(SETTINGS, max_examples=examples(120))
@given(mutation=mutations())
def test_the_service_answers_what_the_audit_gives_and_never_500(
        service: TestClient, mutation: tuple[str, Where, Any]) -> None:
    found = assert_holds(*mutation)
    name = mutation[0]
    answered = service.post("/v1/audit", json={"answer": mutated(*mutation),
                                               "sources": case(name)[1]})
    if found.status == "input error":
        assert answered.status_code == 422, answered.text
        assert answered.json()["error"].startswith("body: $.")
    else:
        assert answered.status_code == 200, answered.text
        assert (answered.json()["passed"], answered.json()["status"]) == (found.passed,
                                                                           found.status)


def test_broken_sources_in_a_response_are_named_in_its_file_not_the_requests(
        tmp_path: Path, run: Any) -> None:
    answer = mutated("openai-responses", (*SEARCH, "text"), 5)
    request, response = _files(tmp_path, "openai-responses", answer)
    result = run("check", request, response)
    assert (result.code, result.out) == (ExitCode.INPUT_ERROR, "")
    assert result.err == (f"citeaudit: error: {response}: $.output[0].results[0].text: a file"
                          " search result needs a string \"text\", not a number\n")


def test_one_broken_response_among_a_thousand_records_is_one_result(tmp_path: Path,
                                                                    run: Any) -> None:
    records = [_record(at, "anthropic", case("anthropic")[0]) for at in range(1000)]
    records[500] = _record(500, *REPORTED[0][:1], mutated(*REPORTED[0]))  # type: []
    records[700] = _record(700, "bedrock", mutated(*REPORTED[-1]))  # its sources broken
    dataset, results = tmp_path / "data.jsonl", tmp_path / "results.jsonl"
    dataset.write_text("".join(json.dumps(record) + "\n" for record in records))
    first = run("eval", str(dataset), "-o", str(results), "-j", "1")
    assert first.code == ExitCode.INPUT_ERROR  # a record could not be read: the others were
    assert first.err.startswith(f"citeaudit: error: {dataset}: line 701:"
                                " $.citations[0].retrievedReferences[0].content.text: ")
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["id"] for line in lines] == [f"r{at}" for at in range(1000)]
    assert [(at, line["status"]) for at, line in enumerate(lines) if line["status"] != "ok"] \
        == [(500, "unverified"), (700, "unreadable")]
    assert [(f["code"], f["path"]) for f in lines[500]["findings"]] == [
        ("CA404", "$.content[1].citations[0].type")]
    again = run("eval", str(dataset), "-o", str(results), "-j", "1", "--resume")
    assert again.code == ExitCode.INPUT_ERROR
    assert [json.loads(line) for line in results.read_text().splitlines()] == lines


WEB = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
    {"type": "web_search_result", "url": "https://news.example/grass", "title": "Grass",
     "encrypted_content": "enc"}]}
WEB_CITED = {"type": "text", "text": "The grass is green.", "citations": [
    {"type": "web_search_result_location", "url": "https://news.example/grass",
     "cited_text": "green", "encrypted_index": "e", "title": "Grass"}]}
CONVERSATION = {"object": "conversation.response", "conversation_id": "c1", "outputs": [
    {"type": "message.output", "role": "assistant", "content": [
        {"type": "text", "text": "Refunds are paid within 14 days."},
        {"type": "tool_reference", "tool": "web_search", "title": "Refunds",
         "url": "https://news.example/refunds"}]}]}


@pytest.mark.parametrize(("answer", "request_", "path"), [
    ({"type": "message", "role": "assistant", "content": [
        {**WEB, "content": [{**WEB["content"][0], "url": 5}]}, WEB_CITED]}, {"messages": []},
     "$.content[0].content[0].url"),
    ({"type": "message", "role": "assistant", "content": [
        {**WEB, "content": ["https://news.example/grass"]}, WEB_CITED]}, {"messages": []},
     "$.content[0].content[0]"),
    (marked_cases.perplexity("Refunds take 14 days [1].", citations=["https://a.example/r"])
     | {"citations": [{"url": "https://a.example/r"}]}, None, "$.citations[0]"),
])
def test_broken_search_results_a_response_carries_are_an_input_error(
        answer: dict[str, Any], request_: Any, path: str) -> None:
    with pytest.raises(citeaudit.SnapshotError) as raised:
        citeaudit.audit(answer, request_)
    assert raised.value.place == path


def test_a_failed_web_search_is_no_broken_source() -> None:
    failed = {**WEB, "content": {"type": "web_search_tool_result_error",
                                 "error_code": "unavailable"}}
    text = {"type": "text", "text": "The grass is green."}
    report = citeaudit.audit({"type": "message", "role": "assistant",
                              "content": [failed, text]}, {"messages": []})
    assert "CA301" in [f.code for f in report.findings]  # read, and uncited
    assert "CA404" not in [f.code for f in report.findings]


@pytest.mark.parametrize(("edit", "path"), [
    (put("outputs", 0, "content", 1, "url", 5), "$.outputs[0].content[1].url"),
    (put("outputs", 0, "content", 1, 5), "$.outputs[0].content[1]"),
    (put("outputs", 0, "type", []), "$.outputs[0].type"),
    (put("outputs", []), "$.outputs"),
    (put("outputs", 0, "content", ""), "$.outputs"),
])
def test_a_broken_mistral_conversation_is_a_ca404(edit: Edit, path: str) -> None:
    answer = copy.deepcopy(CONVERSATION)
    assert citeaudit.audit(answer, None).passed  # the control
    edit(answer)
    report = citeaudit.audit(answer, None)
    assert report.shape == "mistral"
    assert ("CA404", path) in [(f.code, f.path) for f in report.findings], report.findings
    assert not report.passed
