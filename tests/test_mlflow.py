"""MLflow: CitationScorer called directly, in ``mlflow.genai.evaluate`` on rows and on a
traced app (passages from its retriever span), and the example in docs/integrations.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from frameworks import BAD, GOOD, PASSAGES, framework, public_names

framework("mlflow")

pytestmark = [
    # MLflow's own warnings, about its own code, in its evaluation harness
    pytest.mark.filterwarnings("ignore:.*Any type hint is inferred as AnyType:UserWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:mlflow"),
    pytest.mark.filterwarnings("ignore:Starting with pandas version 4.0"),
]

import mlflow  # noqa: E402 - after the framework check
from mlflow.entities import Document, SpanType  # noqa: E402

import citeaudit.integrations.mlflow  # noqa: E402
from citeaudit import InputError  # noqa: E402
from citeaudit.integrations.mlflow import CitationScorer, sources_of_trace  # noqa: E402


@pytest.fixture(autouse=True)
def _tracking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tracking store in the test's folder (MLflow's file store, allowed explicitly)."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.setenv("MLFLOW_GENAI_EVAL_MAX_WORKERS", "1")
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())


@mlflow.trace(span_type=SpanType.RETRIEVER)
def _retrieve(question: str) -> list[Document]:
    del question
    return [Document(page_content=PASSAGES[0], metadata={"doc_uri": "https://x/refunds"}),
            Document(page_content=PASSAGES[1], metadata={"doc_uri": "https://x/shipping"})]


@mlflow.trace
def _app(question: str) -> str:
    _retrieve(question)
    return BAD


def test_feedback_per_measure() -> None:
    feedback = CitationScorer()(inputs={"sources": PASSAGES}, outputs=GOOD)
    assert [(f.name, f.value) for f in feedback] == [
        ("citation_verdict", True), ("citation_f1", 1.0), ("citation_precision", 1.0),
        ("citation_recall", 1.0), ("citation_claim_coverage", 1.0),
        ("citation_valid_ids", 1.0)]
    assert {f.rationale for f in feedback} == {
        "citations hold: ok, precision 1.00, recall 1.00, 2/2 claims cited"}
    only = CitationScorer(measures=("verdict", "valid_ids"))(
        inputs={"sources": PASSAGES}, outputs=BAD)
    assert [(f.name, f.value) for f in only] == [("citation_verdict", False),
                                                ("citation_valid_ids", 0.0)]
    assert "CA202 error: [4] cites 4" in only[0].rationale
    with pytest.raises(ValueError, match="unknown measure 'bleu'"):
        CitationScorer(measures=("bleu",))


def test_rows_in_mlflow_evaluate() -> None:
    rows = [{"inputs": {"question": "q", "sources": PASSAGES}, "outputs": GOOD},
            {"inputs": {"question": "q", "sources": PASSAGES}, "outputs": BAD}]
    result = mlflow.genai.evaluate(data=rows, scorers=[CitationScorer()])
    assert result.metrics["citation_verdict/mean"] == 0.5
    assert result.metrics["citation_precision/mean"] == 0.75


def test_a_traced_app_gives_its_retrieved_documents() -> None:
    result = mlflow.genai.evaluate(data=[{"inputs": {"question": "How fast are refunds?"}}],
                                   predict_fn=_app, scorers=[CitationScorer()])
    assert result.metrics["citation_valid_ids/mean"] == 0.0
    rationale = result.result_df["citation_verdict/rationale"][0]
    assert "CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)" in rationale
    trace = mlflow.get_trace(result.result_df["trace_id"][0])
    assert sources_of_trace(trace) == [{"text": PASSAGES[0], "url": "https://x/refunds"},
                                       {"text": PASSAGES[1], "url": "https://x/shipping"}]


def test_what_cannot_be_converted() -> None:
    with pytest.raises(InputError) as wrong:
        CitationScorer()(inputs={"question": "q"}, outputs=GOOD)
    assert str(wrong.value) == ("<mlflow>: $.inputs.sources: no passages: the inputs have no"
                                " 'sources' and there is no trace")
    with pytest.raises(InputError, match=r"\$.outputs: the row has no outputs"):
        CitationScorer()(inputs={"sources": PASSAGES})
    with pytest.raises(InputError) as wrong:
        CitationScorer()(inputs={"sources": [PASSAGES[0], 7]}, outputs=GOOD)
    assert str(wrong.value) == ("<mlflow>: $.inputs.sources[1]: a passage must be a string or"
                                " an object, not a number")


def test_the_readme_example() -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.mlflow" in block]
    scope: dict[str, Any] = {"answer": GOOD, "passages": PASSAGES, "rag_app": _app}
    exec(code, scope)  # docs/integrations.md's own example
    assert scope["result"].metrics["citation_verdict/mean"] == 1.0
    assert scope["traced"].metrics["citation_verdict/mean"] == 0.0


def test_the_public_names() -> None:
    assert set(citeaudit.integrations.mlflow.__all__) == public_names(citeaudit.integrations.mlflow)
