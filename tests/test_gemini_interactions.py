"""Gemini Interactions API annotations, built through the ``google-genai`` SDK's types
(``google.genai.interactions``): ``url_citation``, ``file_citation`` and ``place_citation``
offsets are UTF-8 bytes of the text content they annotate, and the stream adds them as
``text_annotation_delta`` events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.genai.interactions import (
    FileCitation,
    FileSearchResultStep,
    GoogleMapsResult,
    GoogleMapsResultPlaces,
    GoogleMapsResultStep,
    GoogleSearchResult,
    GoogleSearchResultStep,
    Interaction,
    InteractionCompletedEvent,
    InteractionCreatedEvent,
    InteractionSseEventInteraction,
    ModelOutputStep,
    PlaceCitation,
    StepDelta,
    StepStart,
    StepStop,
    TextAnnotationDelta,
    TextContent,
    TextDelta,
    URLCitation,
    URLContextResult,
    URLContextResultStep,
    WordInfo,
)

import citeaudit
from citeaudit.core import prepare

# Non-ASCII before each cited sentence: bytes and characters differ ("—", "é", "’", "ü").
INTRO = "Great question — here is the café’s answer. "
REFUNDS = "Refunds take 14 days."
MUNICH = " The Münster shop opens at 9."
TEXT = INTRO + REFUNDS + MUNICH
B_REFUNDS = len(INTRO.encode()), len((INTRO + REFUNDS).encode())
B_MUNICH = B_REFUNDS[1], len(TEXT.encode())
PAGE = "https://kb.example/refunds"
PLACE = "places/ChIJmuenster"
SEARCHED = GoogleSearchResultStep(call_id="s1", result=[GoogleSearchResult(
    search_suggestions="<div>refunds</div>")])
MAPS = GoogleMapsResultStep(call_id="m1", result=[GoogleMapsResult(places=[
    GoogleMapsResultPlaces(place_id=PLACE, name="Münster shop", url="https://maps.example/m")])])


def url(span: tuple[int, int], address: str = PAGE) -> URLCitation:
    return URLCitation(url=address, title="Refunds", start_index=span[0], end_index=span[1])


def place(span: tuple[int, int], place_id: str = PLACE) -> PlaceCitation:
    return PlaceCitation(place_id=place_id, name="Münster shop", start_index=span[0],
                         end_index=span[1])


CLEAN = (url(B_REFUNDS), place(B_MUNICH))


def interaction(*notes: Any, steps: tuple[Any, ...] = (SEARCHED, MAPS),
                texts: tuple[str, ...] = (TEXT,)) -> Interaction:
    content: list[Any] = [TextContent(text=t, annotations=list(notes) if at == 0 else None)
               for at, t in enumerate(texts)]
    return Interaction(id="int-1", status="completed", steps=[
        *steps, ModelOutputStep(content=content)])


def codes(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


@pytest.mark.parametrize("dumped", [False, True], ids=["sdk", "json"])
def test_byte_offsets_over_non_ascii_text_cite_the_right_sentences(dumped: bool) -> None:
    made = interaction(*CLEAN, WordInfo())
    answer = made.model_dump(mode="json", exclude_none=True) if dumped else made
    report = citeaudit.audit(answer, None)
    assert report.shape == "gemini-interactions"
    assert codes(report) == []
    assert report.metrics.claim_coverage == 1.0
    assert [s.id for s in report.snapshot] == [PLACE, PAGE]
    spans = [c.span for c in prepare(answer, None).answer.citations]
    assert spans == [(len(INTRO), len(INTRO + REFUNDS)), (len(INTRO + REFUNDS), len(TEXT))]


def test_offsets_count_from_their_own_text_content() -> None:
    first = INTRO + REFUNDS
    made = interaction(url((0, len(MUNICH.encode()))), texts=(MUNICH, first))
    spans = [c.span for c in prepare(made, None).answer.citations]
    assert spans == [(0, len(MUNICH))]


def test_character_offsets_where_bytes_are_meant_cite_other_text() -> None:
    # No annotation quotes its text, so a range written in characters is caught only where
    # it cuts a character or leaves the text; elsewhere it is read as bytes, as the API says.
    chars = len(INTRO), len(INTRO + REFUNDS)
    cited = prepare(interaction(url(chars)), None).answer.citations
    low = len(TEXT.encode()[:chars[0]].decode())
    high = low + len(TEXT.encode()[chars[0]:chars[1]].decode())
    assert low == len(INTRO) - 5  # the range starts in the pleasantry: it cites both sentences
    assert [(c.claim, c.span) for c in cited] == [(1, (low, high)), (2, (low, high))]


NOTE = "$.steps[2].content[0].annotations[2]"


@pytest.mark.parametrize(("note", "code", "path", "message"), [
    (url((B_REFUNDS[0], len(TEXT.encode()) + 1)), "CA206", NOTE,
     f"url_citation bytes {B_REFUNDS[0]}..{len(TEXT.encode()) + 1} lie outside text content 0"
     f" ({len(TEXT.encode())} bytes)"),
    (url((15, 17)), "CA206", NOTE, "url_citation bytes 15..17 cut a character of text content"
     " 0 in half (offsets count UTF-8 bytes)"),  # inside the three bytes of "—"
    (place(B_MUNICH, "places/elsewhere"), "CA201", NOTE,
     "'places/elsewhere' is not in this request's snapshot"),
    (FileCitation(document_uri="gs://kb/policy.txt", start_index=B_REFUNDS[0],
                  end_index=B_REFUNDS[1]), "CA201", NOTE,  # no file search: not retrieved
     "'gs://kb/policy.txt' is not in this request's snapshot"),
    (URLCitation(title="no url", start_index=0, end_index=3), "CA404", f"{NOTE}.url",
     'url_citation needs a string "url"'),
    (PlaceCitation(start_index=0, end_index=3), "CA404", f"{NOTE}.place_id",
     'place_citation needs a string "place_id" or "url"'),
    (URLCitation(url=PAGE, start_index=0), "CA404", f"{NOTE}.end_index",
     'url_citation needs an integer "end_index"'),
])
def test_each_broken_annotation_is_found(note: Any, code: str, path: str, message: str,
                                         ) -> None:
    report = citeaudit.audit(interaction(*CLEAN, note), None)
    assert (code, path, message) in [(f.code, f.path, f.message) for f in report.findings]
    assert not report.passed


def test_a_cited_page_without_a_search_is_unknown_and_with_sources_is_known() -> None:
    made = interaction(url(B_REFUNDS), steps=(MAPS,))
    assert "CA201" in [f.code for f in citeaudit.audit(made, None).findings]
    given = [{"id": "kb-refunds", "text": REFUNDS, "url": PAGE + "?utm_source=x"}]
    report = citeaudit.audit(made, given)
    assert codes(report) == [("CA302", None)] or report.passed, report.findings
    assert [c.source_id for c in prepare(made, given).answer.citations] == ["kb-refunds"]


FETCHED = URLContextResultStep(call_id="u1", result=[URLContextResult(url=PAGE)])
FILES = FileSearchResultStep(call_id="f1")
DOCUMENT = FileCitation(document_uri="gs://kb/policy.txt", file_name="policy.txt",
                        start_index=B_REFUNDS[0], end_index=B_REFUNDS[1])


def test_fetched_urls_and_searched_files_are_the_snapshot() -> None:
    report = citeaudit.audit(interaction(url(B_REFUNDS), DOCUMENT, place(B_MUNICH),
                                         steps=(FETCHED, FILES, MAPS)), None)
    assert codes(report) == []
    assert sorted(s.id for s in report.snapshot) == sorted([PAGE, PLACE, "gs://kb/policy.txt"])


def test_an_interaction_without_model_output_is_ca404() -> None:
    report = citeaudit.audit(Interaction(id="i", status="completed", steps=[SEARCHED]), None)
    assert ("CA404", "$.steps") in codes(report)
    assert "an interaction needs a model_output step" in [f.message for f in report.findings]


def stream_of(final: Interaction) -> list[Any]:
    """The events the API streams for ``final``: its text in two deltas, then each
    annotation in a delta of its own.
    """
    header = InteractionSseEventInteraction(id="int-1", status="in_progress")
    events: list[Any] = [InteractionCreatedEvent(interaction=header)]
    for index, step in enumerate(final.steps or []):
        if not isinstance(step, ModelOutputStep):
            events += [StepStart(index=index, step=step), StepStop(index=index)]
            continue
        events.append(StepStart(index=index, step=ModelOutputStep(content=[])))
        for content in step.content or []:
            assert isinstance(content, TextContent)
            half = len(content.text) // 2
            events += [StepDelta(index=index, delta=TextDelta(text=piece))
                       for piece in (content.text[:half], content.text[half:])]
            events += [StepDelta(index=index, delta=TextAnnotationDelta(annotations=[note]))
                       for note in content.annotations or []]
        events.append(StepStop(index=index))
    done = InteractionSseEventInteraction(id="int-1", status="completed")
    return [*events, InteractionCompletedEvent(interaction=done)]


@pytest.mark.parametrize("notes", [CLEAN, (url(B_REFUNDS), place(B_MUNICH, "places/x"))],
                         ids=["clean", "unknown-place"])
def test_streamed_annotation_deltas_audit_as_the_interaction(notes: tuple[Any, ...]) -> None:
    final = interaction(*notes)
    stream = citeaudit.EventStream()
    shown = "".join(stream.feed(event) for event in stream_of(final))
    assert shown == TEXT
    expected = citeaudit.audit(final, None).to_dict()
    assert stream.finish().to_dict() == expected


def test_a_recorded_stream_is_checked_from_jsonl(tmp_path: Path, run: Any) -> None:
    final = interaction(url(B_REFUNDS), place(B_MUNICH, "places/x"))
    recorded = tmp_path / "events.jsonl"
    recorded.write_text("".join(json.dumps(e.model_dump(mode="json", exclude_none=True)) + "\n"
                                for e in stream_of(final)))
    whole = tmp_path / "interaction.json"
    whole.write_text(json.dumps(final.model_dump(mode="json", exclude_none=True)))
    streamed = run("check", str(recorded), "--format", "json")
    assert streamed.code == 1
    expected = run("check", str(whole), "--format", "json")
    assert json.loads(streamed.out) == json.loads(expected.out.replace(str(whole),
                                                                       str(recorded)))


def test_a_broken_streamed_annotation_is_a_ca404_not_a_lost_citation() -> None:
    events = [e.model_dump(mode="json", exclude_none=True) for e in stream_of(
        interaction(*CLEAN))]
    deltas = [e for e in events if e.get("delta", {}).get("type") == "text_annotation_delta"]
    deltas[0]["delta"]["annotations"] = 5  # not a list of annotations
    stream = citeaudit.EventStream()
    for event in events:
        stream.feed(event)
    report = stream.finish()
    assert ("CA404", "$.steps[2].content[0].annotations[0]") in codes(report)
    assert not report.passed
