"""Perplexity's Responses-style API, built through the ``perplexityai`` SDK's types: its
``output_text`` annotations cover characters of their part (beside the ``search_results`` and
``fetch_url_results`` items that are its snapshot).
"""

from __future__ import annotations

from typing import Any

import pytest
from perplexity.types.annotation import Annotation
from perplexity.types.content_part import ContentPart
from perplexity.types.output_item import (
    FetchURLResultsOutputItem,
    FetchURLResultsOutputItemContent,
    MessageOutputItem,
    SearchResultsOutputItem,
)
from perplexity.types.response_create_response import ResponseCreateResponse
from perplexity.types.shared.search_result import SearchResult

import citeaudit
from citeaudit.core import prepare

# Non-ASCII before the cited sentences: UTF-16 units and bytes differ from characters ("😀").
INTRO = "Great question 😀 — here is the café’s answer. "
REFUNDS = "Refunds take 14 days."
SHOP = " The shop opens at 9."
TEXT = INTRO + REFUNDS + SHOP
PAGE = "https://kb.example/refunds"
SHOP_PAGE = "https://shop.example/hours"
RESULTS = SearchResultsOutputItem(type="search_results", queries=["refunds"], results=[
    SearchResult(id=1, title="Refunds", url=PAGE, snippet="Refunds take 14 days.",
                 source="web")])
FETCHED = FetchURLResultsOutputItem(type="fetch_url_results", contents=[
    FetchURLResultsOutputItemContent(url=SHOP_PAGE, title="Hours",
                                     snippet="The shop opens at 9.")])


def note(span: tuple[int, int], url: str = PAGE, kind: str | None = "url_citation",
         ) -> Annotation:
    return Annotation(type=kind, url=url, title="t", start_index=span[0], end_index=span[1])


R_SPAN = len(INTRO), len(INTRO + REFUNDS)
S_SPAN = len(INTRO + REFUNDS), len(TEXT)
CLEAN = (note(R_SPAN), note(S_SPAN, SHOP_PAGE, kind=None))


def response(*notes: Annotation, items: tuple[Any, ...] = (RESULTS, FETCHED),
             ) -> ResponseCreateResponse:
    message = MessageOutputItem(id="m1", type="message", role="assistant", status="completed",
                                content=[ContentPart(type="output_text", text=TEXT,
                                                     annotations=list(notes))])
    return ResponseCreateResponse(id="r1", created_at=0, model="sonar", object="response",
                                  status="completed", output=[*items, message])


@pytest.mark.parametrize("dumped", [False, True], ids=["sdk", "json"])
def test_character_offsets_over_non_ascii_text_cite_their_sentences(dumped: bool) -> None:
    made = response(*CLEAN)
    answer = made.model_dump(mode="json", exclude_none=True) if dumped else made
    report = citeaudit.audit(answer, None)
    assert report.shape == "perplexity-responses"
    assert [(f.code, f.path) for f in report.findings] == []
    assert [(s.id, s.text) for s in report.snapshot] == [
        (PAGE, "Refunds take 14 days."), (SHOP_PAGE, "The shop opens at 9.")]
    assert [(c.claim, c.span) for c in prepare(answer, None).answer.citations] == [
        (1, R_SPAN), (2, S_SPAN)]  # the pleasantry needs no citation: no claim


def test_an_openai_response_is_still_read_as_openai() -> None:
    answer = response(*CLEAN).model_dump(mode="json")
    answer["output"] = answer["output"][-1:]  # no search_results: nothing of Perplexity's
    assert citeaudit.audit(answer, [{"id": "kb", "text": REFUNDS, "url": PAGE}]).shape == \
        "openai-responses"


NOTE = "$.output[2].content[0].annotations[2]"


@pytest.mark.parametrize(("made", "code", "path", "message"), [
    (note((R_SPAN[0], len(TEXT) + 2)), "CA206", NOTE,
     f"url_citation range {R_SPAN[0]}..{len(TEXT) + 2} lies outside its text ({len(TEXT)}"
     " characters)"),
    (note(R_SPAN, "https://elsewhere.example/x"), "CA201", NOTE,
     "'https://elsewhere.example/x' is not in this request's snapshot"),
    (Annotation(type="url_citation", start_index=0, end_index=3), "CA404", f"{NOTE}.url",
     'url_citation needs a string "url"'),
    (Annotation(type="url_citation", url=PAGE, start_index=0), "CA404", f"{NOTE}.end_index",
     'url_citation needs an integer "end_index"'),
])
def test_each_broken_annotation_is_found(made: Annotation, code: str, path: str,
                                         message: str) -> None:
    report = citeaudit.audit(response(*CLEAN, made), None)
    assert (code, path, message) in [(f.code, f.path, f.message) for f in report.findings]
    assert not report.passed


def test_a_search_result_without_a_url_names_its_place() -> None:
    answer = response(*CLEAN).model_dump(mode="json")
    del answer["output"][0]["results"][0]["url"]
    with pytest.raises(citeaudit.SnapshotError, match='a search result needs a string "url"'):
        citeaudit.audit(answer, None)
