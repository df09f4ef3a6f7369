"""Rebuild the provider examples in this folder through each provider's own SDK types (the
test extra installs them): ``python3 examples/providers/build.py``.

Each example is one realistic call of a support assistant over a shop's policies, with one
mistake of the kind that provider's citations make possible, so ``citeaudit check`` on it
shows a finding (the README shows each command and its output; a test runs them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
REFUNDS = "Refunds are issued within 14 days of receiving the returned item."
SHIPPING = "Express shipping takes 1 business day."
CREDIT = "Store credit never expires."


def plain(value: Any) -> Any:
    """SDK objects (wherever they sit in lists and dicts) as their JSON."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def write(folder: str, **files: Any) -> None:
    (HERE / folder).mkdir(exist_ok=True)
    for name, value in files.items():
        text = json.dumps(plain(value), indent=2, ensure_ascii=False)
        (HERE / folder / f"{name}.json").write_text(text + "\n")


def openai_responses() -> None:
    from openai.types.responses import (
        Response,
        ResponseFileSearchToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
    from openai.types.responses.response_file_search_tool_call import Result
    from openai.types.responses.response_output_text import AnnotationFileCitation

    text = (f"{REFUNDS} Returns of opened items are refused after 30 days.")
    cite = [AnnotationFileCitation(type="file_citation", file_id="file-refunds",
                                   filename="refunds.md", index=len(REFUNDS)),
            AnnotationFileCitation(type="file_citation", file_id="file-returns",
                                   filename="returns.md", index=len(text))]
    write("openai-responses", response=Response(
        id="resp_01", created_at=1764547200, model="gpt-5", object="response",
        parallel_tool_calls=True, tool_choice="auto", tools=[], output=[
            ResponseFileSearchToolCall(
                id="fs_01", queries=["refund time", "opened items"], status="completed",
                type="file_search_call", results=[
                    Result(file_id="file-refunds", filename="refunds.md", score=0.93,
                           text=f"{REFUNDS} Items must be returned in their original"
                                " packaging."),
                    Result(file_id="file-shipping", filename="shipping.md", score=0.41,
                           text=SHIPPING)]),
            ResponseOutputMessage(id="msg_01", role="assistant", status="completed",
                                  type="message", content=[ResponseOutputText(
                                      type="output_text", text=text, annotations=cite)])]))


def openai_chat() -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionMessage
    from openai.types.chat.chat_completion import Choice
    from openai.types.chat.chat_completion_message import Annotation, AnnotationURLCitation

    text = ("Express shipping takes 1 business day ([shop.example](https://shop.example/"
            "shipping?utm_source=openai)). Standard shipping is free over 50 euros"
            " ([deals.example](https://deals.example/free-shipping?utm_source=openai)).")

    def url(link: str) -> Annotation:
        start = text.index(f"([{link.split('/')[2]}")
        return Annotation(type="url_citation", url_citation=AnnotationURLCitation(
            start_index=start, end_index=text.index(")", start + 2) + 2, title=link,
            url=f"{link}?utm_source=openai"))

    write("openai-chat", sources=[
        {"id": "shipping", "text": SHIPPING, "url": "https://shop.example/shipping"},
        {"id": "refunds", "text": REFUNDS, "url": "https://shop.example/refunds"}],
        response=ChatCompletion(
            id="chatcmpl-01", created=1764547200, model="gpt-5-search-api",
            object="chat.completion", choices=[Choice(
                index=0, finish_reason="stop", message=ChatCompletionMessage(
                    role="assistant", content=text,
                    annotations=[url("https://shop.example/shipping"),
                                 url("https://deals.example/free-shipping")]))]))


def openai_assistants() -> None:
    from openai.types.beta.threads import FileCitationAnnotation, Message, Text, TextContentBlock
    from openai.types.beta.threads.file_citation_annotation import FileCitation
    from openai.types.beta.threads.runs import (
        FileSearchToolCall,
        RunStep,
        ToolCallsStepDetails,
    )
    from openai.types.beta.threads.runs.file_search_tool_call import (
        FileSearch,
        FileSearchResult,
        FileSearchResultContent,
    )

    first, second = "【4:0†refunds.md】", "【4:1†shipping.md】"
    value = f"{REFUNDS[:-1]}{first}. {SHIPPING[:-1]}{second}."
    start = value.index(first)
    note = FileCitationAnnotation(type="file_citation", text=first, start_index=start,
                                  end_index=start + len(first),
                                  file_citation=FileCitation(file_id="file-refunds"))
    results = [FileSearchResult(file_id=f, file_name=n, score=s, content=[
        FileSearchResultContent(type="text", text=t)]) for f, n, s, t in (
        ("file-refunds", "refunds.md", 0.92, REFUNDS),
        ("file-shipping", "shipping.md", 0.77, SHIPPING))]
    write("openai-assistants", steps=[RunStep(
        id="step_01", object="thread.run.step", assistant_id="asst_01", created_at=1764547200,
        run_id="run_01", status="completed", thread_id="thread_01", type="tool_calls",
        step_details=ToolCallsStepDetails(type="tool_calls", tool_calls=[FileSearchToolCall(
            id="call_01", type="file_search", file_search=FileSearch(results=results))]))],
        message=Message(id="msg_01", object="thread.message", created_at=1764547200,
                        thread_id="thread_01", role="assistant", status="completed",
                        assistant_id="asst_01", run_id="run_01", content=[TextContentBlock(
                            type="text", text=Text(value=value, annotations=[note]))]))


def cohere() -> None:
    from cohere import Document
    from cohere.types import (
        AssistantMessageResponse,
        Citation,
        DocumentSource,
        TextAssistantMessageResponseContentItem,
        UserChatMessageV2,
    )
    from cohere.v2.types.v2chat_response import V2ChatResponse

    text = "Refunds are issued within 14 days. Express shipping takes 1 business day."
    request = {"model": "command-a-03-2025", "messages": [UserChatMessageV2(
        content="How fast are refunds and express shipping?").model_dump(mode="json")],
        "documents": [Document(data={"title": "Refund policy", "snippet": REFUNDS})
                      .model_dump(mode="json", exclude_none=True),
                      Document(data={"title": "Shipping times", "snippet": SHIPPING})
                      .model_dump(mode="json", exclude_none=True)]}
    write("cohere", request=request, response=V2ChatResponse(
        id="c-01", finish_reason="COMPLETE", message=AssistantMessageResponse(
            content=[TextAssistantMessageResponseContentItem(text=text)], citations=[
                Citation(start=26, end=33, text="14 days", type="TEXT_CONTENT",
                         sources=[DocumentSource(id="doc:0")]),
                # One character early: the span holds " 1 business da".
                Citation(start=57, end=71, text="1 business day", type="TEXT_CONTENT",
                         sources=[DocumentSource(id="doc:1")])])))


def gemini() -> None:
    from google.genai.types import (
        Candidate,
        Content,
        GenerateContentResponse,
        GroundingChunk,
        GroundingChunkWeb,
        GroundingMetadata,
        GroundingSupport,
        Part,
        Segment,
    )

    intro = "Great question — here is the café’s policy. "
    first = "Refunds are issued within 14 days."
    second = " Express shipping takes 1 business day."
    text = intro + first + second
    start = len(intro.encode())
    chunks = [GroundingChunk(web=GroundingChunkWeb(uri="https://shop.example/refunds",
                                                   title="Refund policy")),
              GroundingChunk(web=GroundingChunkWeb(uri="https://shop.example/shipping",
                                                   title="Shipping times"))]
    supports = [GroundingSupport(segment=Segment(start_index=start,
                                                 end_index=start + len(first.encode()),
                                                 text=first), grounding_chunk_indices=[0]),
                # Offsets counted in characters, not bytes: 3 bytes too early.
                GroundingSupport(segment=Segment(
                    start_index=len(intro + first) + 1,
                    end_index=len(intro + first) + len(second), text=second.strip()),
                    grounding_chunk_indices=[1])]
    write("gemini", response=GenerateContentResponse(candidates=[Candidate(
        content=Content(role="model", parts=[Part(text=text)]),
        grounding_metadata=GroundingMetadata(grounding_chunks=chunks,
                                             grounding_supports=supports))]))


def bedrock() -> None:
    text = f"{REFUNDS} {SHIPPING}"
    second = len(REFUNDS) + 1

    def reference(body: str, key: str) -> dict[str, Any]:
        uri = f"s3://shop-kb/{key}.md"
        return {"content": {"type": "TEXT", "text": body},
                "location": {"type": "S3", "s3Location": {"uri": uri}},
                "metadata": {"x-amz-bedrock-kb-source-uri": uri,
                             "x-amz-bedrock-kb-chunk-id": f"1%3A0%3A{key}",
                             "x-amz-bedrock-kb-data-source-id": "SHOPDOCS01"}}

    write("bedrock", response={
        "sessionId": "4f6e1b2a-0c1d-4e5f-8a9b-0c1d2e3f4a5b", "output": {"text": text},
        "citations": [
            {"generatedResponsePart": {"textResponsePart": {
                "span": {"start": 0, "end": len(REFUNDS) - 1}, "text": REFUNDS}},
             "retrievedReferences": [reference(REFUNDS, "refunds")]},
            # The end read as exclusive: one past the last character of the answer.
            {"generatedResponsePart": {"textResponsePart": {
                "span": {"start": second, "end": len(text)}, "text": SHIPPING}},
             "retrievedReferences": [reference(SHIPPING, "shipping")]}]})


def azure() -> None:
    write("azure-on-your-data", response={
        "id": "chatcmpl-01", "object": "chat.completion", "created": 1764547200,
        "model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": "Refunds are issued within 14 days [doc1]. Express shipping takes 1"
                       " business day [doc3].",
            "context": {"intent": "[\"refund time\", \"express shipping\"]", "citations": [
                {"content": REFUNDS, "title": "Refund policy", "url": None,
                 "filepath": "refunds.md", "chunk_id": "0"},
                {"content": SHIPPING, "title": "Shipping times", "url": None,
                 "filepath": "shipping.md", "chunk_id": "0"}]}}}]})


