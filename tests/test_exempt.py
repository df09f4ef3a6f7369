"""The claim decision in the report: every exempted unit with its kind and score, the presets,
``require``, CA301's reasons, and the entry points that must agree on them (the command line,
JSON, the stream, the HTML report). The scorer's own cases are in ``test_citable.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citeaudit
from citeaudit import Config
from citeaudit.core._amounts import states_amount
from thorough import examples

PASSAGES = ["Refunds are paid within 14 days of the request.",
            "The warranty covers manufacturing defects for two years.",
            "Support is open on weekdays from 9 to 5."]
# An answer with a unit of each sort: cited claims, a greeting and a question the rules
# exempt, and a reference list whose entries the layout makes references.
ANSWER = ("Thanks for asking! Refunds are paid within 14 days [1]. The warranty covers"
          " manufacturing defects [2]. Would you like more details?\n\n## References\n\n"
          "- Lee, K. (2017). Returns and refunds in retail. Journal of Commerce, 12(3), 45-60.\n"
          "- Store policy handbook. Available: https://example.org/returns.\n")
STRICT = Config(claims="strict")


def _kinds(report: citeaudit.Report) -> list[tuple[str, str]]:
    return [(ANSWER[a:b], unit.kind) for unit in report.exempt for a, b in [unit.span]]


def test_every_exempted_unit_is_in_the_report_with_its_kind() -> None:
    report = citeaudit.audit(ANSWER, PASSAGES)
    assert report.findings == ()
    kinds = _kinds(report)
    assert kinds[:2] == [("Thanks for asking!", "pleasantry"),
                         ("Would you like more details?", "question")]
    assert ("Lee, K. (2017).", "reference") in kinds  # its year is no claim in a reference
    assert {kind for _, kind in kinds[2:]} == {"reference"}
    assert all(unit.score is None for unit in report.exempt), "rules, not the model, decided"
    spans = [u.span for u in report.exempt]
    assert spans == sorted(spans), "in text order"


def test_strict_is_the_rules_alone() -> None:
    report = citeaudit.audit(ANSWER, PASSAGES, config=STRICT)
    assert {f.code for f in report.findings} == {"CA301", "CA302"}  # the references
    assert _kinds(report) == [("Thanks for asking!", "pleasantry"),
                              ("Would you like more details?", "question")]


def test_lenient_exempts_at_least_what_balanced_does() -> None:
    balanced = {u.span for u in citeaudit.audit(ANSWER, PASSAGES).exempt}
    lenient = {u.span for u in citeaudit.audit(ANSWER, PASSAGES,
                                               config=Config(claims="lenient")).exempt}
    assert balanced <= lenient


@pytest.mark.parametrize("kind", ["pleasantry", "question"])
def test_a_required_kind_needs_a_citation_again(kind: str) -> None:
    report = citeaudit.audit(ANSWER, PASSAGES, config=Config(require=frozenset({kind})))
    assert kind not in {u.kind for u in report.exempt}
    assert [f.code for f in report.findings] == ["CA301"]


def test_a_required_kind_of_the_judge_needs_a_citation_again() -> None:
    again = citeaudit.audit(ANSWER, PASSAGES, config=Config(require=frozenset({"reference"})))
    assert "reference" not in {u.kind for u in again.exempt}
    assert {f.code for f in again.findings} == {"CA301", "CA302"}


def test_bad_settings_are_errors() -> None:
    with pytest.raises(citeaudit.ConfigError, match="claims must be one of"):
        Config(claims="loose")
    with pytest.raises(citeaudit.ConfigError, match="'opinion' is no kind of unit"):
        Config(require=frozenset({"opinion"}))


def test_ca301_says_why() -> None:
    def message(answer: str) -> str:
        report = citeaudit.audit(answer, PASSAGES, config=STRICT)
        return next(f.message for f in report.findings if f.code == "CA301")

    assert "(restates passage 1)" in message("Refunds are paid within days of the request.")
    assert "(names an entity)" in message("The store in Lyon sends every parcel by Colissimo.")
    assert "(states a claim)" in message("the parcel is sent back by post.")
    figure = citeaudit.audit("Support answers calls in 3 minutes.", PASSAGES)
    assert [f.code for f in figure.findings] == ["CA302"]
    assert "states a number or quantity" in figure.findings[0].message


def test_json_holds_the_exempt_units() -> None:
    data = json.loads(json.dumps(citeaudit.audit(ANSWER, PASSAGES).to_dict()))
    assert data["exempt"][0] == {"span": [0, 18], "kind": "pleasantry", "score": None}
    assert all(set(unit) == {"span", "kind", "score"} for unit in data["exempt"])


def test_a_settled_report_has_the_same_exempt_units() -> None:
    """The verdict may be settled before the findings are made: its exempt units are then
    those of the whole audit."""
    settled = citeaudit.audit(ANSWER, PASSAGES)
    whole = citeaudit.core.run(ANSWER, PASSAGES).report
    assert settled.exempt == whole.exempt
    assert settled == whole


def test_the_stream_reports_the_same_exempt_units() -> None:
    auditor = citeaudit.stream(PASSAGES)
    for at in range(0, len(ANSWER), 7):
        auditor.feed(ANSWER[at:at + 7])
    report = auditor.finish()
    assert report.exempt == citeaudit.audit(ANSWER, PASSAGES).exempt


def test_the_guard_serves_what_the_audit_exempts() -> None:
    served = citeaudit.guard(ANSWER, PASSAGES)
    assert served.report.exempt == citeaudit.audit(ANSWER, PASSAGES).exempt


def test_check_lists_them_on_request(run: Any, tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps(PASSAGES))
    (tmp_path / "a.md").write_text(ANSWER)
    plain = run("check", str(tmp_path / "p.json"), str(tmp_path / "a.md"))
    assert "exempt" not in plain.out
    shown = run("check", str(tmp_path / "p.json"), str(tmp_path / "a.md"), "--show-exempt")
    assert shown.code == 0
    assert f'{tmp_path / "a.md"}:1:1: exempt pleasantry (a rule): "Thanks for asking!"' \
        in shown.out.splitlines()
    strict = run("check", str(tmp_path / "p.json"), str(tmp_path / "a.md"), "--claims",
                 "strict")
    assert strict.code == 1
    assert "CA301" in strict.out
    (tmp_path / "citeaudit.toml").write_text('claims = "loose"\n')
    bad = run("check", str(tmp_path / "p.json"), str(tmp_path / "a.md"), "--config",
              str(tmp_path / "citeaudit.toml"))
    assert bad.code == 2
    assert str(tmp_path / "citeaudit.toml") in bad.err
    assert "Traceback" not in bad.err


_AMOUNTS = st.sampled_from(["14 days", "$250", "30%", "2.5 million euros", "3 kg", "in 2019",
                            "12 hours", "40 mg", "1,200 employees", "8 km", "0.5 ml",
                            "March 3, 2021", "£1.2bn"])
_FRAMES = st.sampled_from([
    "I would budget {} for this.", "Thanks, it usually takes {}.", "Note that this costs {}.",
    "In my opinion the plan needs {}.", "This may vary, but expect {}.",
    "You should plan for {}.", "Here is the short version: {}.", "We will need {} at most.",
    "Overall, {} is typical.", "It is important to remember {}.", "Hope this helps: {}.",
    "The answer is {}.", "Drawing on both theories, {} seems right.",
    "Patience pays off: {} is typical.", "Happy to explain why it takes {}.",
    "It all depends, but {} is common.", "Several methods have been tried since {}.",
    "A fuller answer would need {} of data.", "Vol. 2 reports {}.", "Pages 4-5 give {}.",
    "Journal of Soils, {}.", "Costs and Fees {}",
])


@settings(max_examples=examples(60), deadline=None)
@given(frame=_FRAMES, amount=_AMOUNTS, before=st.booleans(), preset=st.sampled_from(
    ["balanced", "lenient"]))
def test_a_unit_stating_an_amount_is_never_exempted(frame: str, amount: str, before: bool,
                                                    preset: str) -> None:
    unit = frame.format(amount)
    assert states_amount(unit)
    answer = f"Refunds are paid within days [1]. {unit}" if before else unit
    report = citeaudit.audit(answer, PASSAGES, config=Config(claims=preset))
    start = answer.index(unit)
    assert not [u for u in report.exempt if u.span[0] <= start < u.span[1]]
    assert any(f.code == "CA302" and f.span is not None and f.span[0] <= start < f.span[1]
               for f in report.findings), report.findings
