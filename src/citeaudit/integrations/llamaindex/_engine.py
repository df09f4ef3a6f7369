"""citeaudit in LlamaIndex's own extension points: an evaluator for its evaluation runs and
a query engine that guards the answers of another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import RESPONSE_TYPE, Response, StreamingResponse
from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
from llama_index.core.prompts.mixin import PromptDictType, PromptMixinType
from llama_index.core.schema import QueryBundle

from citeaudit.core import Report, audit
from citeaudit.errors import InputError
from citeaudit.integrations.llamaindex._convert import guard_response, snapshot_from

__all__ = ["CitationEvaluator", "GuardedQueryEngine"]


def _feedback(report: Report) -> str:
    if report.passed and not report.findings:
        return f"citations hold ({report.status})"
    return "; ".join([*report.reasons, *(f"{f.code}: {f.message}" for f in report.findings)])


class CitationEvaluator(BaseEvaluator):
    """A deterministic citation evaluator: passing when the audit passes, scored by citation
    F1 (1.0 for an accepted refusal), the findings as feedback. No model, no tokens.
    """

    def __init__(self, **options: Any) -> None:
        self._options = options

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts_dict: PromptDictType) -> None:
        del prompts_dict  # no prompts: nothing to update

    def _result(self, query: str | None, answer: str, sources: list[dict[str, Any]],
                contexts: Sequence[str]) -> EvaluationResult:
        report = audit(answer, sources, **self._options)
        f1 = report.metrics.f1
        score = 1.0 if report.status == "no_evidence" and report.passed else (f1 or 0.0)
        return EvaluationResult(query=query, response=answer, contexts=list(contexts),
                                passing=report.passed, score=score,
                                feedback=_feedback(report))

    def evaluate(self, query: str | None = None, response: str | None = None,
                 contexts: Sequence[str] | None = None, **kwargs: Any) -> EvaluationResult:
        """Evaluate an answer against the contexts it was given (numbered 1..N): at once,
        without an event loop (nothing here waits).
        """
        del kwargs  # sleep_time_in_seconds and the like
        if response is None:
            return EvaluationResult(query=query, invalid_result=True,
                                    invalid_reason="no response to evaluate")
        return self._result(query, response, [{"text": c} for c in contexts or ()],
                            contexts or ())

    async def aevaluate(self, query: str | None = None, response: str | None = None,
                        contexts: Sequence[str] | None = None,
                        **kwargs: Any) -> EvaluationResult:
        """:meth:`evaluate`, for async evaluation runs."""
        return self.evaluate(query, response, contexts, **kwargs)

    def evaluate_response(self, query: str | None = None, response: Response | None = None,
                          **kwargs: Any) -> EvaluationResult:
        """Evaluate a ``Response`` against its own source nodes (their scores kept)."""
        del kwargs
        if response is None or response.response is None:
            return EvaluationResult(query=query, invalid_result=True,
                                    invalid_reason="no response to evaluate")
        sources = snapshot_from(response.source_nodes)
        return self._result(query, response.response, sources,
                            [s["text"] for s in sources])

    async def aevaluate_response(self, query: str | None = None,
                                 response: Response | None = None,
                                 **kwargs: Any) -> EvaluationResult:
        """:meth:`evaluate_response`, for async evaluation runs."""
        return self.evaluate_response(query, response, **kwargs)


class GuardedQueryEngine(BaseQueryEngine):
    """A query engine whose answers are another's, guarded: bad citations handled by the
    ``policy`` (``options`` are :func:`citeaudit.guard`'s), the report in the response's
    ``metadata["citeaudit"]``.
    """

    def __init__(self, engine: BaseQueryEngine, **options: Any) -> None:
        self._engine = engine
        self._options = options
        super().__init__(callback_manager=engine.callback_manager)

    def _get_prompt_modules(self) -> PromptMixinType:
        return {"engine": self._engine}

    def _guarded(self, response: RESPONSE_TYPE) -> Response:
        if isinstance(response, StreamingResponse):
            response = response.get_response()  # a guard needs the whole answer
        if not isinstance(response, Response):
            raise InputError(f"a guarded engine answers in text, not with a"
                             f" {type(response).__name__}", origin="<llamaindex>")
        guarded = guard_response(response, **self._options)
        metadata = dict(response.metadata or {})
        metadata["citeaudit"] = guarded.to_dict()
        return Response(response=guarded.text, source_nodes=response.source_nodes,
                        metadata=metadata)

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return self._guarded(self._engine.query(query_bundle))

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return self._guarded(await self._engine.aquery(query_bundle))