def perplexity() -> None:
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate({
        "id": "pplx-01", "model": "sonar", "object": "chat.completion", "created": 1764547200,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": "Refunds are issued within 14 days [1]. Express"
            " shipping takes 1 business day [2], and store credit never expires [4]."}}]})
    data = completion.model_dump(mode="json", exclude_none=True)
    data["search_results"] = [
        {"title": "Refund policy", "url": "https://shop.example/refunds",
         "date": "2026-10-01", "snippet": REFUNDS},
        {"title": "Shipping times", "url": "https://shop.example/shipping",
         "date": "2026-09-12", "snippet": SHIPPING},
        {"title": "Store credit", "url": "https://shop.example/credit", "snippet": CREDIT}]
    write("perplexity", response=data)


def mistral() -> None:
    from mistralai.client.models import (
        AssistantMessage,
        ChatCompletionChoice,
        ChatCompletionResponse,
        ReferenceChunk,
        TextChunk,
        ToolMessage,
        UsageInfo,
        UserMessage,
    )

    results = {"0": {"url": "https://shop.example/refunds", "title": "Refund policy",
                     "snippets": [[REFUNDS]], "source": "shop-kb"},
               "1": {"url": "https://shop.example/shipping", "title": "Shipping times",
                     "snippets": [[SHIPPING]], "source": "shop-kb"}}
    request = {"model": "mistral-large-latest", "messages": [
        UserMessage(content="How fast are refunds and express shipping?")
        .model_dump(mode="json"),
        ToolMessage(content=json.dumps(results), tool_call_id="call_01", name="search_kb")
        .model_dump(mode="json")]}
    write("mistral", request=request, response=ChatCompletionResponse(
        id="cmpl-01", object="chat.completion", model="mistral-large-latest",
        created=1764547200, usage=UsageInfo(prompt_tokens=412, completion_tokens=31,
                                            total_tokens=443),
        choices=[ChatCompletionChoice(index=0, finish_reason="stop", message=AssistantMessage(
            content=[TextChunk(text="Refunds are issued within 14 days"),
                     ReferenceChunk(reference_ids=[0]),
                     TextChunk(text=". Express shipping takes 1 business day"),
                     ReferenceChunk(reference_ids=[2]), TextChunk(text=".")]))]))


