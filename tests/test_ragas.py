"""RAGAS: CitationScore scored directly, through RAGAS's own ``evaluate`` (no LLM, no
embeddings: nothing to configure), with and without context ids, and the example in
docs/integrations.md.
"""

from __future__ import annotations

import gc
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from frameworks import BAD, GOOD, PASSAGES, REFUSAL, framework, public_names

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
framework("ragas")

pytestmark = [
    # RAGAS 0.4 deprecates evaluate() for its experiments, which still run these metrics;
    # its analytics leave a file open.
    pytest.mark.filterwarnings(r"ignore:a?evaluate\(\) is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:unclosed file:ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture(autouse=True)
def _collected() -> Iterator[None]:
    """RAGAS's synchronous calls leave an event loop and its sockets open: collected here,
    where the warnings about them are RAGAS's, not in whichever test runs next.
    """
    yield
    gc.collect()

from ragas import EvaluationDataset, evaluate  # noqa: E402 - after the framework check
from ragas.dataset_schema import SingleTurnSample  # noqa: E402

import citeaudit.integrations.ragas  # noqa: E402
from citeaudit import InputError  # noqa: E402
from citeaudit.integrations.ragas import CitationScore, audit_sample  # noqa: E402


def _sample(answer: str, contexts: Any = PASSAGES, **fields: Any) -> SingleTurnSample:
    return SingleTurnSample(user_input="How fast are refunds?", response=answer,
                            retrieved_contexts=contexts, **fields)


def test_scores_and_names() -> None:
    assert CitationScore().name == "citation_f1"
    assert CitationScore(measure="valid_ids").name == "citation_valid_ids"
    assert CitationScore(name="cites").name == "cites"
    assert CitationScore().single_turn_score(_sample(GOOD)) == 1.0
    assert CitationScore(measure="valid_ids").single_turn_score(_sample(BAD)) == 0.0
    assert CitationScore(measure="recall").single_turn_score(_sample(BAD)) == 0.5
    assert CitationScore(measure="recall").single_turn_score(_sample(REFUSAL)) == 1.0
    with pytest.raises(ValueError, match="unknown measure 'faithfulness'"):
        CitationScore(measure="faithfulness")


def test_score_gives_the_reason() -> None:
    result = CitationScore(measure="precision").score(response=BAD,
                                                      retrieved_contexts=PASSAGES)
    assert result.value == 0.5
    assert result.reason == (
        "citations do not hold: unverified, precision 0.50, recall 0.50, 1/2 claims cited;"
        " CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)")


def test_context_ids_are_the_ids() -> None:
    sample = _sample("Refunds are issued within 14 days [doc-a].",
                     retrieved_context_ids=["doc-a", "doc-b"])
    report = audit_sample(sample)
    assert (report.status, report.snapshot.ids_from) == ("ok", "ids")
    assert CitationScore(measure="recall").single_turn_score(sample) == 0.5


def test_options_reach_the_audit() -> None:
    metric = CitationScore(measure="verdict", options={"refusal": "I do not know."})
    assert metric.single_turn_score(_sample("I do not know.")) == 1.0


def test_ragas_evaluates_the_metric() -> None:
    dataset = EvaluationDataset(samples=[
        _sample(GOOD), _sample(BAD),
        _sample("Refunds are issued within 14 days [b].", retrieved_context_ids=["a", "b"])])
    result = evaluate(dataset, metrics=[CitationScore(), CitationScore(measure="verdict")],
                      show_progress=False)
    table = result.to_pandas()
    assert table["citation_f1"].tolist() == pytest.approx([1.0, 0.5, 2 / 3])
    assert table["citation_verdict"].tolist() == [1.0, 0.0, 1.0]  # no recall threshold


def test_what_cannot_be_converted() -> None:
    with pytest.raises(InputError) as wrong:
        audit_sample(_sample(GOOD, None))
    assert str(wrong.value) == "<ragas>: $.retrieved_contexts: no passages to audit against"
    with pytest.raises(InputError) as wrong:
        audit_sample(_sample(GOOD, retrieved_context_ids=["a"]))
    assert str(wrong.value) == "<ragas>: $.retrieved_context_ids: 1 ids for 2 passages"
    with pytest.raises(InputError, match=r"\$.response: the sample has no response"):
        audit_sample(SingleTurnSample(user_input="q", retrieved_contexts=PASSAGES))
    # In a RAGAS run, a row that cannot be audited scores NaN (RAGAS logs the error).
    result = evaluate(EvaluationDataset(samples=[_sample(GOOD, retrieved_context_ids=["a"])]),
                      metrics=[CitationScore()], show_progress=False)
    assert math.isnan(result.to_pandas()["citation_f1"][0])


def test_the_readme_example() -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.ragas" in block]
    scope: dict[str, Any] = {"answer": BAD, "passages": PASSAGES}
    exec(code, scope)  # docs/integrations.md's own example
    table = scope["scores"].to_pandas()
    assert (table["citation_f1"][0], table["citation_valid_ids"][0]) == (0.5, 0.0)


def test_the_public_names() -> None:
    assert set(citeaudit.integrations.ragas.__all__) == public_names(citeaudit.integrations.ragas)
