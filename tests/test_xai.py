"""xAI inline citations: the positions of the marker in the answer, not of the claim.

The ``xai-sdk`` responses are protobuf messages (``chat_pb2.GetChatCompletionResponse``), and
the SDK cannot be installed beside this environment (it pins ``packaging<26``), so the
fixtures are its messages' JSON written by hand, field for field as ``json_format``
writes them: camelCase by default, snake_case with ``preserving_proto_field_name``.
"""

from __future__ import annotations

from typing import Any

import pytest

import citeaudit
from citeaudit.core import prepare

PAGE = "https://kb.example/refunds"
POST = "https://x.com/shop/status/1"
REFUNDS = "Refunds take 14 days"
SHOP = "The shop opens at 9"
MARK1 = f"[[1]]({PAGE})"
MARK2 = f"[[2]]({POST})"
TEXT = f"{REFUNDS} {MARK1}. {SHOP} {MARK2}."


def inline(number: str, span: tuple[int, int] | None, kind: str = "web_citation",
           **inner: Any) -> dict[str, Any]:
    """An ``InlineCitation`` as ``preserving_proto_field_name`` JSON (None: no span)."""
    made: dict[str, Any] = {"id": number, kind: inner or {"url": PAGE}}
    if span is not None:
        made |= {"start_index": span[0], "end_index": span[1]}
    return made


def where(marker: str, text: str = TEXT) -> tuple[int, int]:
    return text.index(marker), text.index(marker) + len(marker)


CLEAN = (inline("1", where(MARK1)), inline("2", where(MARK2), "x_citation", url=POST))


def response(*notes: dict[str, Any], text: str = TEXT, urls: tuple[str, ...] = (PAGE, POST),
             camel: bool = False) -> dict[str, Any]:
    made = {"id": "r1", "model": "grok-4", "citations": list(urls), "outputs": [
        {"index": 0, "finish_reason": "REASON_STOP", "message": {
            "role": "ROLE_ASSISTANT", "content": text, "citations": list(notes)}}]}
    return _camel(made) if camel else made


def _camel(value: Any) -> Any:
    """JSON as ``json_format.MessageToDict`` writes it by default: field names camelCase."""
    if isinstance(value, list):
        return [_camel(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]): _camel(v)
            for k, v in value.items()}


@pytest.mark.parametrize("camel", [False, True], ids=["snake_case", "camelCase"])
def test_each_marker_cites_the_sentence_it_follows(camel: bool) -> None:
    answer = response(*CLEAN, camel=camel)
    report = citeaudit.audit(answer, None)
    assert report.shape == "xai"
    assert [(f.code, f.path) for f in report.findings] == []
    parsed = prepare(answer, None).answer
    assert [c.text for c in parsed.claims] == [f"{REFUNDS}.", f"{SHOP}."]
    assert parsed.text == f"{REFUNDS}. {SHOP}."
    assert [(c.claim, c.source_id, c.marker) for c in parsed.citations] == [
        (1, PAGE, MARK1), (2, POST, MARK2)]


def test_markers_after_the_full_stop_cite_the_sentence_before() -> None:
    text = f"{REFUNDS}.{MARK1} {SHOP}. {MARK2}"
    parsed = prepare(response(inline("1", where(MARK1, text)),
                              inline("2", where(MARK2, text), "x_citation", url=POST),
                              text=text), None).answer
    assert [c.text for c in parsed.claims] == [f"{REFUNDS}.", f"{SHOP}."]
    assert [c.claim for c in parsed.citations] == [1, 2]


def test_a_sentence_after_the_last_marker_is_uncited() -> None:
    text = f"{REFUNDS} {MARK1}. Cards cost 5 dollars."
    report = citeaudit.audit(response(inline("1", where(MARK1, text)), text=text), None)
    assert [f.claim for f in report.findings] == [2]


def test_collections_citations_quote_their_chunk() -> None:
    text = f"{REFUNDS} [[1]]."
    chunk = inline("1", where("[[1]]", text), "collections_citation", file_id="file-1",
                   chunk_id="chunk-7", chunk_content="Refunds take 14 days.", score=0.9,
                   collection_ids=["c1"])
    report = citeaudit.audit(response(chunk, text=text, urls=()), None)
    assert [(f.code, f.path) for f in report.findings] == []
    assert [(s.id, s.text) for s in report.snapshot] == [("chunk-7", "Refunds take 14 days.")]


NOTE = "$.outputs[0].message.citations[2]"


@pytest.mark.parametrize(("note", "code", "path", "message"), [
    (inline("1", (len(TEXT) - 3, len(TEXT) + 1)), "CA206", NOTE,
     f"marker range {len(TEXT) - 3}..{len(TEXT) + 1} lies outside the answer text"
     f" ({len(TEXT)} characters)"),
    (inline("1", (0, len(REFUNDS))), "CA206", NOTE,  # the claim's range, not the marker's
     f"characters 0..{len(REFUNDS)} hold {REFUNDS!r}, not a marker of citation '1'"),
    (inline("1", where(MARK1), url="https://elsewhere.example/"), "CA201", NOTE,
     "[[1]](https://kb.example/refunds) cites 'https://elsewhere.example', which is not in"
     " this request's snapshot"),
    ({"id": "1", "start_index": 0, "end_index": 3}, "CA404", f"{NOTE}.web_citation",
     "an inline citation needs a web_citation, x_citation or collections_citation"),
    ({"start_index": 0, "end_index": 3, "web_citation": {"url": PAGE}}, "CA404", f"{NOTE}.id",
     'an inline citation needs a string "id"'),
    (inline("1", None) | {"start_index": "22", "end_index": 52}, "CA404",
     f"{NOTE}.start_index", 'an inline citation needs an integer "start_index", not a string'),
    (inline("1", where(MARK1), "web_citation", link=PAGE), "CA404", f"{NOTE}.web_citation.url",
     'web_citation needs a string "url"'),
])
def test_each_broken_inline_citation_is_found(note: dict[str, Any], code: str, path: str,
                                              message: str) -> None:
    report = citeaudit.audit(response(*CLEAN, note), None)
    assert (code, path, message) in [(f.code, f.path, f.message) for f in report.findings]
    assert not report.passed


def test_a_response_without_an_assistant_message_is_ca404() -> None:
    answer = response(*CLEAN)
    answer["outputs"][0]["message"]["role"] = "ROLE_TOOL"
    report = citeaudit.audit(answer, None)
    assert ("CA404", "$.outputs") in [(f.code, f.path) for f in report.findings]


def test_a_citations_list_of_another_type_names_its_place() -> None:
    with pytest.raises(citeaudit.SnapshotError, match=r"a citation must be a URL string"):
        citeaudit.audit(response(*CLEAN, urls=(PAGE, 5)), None)  # type: ignore[arg-type]