def gemini_interactions() -> None:
    from google.genai.interactions import (
        Interaction,
        ModelOutputStep,
        TextContent,
        URLCitation,
        URLContextResult,
        URLContextResultStep,
    )

    # Offsets count UTF-8 bytes: the "’" before the first claim is three bytes, one character.
    lead = "Here’s the policy. "
    text = f"{lead}{REFUNDS} {SHIPPING}"

    def cite(url: str, claim: str) -> URLCitation:
        start = len(text[:text.index(claim)].encode())
        return URLCitation(url=url, title="Shop policy", start_index=start,
                           end_index=start + len(claim.encode()))

    write("gemini-interactions", response=Interaction(
        id="int_01", status="completed", model="gemini-3-pro", steps=[
            URLContextResultStep(call_id="u1", result=[
                URLContextResult(url="https://shop.example/refunds", status="success")]),
            ModelOutputStep(content=[TextContent(text=text, annotations=[
                cite("https://shop.example/refunds", REFUNDS),
                cite("https://shop.example/shipping", SHIPPING)])])]))


def bedrock_converse() -> None:
    policies = {"document": {"format": "txt", "name": "policies", "citations": {"enabled": True},
                             "source": {"text": f"{REFUNDS} {SHIPPING}"}}}
    request = {"modelId": "anthropic.claude-sonnet-4-5", "messages": [{"role": "user", "content": [
        policies, {"text": "How fast are refunds and express shipping?"}]}]}
    start = len(REFUNDS) + 1

    def cited(text: str, begin: int, quoted: str) -> dict[str, Any]:
        return {"citationsContent": {"content": [{"text": text}], "citations": [{
            "title": "policies", "sourceContent": [{"text": quoted}], "location": {
                "documentChar": {"documentIndex": 0, "start": begin,
                                 "end": begin + len(quoted)}}}]}}

    write("bedrock-converse", request=request, response={
        "output": {"message": {"role": "assistant", "content": [
            cited(REFUNDS, 0, REFUNDS), {"text": " "},
            cited(SHIPPING.replace("1", "2"), start, SHIPPING.replace("1", "2"))]}},
        "stopReason": "end_turn", "metrics": {"latencyMs": 1840},
        "usage": {"inputTokens": 388, "outputTokens": 41, "totalTokens": 429}})


