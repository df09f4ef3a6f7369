"""Anthropic Messages responses, built through the ``anthropic`` SDK's own types (a renamed
field breaks a test here, not a user), audited against the documents of their request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import (
    CitationCharLocation,
    CitationContentBlockLocation,
    CitationPageLocation,
    CitationsConfig,
    CitationsSearchResultLocation,
    CitationsWebSearchResultLocation,
    DocumentBlock,
    Message,
    PlainTextSource,
    TextBlock,
    Usage,
    WebFetchBlock,
    WebFetchToolResultBlock,
    WebFetchToolResultErrorBlock,
    WebSearchResultBlock,
    WebSearchToolResultBlock,
)

import citeaudit

FACTS = "The grass is green. The sky is blue. Refunds take 14 days."
REQUEST: dict[str, Any] = {"model": "claude-x", "max_tokens": 512, "messages": [
    {"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                        "data": FACTS},
         "title": "Facts", "citations": {"enabled": True}},
        {"type": "document", "source": {"type": "content", "content": [
            {"type": "text", "text": "First block."}, {"type": "text", "text": "Second block."}]},
         "title": "Blocks", "citations": {"enabled": True}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                        "data": "JVBERi0="}, "title": "Scan"},
        {"type": "text", "text": "What colour is the grass? How long do refunds take?"}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search",
                                       "input": {"q": "fees"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
        {"type": "search_result", "source": "https://kb.example/fees", "title": "Fees",
         "content": [{"type": "text", "text": "Fees are waived."},
                     {"type": "text", "text": "Cards cost 5 dollars."}]}]}]},
]}


def char(start: int, end: int, quoted: str, document: int = 0) -> CitationCharLocation:
    return CitationCharLocation(type="char_location", cited_text=quoted, document_index=document,
                                document_title="Facts", start_char_index=start,
                                end_char_index=end)


def message(*blocks: Any) -> Message:
    return Message(id="msg_1", type="message", role="assistant", model="claude-x",
                   content=list(blocks), stop_reason="end_turn", stop_sequence=None,
                   usage=Usage(input_tokens=10, output_tokens=10))


def text(value: str, *citations: Any) -> TextBlock:
    return TextBlock(type="text", text=value, citations=list(citations) or None)


CLEAN = message(
    text("According to the documents, "),
    text("the grass is green", char(0, 20, "The grass is green.")),
    text(" and "),
    text("refunds take 14 days", char(37, 58, "Refunds take 14 days."),
         CitationContentBlockLocation(type="content_block_location", cited_text="Second block.",
                                      document_index=1, start_block_index=1,
                                      end_block_index=2)),
    text(". Cards cost 5 dollars",
         CitationsSearchResultLocation(type="search_result_location",
                                       cited_text="Cards cost 5 dollars.", search_result_index=0,
                                       source="https://kb.example/fees", start_block_index=1,
                                       end_block_index=2, title="Fees")),
    text("."))


def codes(report: citeaudit.Report) -> list[str]:
    return [f.code for f in report.findings]


def test_a_clean_response_passes_as_the_sdk_object_and_as_json() -> None:
    for answer in (CLEAN, CLEAN.model_dump(mode="json")):
        report = citeaudit.audit(answer, REQUEST)
        assert report.passed, report.findings
        assert report.shape == "anthropic"
        assert report.metrics.claims == 2  # two sentences, split over five blocks
        assert report.metrics.claim_coverage == 1.0
        assert {s.id for s in report.snapshot} == {"document:0", "document:1", "document:2",
                                                  "search_result:0"}


@pytest.mark.parametrize(("citation", "code", "message"), [
    (char(1, 20, "The grass is green."), "CA204",
     'document_index 0 char range 1..20 quotes "The grass is green." but document:0 holds'
     ' "he grass is green." there'),
    (char(0, 99, "The grass is green."), "CA205",
     "document_index 0 char range 0..99 lies outside document:0 (58 characters)"),
    (char(9, 3, "x"), "CA205", "document_index 0 char range 9..3 lies outside document:0"
     " (58 characters)"),
    (char(0, 20, "The grass is green.", document=7), "CA202",
     "document_index 7 names nothing sent: the request has 3 documents"),
    (CitationContentBlockLocation(type="content_block_location", cited_text="First block.",
                                  document_index=1, start_block_index=1, end_block_index=2),
     "CA204", 'document_index 1 block range 1..2 quotes "First block." but document:1 holds'
     ' "Second block." there'),
    (CitationContentBlockLocation(type="content_block_location", cited_text="x",
                                  document_index=1, start_block_index=1, end_block_index=3),
     "CA205", "document_index 1 block range 1..3 lies outside document:1 (2 content blocks)"),
    (CitationPageLocation(type="page_location", cited_text="p", document_index=2,
                          start_page_number=0, end_page_number=1),
     "CA205", "document_index 2 page range 0..1 lies outside document:2 (pages from 1)"),
    (CitationsSearchResultLocation(type="search_result_location", cited_text="x",
                                   search_result_index=1, source="s", start_block_index=0,
                                   end_block_index=1),
     "CA202", "search_result_index 1 names nothing sent: the request has 1 search result"),
    (CitationsWebSearchResultLocation(type="web_search_result_location", cited_text="x",
                                      encrypted_index="e", url="https://elsewhere.example/"),
     "CA201", "'https://elsewhere.example/' is not in this request's snapshot"),
])
def test_each_broken_citation_is_found_with_its_json_path(citation: Any, code: str,
                                                          message: str) -> None:
    report = citeaudit.audit(message_with(citation), REQUEST)
    assert [(f.code, f.message, f.path) for f in report.findings] == [
        (code, message, "$.content[0].citations[0]")]
    assert not report.passed


def message_with(citation: Any) -> Message:
    return message(text("The grass is green.", citation))


def test_a_pdf_page_range_in_order_passes_its_quote_unchecked() -> None:
    page = CitationPageLocation(type="page_location", cited_text="anything", document_index=2,
                                start_page_number=1, end_page_number=2)
    assert citeaudit.audit(message_with(page), REQUEST).passed


def test_web_search_citations_are_checked_against_the_results_in_the_response() -> None:
    url = "https://news.example/grass"
    results = WebSearchToolResultBlock(
        type="web_search_tool_result", tool_use_id="srv_1",
        content=[WebSearchResultBlock(type="web_search_result", url=url, title="Grass",
                                      encrypted_content="enc", page_age=None)])
    cite = CitationsWebSearchResultLocation(type="web_search_result_location",
                                            cited_text="green", encrypted_index="e", url=url,
                                            title="Grass")
    report = citeaudit.audit(message(results, text("The grass is green.", cite)), REQUEST)
    assert report.passed, report.findings
    assert report.snapshot.get(url) is not None


def test_uncited_text_follows_the_claim_policy_and_refusals_are_refusals() -> None:
    uncited = message(text("Great question! Refunds take 14 days."))
    assert codes(citeaudit.audit(uncited, REQUEST)) == ["CA302"]
    refusal = message(text("Not covered by the provided documents.",
                           char(0, 20, "The grass is green.")))
    assert codes(citeaudit.audit(refusal, REQUEST)) == ["CA402"]


def test_a_broken_citation_is_a_ca404_naming_the_field() -> None:
    data = message_with(char(0, 20, "The grass is green.")).model_dump(mode="json")
    del data["content"][0]["citations"][0]["start_char_index"]
    report = citeaudit.audit(data, REQUEST)
    # The claim is then left with no citation it can be checked by.
    assert [(f.code, f.path) for f in report.findings] == [
        ("CA301", None), ("CA404", "$.content[0].citations[0].start_char_index")]


def test_the_command_line_reads_the_request_and_the_response(tmp_path: Path,
                                                             run: Any) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps(REQUEST))
    response = tmp_path / "response.json"
    response.write_text(CLEAN.model_dump_json())
    assert run("check", str(request), str(response)).code == 0
    response.write_text(message_with(char(1, 20, "The grass is green.")).model_dump_json())
    result = run("check", str(request), str(response))
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        f"{response}:$.content[0].citations[0]: CA204 error: document_index 0 char range 1..20"
        ' quotes "The grass is green." but document:0 holds "he grass is green." there')
    request.write_text(json.dumps({"sources": []}))
    result = run("check", str(request), str(response))
    assert result.code == 2
    assert result.err == (f"citeaudit: error: {request}: $.messages: an Anthropic response is"
                          " audited against its request: an object with \"messages\" (the"
                          " documents it sent)\n")


def test_eval_reads_records_of_request_and_response_beside_other_records(tmp_path: Path,
                                                                         run: Any) -> None:
    broken = message_with(char(1, 20, "The grass is green.")).model_dump(mode="json")
    records = [{"id": "clean", "request": REQUEST, "response": CLEAN.model_dump(mode="json"),
                "tags": {"provider": "anthropic"}},
               {"id": "broken", "request": REQUEST, "response": broken},
               {"id": "no-request", "response": broken},
               {"id": "text", "sources": ["Refunds take 14 days."],
                "answer": "Refunds take 14 days [1]."}]
    dataset = tmp_path / "logs.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "results.jsonl"
    result = run("eval", str(dataset), "-o", str(out), "-j", "1")
    assert result.code == 2  # an unreadable record: the report is incomplete
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["status"]) for r in rows] == [
        ("clean", "ok"), ("broken", "unverified"), ("no-request", "unreadable"), ("text", "ok")]
    assert [f["code"] for f in rows[1]["findings"]] == ["CA204"]
    assert rows[2]["error"].startswith("$.messages: an Anthropic response is audited against")


PAGE = "Refunds are paid within 14 days. Cards cost 5 dollars."


def fetched(url: str = "https://kb.example/refunds", data: str = PAGE) -> Any:
    """A ``web_fetch_tool_result`` block holding the fetched page, with citations enabled."""
    return WebFetchToolResultBlock(type="web_fetch_tool_result", tool_use_id="srvtoolu_1",
                                   content=WebFetchBlock(
        type="web_fetch_result", url=url, retrieved_at="2026-10-01T00:00:00Z",
        content=DocumentBlock(type="document", title="Refunds",
                              citations=CitationsConfig(enabled=True),
                              source=PlainTextSource(type="text", media_type="text/plain",
                                                     data=data))))


def test_a_fetched_page_is_the_document_after_those_sent() -> None:
    # The request sent 3 documents: the page fetched in the response is document 3.
    cite = char(0, 32, "Refunds are paid within 14 days.", document=3)
    report = citeaudit.audit(message(fetched(), text("Refunds take 14 days.", cite)), REQUEST)
    assert report.passed, report.findings
    page = report.snapshot.get("document:3")
    assert page is not None
    assert (page.url, page.text) == ("https://kb.example/refunds", PAGE)


@pytest.mark.parametrize(("citation", "code", "said"), [
    (char(1, 32, "Refunds are paid within 14 days.", document=3), "CA204",
     'document_index 3 char range 1..32 quotes "Refunds are paid within 14 days." but'
     ' document:3 holds "efunds are paid within 14 days." there'),
    (char(0, 99, "Refunds are paid within 14 days.", document=3), "CA205",
     "document_index 3 char range 0..99 lies outside document:3 (54 characters)"),
    (char(0, 32, "Refunds are paid within 14 days.", document=4), "CA202",
     "document_index 4 names nothing sent: the request has 4 documents"),
])
def test_each_broken_citation_of_a_fetched_page_is_found(citation: Any, code: str,
                                                         said: str) -> None:
    report = citeaudit.audit(message(fetched(), text("Refunds take 14 days.", citation)),
                             REQUEST)
    assert [(f.code, f.message) for f in report.findings] == [(code, said)]


def test_a_failed_fetch_is_no_document() -> None:
    failed = WebFetchToolResultBlock(type="web_fetch_tool_result", tool_use_id="srvtoolu_1",
                                     content=WebFetchToolResultErrorBlock(
                                         type="web_fetch_tool_result_error",
                                         error_code="url_not_accessible"))
    cite = char(0, 32, "Refunds are paid within 14 days.", document=3)
    report = citeaudit.audit(message(failed, text("Refunds take 14 days.", cite)), REQUEST)
    assert [f.code for f in report.findings] == ["CA202"]


def test_pages_fetched_in_earlier_turns_are_numbered_where_they_stand() -> None:
    # A fetch of an earlier turn, between the request's documents: the document after it is
    # numbered after the page.
    earlier = fetched("https://kb.example/fees", "Cards cost 5 dollars.").model_dump(mode="json")
    request = {"model": "claude-x", "max_tokens": 512, "messages": [
        REQUEST["messages"][0],
        {"role": "assistant", "content": [earlier, {"type": "text", "text": "Noted."}]},
        {"role": "user", "content": [{"type": "document", "source": {
            "type": "text", "media_type": "text/plain", "data": "Fees are waived."}},
            {"type": "search_result", "source": "https://kb.example/faq", "title": "FAQ",
             "content": [{"type": "text", "text": "Express takes 1 day."}]}]},
        *REQUEST["messages"][1:]]}
    cites = [char(0, 21, "Cards cost 5 dollars.", document=3),
             char(0, 16, "Fees are waived.", document=4),
             CitationsSearchResultLocation(
                 type="search_result_location", cited_text="Cards cost 5 dollars.",
                 search_result_index=1, source="https://kb.example/fees", start_block_index=1,
                 end_block_index=2)]
    for cite in cites:
        report = citeaudit.audit(message_with(cite), request)
        assert [f.code for f in report.findings if f.code != "CA301"] == [], report.findings
    sources = citeaudit.audit(message_with(cites[0]), request).snapshot
    assert [s.id for s in sources] == ["document:0", "document:1", "document:2", "document:3",
                                       "document:4", "search_result:0", "search_result:1"]
