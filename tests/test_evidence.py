"""Support evidence: every judgement points at the passage text it rests on (``[start, end)``
offsets into the passage as the snapshot holds it, and the quote there), the outcome tells a
contradiction from missing support, and the check report, the chips and the HTML report show
both. The model judges' own tests are in test_model_judges.py and test_llm_judge.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeaudit
from citeaudit import Config
from citeaudit.cli import ExitCode
from citeaudit.core import Judgement
from citeaudit.support._judges import locate, placed_windows, windows
from citeaudit.support._lexical import LexicalJudge
from test_properties import PROFILE

LEXICAL = Config(support="lexical")
POLICY = ("Expense reports are due within 60 days.\n\n  Reimbursements settle within 30 days"
          " of approval.\tPer diem claims follow the same schedule.\n")
WORDS = ["refund", "Refunds", "paid", "within", "30 days", "14 days", "not", "never", "desk",
         "café", "ß", "İstanbul", "fees", "apply"]
SEPARATORS = [". ", ".\n", "\n\n", "! ", "? ", " ", "\t", ".  \u00a0", "。"]
# Passages of sentences over few words, with odd white space and characters that change
# length when case-folded: offsets must hold for them all.
PASSAGE = st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
                             st.sampled_from(SEPARATORS)), max_size=8).map(
    lambda parts: "".join(" ".join(words) + end for words, end in parts))
CLAIM = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


def _assert_placed(judgement: Judgement, passages: list[tuple[str, str]]) -> None:
    texts = dict(passages)
    for span in judgement.spans:
        assert span.source_id in texts
        assert 0 <= span.start < span.end <= len(texts[span.source_id])
        assert texts[span.source_id][span.start:span.end] == span.quote
        assert span.quote == span.quote.strip()
    assert bool(judgement.spans) != bool(judgement.note)


@PROFILE
@given(CLAIM, st.lists(PASSAGE, min_size=1, max_size=3))
def test_lexical_spans_point_into_their_passages(claim: str, texts: list[str]) -> None:
    passages = [(str(n), text) for n, text in enumerate(texts, 1)]
    _assert_placed(LexicalJudge().judge_one(claim, passages), passages)


@pytest.mark.parametrize(("claim", "quote"), [
    ("Reimbursements settle within 30 days of approval.",
     "Reimbursements settle within 30 days of approval."),
    ("Per diem claims settle within 30 days.",  # two sentences: the tab between them kept
     "Reimbursements settle within 30 days of approval.\tPer diem claims follow the same"
     " schedule."),
    ("Expense reports are due within 60 days.", "Expense reports are due within 60 days."),
])
def test_the_lexical_span_is_the_best_window_as_written(claim: str, quote: str) -> None:
    judgement = LexicalJudge().judge_one(claim, [("p", POLICY)])
    (span,) = judgement.spans
    assert (span.source_id, span.quote) == ("p", quote)
    assert span.start == POLICY.index(quote)
    assert judgement.outcome == "supported"


@pytest.mark.parametrize(("claim", "contradicting"), [
    ("Reimbursements settle within 14 days of approval.",
     "Reimbursements settle within 30 days of approval."),
    ("Expense reports are due within 90 days.", "Expense reports are due within 60 days."),
])
def test_a_contradicted_amount_points_at_the_sentence_that_states_another(
        claim: str, contradicting: str) -> None:
    judgement = LexicalJudge().judge_one(claim, [("p", POLICY)])
    assert judgement.outcome == "contradicted"
    assert [code for code, _ in judgement.problems] == ["CA501"]
    assert [span.quote for span in judgement.spans] == [contradicting]


@pytest.mark.parametrize(("claim", "note"), [
    ("Parking is free.", "no passage sentence shares a content word with the claim"),
    ("It is.", "the claim has no content words to find in the passages"),
])
def test_no_span_says_why(claim: str, note: str) -> None:
    judgement = LexicalJudge().judge_one(claim, [("p", POLICY)])
    assert judgement.spans == ()
    assert judgement.note == note


@pytest.mark.parametrize(("quote", "text", "found"), [
    ("30 days", "Refunds take 30 days.", "30 days"),
    ("refunds  TAKE\n30 days", "Refunds take 30 days.", "Refunds take 30 days"),
    ("  take 30  ", "Refunds take\u00a0 30 days.", "take\u00a0 30"),
    ("strasse", "Die Straße ist lang.", "Straße"),  # ß folds to ss: the span is the word
    ("İSTANBUL", "From İstanbul.", "İstanbul"),
    ("Refunds take 9 days", "Refunds take 30 days.", None),
    ("", "Refunds take 30 days.", None),
    ("   ", "Refunds take 30 days.", None),
])
def test_locate_exact_then_folded(quote: str, text: str, found: str | None) -> None:
    place = locate(quote, text)
    assert (None if place is None else text[place[0]:place[1]]) == found


@given(st.text(max_size=40), st.integers(0, 40), st.integers(0, 40))
def test_a_located_quote_is_always_in_the_text(text: str, start: int, length: int) -> None:
    quote = text[start:start + length]
    place = locate(quote.swapcase(), text)
    if place is not None:
        assert 0 <= place[0] < place[1] <= len(text)
    if quote.strip():
        assert locate(quote, text) is not None


@given(PASSAGE)
def test_placed_windows_are_the_windows_with_their_places(text: str) -> None:
    placed = placed_windows(text)
    assert [window for window, _, _ in placed] == windows(text)
    for window, start, end in placed:
        assert " ".join(text[start:end].split()) == " ".join(window.split())


def test_the_check_report_has_a_support_section() -> None:
    sources = [POLICY, "Questions go to the HR service desk."]
    answer = ("Reimbursements settle within 14 days [1]. Questions go to the desk [2]."
              " Parking is free [2].")
    data = citeaudit.audit(answer, sources, config=LEXICAL).to_dict()
    assert [(s["claim"], s["outcome"]) for s in data["support"]] == [
        (1, "contradicted"), (2, "supported"), (3, "unsupported")]
    contradicted, supported, unsupported = data["support"]
    (span,) = supported["evidence"]
    assert span == {"source_id": "2", "start": 0, "end": 36,
                    "quote": "Questions go to the HR service desk."}
    assert contradicted["evidence"][0]["quote"].startswith("Reimbursements settle within 30")
    assert (unsupported["evidence"], unsupported["note"]) == (
        [], "no passage sentence shares a content word with the claim")
    assert citeaudit.audit(answer, sources).to_dict()["support"] is None  # no judge


def test_check_json_on_the_command_line(run: Any, tmp_path: Path) -> None:
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps([POLICY]))
    result = run("check", str(sources), "-", "--support", "lexical", "--format", "json",
                 stdin=b"Per diem claims follow the same schedule [1].")
    (judged,) = json.loads(result.out)["support"]
    (span,) = judged["evidence"]
    assert POLICY[span["start"]:span["end"]] == span["quote"] == \
        "Per diem claims follow the same schedule."


def test_a_switched_off_check_still_reports_support() -> None:
    report = citeaudit.audit("Reimbursements settle within 14 days [1].", [POLICY],
                             config=Config(support="lexical", ignore=("CA5",)))
    assert report.findings == ()
    assert report.support is not None
    assert report.support[0].judgement.outcome == "contradicted"


def test_reports_with_support_survive_pickling() -> None:
    import pickle  # noqa: PLC0415

    report = citeaudit.audit("Reimbursements settle within 30 days [1].", [POLICY],
                             config=LEXICAL)
    assert pickle.loads(pickle.dumps(report)) == report
    assert pickle.loads(pickle.dumps(report)).support == report.support


def test_chips_carry_the_spans_of_their_passage() -> None:
    sources = [{"id": "a", "text": POLICY, "url": "https://hr.example/policy"},
               {"id": "b", "text": "Questions go to the HR service desk.",
                "url": "https://hr.example/faq"}]
    answer = ("Reimbursements settle within 30 days [a]. Questions go to the desk [b]."
              " Expense reports are due within 90 days [a].")
    guarded = citeaudit.guard(answer, {"sources": sources}, config=LEXICAL)
    chips: dict[str, Any] = {chip.source_ids[0]: chip.to_dict() for chip in guarded.chips}
    assert [(e["claim"], e["outcome"], e["quote"]) for e in chips["a"]["evidence"]] == [
        (1, "supported", "Reimbursements settle within 30 days of approval."),
        (3, "contradicted", "Expense reports are due within 60 days.")]
    for evidence in chips["a"]["evidence"]:
        assert POLICY[evidence["start"]:evidence["end"]] == evidence["quote"]
    assert [e["claim"] for e in chips["b"]["evidence"]] == [2]
    plain = citeaudit.guard(answer, {"sources": sources})
    assert all(chip.to_dict()["evidence"] == [] for chip in plain.chips)


def test_a_dropped_claim_s_span_is_on_no_chip() -> None:
    """Claim 1 cites an id the snapshot lacks beside a good one: the drop policy takes it out,
    and its chip shows only what the claim left in supports.
    """
    answer = "Reimbursements settle within 30 days [1][9]. Per diem claims follow it [1]."
    guarded = citeaudit.guard(answer, [POLICY], policy="drop", config=LEXICAL)
    assert guarded.dropped
    (chip,) = guarded.chips
    assert [e.claim for e in chip.evidence] == [2]


def test_the_html_report_marks_the_span_in_its_passage(run: Any, tmp_path: Path) -> None:
    rows = [{"id": "r1", "sources": ["<b>Fees</b> apply. " + POLICY],
             "answer": "Reimbursements settle within 14 days [1]. Parking is free [1]."}]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = tmp_path / "report.html"
    result = run("eval", str(data), "--support", "lexical", "--report", str(report))
    assert result.code == ExitCode.FAILED
    html = report.read_text()
    support = html.split("<h4>Support</h4>", 1)[1].split("</ul>", 1)[0]
    assert ('<mark class="evidence">Reimbursements settle within 30 days of approval.</mark>'
            in support)
    assert "&lt;b&gt;Fees&lt;/b&gt; apply." in support  # the passage around it, escaped
    assert "claim 1: contradicted" in support
    assert "claim 2: unsupported</span> (score 0.000) \u2014 no span: no passage" in support
