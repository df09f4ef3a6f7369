"""Providers' streamed events, built through the SDKs' own event types, audited live
(:class:`citeaudit.EventStream`) and from a recorded JSONL file: the text displayed and the
final report equal the audit of the response the stream assembles into (assembled by the
SDK's own accumulator where it has one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import (
    CitationsDelta,
    Message,
    MessageDeltaUsage,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStopEvent,
    TextBlock,
    TextDelta,
)
from anthropic.types.raw_message_delta_event import Delta
from cohere.types import (
    ChatContentDeltaEventDelta,
    ChatContentDeltaEventDeltaMessage,
    ChatContentDeltaEventDeltaMessageContent,
    ChatContentStartEventDelta,
    ChatContentStartEventDeltaMessage,
    ChatContentStartEventDeltaMessageContent,
    ChatMessageEndEventDelta,
    ChatMessageStartEventDelta,
    ChatMessageStartEventDeltaMessage,
    CitationStartEventDelta,
    CitationStartEventDeltaMessage,
)
from cohere.v2.types import (
    CitationEndV2ChatStreamResponse,
    CitationStartV2ChatStreamResponse,
    ContentDeltaV2ChatStreamResponse,
    ContentEndV2ChatStreamResponse,
    ContentStartV2ChatStreamResponse,
    MessageEndV2ChatStreamResponse,
    MessageStartV2ChatStreamResponse,
)
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseCreatedEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseOutputTextAnnotationAddedEvent,
    ResponseTextDeltaEvent,
)

import citeaudit
import test_anthropic as anthropic_cases
import test_cohere as cohere_cases
import test_openai as openai_cases


def halves(text: str) -> list[str]:
    return [text[:len(text) // 2], text[len(text) // 2:]] if text else []


def anthropic_events(message: Message) -> list[Any]:
    start = message.model_copy(update={"content": [], "stop_reason": None})
    events: list[Any] = [RawMessageStartEvent(type="message_start", message=start)]
    for index, block in enumerate(message.content):
        assert isinstance(block, TextBlock)
        events.append(RawContentBlockStartEvent(
            type="content_block_start", index=index,
            content_block=TextBlock(type="text", text="", citations=None)))
        events += [RawContentBlockDeltaEvent(type="content_block_delta", index=index,
                                             delta=CitationsDelta(type="citations_delta",
                                                                  citation=citation))
                   for citation in block.citations or ()]
        events += [RawContentBlockDeltaEvent(type="content_block_delta", index=index,
                                             delta=TextDelta(type="text_delta", text=piece))
                   for piece in halves(block.text)]
        events.append(RawContentBlockStopEvent(type="content_block_stop", index=index))
    events += [RawMessageDeltaEvent(type="message_delta", delta=Delta(stop_reason="end_turn"),
                                    usage=MessageDeltaUsage(output_tokens=10)),
               RawMessageStopEvent(type="message_stop")]
    return events


def sdk_assembled(events: list[Any]) -> Any:
    snapshot = None
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs={})
    return snapshot


def openai_events(final: Response, completed: bool) -> list[Any]:
    events: list[Any] = [ResponseCreatedEvent(
        type="response.created", sequence_number=0,
        response=final.model_copy(update={"output": [], "status": "in_progress"}))]
    for at, item in enumerate(final.output):
        if not isinstance(item, ResponseOutputMessage):
            events.append(ResponseOutputItemAddedEvent(type="response.output_item.added",
                                                       output_index=at, item=item,
                                                       sequence_number=len(events)))
            continue
        events.append(ResponseOutputItemAddedEvent(
            type="response.output_item.added", output_index=at, sequence_number=len(events),
            item=item.model_copy(update={"content": [], "status": "in_progress"})))
        for index, part in enumerate(item.content):
            assert isinstance(part, ResponseOutputText)
            events.append(ResponseContentPartAddedEvent(
                type="response.content_part.added", item_id=item.id, output_index=at,
                content_index=index, sequence_number=len(events),
                part=ResponseOutputText(type="output_text", text="", annotations=[])))
            events += [ResponseTextDeltaEvent(
                type="response.output_text.delta", item_id=item.id, output_index=at,
                content_index=index, delta=piece, logprobs=[], sequence_number=len(events) + n)
                for n, piece in enumerate(halves(part.text))]
            events += [ResponseOutputTextAnnotationAddedEvent(
                type="response.output_text.annotation.added", item_id=item.id,
                output_index=at, content_index=index, annotation_index=n,
                annotation=note.model_dump(mode="json"), sequence_number=len(events) + n)
                for n, note in enumerate(part.annotations)]
        events.append(ResponseOutputItemDoneEvent(type="response.output_item.done",
                                                  output_index=at, item=item,
                                                  sequence_number=len(events)))
    if completed:
        events.append(ResponseCompletedEvent(type="response.completed", response=final,
                                             sequence_number=len(events)))
    return events


def cohere_events(final: Any) -> list[Any]:
    text = final.message.content[0].text
    events: list[Any] = [
        MessageStartV2ChatStreamResponse(id=final.id, delta=ChatMessageStartEventDelta(
            message=ChatMessageStartEventDeltaMessage(role="assistant"))),
        ContentStartV2ChatStreamResponse(index=0, delta=ChatContentStartEventDelta(
            message=ChatContentStartEventDeltaMessage(
                content=ChatContentStartEventDeltaMessageContent(type="text", text=""))))]
    events += [ContentDeltaV2ChatStreamResponse(index=0, delta=ChatContentDeltaEventDelta(
        message=ChatContentDeltaEventDeltaMessage(
            content=ChatContentDeltaEventDeltaMessageContent(text=piece))))
        for piece in halves(text)]
    for index, citation in enumerate(final.message.citations):
        events += [CitationStartV2ChatStreamResponse(index=index, delta=CitationStartEventDelta(
            message=CitationStartEventDeltaMessage(citations=citation))),
            CitationEndV2ChatStreamResponse(index=index)]
    events += [ContentEndV2ChatStreamResponse(index=0), MessageEndV2ChatStreamResponse(
        delta=ChatMessageEndEventDelta(finish_reason="COMPLETE"))]
    return events


def live(events: list[Any], request: Any) -> tuple[str, citeaudit.Report, citeaudit.EventStream]:
    stream = citeaudit.EventStream(request)
    shown = "".join(stream.feed(event) for event in events)
    return shown, stream.finish(), stream


BROKEN_ANTHROPIC = anthropic_cases.message_with(
    anthropic_cases.char(1, 20, "The grass is green."))


@pytest.mark.parametrize("message", [anthropic_cases.CLEAN, BROKEN_ANTHROPIC],
                         ids=["clean", "broken"])
def test_anthropic_events_audit_as_the_sdk_assembles_them(message: Message) -> None:
    events = anthropic_events(message)
    shown, report, stream = live(events, anthropic_cases.REQUEST)
    assembled = sdk_assembled(events)
    expected = citeaudit.audit(assembled, anthropic_cases.REQUEST)
    assert report.to_dict() == expected.to_dict()
    assert report.to_dict() == citeaudit.audit(message, anthropic_cases.REQUEST).to_dict()
    assert shown == stream.text == "".join(b.text for b in message.content)


@pytest.mark.parametrize("completed", [True, False])
@pytest.mark.parametrize("annotations", ["clean", "outside"])
def test_openai_events_audit_as_the_final_response(completed: bool, annotations: str) -> None:
    notes = [openai_cases.FILE, openai_cases.URL]
    if annotations == "outside":
        notes.append(openai_cases.URL.model_copy(update={"end_index": 999}))
    final = openai_cases.response(*notes)
    shown, report, _ = live(openai_events(final, completed), openai_cases.SOURCES)
    assert report.to_dict() == citeaudit.audit(final, openai_cases.SOURCES).to_dict()
    assert shown == openai_cases.TEXT
    assert report.passed is (annotations == "clean")


def test_cohere_events_audit_as_the_response() -> None:
    for final in (cohere_cases.CLEAN, cohere_cases.response(
            cohere_cases.cite(cohere_cases.TALLEST, "doc:0"),
            cohere_cases.cite(cohere_cases.HOME, "doc:7"))):
        shown, report, stream = live(cohere_events(final), cohere_cases.REQUEST)
        assert report.to_dict() == citeaudit.audit(final, cohere_cases.REQUEST).to_dict()
        assert shown == cohere_cases.TEXT
        assert stream.response["message"]["content"] == [{"type": "text",
                                                          "text": cohere_cases.TEXT}]


def test_a_recorded_stream_is_checked_from_jsonl(tmp_path: Path, run: Any) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps(anthropic_cases.REQUEST))
    recorded = tmp_path / "events.jsonl"
    recorded.write_text("".join(e.model_dump_json() + "\n"
                                for e in anthropic_events(BROKEN_ANTHROPIC)))
    whole = tmp_path / "response.json"
    whole.write_text(BROKEN_ANTHROPIC.model_dump_json())
    streamed = run("check", str(request), str(recorded), "--format", "json")
    assert streamed.code == 1
    expected = run("check", str(request), str(whole), "--format", "json")
    assert json.loads(streamed.out) == json.loads(expected.out.replace(str(whole),
                                                                       str(recorded)))


@pytest.mark.parametrize(("lines", "place", "reason"), [
    (['{"type": "message_start", "message": {}}', '{"type": '], "line 2, column 10",
     "invalid JSON"),
    (['{"type": "message_start", "message": {}}', '{"type": "response.created"}'], "line 2",
     "'response.created' is not an event of the anthropic stream"),
    (['{"type": "content_block_delta"}'], "line 1",
     "a stream must start with message_start, response.created, message-start,"
     " interaction.created, not 'content_block_delta'"),
    (["", "  "], None, "the stream holds no event"),
])
def test_a_broken_recorded_stream_is_one_input_error(tmp_path: Path, run: Any,
                                                     lines: list[str], place: str | None,
                                                     reason: str) -> None:
    recorded = tmp_path / "events.jsonl"
    recorded.write_text("\n".join(lines) + "\n")
    result = run("check", str(recorded))
    assert result.code == 2
    where = f"{recorded}: {place}" if place else str(recorded)
    assert result.err.startswith(f"citeaudit: error: {where}: {reason}")
    assert result.err.count("\n") == 1
