"""Provider responses (every provider format's shape) with fields broken at random never
crash the audit: each gives findings, or an input error (exit 2 on the command line), never
another exception.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import citeaudit
import test_anthropic as anthropic_cases
import test_bedrock as bedrock_cases
import test_cohere as cohere_cases
import test_gemini as gemini_cases
import test_marked_providers as marked_cases
import test_mistral as mistral_cases
import test_openai as openai_cases
import test_openai_assistants as assistants_cases

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
           "mistral", "openai-assistants", "perplexity", "azure-on-your-data")
Path = tuple[str | int, ...]
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


def owner_of(data: Any, path: Path) -> Any:
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
