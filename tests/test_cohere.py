"""Cohere Chat v2 responses, built through the ``cohere`` SDK's own types, audited against the
documents of their request (with ids or without, and documents returned by tools).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cohere import Document
from cohere.types import (
    AssistantMessageResponse,
    Citation,
    DocumentSource,
    DocumentToolContent,
    TextAssistantMessageResponseContentItem,
    ThinkingAssistantMessageResponseContentItem,
    ToolChatMessageV2,
    ToolSource,
    UserChatMessageV2,
)
from cohere.v2.types.v2chat_response import V2ChatResponse

import citeaudit

TEXT = "The tallest penguins are the Emperor penguins. They only live in Antarctica."
TALLEST = (29, 46, "Emperor penguins.")
HOME = (65, 76, "Antarctica.")
# As Cohere's documentation sends them: no ids, so Cohere names them doc:0 and doc:1.
REQUEST: dict[str, Any] = {
    "model": "command-a-03-2025",
    "messages": [UserChatMessageV2(content="Where do the tallest penguins live?")
                 .model_dump(mode="json", exclude_none=True)],
    "documents": [Document(data={"title": "Tall penguins",
                                 "snippet": "Emperor penguins are the tallest."})
                  .model_dump(mode="json", exclude_none=True),
                  Document(data={"title": "Penguin habitats",
                                 "snippet": "Emperor penguins only live in Antarctica."})
                  .model_dump(mode="json", exclude_none=True)]}


def cite(span: tuple[int, int, str], *ids: str, content_index: int | None = None,
         kind: str = "TEXT_CONTENT") -> Citation:
    start, end, text = span
    return Citation(start=start, end=end, text=text, type=kind, content_index=content_index,
                    sources=[DocumentSource(id=i, document={"id": i}) for i in ids])


def response(*citations: Citation, text: str = TEXT, thinking: str | None = None
             ) -> V2ChatResponse:
    content: list[Any] = [ThinkingAssistantMessageResponseContentItem(thinking=thinking)] \
        if thinking else []
    content.append(TextAssistantMessageResponseContentItem(text=text))
    return V2ChatResponse(id="r1", finish_reason="COMPLETE", message=AssistantMessageResponse(
        content=content, citations=list(citations)))


CLEAN = response(cite(TALLEST, "doc:0"), cite(HOME, "doc:1"))


def cited(answer: Any, request: Any = REQUEST) -> list[str]:
    return [c.source_id for c in citeaudit.core.prepare(answer, request).answer.citations]


def found(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


@pytest.mark.parametrize("shape", ["sdk", "json"])
def test_a_clean_response_passes_as_the_sdk_object_and_as_json(shape: str) -> None:
    answer = CLEAN if shape == "sdk" else CLEAN.model_dump(mode="json", exclude_none=True)
    report = citeaudit.audit(answer, REQUEST)
    assert (report.shape, report.status, found(report)) == ("cohere", "ok", [])
    assert [(s.id, s.label, s.text) for s in report.snapshot] == [
        ("doc:0", "Tall penguins", "Emperor penguins are the tallest."),
        ("doc:1", "Penguin habitats", "Emperor penguins only live in Antarctica.")]
    assert cited(answer) == ["doc:0", "doc:1"]
    assert report.metrics.claim_coverage == 1.0


def test_documents_with_ids_and_the_older_generated_spelling_resolve() -> None:
    with_ids = {**REQUEST, "documents": [Document(id="tall", data={"text": "Emperor penguins"
                                                                   " are the tallest."}),
                                         "Emperor penguins only live in Antarctica."]}
    answer = response(cite(TALLEST, "tall"), cite(HOME, "doc:0:1"))
    assert found(citeaudit.audit(answer, with_ids)) == []
    assert cited(answer, with_ids) == ["tall", "doc:1"]


def test_tool_documents_are_sources_too() -> None:
    request = {"messages": [ToolChatMessageV2(tool_call_id="call_1", content=[
        DocumentToolContent(document=Document(id="w1", data={
            "text": "Emperor penguins only live in Antarctica.", "url": "https://kb.example"}))
    ])]}
    answer = response(Citation(start=65, end=76, text="Antarctica.", type="TEXT_CONTENT",
                               sources=[ToolSource(id="w1", tool_output={})]),
                      text=TEXT.replace("The tallest penguins are the Emperor penguins. ",
                                        "That is a good question. " + " " * 22))
    report = citeaudit.audit(answer, request)
    assert found(report) == []
    assert report.snapshot.sources[0].url == "https://kb.example"


@pytest.mark.parametrize(("made", "code", "path", "message"), [
    (cite(HOME, "doc:7"), "CA201", "$.message.citations[1].sources[0]",
     "'doc:7' is not in this request's snapshot"),
    (cite((65, 77, "Antarctica."), "doc:1"), "CA206", "$.message.citations[1]",
     "characters 65..77 lie outside the answer text (76 characters)"),
    (cite((64, 75, "Antarctica."), "doc:1"), "CA206", "$.message.citations[1].text",
     "characters 64..75 hold ' Antarctica', not the citation's text 'Antarctica.'"),
    (cite(HOME, "doc:1", content_index=3), "CA206", "$.message.citations[1].content_index",
     "content_index 3 names no text content (the message has 1 text items)"),
    (Citation(end=76, sources=[DocumentSource(id="doc:1")]), "CA404",
     "$.message.citations[1].start", 'a citation needs an integer "start"'),
])
def test_each_broken_citation_is_found_with_its_json_path(made: Citation, code: str, path: str,
                                                          message: str) -> None:
    report = citeaudit.audit(response(cite(TALLEST, "doc:0"), made), REQUEST)
    broken = [f for f in report.findings if f.code == code]
    assert [(f.path, f.message) for f in broken] == [(path, message)]
    assert not report.passed


def test_uncited_text_follows_the_claim_policy_and_thinking_covers_no_claim() -> None:
    text = "Good question! " + TEXT
    shifted = [(s + 15, e + 15, t) for s, e, t in (TALLEST, HOME)]
    thought = cite((0, 3, "Why"), "doc:1", kind="THINKING_CONTENT")
    answer = response(cite(shifted[0], "doc:0"), thought, text=text,
                      thinking="Why do penguins...")
    report = citeaudit.audit(answer, REQUEST)
    # The pleasantry needs no citation; the second sentence lost its citation.
    assert found(report) == [("CA301", None)]
    assert report.findings[0].claim == 2
    assert cited(answer) == ["doc:0"]


def test_a_refusal_is_a_refusal() -> None:
    report = citeaudit.audit(response(text="I don't know: the documents do not say."), REQUEST)
    assert (report.status, report.passed) == ("no_evidence", True)


def test_the_command_line_reads_the_request_and_the_response(tmp_path: Path,
                                                             run: Any) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps(REQUEST))
    answer = tmp_path / "response.json"
    answer.write_text(CLEAN.model_dump_json(exclude_none=True))
    assert run("check", str(request), str(answer)).code == 0
    answer.write_text(response(cite(TALLEST, "doc:0"), cite(HOME, "doc:2"))
                      .model_dump_json(exclude_none=True))
    result = run("check", str(request), str(answer))
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        f"{answer}:$.message.citations[1].sources[0]: CA201 error: 'doc:2' is not in this"
        " request's snapshot")
    result = run("check", str(answer))
    assert result.code == 2
    assert result.err == (f"citeaudit: error: {answer}: $.documents: a Cohere response is"
                          " audited against its request: an object with \"documents\" (or tool"
                          " messages returning documents)\n")


THINKING = "Why do penguins grow tall?"
PLAN = "I will look up penguin habitats."


def reasoned(*citations: Citation) -> V2ChatResponse:
    """The clean answer, with thinking, a tool plan and ``citations`` of them."""
    made = response(cite(TALLEST, "doc:0"), cite(HOME, "doc:1"), *citations, thinking=THINKING)
    made.message.tool_plan = PLAN
    return made


def test_citations_of_thinking_and_plan_are_checked_but_cover_no_claim() -> None:
    answer = reasoned(cite((0, 3, "Why"), "doc:0", kind="THINKING_CONTENT", content_index=0),
                      cite((PLAN.index("habitats"), PLAN.index("."), "habitats"), "doc:1",
                           kind="PLAN"))
    report = citeaudit.audit(answer, REQUEST)
    assert found(report) == []
    assert report.metrics.citations == 2  # the answer's two, not the reasoning's
    assert cited(answer) == ["doc:0", "doc:1"]


@pytest.mark.parametrize(("made", "code", "path", "message"), [
    (cite((0, 3, "Why"), "doc:7", kind="THINKING_CONTENT"), "CA201",
     "$.message.citations[2].sources[0]", "'doc:7' is not in this request's snapshot"),
    (cite((0, 99, "Why"), "doc:0", kind="THINKING_CONTENT"), "CA206", "$.message.citations[2]",
     f"characters 0..99 lie outside the thinking content ({len(THINKING)} characters)"),
    (cite((0, 3, "Who"), "doc:0", kind="THINKING_CONTENT"), "CA206",
     "$.message.citations[2].text",
     "characters 0..3 of the thinking content hold 'Why', not the citation's text 'Who'"),
    (cite((0, 3, "Why"), "doc:0", kind="THINKING_CONTENT", content_index=1), "CA206",
     "$.message.citations[2].content_index",
     "a THINKING_CONTENT citation names no thinking content (the message has 1)"),
    (cite((2, 6, "I will"), "doc:0", kind="PLAN"), "CA206", "$.message.citations[2].text",
     "characters 2..6 of the tool_plan hold 'will', not the citation's text 'I will'"),
    (cite((0, 3, "Why"), "doc:9", kind="PLAN"), "CA201", "$.message.citations[2].sources[0]",
     "'doc:9' is not in this request's snapshot"),
])
def test_each_broken_citation_of_reasoning_is_found(made: Citation, code: str, path: str,
                                                    message: str) -> None:
    report = citeaudit.audit(reasoned(made), REQUEST)
    assert (code, path, message) in [(f.code, f.path, f.message) for f in report.findings]
    assert not report.passed
