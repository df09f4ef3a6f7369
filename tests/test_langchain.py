"""LangChain: Documents and AIMessages converted, an LCEL chain guarded, a chain audited from
its callbacks, with langchain-core's own fake chat model and a real retriever subclass.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from requires import needs

needs("langchain_core", part="frameworks")
# ruff: noqa: E402 - the part's imports follow its check

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableParallel, RunnablePassthrough

import citeaudit.integrations.langchain as cl
from citeaudit import Guarded, InputError
from frameworks import run_async

DOCS = [
    Document(page_content="Refunds are issued within 14 days of receiving the item.",
             metadata={"source": "https://shop.example/refunds", "title": "Refunds",
                       "doc_key": "kb-7"}, id="7f3a"),
    Document(page_content="Express shipping takes 1 business day.",
             metadata={"source": "policies/shipping.md", "title": "Shipping"}, id="c21e"),
]
GOOD = "Refunds are issued within 14 days [1]. Express shipping takes 1 business day [2]."
BAD = "Refunds are issued within 14 days [1]. Express shipping is free [3]."


class Shelf(BaseRetriever):
    """A retriever that returns the same documents for every question."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self.documents


def _model(*answers: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=a) for a in answers]))


PROMPT = ChatPromptTemplate.from_messages([
    ("system", "Answer from the numbered documents; cite them as [n].\n{context}"),
    ("human", "{question}")])


def _numbered(documents: list[Document]) -> str:
    return "\n".join(f"[{n}] {d.page_content}" for n, d in enumerate(documents, 1))


def test_snapshot_from_documents() -> None:
    assert cl.snapshot_from(DOCS) == [
        {"text": DOCS[0].page_content, "title": "Refunds", "url": "https://shop.example/refunds"},
        {"text": DOCS[1].page_content, "title": "Shipping"}]
    assert [s["id"] for s in cl.snapshot_from(DOCS, ids="id")] == ["7f3a", "c21e"]
    report = cl.audit("Refunds take 14 days [7f3a].", DOCS, ids="id")
    assert report.passed
    with pytest.raises(InputError) as missing:
        cl.snapshot_from(DOCS, ids="metadata:doc_key")
    assert str(missing.value) == "<langchain>: $[1]: the Document has no metadata['doc_key']"
    with pytest.raises(InputError) as wrong:
        cl.snapshot_from([DOCS[0], {"page_content": "x"}])
    assert str(wrong.value) == "<langchain>: $[1]: not a LangChain Document but dict"


def test_an_ai_message_with_citation_annotations() -> None:
    message = AIMessage(content=[
        {"type": "text", "text": "Refunds are issued within 14 days.",
         "annotations": [{"type": "citation", "url": "https://shop.example/refunds",
                          "cited_text": "within 14 days", "start_index": 0,
                          "end_index": 33}]},
        {"type": "text", "text": " Express shipping takes 1 business day.",
         "annotations": [{"type": "citation", "title": "Shipping"}]},
        {"type": "text", "text": " Store credit never expires.",
         "annotations": [{"type": "citation", "url": "https://elsewhere.example/credit"}]}])
    answer = cl.answer_from(message, cl.snapshot_from(DOCS))
    assert answer == ("Refunds are issued within 14 days[1]. Express shipping takes 1 business"
                      " day.[2] Store credit never expires.[3]")
    report = cl.audit(message, DOCS)
    assert [f.code for f in report.findings] == ["CA202"]  # the citation of no document sent
    with pytest.raises(InputError) as bad:
        cl.audit(AIMessage(content=[{"type": "text", "text": None}]), DOCS)
    assert "$.content[0].text" in str(bad.value)


def test_guard_in_an_lcel_chain() -> None:
    retriever = Shelf(documents=DOCS)
    chain = (RunnableParallel(context=retriever, question=RunnablePassthrough())
             .assign(answer=(lambda x: {"context": _numbered(x["context"]),
                                        "question": x["question"]}) | PROMPT | _model(BAD))
             | cl.guard(policy="strip"))
    guarded = chain.invoke("How fast are refunds and shipping?")
    assert isinstance(guarded, Guarded)
    assert guarded.text == "Refunds are issued within 14 days [1]. Express shipping is free."
    assert guarded.status == "unverified"
    assert [f.code for f in guarded.report.findings] == ["CA202"]
    # With fixed documents, after a model alone; batch and async as any Runnable.
    fixed = _model(GOOD, BAD) | cl.guard(DOCS, policy="withhold")
    first, second = fixed.batch(["q", "q"])
    assert {first.status, second.status} == {"ok", "unverified"}
    assert run_async(cl.guard(DOCS).ainvoke(GOOD)).status == "ok"
    with pytest.raises(InputError, match="no documents"):
        cl.guard().invoke(GOOD)


def test_the_callback_handler_audits_a_chain_unchanged() -> None:
    handler = cl.CitationAuditHandler()
    retriever = Shelf(documents=DOCS)
    chain = ({"context": retriever | _numbered, "question": RunnablePassthrough()}
             | PROMPT | _model(GOOD, BAD))
    for _ in range(2):
        chain.invoke("How fast?", config={"callbacks": [handler]})
    assert [(a.documents, a.report.status) for a in handler.audits] == [
        (2, "ok"), (2, "unverified")]
    assert [f.code for f in handler.audits[1].report.findings] == ["CA202"]
    heard: list[Any] = []
    fixed = cl.CitationAuditHandler(DOCS[:1], on_audit=heard.append)
    _model(GOOD).invoke("q", config={"callbacks": [fixed]})
    assert [f.code for f in heard[0].report.findings] == ["CA202"]  # [2]: one document sent


def test_the_readme_example() -> None:
    readme = (Path(__file__).parents[1] / "docs" / "integrations.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
               if "citeaudit.integrations.langchain.guard(" in block]
    scope: dict[str, Any] = {"retriever": Shelf(documents=DOCS), "llm": _model(BAD, GOOD)}
    exec(code, scope)  # docs/integrations.md's own example, with a retriever and an offline model
    assert scope["guarded"].text == "Refunds are issued within 14 days [1]. Express shipping" \
        " is free."
    # the handler pairs the answer with the documents the chain's retriever returned
    assert [(a.report.status, a.documents) for a in scope["audits"]] == [("ok", 2)]