def xai() -> None:
    # The xai-sdk's responses are protobuf messages: this is their JSON (MessageToDict).
    refunds, shipping = "https://shop.example/refunds", "https://shop.example/shipping"
    text = f"{REFUNDS[:-1]} [[1]]({refunds}). {SHIPPING[:-1]} [[2]]({shipping})."
    first = text.index("[[1]]")
    second = text.index(SHIPPING[:-1])  # the claim's place, where the marker's belongs
    write("xai", response={
        "id": "resp_01", "model": "grok-4", "citations": [refunds, shipping], "outputs": [{
            "index": 0, "finishReason": "REASON_STOP", "message": {
                "role": "ROLE_ASSISTANT", "content": text, "citations": [
                    {"id": "1", "startIndex": first,
                     "endIndex": first + len(f"[[1]]({refunds})"),
                     "webCitation": {"url": refunds}},
                    {"id": "2", "startIndex": second, "endIndex": second + len(SHIPPING) - 1,
                     "webCitation": {"url": shipping}}]}}]})


def perplexity_responses() -> None:
    from perplexity.types.annotation import Annotation
    from perplexity.types.content_part import ContentPart
    from perplexity.types.output_item import MessageOutputItem, SearchResultsOutputItem
    from perplexity.types.response_create_response import ResponseCreateResponse
    from perplexity.types.shared.search_result import SearchResult

    text = f"{REFUNDS} {SHIPPING}"

    def cite(url: str, claim: str) -> Annotation:
        return Annotation(type="url_citation", url=url, title="Shop policy",
                          start_index=text.index(claim),
                          end_index=text.index(claim) + len(claim))

    write("perplexity-responses", response=ResponseCreateResponse(
        id="resp_01", created_at=1764547200, model="sonar-pro", object="response",
        status="completed", output=[
            SearchResultsOutputItem(type="search_results", queries=["shop refunds"], results=[
                SearchResult(id=1, title="Refund policy", url="https://shop.example/refunds",
                             snippet=REFUNDS, source="web")]),
            MessageOutputItem(id="msg_01", type="message", role="assistant",
                              status="completed", content=[ContentPart(
                                  type="output_text", text=text, annotations=[
                                      cite("https://shop.example/refunds", REFUNDS),
                                      cite("https://deals.example/shipping", SHIPPING)])])]))


if __name__ == "__main__":
    for build in (openai_responses, openai_chat, openai_assistants, cohere, gemini, bedrock,
                  azure, perplexity, mistral, gemini_interactions, bedrock_converse, xai,
                  perplexity_responses):
        build()
