"""DeepEval: CitationMetric measured directly, through DeepEval's own ``evaluate`` and
``assert_test``, and the example in docs/integrations.md.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from frameworks import BAD, GOOD, PASSAGES, REFUSAL, framework, public_names

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
framework("deepeval")

from deepeval import assert_test, evaluate  # noqa: E402 - after the framework check
from deepeval.test_case import LLMTestCase, RetrievedContextData  # noqa: E402

import citeaudit.integrations.deepeval  # noqa: E402
from citeaudit import InputError  # noqa: E402
from citeaudit.integrations.deepeval import CitationMetric, audit_test_case  # noqa: E402


def _case(answer: str, contexts: Any = PASSAGES, **fields: Any) -> LLMTestCase:
    return LLMTestCase(input="How fast are refunds?", actual_output=answer,
                       retrieval_context=contexts, **fields)


def test_correct_citations_score_one() -> None:
    metric = CitationMetric()
    assert metric.measure(_case(GOOD)) == 1.0
    assert metric.is_successful()
    assert metric.reason == "citations hold: ok, precision 1.00, recall 1.00, 2/2 claims cited"
    assert metric.score_breakdown == {"verdict": 1.0, "f1": 1.0, "precision": 1.0,
                                      "recall": 1.0, "claim_coverage": 1.0, "valid_ids": 1.0}
    assert metric.__name__ == "Citations (f1)"
    assert metric.report is not None
    assert metric.report.status == "ok"


def test_a_made_up_source_fails_with_its_finding() -> None:
    metric = CitationMetric("precision", threshold=0.4)
    assert metric.measure(_case(BAD)) == 0.5
    assert not metric.is_successful()  # the score reaches the threshold; the audit fails
    assert metric.reason == (
        "citations do not hold: unverified, precision 0.50, recall 0.50, 1/2 claims cited;"
        " CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)")
    assert metric.score_breakdown["valid_ids"] == 0.0
    assert metric.score_breakdown["verdict"] == 0.0


@pytest.mark.parametrize(("measure", "score"), [
    ("f1", 2 / 3), ("precision", 1.0), ("recall", 0.5), ("claim_coverage", 0.5),
    ("valid_ids", 1.0), ("verdict", 0.0)])  # the uncited claim fails it
def test_each_measure(measure: str, score: float) -> None:
    metric = CitationMetric(measure, threshold=0.0)
    answer = "Refunds are issued within 14 days [1]. Shipping is fast."
    assert metric.measure(_case(answer)) == pytest.approx(score)


def test_the_threshold_and_strict_mode() -> None:
    half = _case("Refunds are issued within 14 days [1].")  # recall 0.5
    assert CitationMetric("recall", threshold=0.6).measure_report(half).passed is not False
    lenient, strict = CitationMetric("recall", threshold=0.5), CitationMetric(
        "recall", strict_mode=True)
    lenient.measure(half)
    strict.measure(half)
    assert (lenient.success, lenient.score) == (True, 0.5)
    assert (strict.success, strict.score) == (False, 0.0)


def test_an_accepted_refusal_scores_its_verdict() -> None:
    metric = CitationMetric("recall")
    assert metric.measure(_case(REFUSAL)) == 1.0
    assert metric.success
    assert metric.reason == "citations hold: no_evidence"


def test_source_ids_and_retrieved_context_data() -> None:
    contexts = [RetrievedContextData(context=PASSAGES[0], source="refunds.md"),
                RetrievedContextData(context=PASSAGES[1], source="shipping.md")]
    case = _case("Refunds are issued within 14 days [S1]. Shipping is fast [S9].", contexts,
                 metadata={"source_ids": ["S1", "S2"]})
    report = audit_test_case(case)
    assert [f.code for f in report.findings] == ["CA201"]
    assert report.snapshot.ids_from == "ids"


def test_options_reach_the_audit() -> None:
    metric = CitationMetric("verdict", refusal="I do not know.")
    assert metric.measure(_case("I do not know.")) == 1.0
    assert metric.report is not None
    assert metric.report.status == "no_evidence"


def test_what_cannot_be_converted() -> None:
    with pytest.raises(InputError) as wrong:
        CitationMetric().measure(_case(GOOD, None))
    assert str(wrong.value) == "<deepeval>: $.retrieval_context: no passages to audit against"
    with pytest.raises(InputError) as wrong:
        audit_test_case(_case(GOOD, metadata={"source_ids": ["a"]}))
    assert str(wrong.value) == "<deepeval>: $.metadata.source_ids: 1 ids for 2 passages"
    with pytest.raises(InputError, match=r"\$.actual_output: the test case has no"):
        audit_test_case(LLMTestCase(input="q", retrieval_context=PASSAGES))
    with pytest.raises(ValueError, match="unknown measure 'accuracy'; choose one of verdict"):
        CitationMetric("accuracy")


def test_deepeval_runs_the_metric() -> None:
    results = evaluate(test_cases=[_case(GOOD), _case(BAD)], metrics=[CitationMetric()])
    got = [(r.success, [(m.name, m.score, m.success) for m in r.metrics_data or []])
           for r in results.test_results]
    assert sorted(got) == [(False, [("Citations (f1)", 0.5, False)]),
                           (True, [("Citations (f1)", 1.0, True)])]
    assert_test(_case(GOOD), [CitationMetric("precision", threshold=0.9)])
    with pytest.raises(AssertionError, match="CA202 error"):
        assert_test(_case(BAD), [CitationMetric("precision", threshold=0.9)])


def test_the_readme_example() -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.deepeval" in block]
    scope: dict[str, Any] = {"answer": GOOD, "passages": PASSAGES}
    exec(code, scope)  # docs/integrations.md's own example
    assert [r.success for r in scope["results"].test_results] == [True]


def test_the_public_names() -> None:
    module = citeaudit.integrations.deepeval
    assert set(module.__all__) == public_names(module)
