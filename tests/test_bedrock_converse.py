"""AWS Bedrock ``Converse`` citations (``citationsContent`` blocks). boto3 returns plain
dicts, so every request and response here is validated against botocore's own service model
for ``bedrock-runtime`` first.
"""

from __future__ import annotations

import copy
from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator

import citeaudit
from citeaudit.core import prepare

_MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")
_OPERATION = _MODEL.operation_model("Converse")

POLICY = "Refunds take 14 days. Cards cost 5 dollars."
STORES = ["Munich opens at 9.", "Berlin opens at 10."]
FAQ = ["Express shipping takes 1 day.", "Standard shipping takes 5 days."]


def validated(value: dict[str, Any], shape: Any) -> dict[str, Any]:
    checked = ParamValidator().validate(value, shape)
    assert not checked.has_errors(), checked.generate_report()
    return value


# Documents 0 (plain text) and 1 (content blocks) in the first message; search result 0 in a
# tool result of the second user message, beside document 2 (text given as bytes).
REQUEST = validated({"modelId": "anthropic.claude", "messages": [
    {"role": "user", "content": [
        {"document": {"format": "txt", "name": "policy", "source": {"text": POLICY},
                      "citations": {"enabled": True}}},
        {"document": {"format": "txt", "name": "stores", "source": {
            "content": [{"text": t} for t in STORES]}, "citations": {"enabled": True}}},
        {"text": "When do refunds arrive and when does Munich open?"}]},
    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "faq",
                                                   "input": {}}}]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [
        {"searchResult": {"source": "https://faq.example/shipping", "title": "Shipping",
                          "content": [{"text": t} for t in FAQ],
                          "citations": {"enabled": True}}},
        {"document": {"format": "md", "name": "fees", "source": {
            "bytes": b"Fees are waived."}}}]}}]}]}, _OPERATION.input_shape)


def char(start: int, end: int, quoted: str, index: int = 0) -> dict[str, Any]:
    return {"location": {"documentChar": {"documentIndex": index, "start": start, "end": end}},
            "sourceContent": [{"text": quoted}], "title": "policy"}


def chunk(start: int, end: int, quoted: str, index: int = 1) -> dict[str, Any]:
    return {"location": {"documentChunk": {"documentIndex": index, "start": start,
                                           "end": end}},
            "sourceContent": [{"text": quoted}]}


def searched(start: int, end: int, quoted: str, index: int = 0) -> dict[str, Any]:
    return {"location": {"searchResultLocation": {"searchResultIndex": index, "start": start,
                                                  "end": end}},
            "sourceContent": [{"text": quoted}], "source": "https://faq.example/shipping"}


def cited(text: str, *citations: dict[str, Any]) -> dict[str, Any]:
    return {"citationsContent": {"content": [{"text": text}], "citations": list(citations)}}


def response(*blocks: dict[str, Any]) -> dict[str, Any]:
    made = {"output": {"message": {"role": "assistant", "content": list(blocks)}},
            "stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 1,
                                                "totalTokens": 2},
            "metrics": {"latencyMs": 1}}
    return validated(made, _OPERATION.output_shape)


CLEAN = response(
    {"text": "Here is what I found. "},
    cited("Refunds take 14 days.", char(0, 21, "Refunds take 14 days.")),
    {"text": " "},
    cited("Munich opens at 9.", chunk(0, 1, STORES[0])),
    {"text": " "},
    cited("Express shipping takes 1 day.", searched(0, 1, FAQ[0])))


