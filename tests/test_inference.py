"""Grammar inference reads the snapshot and then the answer; shapes no grammar in use reads
are CA102, once per answer.
"""

from __future__ import annotations

from typing import Any

import pytest

import citeaudit

NUMBERED = ["Refunds take 30 days.", "Reports are due in 60 days.", "The desk opens at 9."]
S_IDS = {"sources": [{"id": f"S{n}", "text": t} for n, t in enumerate(NUMBERED, 1)]}
WRITTEN = {"sources": [{"id": i, "text": t} for i, t in zip(("3", "1", "2"), NUMBERED,
                                                             strict=True)]}
NAMED = {"sources": [{"id": i, "text": t} for i, t in zip(("faq", "policy", "desk"), NUMBERED,
                                                          strict=True)]}
EXPERT = {"sources": [{"id": f"ExpertQA_9f1c#ref{n}", "text": t}
                      for n, t in enumerate(NUMBERED, 1)]}
SPARSE = {"sources": [{"id": i, "text": t} for i, t in zip(("12", "40", "7"), NUMBERED,
                                                           strict=True)]}
PADDED = {"sources": [{"id": i, "text": t} for i, t in zip(("07", "03", "11"), NUMBERED,
                                                           strict=True)]}
DOCS = {"sources": [{"id": f"doc_{n}", "text": t} for n, t in enumerate(NUMBERED, 1)]}
EMPTY: list[str] = []

# (snapshot, answer) -> (grammar, cited ids as resolved, codes)
TABLE: list[tuple[str, Any, str, str, list[str | None], list[str]]] = [
    ("1..N, [n]", NUMBERED, "Refunds take 30 days [1].", "numeric,S,source", ["1"], []),
    ("1..N, [Sn]", NUMBERED, "Refunds take 30 days [S1].", "numeric,S,source", ["1"], []),
    ("1..N, [Source n] is read", NUMBERED, "Refunds take 30 days [Source 1].",
     "numeric,S,source", ["1"], []),
    ("S1..SN, [Sn]", S_IDS, "Refunds take 30 days [S1].", "S", ["S1"], []),
    ("S1..SN, [n]", S_IDS, "Refunds take 30 days [1].", "S", [], ["CA102", "CA302"]),
    ("empty, [Source: n]", EMPTY, "Refunds take 30 days [Source: 4].", "source", [None],
     ["CA202", "CA207"]),
    ("empty, [n]", EMPTY, "Refunds take 30 days [4].", "numeric,S", [None],
     ["CA202", "CA207"]),
    ("ids out of order, a range", WRITTEN, "Refunds take 30 days [1-3].", "numeric,S",
     ["1", "2", "3"], []),
    ("ids out of order, [a and b]", WRITTEN, "Refunds take 30 days [2 and 3].", "numeric,S",
     ["2", "3"], []),
    ("ids out of order, [n]", WRITTEN, "Refunds take 30 days [3].", "numeric,S", ["3"], []),
    # Ids that are all numbers hold no word: bracketed words are prose, never a citation.
    ("ids out of order, [EMIM][TfO] is prose", WRITTEN,
     "Refunds take 30 days [3]. The salt [EMIM][TfO] melts at 9 degrees [1].", "numeric,S",
     ["3", "1"], []),
    ("numbers with gaps, [Online] is prose", SPARSE,
     "Refunds take 30 days [40][7]. Lee's Tides [Online] says so too [12].",
     "numeric,S", ["40", "7", "12"], []),
    ("numbers with gaps, [Sn]", SPARSE, "Refunds take 30 days [S12].", "numeric,S", ["12"],
     []),
    ("numbers with leading zeros stay ids", PADDED, "Refunds take 30 days [07].", "id", ["07"],
     []),
    # Two shapes, both naming ids of the snapshot: both are read.
    ("1..N, [Source: n] and [n] mixed", NUMBERED,
     "Refunds take 30 days [Source: 1]. Reports are due in 60 days [2].", "numeric,S,source",
     ["1", "2"], []),
    ("1..N, [n] and [Sources: n, m] mixed", NUMBERED,
     "Refunds take 30 days [1]. Reports are due in 60 days [Sources: 2, 3].",
     "numeric,S,source", ["1", "2", "3"], []),
    ("prefixed ids, [doc_n] and [Source n] mixed", DOCS,
     "Refunds take 30 days [doc_1]. Reports are due in 60 days [Source 2].",
     "prefix:doc_,source", ["doc_1", "doc_2"], []),
    ("1..N, [Source: n] out of range", NUMBERED,
     "Refunds take 30 days [Source: 9]. Reports are due in 60 days [2].", "numeric,S,source",
     [None, "2"], ["CA202"]),
    # "Retrieved [Online]." is a piece of a bibliography entry: no citation asked of it.
    ("ids out of order, [Online] is prose", WRITTEN,
     "Refunds take 30 days [1-3]. Retrieved [Online].", "numeric,S", ["1", "2", "3"], []),
    ("prefixed ids, bare numbers", EXPERT, "Refunds take 30 days [1]. Reports [2].",
     "numeric,S", ["ExpertQA_9f1c#ref1", "ExpertQA_9f1c#ref2"], []),
    ("prefixed ids, out of range", EXPERT, "Refunds take 30 days [1][9].", "numeric,S",
     ["ExpertQA_9f1c#ref1", None], ["CA202"]),
    ("prefixed ids, written whole", DOCS, "Refunds take 30 days [doc_1].", "prefix:doc_",
     ["doc_1"], []),
    ("prefixed ids, [Source n]", DOCS, "Refunds take 30 days [Source: 2].", "source",
     ["doc_2"], []),
    ("named ids", NAMED, "Refunds take 30 days [faq]. Due in 60 days [policy].", "id",
     ["faq", "policy"], []),
    ("named ids, [n] does not resolve", NAMED, "Refunds take 30 days [1].", "id", [None],
     ["CA201"]),
    ("no markers", NUMBERED, "Refunds take 30 days.", "numeric,S,source", [], ["CA302"]),
]


