"""The project checks itself: every rule has a code, docs, a check and a test that triggers it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from citeaudit import RULES, Config, audit
from citeaudit.core._checks import CODES

DOCS = (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
PASSAGES = ["Refunds take 30 days.", "Fees apply."]
STRUCTURED_SOURCES = {"sources": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]}
ANTHROPIC_REQUEST = {"messages": [{"role": "user", "content": [
    {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                    "data": "Refunds take 30 days."}}]}]}


def ANTHROPIC_RESPONSE(citation: tuple[str, int, int, int, str | None]) -> dict[str, Any]:  # noqa: N802
    """A response whose one text block carries one char_location citation."""
    kind, document, start, end, quoted = citation
    return {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Refunds take 30 days.", "citations": [
            {"type": kind, "document_index": document, "start_char_index": start,
             "end_char_index": end, "cited_text": quoted}]}]}


# code -> (answer, sources, audit keywords): the smallest input that triggers it.
TRIGGERS: dict[str, tuple[Any, Any, dict[str, Any]]] = {
    "CA101": ("Refunds take 30 days [1-].", PASSAGES, {}),
    "CA102": ("Refunds take 30 days [doc1].", PASSAGES, {}),
    "CA201": ("Refunds take 30 days [doc_9].", {"sources": [{"id": "doc_1", "text": "x"},
                                                            {"id": "kb", "text": "y"}]}, {}),
    "CA202": ("Refunds take 30 days [3].", PASSAGES, {}),
    "CA203": ({"status": "answered", "text": "x", "citations": ["a", "a"]},
              STRUCTURED_SOURCES, {}),
    "CA204": (ANTHROPIC_RESPONSE(("char_location", 0, 1, 9, "Refunds")), ANTHROPIC_REQUEST, {}),
    "CA205": (ANTHROPIC_RESPONSE(("char_location", 0, 0, 999, None)), ANTHROPIC_REQUEST, {}),
    "CA206": ({"object": "chat.completion", "choices": [{"message": {
        "content": "Refunds take 30 days.", "annotations": [{"type": "url_citation",
                                                            "url_citation": {
            "url": "https://a.example", "start_index": 0, "end_index": 99}}]}}]}, PASSAGES, {}),
    "CA207": ("Refunds take 30 days [1].", [], {}),
    "CA301": ("Refunds are possible.", PASSAGES, {}),
    "CA302": ("Refunds take 30 days.", PASSAGES, {}),
    "CA401": ({"status": "answered", "text": "x", "citations": []}, STRUCTURED_SOURCES, {}),
    "CA402": ({"status": "unknown", "text": "x", "citations": ["a"]}, STRUCTURED_SOURCES, {}),
    "CA403": ("## Refunds\n", PASSAGES, {"config": Config(extend_select=("CA403",))}),
    "CA404": ({"status": "maybe", "text": "x", "citations": ["a"]}, STRUCTURED_SOURCES, {}),
    "CA501": ("Refunds take 14 days [1].", PASSAGES, {"config": Config(support="lexical")}),
    "CA502": ('Refunds are "never late" [1].', PASSAGES, {"config": Config(support="lexical")}),
    "CA503": ("Parking is free [2].", PASSAGES, {"config": Config(support="lexical")}),
    # Made once the judge below is installed: a configuration names a judge there is.
    "CA504": ("Refunds never take 30 days [1].", PASSAGES,
              {"config": lambda: Config(support="contradicting")}),
}
# A judge that finds every claim contradicted, as an NLI or LLM judge can (see
# test_model_judges and test_llm_judge for theirs): the check's part, without a model.
CONTRADICTING_JUDGE = """
from citeaudit.core import Judgement


class Contradicting:
    name = "contradicting"
    threshold = 0.5

    def __init__(self, threshold):
        pass

    def judge(self, pairs):
        return [Judgement(0.0, False, "", passages[0][0], (), contradicted=True)
                for _, passages in pairs]
"""


def test_every_rule_has_a_trigger() -> None:
    assert set(TRIGGERS) == set(RULES)


def test_every_rule_is_produced_by_one_check() -> None:
    produced = [code for codes in CODES.values() for code in codes]
    assert sorted(produced) == sorted(RULES)


@pytest.mark.parametrize("code", sorted(TRIGGERS))
def test_trigger(code: str, plugins: Any) -> None:
    plugins({"contradicting_judge": CONTRADICTING_JUDGE},
            {"citeaudit.judges": {"contradicting": "contradicting_judge:Contradicting"}})
    answer, sources, options = TRIGGERS[code]
    report = audit(answer, sources, **{key: value() if callable(value) else value
                                       for key, value in options.items()})
    assert code in {f.code for f in report.findings}
    assert not report.passed or RULES[code].severity == "warning"


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_is_documented(code: str) -> None:
    rule = RULES[code]
    heading = re.search(rf"^## {code} {re.escape(rule.name)}$", DOCS, re.MULTILINE)
    assert heading, f"docs/rules.md lacks a '## {code} {rule.name}' section"
    section = DOCS[heading.end():].split("\n## ", 1)[0]
    assert f"Default severity: {rule.severity.value}" in section
    assert "```" in section, "each rule's docs show an example"


def test_docs_name_no_unknown_codes() -> None:
    assert set(re.findall(r"^## (CA\d{3}) ", DOCS, re.MULTILINE)) == set(RULES)


WARRANTY = ("Our warranty covers manufacturing defects for 2 years from the date of purchase,"
            " as stated in the terms.")


@pytest.mark.parametrize(("quoted", "said", "held"), [
    (WARRANTY.replace("2 years", "3 years"), '"…defects for 3 years from the date of…"',
     '"…defects for 2 years from the date of…"'),
    (WARRANTY.replace("Our", "Your"), '"Your warranty covers manufacturing…"',
     '"Our warranty covers manufacturing…"'),
    (WARRANTY.replace("terms.", "contract."), '"…stated in the contract."',
     '"…stated in the terms."'),
    (WARRANTY[:60], '"…years from t"', '"…years from the date of purchase, as…"'),
    ("Refunds", '"Refunds"', '"Our warranty covers manufacturing…"'),
])
def test_ca204_quotes_both_texts_where_they_differ(quoted: str, said: str, held: str) -> None:
    request = {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                        "data": WARRANTY}}]}]}
    response = {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "The warranty lasts a while.", "citations": [
            {"type": "char_location", "document_index": 0, "start_char_index": 0,
             "end_char_index": len(WARRANTY), "cited_text": quoted}]}]}
    (finding,) = audit(response, request).findings
    assert finding.message == (f"document_index 0 char range 0..{len(WARRANTY)} quotes {said}"
                               f" but document:0 holds {held} there")
