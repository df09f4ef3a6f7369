"""The audit inside LangChain: a guard that is a Runnable (``chain | guard(...)``), and a
callback handler that audits every model answer a chain produces against the documents its
retriever returned, without changing the chain.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.runnables import Runnable, RunnableLambda

from citeaudit.core import Report
from citeaudit.core import audit as audit_answer
from citeaudit.errors import InputError
from citeaudit.integrations.langchain._convert import answer_from, snapshot_from
from citeaudit.request import Guarded
from citeaudit.request import guard as guard_answer

__all__ = ["Audit", "CitationAuditHandler", "audit", "guard"]

_LOG = logging.getLogger("citeaudit.integrations.langchain")
_DOCUMENT_KEYS = ("documents", "context", "source_documents")


def audit(message: Any, documents: Sequence[Document], *, ids: str = "position",
          **options: Any) -> Report:
    """Audit a model's answer (an ``AIMessage`` or a string) against the ``documents`` it was
    given; ``options`` are :func:`citeaudit.audit`'s.
    """
    sources = snapshot_from(documents, ids=ids)
    return audit_answer(answer_from(message, sources), sources, **options)


def _split(value: Any, documents: Sequence[Document] | None) -> tuple[Any, Sequence[Document]]:
    """The answer and the documents of a guard's input: a message or a string (with the
    guard's documents), or a chain's dict with an ``answer`` and its documents.
    """
    if isinstance(value, dict):
        answer = value.get("answer")
        if answer is None:
            raise InputError("the chain's output has no \"answer\"", origin="<langchain>",
                             place="$.answer")
        found = next((value[key] for key in _DOCUMENT_KEYS if key in value), None)
        return answer, found if found is not None else (documents or [])
    if documents is None:
        raise InputError("no documents: give guard(documents=...) or pass a dict with"
                         " \"answer\" and \"context\"", origin="<langchain>", place="$")
    return value, documents


def guard(documents: Sequence[Document] | None = None, *, ids: str = "position",
          **options: Any) -> Runnable[Any, Guarded]:
    """A Runnable that guards the answer of the chain it is piped after: it gives the
    :class:`~citeaudit.Guarded` answer (its ``text`` with bad citations handled by the
    ``policy``, its ``chips``, its report), as in ``chain | guard(documents=docs)``.

    The input is an ``AIMessage`` or a string, or a dict with an ``answer`` and its
    documents (``context``, ``documents`` or ``source_documents``: what a retrieval chain
    passes on). ``options`` are :func:`citeaudit.guard`'s.
    """

    def guarded(value: Any) -> Guarded:
        answer, given = _split(value, documents)
        sources = snapshot_from(given, ids=ids)
        return guard_answer(answer_from(answer, sources), sources, **options)

    return RunnableLambda(guarded, name="citeaudit_guard")


class Audit(NamedTuple):
    """One model answer audited by :class:`CitationAuditHandler`."""

    run_id: UUID
    answer: str
    documents: int  # how many documents it was audited against
    report: Report


class CitationAuditHandler(BaseCallbackHandler):
    """A callback handler that audits every answer a model returns in a chain against the
    documents a retriever returned in the same chain (or ``documents``, when given), and
    keeps the audits in :attr:`audits` (and hands each to ``on_audit``, and logs it to the
    ``citeaudit.integrations.langchain`` logger). Add it to a chain's callbacks; the chain is
    unchanged.
    """

    def __init__(self, documents: Sequence[Document] | None = None, *, ids: str = "position",
                 on_audit: Callable[[Audit], None] | None = None, **options: Any) -> None:
        self.documents = documents
        self.ids = ids
        self.options = options
        self.on_audit = on_audit
        self.audits: list[Audit] = []
        # The runs of the chain, each with its parent, and the documents a retriever run
        # returned, kept on each of its ancestors: a model run finds those of the nearest
        # ancestor it shares with a retriever.
        self._parents: dict[UUID, UUID | None] = {}
        self._retrieved: dict[UUID, list[Document]] = {}
        self._lock = threading.Lock()

    def _started(self, run_id: UUID, parent_run_id: UUID | None) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID,
                       parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        self._started(run_id, parent_run_id)

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID,
                           parent_run_id: UUID | None = None,
                           **kwargs: Any) -> None:
        self._started(run_id, parent_run_id)

    def on_chain_end(self, outputs: Any, *, run_id: UUID,
                     parent_run_id: UUID | None = None,
                     **kwargs: Any) -> None:
        if parent_run_id is None:  # the whole chain is done: forget its runs
            with self._lock:
                for run in [r for r in self._parents if self._root(r) == run_id]:
                    self._parents.pop(run, None)
                    self._retrieved.pop(run, None)
                self._retrieved.pop(run_id, None)

    def _root(self, run: UUID) -> UUID:
        while (parent := self._parents.get(run)) is not None:
            run = parent
        return run

    def _ancestors(self, run: UUID | None) -> list[UUID]:
        found = []
        while run is not None and run not in found:
            found.append(run)
            run = self._parents.get(run)
        return found

    def on_retriever_end(self, documents: Sequence[Document], *,
                         run_id: UUID,
                         parent_run_id: UUID | None = None,
                         **kwargs: Any) -> None:
        with self._lock:
            for run in self._ancestors(parent_run_id):
                self._retrieved[run] = list(documents)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID,
                   parent_run_id: UUID | None = None,
                   **kwargs: Any) -> None:
        with self._lock:
            documents: Sequence[Document] = self.documents if self.documents is not None \
                else next((self._retrieved[run] for run in self._ancestors(parent_run_id)
                           if run in self._retrieved), [])
        sources = snapshot_from(documents, ids=self.ids)
        for generations in response.generations:
            for generation in generations:
                message = generation.message if isinstance(generation, ChatGeneration) \
                    else generation.text
                answer = answer_from(message, sources)
                report = audit_answer(answer, sources, **self.options)
                done = Audit(run_id, answer, len(sources), report)
                with self._lock:
                    self.audits.append(done)
                _LOG.info("citeaudit: %s %s (%s)", run_id, report.status,
                          ", ".join(f.code for f in report.findings) or "no findings")
                if self.on_audit is not None:
                    self.on_audit(done)