@pytest.mark.parametrize(("snapshot", "answer", "grammar", "resolved", "codes"),
                         [case[1:] for case in TABLE], ids=[case[0] for case in TABLE])
def test_inference_table(snapshot: Any, answer: str, grammar: str,
                         resolved: list[str | None], codes: list[str]) -> None:
    context = citeaudit.prepare(answer, snapshot)
    assert context.grammar == grammar
    assert list(context.resolved) == resolved
    report = citeaudit.audit(answer, snapshot)
    assert sorted({f.code for f in report.findings}) == codes
    assert report.grammar == grammar
    assert report.grammar_reason
    assert report.to_dict()["grammar_reason"] == report.grammar_reason


def test_the_reason_says_what_decided() -> None:
    assert citeaudit.audit("A [1].", NUMBERED).grammar_reason == "the snapshot's ids: 1..3"
    assert citeaudit.audit("A [1].", NUMBERED, grammar="numeric").grammar_reason == \
        "asked for"
    switched = citeaudit.audit("Refunds take 30 days [Source: 2].", DOCS).grammar_reason
    assert switched == ("the answer's markers under source: 1 cited ids resolve (the"
                        " snapshot's ids, doc_1..doc_3, proposed prefix:doc_)")


@pytest.mark.parametrize(("answer", "shown", "advice"), [
    ("Refunds are quick [doc1].", "[doc1]", "the id grammar reads it"),
    ("Refunds are quick 【4:0†source】.", "【4:0†source】", "a regex grammar would read it"),
    ("Refunds are quick (Passage ID 3).", "(Passage ID 3)", "a regex grammar would read it"),
    ("Refunds are quick (source 2).", "(source 2)", "a regex grammar would read it"),
    ("Refunds are quick [Ref 2]. Reports are late [ref 3].", "[Ref 2], [ref 3]",
     "a regex grammar would read them"),
])
def test_unread_shapes_are_one_warning(answer: str, shown: str, advice: str) -> None:
    report = citeaudit.audit(answer, NUMBERED)
    unread = [f for f in report.findings if f.code == "CA102"]
    assert len(unread) == 1
    assert unread[0].severity is citeaudit.Severity.WARNING
    assert f"({shown});" in unread[0].message
    assert unread[0].message.endswith(advice + (" (--grammar regex:PATTERN)" if "regex" in advice
                                               else f" (--grammar {advice.split()[1]})"))
    assert unread[0].claim == 1
    codes = {f.code for f in report.findings}
    assert "CA302" not in codes  # the digits of an unread shape are no quantity
    assert "CA301" in codes  # and the claim is uncited


@pytest.mark.parametrize("answer", [
    "Refunds take 30 days [1].",
    "See [the policy](https://hr.example/policy) [1].",
    "Refunds take 30 days [citation needed] [1].",
    "Refunds take 30 days [1]. Retrieved [Online] [2].",
    "Use `x[1]` in code [2].",
    "Refunds (see below) take 30 days [1].",
    "```\n[Source 1]\n```\nRefunds take 30 days [1].",
])
def test_prose_and_read_markers_are_not_unread(answer: str) -> None:
    assert "CA102" not in {f.code for f in citeaudit.audit(answer, NUMBERED).findings}


def test_claim_lists_are_checked_claim_by_claim() -> None:
    report = citeaudit.audit(["Refunds take 30 days [1].", "Due in 60 days [doc2]."],
                             NUMBERED)
    (unread,) = [f for f in report.findings if f.code == "CA102"]
    assert (unread.claim, unread.span, unread.marker) == (2, (15, 21), "[doc2]")
