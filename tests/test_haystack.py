"""Haystack: the component in a real pipeline (an in-memory store, BM25 retrieval, a prompt,
a scripted generator component, AnswerBuilder with its reference_pattern).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from requires import needs

needs("haystack", part="frameworks")
# ruff: noqa: E402 - the part's imports follow its check

from haystack import Document, Pipeline, component
from haystack.components.builders import AnswerBuilder, PromptBuilder
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.dataclasses import ChatMessage
from haystack.document_stores.in_memory import InMemoryDocumentStore

import citeaudit.integrations.haystack as ch
from citeaudit import InputError

TEXTS = ["Refunds are issued within 14 days of receiving the returned item.",
         "Express shipping takes 1 business day.", "Store credit never expires."]
TEMPLATE = """Answer from the numbered documents; cite them as [n].
{% for document in documents %}[{{ loop.index }}] {{ document.content }}
{% endfor %}Question: {{ query }}"""


@component
class Scripted:
    """A generator that gives the replies it was told, in order."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)

    @component.output_types(replies=list[str])
    def run(self, prompt: str) -> dict[str, Any]:
        assert "[1]" in prompt
        return {"replies": [self.replies.pop(0)]}


def _pipeline(reply: str, *, builder: bool) -> Pipeline:
    store = InMemoryDocumentStore()
    store.write_documents([Document(content=t, meta={"title": f"Policy {n}"})
                           for n, t in enumerate(TEXTS, 1)])
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(store, top_k=3))
    pipeline.add_component("prompt", PromptBuilder(TEMPLATE, required_variables=["query"]))
    pipeline.add_component("llm", Scripted([reply]))
    pipeline.add_component("guard", ch.CitationGuard(policy="strip"))
    pipeline.connect("retriever.documents", "prompt.documents")
    pipeline.connect("prompt.prompt", "llm.prompt")
    if builder:
        pipeline.add_component("answers", AnswerBuilder(reference_pattern=r"\[(\d+)\]"))
        pipeline.connect("llm.replies", "answers.replies")
        pipeline.connect("retriever.documents", "answers.documents")
        pipeline.connect("answers.answers", "guard.answers")
    else:
        pipeline.connect("llm.replies", "guard.replies")
        pipeline.connect("retriever.documents", "guard.documents")
    return pipeline


def test_replies_and_documents_in_a_pipeline() -> None:
    pipeline = _pipeline("Refunds are issued within 14 days [1]. Shipping is free [5].",
                         builder=False)
    out = pipeline.run({"retriever": {"query": "refunds"}, "prompt": {"query": "refunds"}})
    guarded = out["guard"]
    assert guarded["replies"] == ["Refunds are issued within 14 days [1]. Shipping is free."]
    assert guarded["passed"] is False
    assert [f["code"] for f in guarded["reports"][0]["findings"]] == ["CA202"]


def test_after_answer_builder_numbers_are_kept() -> None:
    """AnswerBuilder keeps only the documents referenced: [3] is still the third shown."""
    pipeline = _pipeline("Store credit never expires [3]. Refunds take a year [7].",
                         builder=True)
    out = pipeline.run({"retriever": {"query": "refunds express shipping store credit"},
                        "prompt": {"query": "store credit"}, "answers": {"query": "q"}})
    guarded = out["guard"]
    (answer,) = guarded["answers"]
    assert answer.data == "Store credit never expires [3]. Refunds take a year."
    assert answer.meta["citeaudit"]["status"] == "unverified"
    findings = answer.meta["citeaudit"]["findings"]
    assert [(f["code"], f["marker"]) for f in findings] == [("CA201", "[7]")]


def test_snapshot_and_bad_objects() -> None:
    documents = [Document(content=t, score=0.5) for t in TEXTS]
    assert ch.snapshot_from(documents)[0] == {"text": TEXTS[0], "score": 0.5}
    with pytest.raises(InputError) as wrong:
        ch.snapshot_from([documents[0], {"content": "x"}])
    assert str(wrong.value) == "<haystack>: $[1]: not a Haystack Document but dict"
    with pytest.raises(InputError, match=r"\$\[0\].content: the Document has no text"):
        ch.snapshot_from([Document(content=None)])
    guard = ch.CitationGuard()
    result = guard.run(replies=[ChatMessage.from_assistant("Refunds take 14 days [1].")],
                       documents=documents)
    assert result["passed"] is True
    with pytest.raises(InputError, match="replies need the documents"):
        guard.run(replies=["x"])


def test_the_readme_example() -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.haystack.CitationGuard(" in block]
    pipeline = _pipeline("Refunds are issued within 14 days [1]. Shipping is free [5].",
                         builder=False)
    pipeline.remove_component("guard")
    scope: dict[str, Any] = {"pipeline": pipeline}
    exec(code, scope)  # docs/integrations.md's own example, on a pipeline with a scripted generator
    assert scope["result"]["guard"]["passed"] is False
