"""citeaudit in LlamaIndex (``pip install 'citeaudit[llamaindex]'``: ``llama-index-core``).

:func:`snapshot_from` makes a response's source nodes a snapshot (scores kept;
``CitationQueryEngine``'s ``Source N:`` chunks resolved to their nodes);
:func:`audit_response` and :func:`guard_response` audit and guard a ``Response``;
:class:`CitationEvaluator` is an evaluator for LlamaIndex evaluation runs and
:class:`GuardedQueryEngine` guards the answers of another query engine.
"""

from citeaudit.integrations.llamaindex._convert import audit_response, guard_response, snapshot_from
from citeaudit.integrations.llamaindex._engine import CitationEvaluator, GuardedQueryEngine

__all__ = ["CitationEvaluator", "GuardedQueryEngine", "audit_response", "guard_response",
           "snapshot_from"]
