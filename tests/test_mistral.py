"""Mistral chat completions with ``reference`` chunks, built through the ``mistralai`` SDK's
own types, audited against the numbered references their request's tool results returned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mistralai.client.models import (
    AssistantMessage,
    ChatCompletionChoice,
    ChatCompletionResponse,
    ConversationResponse,
    ConversationUsageInfo,
    MessageOutputEntry,
    ReferenceChunk,
    TextChunk,
    ToolMessage,
    ToolReferenceChunk,
    UsageInfo,
    UserMessage,
)

import citeaudit

# What Mistral's citation guide has a retrieval tool return: references keyed "0", "1", ...
RESULTS = {
    "0": {"url": "https://kb.example/refunds", "title": "Refunds", "source": "kb",
          "snippets": [["Refunds are paid within 14 days."], ["Approval comes first."]],
          "description": None, "date": "2026-01-01"},
    "1": {"url": "https://kb.example/fees", "title": "Fees", "source": "kb",
          "snippets": ["Cards abroad cost 2 euros per withdrawal."]},
}
REQUEST: dict[str, Any] = {"model": "mistral-large-latest", "messages": [
    UserMessage(content="How long do refunds take, and what do cards cost abroad?")
    .model_dump(mode="json"),
    ToolMessage(content=json.dumps(RESULTS), tool_call_id="call_1", name="search")
    .model_dump(mode="json"),
]}


def response(*chunks: Any) -> ChatCompletionResponse:
    return ChatCompletionResponse(
        id="cmpl-1", object="chat.completion", model="mistral-large-latest", created=1,
        usage=UsageInfo(prompt_tokens=10, completion_tokens=10, total_tokens=20),
        choices=[ChatCompletionChoice(index=0, finish_reason="stop",
                                      message=AssistantMessage(content=list(chunks)))])


CLEAN = response(TextChunk(text="Refunds are paid within 14 days"),
                 ReferenceChunk(reference_ids=[0]),
                 TextChunk(text=". Cards abroad cost 2 euros per withdrawal"),
                 ReferenceChunk(reference_ids=["1", 0]),
                 TextChunk(text="."))


def found(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


@pytest.mark.parametrize("shape", ["sdk", "json"])
def test_a_clean_response_passes_as_the_sdk_object_and_as_json(shape: str) -> None:
    answer = CLEAN if shape == "sdk" else CLEAN.model_dump(mode="json")
    report = citeaudit.audit(answer, REQUEST)
    assert (report.shape, report.status, found(report)) == ("mistral", "ok", [])
    assert [(s.id, s.url, s.text) for s in report.snapshot] == [
        ("0", "https://kb.example/refunds",
         "Refunds are paid within 14 days.\nApproval comes first."),
        ("1", "https://kb.example/fees", "Cards abroad cost 2 euros per withdrawal.")]
    cited = citeaudit.core.prepare(answer, REQUEST).answer.citations
    assert [(c.source_id, c.claim) for c in cited] == [("0", 1), ("1", 2), ("0", 2)]
    assert report.metrics.claim_coverage == 1.0


def test_an_id_the_tool_did_not_return_is_ca201() -> None:
    answer = response(TextChunk(text="Refunds are paid within 14 days."),
                      ReferenceChunk(reference_ids=[7]))
    report = citeaudit.audit(answer, REQUEST)
    assert [(f.code, f.path, f.message) for f in report.findings] == [
        ("CA201", "$.choices[0].message.content[1].reference_ids[0]",
         "'7' is not in this request's snapshot")]


def test_text_a_reference_does_not_follow_follows_the_claim_policy() -> None:
    answer = response(TextChunk(text="Good question! Refunds are paid within 14 days."),
                      TextChunk(text=" Cards abroad cost 2 euros per withdrawal."),
                      ReferenceChunk(reference_ids=[1]))
    report = citeaudit.audit(answer, REQUEST)
    assert found(report) == [("CA302", None)]
    assert report.findings[0].claim == 1


def test_a_reference_before_any_text_and_a_broken_one_are_reported() -> None:
    data = response(ReferenceChunk(reference_ids=[0]),
                    TextChunk(text="Refunds are paid within 14 days.")).model_dump(mode="json")
    report = citeaudit.audit(data, REQUEST)
    assert ("CA206", "$.choices[0].message.content[0]") in found(report)
    data["choices"][0]["message"]["content"][0]["reference_ids"] = [None]
    report = citeaudit.audit(data, REQUEST)
    assert ("CA404", "$.choices[0].message.content[0].reference_ids[0]") in found(report)


def test_an_agents_conversation_cites_by_url_and_needs_no_request() -> None:
    answer = ConversationResponse(conversation_id="c1", usage=ConversationUsageInfo(), outputs=[
        MessageOutputEntry(content=[
            TextChunk(text="Refunds are paid within 14 days."),
            ToolReferenceChunk(tool="web_search", title="Refunds",
                               url="https://news.example/refunds"),
            TextChunk(text=" Cards abroad cost 2 euros per withdrawal.")])])
    for shape in (answer, answer.model_dump(mode="json")):
        report = citeaudit.audit(shape, None)
        assert report.shape == "mistral"
        assert [(f.code, f.claim) for f in report.findings] == [("CA302", 2)]
        assert [s.id for s in report.snapshot] == ["https://news.example/refunds"]


@pytest.mark.parametrize(("written", "kept"), [
    ('{"0": {"url": "https://kb.example/refunds", "snippets": ["Refunds take 14 days."],'
     ' "score": NaN, "hits": 123456789012345678901234567890}}',  # read by json, not orjson
     {"score", "hits"}),
    ('{"0": {"url": "https://kb.example/refunds", "snippets": ["Refunds take 14 days."]}}',
     set()),
])
def test_tool_results_are_read_as_python_s_json_reads_them(written: str, kept: set[str],
                                                           ) -> None:
    request = {"messages": [{"role": "user", "content": "Refunds?"},
                            {"role": "tool", "content": written, "tool_call_id": "call_1"}]}
    answer = response(TextChunk(text="Refunds take 14 days"), ReferenceChunk(reference_ids=[0]),
                      TextChunk(text="."))
    report = citeaudit.audit(answer, request)
    assert found(report) == []
    source = report.snapshot.get("0")
    assert source is not None
    assert (source.url, source.text) == ("https://kb.example/refunds", "Refunds take 14 days.")
    assert set(source.metadata) == kept
    if kept:
        assert source.metadata["hits"] == 123456789012345678901234567890


def test_a_tool_that_returned_prose_numbers_nothing() -> None:
    request = {"messages": [{"role": "user", "content": "Refunds?"}, {
        "role": "tool", "content": "Refunds take 14 days.", "tool_call_id": "call_1"}]}
    answer = response(TextChunk(text="Refunds take 14 days"), ReferenceChunk(reference_ids=[0]),
                      TextChunk(text="."))
    assert [f.code for f in citeaudit.audit(answer, request).findings] == ["CA201", "CA207"]


def test_sources_given_instead_of_a_request_are_the_snapshot() -> None:
    answer = response(TextChunk(text="Refunds are paid within 14 days."),
                      ReferenceChunk(reference_ids=["refunds"]))
    report = citeaudit.audit(answer, [{"id": "refunds", "text": "Refunds: 14 days."}])
    assert found(report) == []


def test_the_command_line_reads_the_request_and_the_response(tmp_path: Path,
                                                             run: Any) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps(REQUEST))
    answer = tmp_path / "response.json"
    answer.write_text(CLEAN.model_dump_json())
    assert run("check", str(request), str(answer)).code == 0
    result = run("check", str(answer))
    assert result.code == 2
    assert result.err == (f"citeaudit: error: {answer}: $.messages: a Mistral response is"
                          " audited against its request (tool messages returning numbered"
                          " references) or the sources given\n")


@pytest.mark.parametrize(("ids", "code", "message"), [
    ([True], "CA404", "a reference id must be an integer or a string"),
    ([1.0], "CA404", "a reference id must be an integer or a string"),
    ([{"id": 1}], "CA404", "a reference id must be an integer or a string"),
    (["01"], "CA201", "'01' is not in this request's snapshot"),  # the key is written "1"
    ([-1], "CA201", "'-1' is not in this request's snapshot"),
])
def test_reference_ids_are_integers_or_strings_naming_keys_as_written(
        ids: list[Any], code: str, message: str) -> None:
    data = response(TextChunk(text="Refunds are paid within 14 days."),
                    ReferenceChunk(reference_ids=[0])).model_dump(mode="json")
    data["choices"][0]["message"]["content"][1]["reference_ids"] = ids
    report = citeaudit.audit(data, REQUEST)
    assert (code, "$.choices[0].message.content[1].reference_ids[0]", message) in [
        (f.code, f.path, f.message) for f in report.findings]
    assert not report.passed


def test_integer_and_string_ids_name_the_same_key() -> None:
    for written in (1, "1"):
        answer = response(TextChunk(text="Cards abroad cost 2 euros per withdrawal."),
                          ReferenceChunk(reference_ids=[written]))
        assert citeaudit.audit(answer, REQUEST).passed
