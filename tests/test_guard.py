"""Policies for what fails: strip, drop, withhold; an unverifiable marker is never served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given

import citeaudit
from citeaudit import DEFAULT_FALLBACK, Ref, guard
from citeaudit.core._config import Config
from citeaudit.core._engine import choose_grammar, resolve_id
from test_properties import PROFILE, grammars, real_answers

PASSAGES = json.loads((Path(__file__).parent / "data/seeds/002/passages.json").read_text())
ANSWER = ("Reports are due in 60 days [1]. Refunds take 14 days [7]. Per diem follows [2][9].\n"
          "- Desk hours [3, 8].\n"
          "- Parking is free [8].\n"
          "- Travel is booked by the desk [3].")


@pytest.mark.parametrize(("policy", "text", "removed", "dropped"), [
    ("strip",
     "Reports are due in 60 days [1]. Refunds take 14 days. Per diem follows [2].\n"
     "- Desk hours [3].\n- Parking is free.\n- Travel is booked by the desk [3].",
     ("[7]", "[9]", "[8]"), ()),
    ("drop",
     "Reports are due in 60 days [1].\n- Travel is booked by the desk [3].",
     (), (2, 3, 4, 5)),
    ("withhold", DEFAULT_FALLBACK, (), ()),
])
def test_policies(policy: citeaudit.guard.Policy, text: str, removed: tuple[str, ...],
                  dropped: tuple[int, ...]) -> None:
    served = guard(ANSWER, PASSAGES, policy=policy)
    assert served.status == "unverified"
    assert served.review
    assert served.text == text
    assert served.removed == removed
    assert served.dropped == dropped
    assert served.withheld == (policy == "withhold")
    assert served.snapshot.ids == ("1", "2", "3")  # the registry goes with it to review
    assert served.report.errors == 4


def test_drop_renumbers_the_chips_that_remain() -> None:
    passages = [{"text": t, "url": f"https://d.example/{t}"} for t in ("a", "b", "c")]
    served = guard("Dropped [1][9]. Kept [3]. Kept too [2]. Also [1].", passages,
                   policy="drop")
    assert served.text == "Kept [3]. Kept too [2]. Also [1]."
    assert [(c.number, c.source_ids, c.claims) for c in served.chips] == [
        (1, ("3",), (2,)), (2, ("2",), (3,)), (3, ("1",), (4,))]
    shared = guard("Dropped [1][9]. Kept [2].", PASSAGES, policy="drop")
    assert [c.source_ids for c in shared.chips] == [("2",)]
    assert [p.chips for p in served.parts if isinstance(p, Ref)] == [(1,), (2,), (3,)]


def test_drop_everything_withholds() -> None:
    served = guard("All wrong [7]. Also [8].", PASSAGES, policy="drop", fallback="Held.")
    assert (served.text, served.withheld, served.dropped) == ("Held.", True, (1, 2))


def test_a_passing_answer_is_served_unchanged() -> None:
    answer = "Reports are due in 60 days [1]. Refunds settle in 30 days [2]."
    for policy in citeaudit.POLICIES:
        served = guard(answer, PASSAGES, policy=policy)
        assert (served.status, served.text, served.withheld, served.review) == (
            "ok", answer, False, False)


def test_partial_markers_keep_their_valid_ids() -> None:
    served = guard("A [1, 9, 2]. B [S1]. C [1-4].", PASSAGES)
    assert served.text == "A [1, 2]. B [S1]. C [1, 2, 3]."
    assert [p.complete for p in served.parts if isinstance(p, Ref)] == [False, True, False]


@pytest.mark.parametrize(("answer", "text"), [
    ("Refunds take 14 days [7].", "Refunds take 14 days."),
    ("Refunds take 14 days[7] and more.", "Refunds take 14 days and more."),
    ("Refunds [7] [8] take [1] \t[9] time.", "Refunds take [1] time."),
    ("[7] Refunds.", " Refunds."),
    ("Line one.\n[7] Refunds.", "Line one.\n Refunds."),
    ("Code `[7]` stays [1].", "Code `[7]` stays [1]."),
])
def test_strip_takes_the_space_before_a_marker(answer: str, text: str) -> None:
    assert guard(answer, PASSAGES, policy="strip").text == text


@pytest.mark.parametrize(("answer", "text"), [
    ("Refunds take 14 days[7]and more [1].", "Refunds take 14 days and more [1]."),
    ("A [7,[9]8] b [1].", "A [7,\u200b8] b [1]."),  # [7,8] would be a new marker
    ("A [x [9]] b [1].", "A [x\u200b] b [1]."),
    ("`x[1]`[9]```\n[9]```\n", "`x[1]`\u200b```\n[9]```\n"),  # runs must not merge
    ("[9]```\ncode\n```", "\u200b```\ncode\n```"),  # nor a fence open
    ("Plain [9] end.", "Plain end."),
])
def test_removal_never_joins_its_neighbours_into_something_new(answer: str, text: str) -> None:
    served = guard(answer, PASSAGES, grammar="numeric")
    assert served.text == text
    again = citeaudit.audit(served.text, PASSAGES, grammar="numeric")
    assert not {f.code for f in again.findings} & {"CA201", "CA202"}


def test_refusal_keeps_no_marker() -> None:
    served = guard("Not covered by the provided documents. [2]", PASSAGES)
    assert served.status == "unverified"  # CA402
    assert served.text == "Not covered by the provided documents."
    assert served.chips == ()
    plain = guard("Not covered by the provided documents.", PASSAGES, policy="withhold")
    assert (plain.status, plain.text, plain.withheld) == (
        "no_evidence", "Not covered by the provided documents.", False)


def test_claim_lists_and_structured_answers() -> None:
    claims = ["Due in 60 days [1].", "Refunds take 14 days [7].", "Desk [3, 9]."]
    assert guard(claims, PASSAGES).text == "Due in 60 days [1].\nRefunds take 14 days.\nDesk [3]."
    assert guard(claims, PASSAGES, policy="drop").text == "Due in 60 days [1]."
    structured = {"status": "answered", "text": "Thirty days.", "citations": ["2", "9"]}
    served = guard(structured, PASSAGES)
    assert (served.text, served.removed) == ("Thirty days.[2]", ("[9]",))
    assert guard(structured, PASSAGES, policy="drop").withheld


def test_unknown_policy() -> None:
    with pytest.raises(citeaudit.ConfigError, match="policy must be one of"):
        guard("x", PASSAGES, policy="keep")  # type: ignore[arg-type]


def test_to_dict() -> None:
    data = guard("Refunds [7]. Due [1].", PASSAGES).to_dict()
    assert data["text"] == "Refunds. Due [1]."
    assert data["chips"][0]["source_ids"] == ["1"]
    assert data["report"]["status"] == "unverified"
    assert data["snapshot"]["sources"][0]["id"] == "1"  # flagged for review: registry attached
    assert json.loads(json.dumps(data)) == data
    assert "snapshot" not in guard("Due [1].", PASSAGES).to_dict()


@PROFILE
@given(real_answers, grammars, st_policy := __import__("hypothesis").strategies.sampled_from(
    ["strip", "drop"]))
# Dropping the first claim would bring the fence after it to the start of its line, which
# makes the code a fenced block and the last marker prose.
@example("[S1]1. ```\n| a | b |\n```\n[S1]", "id", "drop")
def test_no_unverifiable_marker_is_ever_served(answer: str, grammar: str | None,
                                               policy: citeaudit.guard.Policy) -> None:
    snapshot = citeaudit.load_snapshot(["one", "two", "three"])
    served = guard(answer, snapshot, policy=policy, grammar=grammar)
    chosen = choose_grammar(snapshot, grammar, Config(), answer)
    for part in served.parts:
        if isinstance(part, Ref):
            for written in part.ids:
                assert resolve_id(written, "S" if written.startswith("S") else "",
                                  snapshot) is not None
    # Re-auditing what is served finds no unknown or out-of-range citation.
    again = citeaudit.audit(served.text, snapshot, grammar=chosen)
    assert not {f.code for f in again.findings} & {"CA201", "CA202"} or served.withheld