def found(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


def test_a_clean_converse_answer_passes() -> None:
    report = citeaudit.audit(CLEAN, REQUEST)
    assert report.shape == "bedrock-converse"
    assert found(report) == []
    assert [s.id for s in report.snapshot] == ["document:0", "document:1", "search_result:0",
                                               "document:2"]
    assert [s.text for s in report.snapshot][3] == "Fees are waived."
    parsed = prepare(CLEAN, REQUEST).answer
    assert [(c.source_id, c.claim) for c in parsed.citations] == [
        ("document:0", 1), ("document:1", 2), ("search_result:0", 3)]


BLOCK = "$.output.message.content[1].citationsContent.citations[0]"


@pytest.mark.parametrize(("citation", "code", "path", "message"), [
    (char(1, 21, "Refunds take 14 days."), "CA204", BLOCK,
     'documentIndex 0 char range 1..21 quotes "Refunds take 14 days." but document:0 holds'
     ' "efunds take 14 days." there'),
    (char(0, 99, "Refunds take 14 days."), "CA205", BLOCK,
     f"documentIndex 0 char range 0..99 lies outside document:0 ({len(POLICY)} characters)"),
    (chunk(1, 3, STORES[1]), "CA205", BLOCK,
     "documentIndex 1 block range 1..3 lies outside document:1 (2 content blocks)"),
    (searched(1, 2, FAQ[0]), "CA204", BLOCK,
     f'searchResultIndex 0 block range 1..2 quotes "{FAQ[0]}" but search_result:0 holds'
     f' "{FAQ[1]}" there'),
    (searched(0, 1, FAQ[0], index=1), "CA202", BLOCK,
     "searchResultIndex 1 names nothing sent: the request has 1 search result"),
    (char(0, 21, "Refunds take 14 days.", index=3), "CA202", BLOCK,
     "documentIndex 3 names nothing sent: the request has 3 documents"),
    ({"location": {"web": {"domain": "kb.example"}}}, "CA404", f"{BLOCK}.location.web.url",
     'a web location needs a string "url" (a document citation returned as a web location'
     " names no source)"),
    ({"location": {"documentChar": {"documentIndex": 0, "start": "0", "end": 21}}}, "CA404",
     f"{BLOCK}.location.documentChar.start", 'documentChar needs an integer "start", not a'
     " string"),
    ({"location": {}}, "CA404", f"{BLOCK}.location", "a citation location needs one of web,"
     " documentChar, documentPage, documentChunk, searchResultLocation"),
])
def test_each_broken_citation_is_found(citation: dict[str, Any], code: str, path: str,
                                       message: str) -> None:
    answer = copy.deepcopy(CLEAN)
    answer["output"]["message"]["content"][1]["citationsContent"]["citations"] = [citation]
    report = citeaudit.audit(answer, REQUEST)
    assert (code, path, message) in [(f.code, f.path, f.message) for f in report.findings]
    assert not report.passed


def test_web_citations_name_the_pages_they_cite() -> None:
    web = {"location": {"web": {"url": "https://kb.example/refunds?utm_source=x",
                                "domain": "kb.example"}}}
    answer = response(cited("Refunds take 14 days.", web))
    report = citeaudit.audit(answer, REQUEST)
    assert found(report) == []
    assert "https://kb.example/refunds" in [s.id for s in report.snapshot]


def test_page_locations_of_a_pdf_are_checked_for_order_only() -> None:
    request = validated({"modelId": "m", "messages": [{"role": "user", "content": [
        {"document": {"format": "pdf", "name": "scan", "source": {"bytes": b"%PDF-1.7"}}}]}]},
        _OPERATION.input_shape)
    page: dict[str, Any] = {"location": {"documentPage": {"documentIndex": 0, "start": 2,
                                                          "end": 3}},
            "sourceContent": [{"text": "Refunds take 14 days."}]}
    assert citeaudit.audit(response(cited("Refunds take 14 days.", page)), request).passed
    page["location"]["documentPage"]["start"] = 0  # pages count from 1
    report = citeaudit.audit(response(cited("Refunds take 14 days.", page)), request)
    assert [f.code for f in report.findings] == ["CA205"]


def test_an_uncited_text_block_needs_its_citation() -> None:
    answer = response({"text": "Refunds take 14 days."})
    assert [f.code for f in citeaudit.audit(answer, REQUEST).findings] == ["CA302"]  # an amount
