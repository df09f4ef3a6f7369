"""LlamaIndex: a real index and query engines (LlamaIndex's MockEmbedding, an LLM built on
its CustomLLM that answers as told), CitationQueryEngine's re-chunks, the evaluator and the
guarded engine.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from requires import needs

needs("llama_index", part="frameworks")
# ruff: noqa: E402 - the part's imports follow its check

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.evaluation import BaseEvaluator
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.query_engine import CitationQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

import citeaudit.integrations.llamaindex as cli
from citeaudit import InputError
from frameworks import run_async

TEXTS = ["Refunds are issued within 14 days of receiving the returned item.",
         "Express shipping takes 1 business day.", "Store credit never expires."]


class Scripted(CustomLLM):
    """An offline LLM that gives the answers it was told, in order."""

    answers: list[str]

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4096, num_output=256, model_name="scripted")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.answers.pop(0))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.fixture
def index() -> VectorStoreIndex:
    Settings.embed_model = MockEmbedding(embed_dim=8)
    documents = [Document(text=t, metadata={"title": f"Policy {n}"}, doc_id=f"doc-{n}")
                 for n, t in enumerate(TEXTS, 1)]
    return VectorStoreIndex.from_documents(documents)


def test_a_query_engines_response(index: VectorStoreIndex) -> None:
    engine = index.as_query_engine(llm=Scripted(answers=[
        "Refunds are issued within 14 days [1]. Store credit expires after a year [5]."]),
        similarity_top_k=3)
    response = engine.query("How fast are refunds?")
    sources = cli.snapshot_from(response.source_nodes)
    assert len(sources) == 3
    assert all(isinstance(s["score"], float) for s in sources)  # kept for weighted coverage
    report = cli.audit_response(response)
    assert [f.code for f in report.findings] == ["CA202"]
    assert report.metrics.weighted_coverage is not None
    guarded = cli.guard_response(response, policy="strip")
    assert guarded.text == "Refunds are issued within 14 days [1]. Store credit expires after" \
        " a year."


def test_citation_query_engine_chunks_resolve_to_their_nodes(index: VectorStoreIndex) -> None:
    engine = CitationQueryEngine.from_args(index, llm=Scripted(answers=[
        "Refunds take 14 days [1]. Express shipping takes 1 business day [2]."]),
        similarity_top_k=3, citation_chunk_size=512)
    retrieved = engine.retrieve(index.as_retriever().retrieve("refunds")[0].node.get_content())
    response = engine.query("How fast are refunds and shipping?")
    assert response.source_nodes[0].node.get_content().startswith("Source 1:\n")
    sources = cli.snapshot_from(response.source_nodes, originals=retrieved)
    assert [s["text"] for s in sources] == [n.node.get_content().split("\n", 1)[1].rstrip("\n")
                                            for n in response.source_nodes]
    assert {s["metadata"]["node_id"] for s in sources} <= {n.node.node_id for n in retrieved}
    by_text = {n.node.get_content(): n.node.node_id for n in retrieved}
    assert sources[0]["metadata"]["node_id"] == by_text[sources[0]["text"]]
    report = cli.audit_response(response)
    assert report.passed
    # Out of order, the numbering cannot be trusted: one clear error.
    with pytest.raises(InputError) as shuffled:
        cli.snapshot_from(list(reversed(response.source_nodes)))
    assert "$[0].text: the chunk is labelled Source 3, not Source 1" in str(shuffled.value)


def test_the_evaluator(index: VectorStoreIndex) -> None:
    evaluator = cli.CitationEvaluator()
    assert isinstance(evaluator, BaseEvaluator)
    good = evaluator.evaluate(query="q", response="Refunds take 14 days [1].",
                              contexts=TEXTS)
    assert (good.passing, good.score) == (True, 0.5)  # F1: precision 1, recall 1 of 3
    bad = evaluator.evaluate(query="q", response="Refunds take 14 days [4].", contexts=TEXTS)
    assert bad.passing is False
    assert "CA202" in bad.feedback
    engine = index.as_query_engine(llm=Scripted(answers=["Refunds take 14 days [1]."]),
                                   similarity_top_k=3)
    result = run_async(evaluator.aevaluate_response(query="q",
                                                      response=engine.query("refunds?")))
    assert result.passing is True
    assert len(result.contexts) == 3
    missing = evaluator.evaluate(query="q", response=None, contexts=TEXTS)
    assert missing.invalid_result is True


def test_the_guarded_query_engine(index: VectorStoreIndex) -> None:
    inner = index.as_query_engine(llm=Scripted(answers=[
        "Refunds take 14 days [1]. Shipping is free [7].",
        "Refunds take 14 days [1]."]), similarity_top_k=3)
    engine = cli.GuardedQueryEngine(inner, policy="strip")
    first = engine.query("refunds?")
    assert str(first) == "Refunds take 14 days [1]. Shipping is free."
    assert first.metadata["citeaudit"]["status"] == "unverified"
    second = run_async(engine.aquery("refunds?"))
    assert second.metadata["citeaudit"]["status"] == "ok"


def test_objects_that_cannot_be_converted() -> None:
    with pytest.raises(InputError) as wrong:
        cli.snapshot_from([NodeWithScore(node=TextNode(text="x")), TextNode(text="y")])
    assert str(wrong.value) == "<llamaindex>: $[1]: not a LlamaIndex NodeWithScore but TextNode"
    with pytest.raises(InputError, match=r"\$.response: the response has no text"):
        cli.audit_response(Response(response=None))


def test_the_readme_example(index: VectorStoreIndex) -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.llamaindex.audit_response(" in block]
    scope: dict[str, Any] = {"index": index, "llm": Scripted(answers=[
        "Refunds take 14 days [1]. Shipping is free [6]."])}
    exec(code, scope)  # docs/integrations.md's own example, with an offline LLM
    assert [f.code for f in scope["report"].findings] == ["CA202"]
    assert scope["guarded"].text == "Refunds take 14 days [1]. Shipping is free."
    assert scope["result"].passing is False
    assert isinstance(scope["safe"], cli.GuardedQueryEngine)
