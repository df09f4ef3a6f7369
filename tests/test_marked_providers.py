"""Perplexity and Azure OpenAI "on your data": markers in the text, 1-based into the
passages the response returns beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openai.types.chat import ChatCompletion

import citeaudit

RESULTS = [{"title": "Refunds", "url": "https://a.example/r", "date": "2026-01-02",
            "snippet": "Refunds take 14 days."},
           {"title": "Shipping", "url": "https://a.example/s", "snippet": "Express takes 1 day."}]


def perplexity(content: str, **extra: Any) -> dict[str, Any]:
    # An OpenAI-compatible completion with Perplexity's own fields beside it.
    completion = ChatCompletion.model_validate({
        "id": "p1", "model": "sonar", "object": "chat.completion", "created": 0,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}], **extra})
    return completion.model_dump(mode="json", exclude_none=True)


def azure(content: str) -> dict[str, Any]:
    return {"id": "a1", "object": "chat.completion", "created": 0, "model": "gpt-x",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": content, "context": {"intent": "[]", "citations": [
                    {"content": "Refunds take 14 days.", "title": "Refunds", "url": None,
                     "filepath": "refunds.md", "chunk_id": "0"},
                    {"content": "Shipping costs 5 dollars.", "title": "Shipping",
                     "filepath": "ship.md", "chunk_id": "0"}]}}}]}


def found(report: citeaudit.Report) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in report.findings]


def test_perplexity_markers_are_read_against_its_search_results() -> None:
    clean = citeaudit.audit(perplexity("Refunds take 14 days [1]. Express takes 1 day [2].",
                                       search_results=RESULTS), None)
    assert (clean.shape, clean.passed, clean.findings) == ("perplexity", True, ())
    assert clean.snapshot.get("1").url == "https://a.example/r"  # type: ignore[union-attr]
    bad = citeaudit.audit(perplexity("Refunds take 14 days [1][3]. Prices rose 5%.",
                                     search_results=RESULTS), None)
    assert found(bad) == [("CA202", "[3] cites 3, outside the 2 retrieved sources (1..2)"),
                          ("CA302", "claim states a number or quantity but cites no source:"
                                    ' "Prices rose 5%."')]


def test_perplexity_older_citations_list_of_urls() -> None:
    report = citeaudit.audit(perplexity("Refunds take 14 days [2].",
                                        citations=["https://a.example/r"]), None)
    assert found(report) == [("CA202", "[2] cites 2, outside the 1 retrieved sources (1..1)")]


def test_azure_on_your_data_doc_markers() -> None:
    clean = citeaudit.audit(azure("Refunds take 14 days [doc1]. Shipping costs 5 dollars"
                                  " [doc2]."), None)
    assert (clean.shape, clean.passed) == ("azure-on-your-data", True)
    assert clean.snapshot.get("doc1").metadata["filepath"] == "refunds.md"  # type: ignore[union-attr]
    bad = citeaudit.audit(azure("Refunds take 14 days [doc3]."), None)
    assert found(bad) == [("CA202", "[doc3] cites doc3, outside the 2 retrieved sources"
                                    " (doc1..doc2)")]


def test_the_command_line_reads_the_response_alone(tmp_path: Path, run: Any) -> None:
    response = tmp_path / "response.json"
    response.write_text(json.dumps(azure("Refunds take 14 days [doc1].")))
    assert run("check", str(response)).code == 0
    response.write_text(json.dumps(perplexity("Refunds take 14 days [9].",
                                              search_results=RESULTS)))
    result = run("check", str(response))
    assert result.code == 1
    assert "CA202 error: [9] cites 9, outside the 2 retrieved sources (1..2)" in result.out
