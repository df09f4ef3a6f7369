"""OpenAI Responses and Chat Completions responses, built through the ``openai`` SDK's own
types, audited against the retrieval they carry and the sources the application passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message import Annotation, AnnotationURLCitation
from openai.types.responses import (
    Response,
    ResponseFileSearchToolCall,
    ResponseFunctionWebSearch,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_file_search_tool_call import Result
from openai.types.responses.response_function_web_search import ActionSearch, ActionSearchSource
from openai.types.responses.response_output_text import (
    AnnotationContainerFileCitation,
    AnnotationFileCitation,
    AnnotationFilePath,
)
from openai.types.responses.response_output_text import (
    AnnotationURLCitation as URLCitation,
)

import citeaudit
from citeaudit.formats._openai import canonical_url

TEXT = ("Refunds are issued within 14 days. Express shipping takes 1 business day"
        " ([shop.example](https://shop.example/shipping?utm_source=openai)).")
LINK = TEXT.index("([shop")
SOURCES = [{"id": "shipping", "text": "Express shipping takes 1 business day.",
            "url": "https://Shop.example/shipping/"}]


def response(*annotations: Any, text: str = TEXT, retrieved: bool = True) -> Response:
    output: list[Any] = []
    if retrieved:
        output.append(ResponseFileSearchToolCall(
            id="fs_1", queries=["refunds"], status="completed", type="file_search_call",
            results=[Result(file_id="file-refunds", filename="refunds.md", score=0.91,
                            text="Refunds are issued within 14 days."),
                     Result(file_id="file-refunds", filename="refunds.md", score=0.52,
                            text="Store credit never expires.")]))
    output.append(ResponseOutputMessage(
        id="msg_1", role="assistant", status="completed", type="message",
        content=[ResponseOutputText(type="output_text", text=text,
                                    annotations=list(annotations))]))
    return Response(id="resp_1", created_at=0, model="gpt-x", object="response", output=output,
                    parallel_tool_calls=False, tool_choice="auto", tools=[])


FILE = AnnotationFileCitation(type="file_citation", file_id="file-refunds",
                              filename="refunds.md", index=34)
URL = URLCitation(type="url_citation", start_index=LINK, end_index=len(TEXT) - 1,
                  title="Shipping", url="https://shop.example/shipping?utm_source=openai")


def findings(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


def test_a_clean_response_passes_as_the_sdk_object_and_as_json() -> None:
    for answer in (response(FILE, URL), response(FILE, URL).model_dump(mode="json")):
        report = citeaudit.audit(answer, SOURCES)
        assert report.passed, report.findings
        assert report.shape == "openai-responses"
        assert report.metrics.claims == 2
        assert report.metrics.claim_coverage == 1.0
        assert [s.id for s in report.snapshot] == ["shipping", "file-refunds"]
        assert report.snapshot.get("file-refunds").text == (  # type: ignore[union-attr]
            "Refunds are issued within 14 days.\n\nStore credit never expires.")


@pytest.mark.parametrize(("annotation", "code", "message"), [
    (URLCitation(type="url_citation", start_index=LINK, end_index=len(TEXT) - 1, title="x",
                 url="https://elsewhere.example/page"),
     "CA201", "'https://elsewhere.example/page' is not in this request's snapshot"),
    (AnnotationFileCitation(type="file_citation", file_id="file-other", filename="o.md",
                            index=34),
     "CA201", "'file-other' is not in this request's snapshot"),
    (URLCitation(type="url_citation", start_index=LINK, end_index=len(TEXT) + 5, title="x",
                 url="https://shop.example/shipping"),
     "CA206", f"url_citation range {LINK}..{len(TEXT) + 5} lies outside its text"
     f" ({len(TEXT)} characters)"),
    (AnnotationFileCitation(type="file_citation", file_id="file-refunds", filename="r.md",
                            index=-1),
     "CA206", f"file_citation index -1 lies outside its text ({len(TEXT)} characters)"),
])
def test_each_broken_annotation_is_found_with_its_json_path(annotation: Any, code: str,
                                                            message: str) -> None:
    report = citeaudit.audit(response(FILE, URL, annotation), SOURCES)
    found = [(f.code, f.message, f.path) for f in report.findings if f.code == code]
    assert found == [(code, message, "$.output[1].content[0].annotations[2]")]
    assert not report.passed


def test_container_file_citations_name_their_file_and_file_paths_are_links() -> None:
    cited = AnnotationContainerFileCitation(
        type="container_file_citation", container_id="cntr_1", file_id="file-refunds",
        filename="refunds.csv", start_index=0, end_index=33)
    link = AnnotationFilePath(type="file_path", file_id="file-written-by-the-model", index=10)
    report = citeaudit.audit(response(cited, link, URL), SOURCES)
    assert report.passed, report.findings
    made = citeaudit.core.prepare(response(cited, link, URL), SOURCES).answer.citations
    assert [(c.source_id, c.claim) for c in made] == [("file-refunds", 1), ("shipping", 2)]
    outside = cited.model_copy(update={"end_index": len(TEXT) + 1})
    report = citeaudit.audit(response(outside, URL), SOURCES)
    assert ("CA206", "$.output[1].content[0].annotations[0]") in findings(report)


def test_an_uncited_amount_is_ca302_under_the_claim_policy() -> None:
    report = citeaudit.audit(response(URL), SOURCES)
    assert [f.code for f in report.findings] == ["CA302"]
    assert report.findings[0].claim == 1


def test_urls_match_once_tracking_and_case_are_dropped() -> None:
    assert canonical_url("HTTPS://Shop.Example/a/?utm_source=openai&q=1#top") == \
        "https://shop.example/a?q=1"


def test_web_search_sources_in_the_response_are_its_snapshot() -> None:
    search = ResponseFunctionWebSearch(
        id="ws_1", status="completed", type="web_search_call",
        action=ActionSearch(type="search", query="shipping",
                            sources=[ActionSearchSource(type="url",
                                                        url="https://shop.example/shipping")]))
    answer = response(FILE, URL).model_dump(mode="json")
    answer["output"].insert(0, search.model_dump(mode="json"))
    report = citeaudit.audit(answer, None)
    assert report.passed, report.findings
    assert {s.id for s in report.snapshot} == {"file-refunds", "https://shop.example/shipping"}


def chat(*annotations: Annotation, content: str = TEXT) -> ChatCompletion:
    return ChatCompletion(id="c1", created=0, model="gpt-x", object="chat.completion",
                          choices=[Choice(finish_reason="stop", index=0, message=(
                              ChatCompletionMessage(role="assistant", content=content,
                                                    annotations=list(annotations) or None)))])


def url_annotation(url: str, end: int = len(TEXT) - 1) -> Annotation:
    return Annotation(type="url_citation", url_citation=AnnotationURLCitation(
        start_index=LINK, end_index=end, title="Shipping", url=url))


def test_chat_completions_url_citations() -> None:
    good = chat(url_annotation("https://shop.example/shipping?utm_source=openai"))
    report = citeaudit.audit(good, SOURCES)
    assert report.shape == "openai-chat"
    assert findings(report) == [("CA302", None)]  # the refund sentence cites nothing
    bad = chat(url_annotation("https://elsewhere.example/"), url_annotation(
        "https://shop.example/shipping", end=999))
    assert findings(citeaudit.audit(bad, SOURCES)) == [
        ("CA302", None), ("CA201", "$.choices[0].message.annotations[0].url_citation"),
        ("CA206", "$.choices[0].message.annotations[1].url_citation")]


def test_the_command_line_reads_a_response_alone_or_with_sources(tmp_path: Path,
                                                                 run: Any) -> None:
    alone = tmp_path / "response.json"
    alone.write_text(response(FILE, text="Refunds are issued within 14 days.").model_dump_json())
    result = run("check", str(alone))
    assert (result.code, result.err) == (0, ""), result.out
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps(SOURCES))
    alone.write_text(response(FILE, URL).model_dump_json())
    assert run("check", str(sources), str(alone)).code == 0
    result = run("check", str(alone))  # the URL is not in what the response retrieved
    assert result.code == 1
    assert "CA201 error: 'https://shop.example/shipping' is not in this request's snapshot" \
        in result.out
    text = tmp_path / "answer.md"
    text.write_text("Refunds take 14 days [1].")
    result = run("check", str(text))
    assert result.code == 2
    assert result.err == (f"citeaudit: error: {text}: needs a SNAPSHOT file before the"
                          " answer: only a provider's response carries its own retrieval\n")


CONTAINER = AnnotationContainerFileCitation(
    type="container_file_citation", container_id="cntr_1", file_id="file-refunds",
    filename="refunds.csv", start_index=0, end_index=33)


@pytest.mark.parametrize(("annotation", "code", "path", "message"), [
    (CONTAINER.model_copy(update={"file_id": "file-in-the-container"}), "CA201", "",
     "'file-in-the-container' is not in this request's snapshot"),
    (CONTAINER.model_copy(update={"start_index": 20, "end_index": 10}), "CA206", "",
     f"container_file_citation range 20..10 lies outside its text ({len(TEXT)} characters)"),
    (CONTAINER.model_copy(update={"file_id": ""}), "CA404", ".file_id",
     'container_file_citation needs a string "file_id"'),
    (AnnotationFilePath(type="file_path", file_id="file-written", index=len(TEXT) + 1),
     "CA206", "", f"file_path index {len(TEXT) + 1} lies outside its text ({len(TEXT)}"
     " characters)"),
    (AnnotationFilePath.model_construct(type="file_path", file_id="file-written", index="3"),
     "CA404", ".index", 'file_path needs an integer "index", not a string'),
])
def test_each_broken_container_citation_or_file_link_is_found(annotation: Any, code: str,
                                                              path: str, message: str) -> None:
    answer = response(FILE, URL, annotation).model_dump(mode="json", warnings=False)
    report = citeaudit.audit(answer, SOURCES)
    assert (code, f"$.output[1].content[0].annotations[2]{path}", message) in [
        (f.code, f.path, f.message) for f in report.findings]
    assert not report.passed


def test_container_citation_offsets_count_characters_of_non_ascii_text() -> None:
    # "€" and "😀" are one character each (three and four UTF-8 bytes, one and two UTF-16
    # units): the offsets are read as Python counts characters.
    lead = "Prices in € 😀. "
    text = lead + "Refunds are issued within 14 days."
    cited = CONTAINER.model_copy(update={"start_index": len(lead), "end_index": len(text)})
    answer = response(cited, text=text)
    report = citeaudit.audit(answer, SOURCES)
    assert [(f.code, f.claim) for f in report.findings] == [("CA301", 1)]  # the lead: uncited
    made = citeaudit.core.prepare(answer, SOURCES).answer.citations
    assert [(c.source_id, c.span) for c in made] == [("file-refunds", (len(lead), len(text)))]
