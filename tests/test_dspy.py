"""DSPy: Documents and Citations audited (their character ranges checked), marker answers
over passages, and the metric used by DSPy's own Evaluate and BootstrapFewShot with DSPy's
offline DummyLM.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from requires import needs

needs("dspy", part="frameworks")
# ruff: noqa: E402 - the part's imports follow its check

import dspy
from dspy.adapters.types.citation import Citations
from dspy.adapters.types.document import Document
from dspy.utils import DummyLM

import citeaudit.integrations.dspy as cd
from citeaudit import InputError

DOCS = [Document(data="Refunds are issued within 14 days of receiving the returned item.",
                 title="Refunds"),
        Document(data="Express shipping takes 1 business day.", title="Shipping")]
PASSAGES = [d.data for d in DOCS]


def _citation(index: int, start: int, end: int, quoted: str, supported: str) -> Any:
    return Citations.Citation(cited_text=quoted, document_index=index, start_char_index=start,
                              end_char_index=end, supported_text=supported)


def test_citations_are_checked_against_the_documents() -> None:
    example = dspy.Example(question="q", documents=DOCS).with_inputs("question", "documents")
    right = dspy.Prediction(answer="Refunds take 14 days. Shipping takes a day.",
                            citations=Citations(citations=[
                                _citation(0, 19, 33, "within 14 days", "Refunds take 14 days."),
                                _citation(1, 17, 37, "takes 1 business day",
                                          "Shipping takes a day.")]))
    report = cd.audit_prediction(example, right)
    assert (report.status, report.findings) == ("ok", ())
    assert cd.metric(example, right) == 1.0
    wrong = dspy.Prediction(answer="Refunds take 14 days. Shipping takes a day.",
                            citations=Citations(citations=[
                                _citation(0, 19, 33, "within 14 days", "Refunds take 14 days."),
                                _citation(1, 17, 29, "takes 2 days", "Shipping takes a day.")]))
    assert [f.code for f in cd.audit_prediction(example, wrong).findings] == ["CA204"]
    assert cd.metric(example, wrong) == 0.0
    assert cd.metric(example, wrong, trace=[]) is False


def test_markers_over_passages_and_other_field_names() -> None:
    example = dspy.Example(context=PASSAGES)
    good = dspy.Prediction(response="Refunds take 14 days [1]. Shipping takes a day [2].")
    bad = dspy.Prediction(response="Refunds take 14 days [1]. Credit never expires [3].")
    scored = cd.citation_metric(answer="response", documents="context")
    assert scored(example, good) == 1.0
    assert scored(example, bad) == 0.0
    refusal = dspy.Prediction(response="Not covered by the provided documents.")
    assert scored(example, refusal) == 1.0


def test_the_metric_in_evaluate_and_an_optimizer() -> None:
    program = dspy.Predict("question, documents -> answer")
    devset = [dspy.Example(question="How fast are refunds?", documents=PASSAGES)
              .with_inputs("question", "documents") for _ in range(2)]
    lm = DummyLM([{"answer": "Refunds take 14 days [1]."},
                  {"answer": "Refunds take 14 days [4]."}] * 4)
    with dspy.context(lm=lm):
        result = dspy.Evaluate(devset=devset, metric=cd.metric, num_threads=1,
                               display_progress=False)(program)
        assert result.score == pytest.approx(33.33)  # F1 2/3 (1 of 2 cited), then 0.0
        optimizer = dspy.BootstrapFewShot(metric=cd.metric, max_bootstrapped_demos=1,
                                          max_labeled_demos=0, max_rounds=1)
        compiled = optimizer.compile(program, trainset=devset)
    demos = compiled.demos
    assert len(demos) == 1
    assert demos[0].answer == "Refunds take 14 days [1]."  # only the passing trace kept


def test_what_cannot_be_converted() -> None:
    with pytest.raises(InputError) as wrong:
        cd.audit_prediction(dspy.Example(documents=[DOCS[0], {"data": "x"}]),
                            dspy.Prediction(answer="x [1].",
                                            citations=Citations(citations=[])))
    assert str(wrong.value) == "<dspy>: $.documents[1]: not a dspy Document but dict"
    with pytest.raises(InputError, match=r"\$.answer: the prediction has no 'answer'"):
        cd.metric(dspy.Example(documents=PASSAGES), dspy.Prediction(text="x"))


def test_the_readme_example() -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.dspy.metric" in block]
    devset = [dspy.Example(question="How fast are refunds?", documents=PASSAGES)
              .with_inputs("question", "documents")]
    scope: dict[str, Any] = {"devset": devset}
    with dspy.context(lm=DummyLM([{"answer": "Refunds take 14 days [1] [2]."}] * 8)):
        exec(code, scope)  # docs/integrations.md's own example, with DSPy's offline DummyLM
    assert scope["score"].score == pytest.approx(100.0)
    assert len(scope["compiled"].demos) == 1
